// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target for the history reader (docs/traces.md, "Histories";
// spec/traces/include/bcast/trace/history.hpp): its input is the text of a
// history file. Every input must either be refused with a format_error that
// names its line ("history:LINE: ..."), or be read; what is read must be
// written back by write_history to text that reads as the same histories
// (a round trip), and must be checkable by bcast::spec::check_history without
// any other exception (the search bounded, so that a long history cannot time
// the run out). Anything else aborts, so libFuzzer saves the input.
//
// Built by run_fuzz.sh (BCAST_FUZZ_TARGET=history) with clang and
// -fsanitize=fuzzer,address,undefined; the seed corpus is history_corpus/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include <bcast/spec/linearizability.hpp>
#include <bcast/trace/history.hpp>

namespace {

using bcast::trace::history;

[[noreturn]] void fail(const std::string& what, const std::string& input) {
    std::fprintf(stderr, "\n== bcast history fuzz: %s\ninput:\n%s\n", what.c_str(), input.c_str());
    std::abort();
}

bool same(const history& a, const history& b) {
    if (a.id != b.id || a.capacity != b.capacity || a.threads != b.threads || a.target != b.target ||
        a.implementation != b.implementation || a.seed != b.seed || a.stall_ms != b.stall_ms ||
        a.calls_per_thread != b.calls_per_thread || a.contention != b.contention || a.calls.size() != b.calls.size() ||
        a.timeout_us != b.timeout_us)
        return false;
    for (std::size_t i = 0; i < a.calls.size(); ++i) {
        const bcast::spec::call &x = a.calls[i], &y = b.calls[i];
        if (x.kind != y.kind || x.thread != y.thread || x.handle != y.handle || x.out != y.out || x.arg != y.arg ||
            x.invoked != y.invoked || x.returned != y.returned || !(x.result == y.result))
            return false;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 8192) return -1; // longer files reach nothing new; not added to the corpus
    const std::string input(reinterpret_cast<const char*>(data), size);
    std::vector<history> read;
    try {
        std::istringstream in(input);
        read = bcast::trace::read_histories(in, "history");
    } catch (const bcast::trace::format_error& e) {
        const std::string what = e.what();
        if (what.rfind("history:", 0) != 0) fail("a format error that does not name its line: " + what, input);
        return 0;
    } catch (const std::exception& e) {
        fail(std::string("the reader threw something other than a format error: ") + e.what(), input);
    }
    std::ostringstream written;
    for (const history& h : read) bcast::trace::write_history(written, h);
    std::vector<history> again;
    try {
        std::istringstream in(written.str());
        again = bcast::trace::read_histories(in, "written");
    } catch (const std::exception& e) {
        fail(std::string("what write_history wrote does not read back: ") + e.what() + "\nwritten:\n" + written.str(), input);
    }
    if (again.size() != read.size()) fail("the round trip changed the number of histories", input);
    for (std::size_t i = 0; i < read.size(); ++i)
        if (!same(read[i], again[i])) fail("the round trip changed history " + std::to_string(read[i].id), input);
    bcast::spec::check_options options;
    options.max_states = 20'000;
    for (const history& h : read) {
        try {
            (void)bcast::spec::check_history(h.calls, h.capacity, 0, 1, options);
        } catch (const std::exception& e) {
            fail(std::string("the checker threw on a history the reader accepted: ") + e.what(), input);
        }
    }
    return 0;
}
