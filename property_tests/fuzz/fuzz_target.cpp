// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: decodes its input into the command language of the
// property tests (commands.hpp: byte 0 the capacity, then 3 bytes a command)
// and runs the program on every registered implementation family
// (bcast/spec/families.hpp: both position policies and bcast::fast; with the
// counted, throwing-copy message type where the family's profile allows it,
// else int) and on bcast::spec::model, comparing every result and checking every named
// property (runner.hpp, ghost_checks.hpp). A disagreement prints the trace and
// aborts, so libFuzzer saves the input; replay it with
// `bcast_replay --trace --bytes FILE`.
//
// Built by run_fuzz.sh with clang and -fsanitize=fuzzer,address,undefined
// (docs/property-tests.md).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "bcast_prop/commands.hpp"
#include "bcast_prop/implementations.hpp"
#include "bcast_prop/messages.hpp"
#include "bcast_prop/runner.hpp"

namespace {

using namespace bcast::prop;

// Longer programs reach no new state: receivers and capacities are small.
constexpr std::size_t max_commands = 400;

template <class Family, class Msg>
void check(const program& p) {
    runner<typename Family::template channel<Msg>, Msg> run;
    try {
        run.run(p);
    } catch (const mismatch& failure) {
        std::fprintf(stderr, "\n== bcast fuzz: %.*s disagrees with the spec model\n%s\nprogram: %s\n",
                     static_cast<int>(Family::name.size()), Family::name.data(), failure.what(), to_string(p).c_str());
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 1 + 3 * max_commands) return -1; // not added to the corpus
    const program p = decode(data, size);
    registered_families::for_each([&]<class Family>() {
        if constexpr (takes_counted_messages<Family>) check<Family, instrumented_message>(p);
        else check<Family, int>(p);
    });
    return 0;
}
