// SPDX-License-Identifier: MIT OR Apache-2.0
// The registry: turns the lines of scenarios.def into runs (a scenario type,
// a scheduler, a bound, an iteration count, the ctest suite it belongs to),
// for one mode of the command line.
#pragma once

#include "async_scenarios.hpp"
#include "blocking_scenarios.hpp"
#include "fast_scenarios.hpp"
#include "futex_scenarios.hpp"
#include "position_scenarios.hpp"
#include "queue_scenarios.hpp"
#include "simulate.hpp"
#include "wake_matrix_scenarios.hpp"

#include <string_view>
#include <utility>

namespace bcast_rl {

enum class mode { normal,
                  quick,
                  thorough };

// -DBCAST_RELACY_QUICK_ONLY: a binary that runs --quick only, and compiles only
// the runs --quick makes (no +close variants, no except_quick or thorough_only
// lines). The mutant table (model_tests/mutants/run_mutants.py) builds main.cpp
// once per mutant this way: a third less build time (g++ 12 -O0: 65 s -> 41 s
// under the same load), and the build is most of the table's time.
#ifdef BCAST_RELACY_QUICK_ONLY
inline constexpr bool quick_only_build = true;
#else
inline constexpr bool quick_only_build = false;
#endif

// -DBCAST_RELACY_ONLY_SUITES='"a,b/x"': a binary with only the lines of
// scenarios.def whose suite (a) or suite and suffix (b/x: one line, and its
// variants) the list names; the other lines are not even instantiated. The
// mutant table's CI form (run_mutants.py --targeted) builds each mutant this
// way with the run mutants.py says kills it: a Relacy build of one line takes
// a fraction of the whole one (g++ 12 -O0: ~10 s against ~50 s), and the
// build is most of the table's time.
constexpr bool suite_built([[maybe_unused]] std::string_view suite, [[maybe_unused]] std::string_view suffix) {
#ifdef BCAST_RELACY_ONLY_SUITES
    for (std::string_view list = BCAST_RELACY_ONLY_SUITES;;) {
        const std::size_t comma = list.find(',');
        const std::string_view entry = list.substr(0, comma);
        if (entry == suite || (entry.substr(0, suite.size()) == suite && entry.substr(suite.size()) == suffix))
            return true;
        if (comma == std::string_view::npos) return false;
        list.remove_prefix(comma + 1);
    }
#else
    return true;
#endif
}

inline const char* name(mode m) {
    switch (m) {
    case mode::normal: return "normal";
    case mode::quick: return "quick";
    case mode::thorough: return "thorough";
    }
    return "?";
}

// The settings scenarios.def refers to as cfg.*: --quick (the mutant table)
// searches shallower and shorter, --thorough deeper and longer.
struct settings {
    mode m;
    long random_iterations;   // random-scheduler iterations of every blocking scenario
    unsigned bound_3_threads; // context bound of the 3-thread bounded searches
    unsigned bound_4_threads; // context bound of the 4-thread one
    // Context bound of the 3-thread searches with two timed waiters (wake_*/timed_2): while a
    // timed waiter sleeps, every scheduling point may also be its deadline (model_clock.hpp), so
    // bound_3_threads takes minutes there (wake_last_reader/async_recv/timed_2: 16.7M executions,
    // 78 s at -O2); the random runs still place the deadlines anywhere.
    unsigned bound_timed_3_threads;
    // bcast::fast's searches (fast_scenarios.hpp): every atomic access is a
    // scheduling point there, so a bound that the lock-based scenarios take in
    // seconds takes minutes; one preemption less, and a sixth of the random
    // executions (their histories are checked twice where profile P-FAST-3 applies).
    unsigned fast_bound;
    long fast_random_iterations;
    // bcast::fast with three threads, two of them waiting (the wakeup table's two-waiter and
    // timed_2 cells, fast_wake_*): one preemption less than fast_bound, at which one such cell took
    // 19 s (fast_wake_senders/receiver_dropped_frees_one/blocking_2, 2 cores), and there are dozens.
    unsigned fast_bound_3_threads;
    // And with two timed waiters among the three (timed_2): one less again (bound 0 by default, so
    // the random runs do the interleaving); at fast_bound_3_threads one such cell ran over 4 minutes.
    unsigned fast_bound_timed_3_threads;
    explicit settings(mode run_mode)
        : m(run_mode),
          random_iterations(run_mode == mode::quick ? 20000 : run_mode == mode::thorough ? 2000000
                                                                                         : 300000),
          bound_3_threads(run_mode == mode::thorough ? 4 : run_mode == mode::quick ? 2
                                                                                   : 3),
          bound_4_threads(run_mode == mode::thorough ? 3 : 2),
          bound_timed_3_threads(bound_3_threads - 1),
          fast_bound(bound_4_threads),
          fast_random_iterations(random_iterations / 6),
          fast_bound_3_threads(fast_bound - 1),
          fast_bound_timed_3_threads(fast_bound_3_threads - 1) {}
};

// A BCAST_RELACY_CELL line's search on a family that runs the cells (families.def, CELLS): the
// line names which of the family's bounds (cell_bound), the family's settings give it.
enum class cell_bound { bound,
                        bound_3_threads,
                        bound_timed_3_threads };
inline std::pair<unsigned, long> cell_search_of(wake_cells cells, cell_bound b, const settings& cfg) {
    switch (cells) {
    case wake_cells::by_row: return {}; // runs no CELL line
    case wake_cells::at_fast_bounds:
        switch (b) {
        case cell_bound::bound: return {cfg.fast_bound, cfg.fast_random_iterations};
        case cell_bound::bound_3_threads: return {cfg.fast_bound_3_threads, cfg.fast_random_iterations};
        case cell_bound::bound_timed_3_threads: return {cfg.fast_bound_timed_3_threads, cfg.fast_random_iterations};
        }
    }
    return {};
}
// A CELL line's type on family On (Cell::scenario<V, On>) as the template<int V> a run takes.
template <template <int, class> class Cell, class On>
struct cell_on {
    template <int V> using scenario = Cell<V, On>;
};

// Which modes one BCAST_RELACY_SEARCH line runs in.
enum class run_modes { every_mode,
                       quick_only,
                       except_quick,
                       thorough_only };

constexpr bool runs_in(run_modes modes, mode m) {
    switch (modes) {
    case run_modes::every_mode: return true;
    case run_modes::quick_only: return m == mode::quick;
    case run_modes::except_quick: return m != mode::quick;
    case run_modes::thorough_only: return m == mode::thorough;
    }
    return false;
}

struct run_def {
    std::string suite; // the ctest suite (relacy.<suite>): the first argument of its scenarios.def line
    std::string name;  // suite + suffix
    int threads;
    rl::scheduler_type_e sched;
    unsigned bound;  // context bound (sched_bound only)
    long iterations; // random scheduler only
    bool (*fn)(rl::test_params&);
    const char* description;
};

class registry {
public:
    explicit registry(const settings& cfg) : cfg_(cfg) {}
    const std::vector<run_def>& runs() const { return runs_; }

