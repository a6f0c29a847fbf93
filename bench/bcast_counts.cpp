// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_counts: the instruction-count half of the position experiment.
//
// Meant to run under `valgrind --tool=callgrind --dump-instr=yes` (see
// callgrind_counts.py). For every case it zeroes callgrind's counters, runs the
// case's loop K1 times and dumps ("<case>|<K1>"), then zeroes again, runs K2
// more iterations of the same workload and dumps ("<case>|<K2>"). The driver
// divides the difference by K2 - K1, so whatever a batch costs once (the first
// call's lazy work, the dump itself) cancels, and only the per-iteration cost
// remains. Without valgrind the client requests are no-ops and it just runs.
//
// Built three times: bcast_counts, against impl/include with every position
// design; and, for the zero-cost check, twice with BCAST_COUNTS_PLAIN_ONLY (only
// the plain position's cases): bcast_counts_plain against impl/include, and
// bcast_counts_direct against a generated copy of the headers in which the
// Primitives's types are replaced by the std types written in directly
// (make_direct_std_headers.py). The two plain-only builds compile the same
// source with the same set of instantiations, so only the headers differ: GCC's
// inliner budgets are per translation unit, and a binary with five designs
// inlines differently from one with a single design (blocking calls: 277 vs 256
// instructions per iteration at N = 1), which would otherwise be mistaken for a
// cost of the template. The two plain-only builds also count the async row's
// loop (async/inline/N:<n>, async_cases.cpp, a translation unit of its own), so
// the zero-cost check covers the async operations too.
//
// Usage: bcast_counts [--iters=K1,K2] [--filter=SUBSTRING] [--list]
#include "cases.hpp"
#include "rmw_position.hpp"
#include "counts_main.hpp"
#if BCAST_COUNTS_PLAIN_ONLY
#include "async_cases.hpp"
#endif

#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>

namespace {

using bcast_bench::calls;

using bcast_bench::count_case;

template <class Primitives>
void add_single_cases(std::vector<count_case>& cases, const char* position_name) {
    for (calls kind : {calls::try_calls, calls::blocking_calls}) {
        for (std::size_t receivers : {1, 2, 4, 8, 16}) {
            std::string name = "single/" + std::string(bcast_bench::calls_name(kind)) + "/" + position_name +
                               "/N:" + std::to_string(receivers);
            cases.push_back({std::move(name), [kind, receivers] {
                auto workload = std::make_shared<bcast_bench::single_thread_case<Primitives>>(receivers);
                return std::function<void(std::uint64_t)>([workload, kind](std::uint64_t iterations) {
                    if (kind == calls::try_calls) {
                        workload->template run<calls::try_calls>(iterations);
                    } else {
                        workload->template run<calls::blocking_calls>(iterations);
                    }
                });
            }});
        }
    }
}

// noinline: one copy of each floor loop, so its instructions are its own.
[[gnu::noinline]] void mutex_pairs(std::mutex& mutex, std::uint64_t iterations) {
    for (std::uint64_t k = 0; k < iterations; ++k) {
        mutex.lock();
        mutex.unlock();
    }
}

[[gnu::noinline]] void seq_cst_stores(std::atomic<std::uint64_t>& cell, std::uint64_t iterations) {
    for (std::uint64_t k = 0; k < iterations; ++k) cell.store(k, std::memory_order_seq_cst);
}

std::vector<count_case> all_cases() {
    std::vector<count_case> cases;
#if BCAST_COUNTS_PLAIN_ONLY
    add_single_cases<bcast::std_primitives>(cases, "plain");
    for (std::size_t receivers : {1, 2, 4, 8, 16}) {
        cases.push_back({"async/inline/N:" + std::to_string(receivers),
                         [receivers] { return bcast_bench::make_async_inline_workload(receivers); }});
    }
#else
    add_single_cases<bcast::std_primitives>(cases, "plain");
    add_single_cases<bcast::std_atomic_relaxed_primitives>(cases, "relaxed");
    add_single_cases<bcast::std_atomic_acq_rel_primitives>(cases, "acq_rel");
    add_single_cases<bcast::std_atomic_seq_cst_primitives>(cases, "seq_cst");
    add_single_cases<bcast_bench::fetch_add_primitives>(cases, "rmw");
#endif
    cases.push_back({"floor/mutex_pair", [] {
        auto mutex = std::make_shared<std::mutex>();
        return std::function<void(std::uint64_t)>([mutex](std::uint64_t iterations) { mutex_pairs(*mutex, iterations); });
    }});
    cases.push_back({"floor/seq_cst_store", [] {
        auto cell = std::make_shared<std::atomic<std::uint64_t>>(0);
        return std::function<void(std::uint64_t)>([cell](std::uint64_t iterations) { seq_cst_stores(*cell, iterations); });
    }});
    return cases;
}

} // namespace

int main(int argc, char** argv) { return bcast_bench::counts_main(argc, argv, "bcast_counts", all_cases()); }
