// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_ablation_counts_<ablation>: the instruction counts of the ablation
// (docs/fast-design.md, section 10; fast_experiment.py --ablation), for
// callgrind_counts.py. Built once per ablation against the headers that
// make_ablated_headers.py writes into the build tree, so the same source
// counts bcast::fast with one part turned off.
//
// The protocol of fast_counts.cpp: per case, callgrind's counters are zeroed,
// K1 iterations run and dumped ("<case>|<K1>"), then K2. The cases are the
// single-thread shape of fast_cases.hpp (one try_broadcast + N try_recv,
// capacity 1), N = 1, 2, 4, 8:
//   ablation/fast/N:<n>          bcast::fast (with this binary's ablation)
//   ablation/fast-nolock/N:<n>   the same with a lock that does nothing: what the
//                                send's lock costs. Only here, one thread: with
//                                real threads it would be a data race.
//
// Usage: bcast_ablation_counts_<ablation> [--iters=K1,K2] [--filter=SUBSTRING] [--list]
#include "../fast_cases.hpp"
#include "../counts_main.hpp"

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

using bcast_bench::calls;

// A lock that does nothing: single-thread counting only.
struct null_lock {
    struct mutex {
        void lock() noexcept {}
        void unlock() noexcept {}
        bool try_lock() noexcept { return true; }
    };
};
using nolock_primitives = bcast::fast::basic_std_primitives<bcast::fast::default_position, null_lock>;

using bcast_bench::count_case;

template <class Make>
void add_cases(std::vector<count_case>& cases, const std::string& design, Make make) {
    for (std::size_t receivers : {1, 2, 4, 8}) {
        cases.push_back({"ablation/" + design + "/N:" + std::to_string(receivers), [make, receivers] {
                             auto workload = std::make_shared<decltype(bcast_bench::single_case(make(), 1))>(make(), receivers);
                             return std::function<void(std::uint64_t)>(
                                 [workload](std::uint64_t k) { workload->template run<calls::try_calls>(k); });
                         }});
    }
}

std::vector<count_case> all_cases() {
    std::vector<count_case> cases;
    add_cases(cases, "fast", [] { return bcast::fast::channel<std::uint64_t>(1); });
    add_cases(cases, "fast-nolock", [] { return bcast::fast::channel<std::uint64_t, nolock_primitives>(1); });
    return cases;
}

} // namespace

int main(int argc, char** argv) { return bcast_bench::counts_main(argc, argv, "bcast_ablation_counts", all_cases()); }