    // One search of scenario type S. `note`, when not empty, replaces
    // S::description in --list (a policy variant, a deeper search).
    template <class S, rl::scheduler_type_e Sched, run_modes modes, bool built = true>
    void add_search(const char* suite, const char* suffix, unsigned bound, long iterations, const char* note) {
        // In a quick-only build a line --quick does not run is not even instantiated
        // (the discarded branch of `if constexpr` needs an else to be discarded);
        // nor is a suite the build leaves out (suite_built).
        if constexpr (built && (!quick_only_build || runs_in(modes, mode::quick))) {
            if (!runs_in(modes, cfg_.m)) return;
            add<S, Sched>(suite, std::string(suite) + suffix, bound, iterations, *note != '\0' ? note : S::description);
        }
    }

    // A scenario template<int V> with variants: its plain variant (no close) under full or
    // bounded search and under the random scheduler (spurious wakeups), its
    // close variant, and its reachability twin.
    template <template <int> class S, rl::scheduler_type_e Sched, bool built = true>
    void add_variants(const std::string& suite, const char* suffix, unsigned bound, long random_iterations = 0) {
        if constexpr (built) add_variant_runs<S, Sched>(suite, suffix, bound, random_iterations);
    }

private:
    template <template <int> class S, rl::scheduler_type_e Sched>
    void add_variant_runs(const std::string& suite, const char* suffix, unsigned bound, long random_iterations) {
        const std::string name = suite + suffix;
        add<S<0>, Sched>(suite, name, bound, 0, S<0>::description);
        add<S<0>, rl::sched_random>(suite, name, 0, random_iterations != 0 ? random_iterations : cfg_.random_iterations,
                                    S<0>::description);
        // --quick (the mutant table) skips the +close variants: a close at the end
        // can only hide a lost wakeup, never reveal one, and some are the largest
        // full searches (two_receivers_blocked_vs_send+close: 1.4M executions).
        if constexpr (S<0>::has_close_variant && !quick_only_build) {
            if (cfg_.m != mode::quick) add<S<CLOSE>, Sched>(suite, name + "+close", bound, 0, S<CLOSE>::description);
        }
        add<S<UNTIL>, rl::sched_bound>(suite, name + "+until", 2, 0,
                                       "reachability twin: the critical window (a thread blocked) is reached");
    }

