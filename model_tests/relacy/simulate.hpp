// SPDX-License-Identifier: MIT OR Apache-2.0
// One Relacy search of one scenario type with one scheduler, and the rerun
// of a failing iteration with Relacy's history on: what every run of
// scenarios.def (registry.hpp) and every generated scenario
// (generated_scenario.hpp) calls.
#pragma once

#include "relacy_primitives.hpp"

#include <streambuf>
#include <string>
#include <type_traits>

namespace bcast_rl {

inline const char* scheduler_name(rl::scheduler_type_e sched) {
    return sched == rl::sched_full ? "full" : sched == rl::sched_bound ? "bound"
                                                                       : "random";
}

// rl::simulate<S> instantiates Relacy's context for all three schedulers;
// this instantiates only the one a run uses (build time is the bottleneck:
// the mutant table compiles main.cpp once per mutant).
template <class S, rl::scheduler_type_e Sched>
bool simulate_with(rl::test_params& params) {
    constexpr rl::thread_id_t n = S::params::thread_count;
    using sched_t = std::conditional_t<Sched == rl::sched_full, rl::full_search_scheduler<n>,
                                       std::conditional_t<Sched == rl::sched_bound, rl::context_bound_scheduler<n>,
                                                          rl::random_scheduler<n>>>;
    params.search_type = Sched;
    params.test_name = "";
    rl::ostringstream state;
    const rl::test_result_e res = rl::run_test<S, sched_t>(params, state, false);
    if (res != rl::test_result_success) {
        // Relacy's own protocol: rerun from the failing iteration with history on.
        rl::ostringstream unused;
        params.initial_state = state.str();
        params.final_state = state.str();
        params.collect_history = true;
        const rl::iteration_t stop = params.stop_iteration;
        rl::run_test<S, sched_t>(params, unused, true);
        params.stop_iteration = stop;
    }
    params.test_result = res;
    return S::params::expected_result == res;
}

// Where a run's progress goes (nowhere) and where its report goes.
struct null_buf : std::streambuf {
    int overflow(int c) override { return c; }
};

// Relacy writes its report while its context is live, where every heap
// free is a scheduling point: an ostringstream growing there crashes. This
// buffer never allocates (it keeps the first 4 MiB).
struct fixed_buf : std::streambuf {
    static constexpr std::size_t cap = std::size_t{4} << 20;
    static inline char data[cap];
    std::size_t len = 0;
    int overflow(int c) override {
        if (c != EOF && len < cap) data[len++] = char(c);
        return c;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        for (std::streamsize i = 0; i < n; ++i) overflow(static_cast<unsigned char>(s[i]));
        return n;
    }
    std::string str() const { return std::string(data, len); }
};

} // namespace bcast_rl
