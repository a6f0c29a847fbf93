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
#include "counts_main.hpp"

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

using bcast_bench::calls;

using bcast_bench::count_case;

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

int main(int argc, char** argv) { return bcast_bench::counts_main(argc, argv, "bcast_fast_counts", all_cases()); }