    template <class S, rl::scheduler_type_e Sched>
    void add(const std::string& suite, std::string name, unsigned bound, long iterations, const char* description) {
        runs_.push_back({suite, std::move(name), int(S::params::static_thread_count), Sched, bound, iterations,
                         &simulate_with<S, Sched>, description});
    }

    settings cfg_;
    std::vector<run_def> runs_;
};

// Every run of scenarios.def in this mode, in the file's order.
inline std::vector<run_def> all_runs(const settings& cfg) {
    registry r(cfg);
// One search: a SEARCH, LOCK or FAST line.
#define BCAST_RELACY_ONE_SEARCH(suite, suffix, scheduler, bound, iterations, modes, note, ...) \
    r.add_search<__VA_ARGS__, rl::sched_##scheduler, run_modes::modes, suite_built(#suite, suffix)>(#suite, suffix, \
                                                                                                    bound, iterations, note);
#define BCAST_RELACY_LOCK BCAST_RELACY_ONE_SEARCH
#define BCAST_RELACY_FAST BCAST_RELACY_ONE_SEARCH
#define BCAST_RELACY_FASTWAIT(suite, suffix, scheduler, bound, ...) \
    r.add_variants<__VA_ARGS__, rl::sched_##scheduler, suite_built(#suite, suffix)>(#suite, suffix, bound, \
                                                                                    cfg.fast_random_iterations);
// Once per family that runs the cells, as its suite FAMILY_SUITE (families.def): a family added
// there runs every CELL line.
#define BCAST_RELACY_CELL(suite, suffix, which_bound, ...) \
    for_each_family([&]<class F>() { \
        if constexpr (F::cells != wake_cells::by_row) { \
            const auto [bound, random] = cell_search_of(F::cells, cell_bound::which_bound, cfg); \
            r.add_variants<cell_on<__VA_ARGS__::scenario, F>::template scenario, rl::sched_bound, \
                           suite_built(std::string(F::name) + "_" #suite, suffix)>(std::string(F::name) + "_" #suite, \
                                                                                   suffix, bound, random); \
        } \
    });
// The mutant table's builds for a mutant outside the reference channel
// (model_tests/mutants/mutants.py, Mutant.dedicated_runs): only the runs that
// can reach that code, a fraction of the build time. -DBCAST_RELACY_DEDICATED_LOCK:
// the LOCK lines (bcast's own lock); -DBCAST_RELACY_DEDICATED_FAST: the FAST,
// FASTWAIT and CELL lines (bcast::fast; the reference runs no CELL line).
#if defined(BCAST_RELACY_DEDICATED_LOCK) || defined(BCAST_RELACY_DEDICATED_FAST)
#define BCAST_RELACY_VARIANTS(...)
#define BCAST_RELACY_SEARCH(...)
#else
#define BCAST_RELACY_VARIANTS(suite, suffix, scheduler, bound, ...) \
    r.add_variants<__VA_ARGS__, rl::sched_##scheduler, suite_built(#suite, suffix)>(#suite, suffix, bound);
#define BCAST_RELACY_SEARCH BCAST_RELACY_ONE_SEARCH
#endif
#if defined(BCAST_RELACY_DEDICATED_LOCK)
#undef BCAST_RELACY_FAST
#undef BCAST_RELACY_FASTWAIT
#undef BCAST_RELACY_CELL
#define BCAST_RELACY_FAST(...)
#define BCAST_RELACY_FASTWAIT(...)
#define BCAST_RELACY_CELL(...)
#elif defined(BCAST_RELACY_DEDICATED_FAST)
#undef BCAST_RELACY_LOCK
#define BCAST_RELACY_LOCK(...)
#endif
#include "scenarios.def"
#undef BCAST_RELACY_VARIANTS
#undef BCAST_RELACY_SEARCH
#undef BCAST_RELACY_LOCK
#undef BCAST_RELACY_FAST
#undef BCAST_RELACY_FASTWAIT
#undef BCAST_RELACY_CELL
#undef BCAST_RELACY_ONE_SEARCH
    return r.runs();
}

} // namespace bcast_rl
