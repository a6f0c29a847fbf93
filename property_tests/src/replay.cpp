// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_replay: runs programs of the command language (docs/property-tests.md)
// against every implementation family, with both message types, and prints
// what happened. For a counterexample printed by a property test or a crash
// file written by the fuzzer.
//
//   bcast_replay [--trace] 'cap:2 try_broadcast clone_receiver set_capacity:0:1 try_recv:1'
//   bcast_replay [--trace] --bytes crash-1234abcd      (a fuzzer input)
//   bcast_replay --encode 'cap:2 try_broadcast' > seed  (text -> fuzzer input)
//
// Exit status 0 if every run agrees with the model, 1 if one does not, 2 on a
// usage error.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "bcast_prop/commands.hpp"
#include "bcast_prop/implementations.hpp"
#include "bcast_prop/messages.hpp"
#include "bcast_prop/runner.hpp"

namespace {

using namespace bcast::prop;

template <class Family, class Msg>
bool replay(const program& p, bool trace, const char* message_name) {
    runner<typename Family::template channel<Msg>, Msg> run;
    std::cout << "== " << Family::name << ", messages: " << message_name << ": ";
    try {
        run.run(p);
    } catch (const mismatch& failure) {
        std::cout << "FAILED\n" << failure.what() << "\n";
        return false;
    }
    std::cout << "ok\n";
    if (trace) {
        for (std::size_t i = 0; i < run.trace().size(); ++i) std::cout << "    " << i << ". " << run.trace()[i] << "\n";
    }
    return true;
}

// With both message types, unless the family's profile rules out counted ones
// (bcast::fast: P-FAST-1, trivially copyable messages only).
template <class Family>
bool replay_family(const program& p, bool trace) {
    const bool plain = replay<Family, int>(p, trace, "int");
    if constexpr (!takes_counted_messages<Family>) {
        constexpr const bcast::spec::conformance_profile& declared =
            bcast::spec::profile_of<typename Family::template channel<int>>();
        std::cout << "== " << Family::name << ", messages: instrumented_message: not applicable ("
                  << declared.describe(declared.without_counted_messages) << ")\n";
        return plain;
    } else {
        return plain && replay<Family, instrumented_message>(p, trace, "instrumented_message (counted, throwing copy)");
    }
}

int usage() {
    std::cerr << "usage: bcast_replay [--trace] PROGRAM... | [--trace] --bytes FILE... | --encode PROGRAM\n";
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    bool trace = false, bytes = false, encode_only = false;
    std::vector<program> programs;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--trace") { trace = true; continue; }
        if (arg == "--bytes") { bytes = true; continue; }
        if (arg == "--encode") { encode_only = true; continue; }
        if (arg == "--help" || arg == "-h") return usage();
        if (bytes) {
            std::ifstream in(arg, std::ios::binary);
            if (!in) { std::cerr << "cannot read " << arg << "\n"; return 2; }
            const std::vector<unsigned char> data{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
            programs.push_back(decode(data.data(), data.size()));
        } else {
            std::string error;
            auto parsed = parse_program(arg, &error);
            if (!parsed) { std::cerr << "cannot parse '" << arg << "': " << error << "\n"; return 2; }
            programs.push_back(*parsed);
        }
    }
    if (programs.empty()) return usage();
    if (encode_only) {
        for (const program& p : programs) {
            const std::vector<std::uint8_t> data = encode(p);
            std::fwrite(data.data(), 1, data.size(), stdout);
        }
        return 0;
    }
    bool all_ok = true;
    for (const program& p : programs) {
        std::cout << "program: " << p << "\n";
        replayed_families::for_each([&]<class Family>() { all_ok = replay_family<Family>(p, trace) && all_ok; });
    }
    return all_ok ? 0 : 1;
}
