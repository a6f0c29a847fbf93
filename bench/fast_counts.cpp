// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_fast_counts: the instruction counts of the "when the atomic pays"
// experiment (docs/position-design.md), for callgrind_counts.py.
//
// The protocol of bcast_counts.cpp: for every case callgrind's counters are
// zeroed, K1 iterations run and dumped ("<case>|<K1>"), then K2 ("<case>|<K2>");
// the driver divides the difference by K2 - K1, and counts the locked
// instructions (lock-prefixed, xchg with memory) among them. The cases are the
// single-thread shape of fast_cases.hpp, try calls, every design, N = 1..16:
//   fast-single/<design>/N:<n>
// An iteration is one send and N receives, so the slope of a count over N is
// what one receive costs (fast_experiment.py fits it): the locked
// instructions per receive are that slope of the locked count.
//
// Usage: bcast_fast_counts [--iters=K1,K2] [--filter=SUBSTRING] [--list]
#include "fast_cases.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(label) static_cast<void>(label)
#endif

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

using bcast_bench::calls;

struct count_case {
    std::string name;
    std::function<std::function<void(std::uint64_t)>()> prepare; // a fresh workload: "run k iterations of it"
};

std::vector<count_case> all_cases() {
    std::vector<count_case> cases;
    for (std::string_view design : bcast_bench::design_names) {
        for (std::size_t receivers : {1, 2, 4, 8, 16}) {
            cases.push_back({"fast-single/" + std::string(design) + "/N:" + std::to_string(receivers), [design, receivers] {
                                 std::function<void(std::uint64_t)> run;
                                 bcast_bench::with_design(design, [&](auto make) {
                                     auto workload = std::make_shared<decltype(bcast_bench::single_case(make(1), 1))>(
                                         make(1), receivers);
                                     run = [workload](std::uint64_t k) { workload->template run<calls::try_calls>(k); };
                                 });
                                 return run;
                             }});
        }
    }
    return cases;
}

} // namespace

int main(int argc, char** argv) {
    bcast_bench::leave_single_thread_mode();
    std::uint64_t small_batch = 5000;
    std::uint64_t large_batch = 15000;
    std::string filter;
    bool list_only = false;
    for (int k = 1; k < argc; ++k) {
        if (std::strncmp(argv[k], "--iters=", 8) == 0) {
            char* rest = nullptr;
            small_batch = std::strtoull(argv[k] + 8, &rest, 10);
            if (rest == nullptr || *rest != ',') bcast_bench::fail("--iters takes K1,K2");
            large_batch = std::strtoull(rest + 1, nullptr, 10);
        } else if (std::strncmp(argv[k], "--filter=", 9) == 0) {
            filter = argv[k] + 9;
        } else if (std::strcmp(argv[k], "--list") == 0) {
            list_only = true;
        } else {
            std::fprintf(stderr, "usage: bcast_fast_counts [--iters=K1,K2] [--filter=SUBSTRING] [--list]\n");
            return 2;
        }
    }
    if (small_batch == 0 || large_batch <= small_batch) bcast_bench::fail("--iters needs 0 < K1 < K2");
    for (const count_case& entry : all_cases()) {
        if (entry.name.find(filter) == std::string::npos) continue;
        std::printf("%s\n", entry.name.c_str());
        if (list_only) continue;
        auto run = entry.prepare();
        run(16); // first touch outside the counted batches
        for (std::uint64_t batch : {small_batch, large_batch}) {
            const std::string label = entry.name + "|" + std::to_string(batch);
            CALLGRIND_ZERO_STATS;
            run(batch);
            CALLGRIND_DUMP_STATS_AT(label.c_str());
        }
    }
    return 0;
}
