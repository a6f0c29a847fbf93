// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_relacy: the Relacy model-test suites for bcast, the unmodified impl/
// channel run on relacy_primitives. This file is the command line; the one
// translation unit (the mutant table compiles only this file).
//
//   scenarios.def         every run, one line each: the one place to register a scenario
//   registry.hpp          expands scenarios.def into runs for the chosen mode
//   *_scenarios.hpp       the scenarios (blocking, queue, async, position, wake_matrix, futex)
//   wake_event.hpp        the wakeup table the wake-event scenarios are written against
//   harness.hpp           the scenario base: recorded operations, invariants, final checks
//   inspector.hpp         the one reader of the channel's private fields
//   linearizability.hpp   the check of a recorded history against bcast::spec::model
//   relacy_primitives.hpp the Primitives that run impl/ under Relacy
#include "registry.hpp"

#include <chrono>
#include <cstring>

using namespace bcast_rl;

namespace {

constexpr const char* usage_text = R"(usage: bcast_relacy [--help] [--list] [--quick|--thorough] [--keep-going]
                    [--replay=STATE] [--suite=SUITE ...] [NAME | PREFIX* ...]

Runs the Relacy model-test searches of bcast (model_tests/relacy/scenarios.def), all of
them or the selected ones, and prints one line per run:
  SUITE name threads= scheduler= bound= iterations= seconds= result=

  --list          print the selected runs (name, threads, scheduler, bound, description)
                  instead of running them
  --quick         the mutant table's mode: no +close variants, bound 2, 2*10^4 random iterations
  --thorough      bound 4 (3 threads) / 3 (4 threads), 2*10^6 random iterations, and the two
                  long full searches; BCAST_THOROUGH=1 in the environment is the same
  --keep-going    run the remaining selected runs after a failure
  --replay=STATE  start each selected run at STATE, the replay state a failing run printed
                  (select that one run by its NAME to replay its failing schedule first)
  --suite=SUITE   the runs of one ctest suite (relacy.SUITE: the first argument of their
                  scenarios.def lines)
  NAME            that run and its variants (NAME+close, NAME+until, NAME+cancel)
  PREFIX*         every run whose name starts with PREFIX (quote it: 'position/*')
  --help          this text

A failing run prints Relacy's report with the execution history and its replay state.
Exit status: 0 when every selected run passed, 1 when one failed or the selection is
empty, 2 on a usage error.
)";

bool selected(const run_def& r, const std::vector<std::string>& suites, const std::vector<std::string>& names) {
    if (suites.empty() && names.empty()) return true;
    for (const auto& s : suites)
        if (r.suite == s) return true;
    for (const auto& f : names) {
        if (r.name == f || r.name.rfind(f + "+", 0) == 0) return true;
        if (f.back() == '*' && r.name.rfind(f.substr(0, f.size() - 1), 0) == 0) return true;
    }
    return false;
}

} // namespace

int main(int argc, char** argv) {
    mode m = mode::normal;
    bool keep_going = false, list = false;
    std::vector<std::string> suites, names;
    std::string replay; // --replay=STATE: start from a failing schedule printed earlier
    if (const char* t = std::getenv("BCAST_THOROUGH"); t && std::strcmp(t, "1") == 0) m = mode::thorough;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(usage_text, stdout);
            return 0;
        }
        if (a == "--quick") m = mode::quick;
        else if (a == "--thorough") m = mode::thorough;
        else if (a == "--keep-going") keep_going = true;
        else if (a == "--list") list = true;
        else if (a.rfind("--replay=", 0) == 0) replay = a.substr(9);
        else if (a.rfind("--suite=", 0) == 0) suites.push_back(a.substr(8));
        else if (a.rfind("-", 0) == 0) {
            std::fprintf(stderr, "bcast_relacy: unknown option %s\n\n%s", a.c_str(), usage_text);
            return 2;
        } else names.push_back(a);
    }
    if (quick_only_build && m != mode::quick) {
        std::fprintf(stderr, "bcast_relacy: this binary was built with -DBCAST_RELACY_QUICK_ONLY and runs --quick only\n");
        return 2;
    }
    const std::vector<run_def> runs = all_runs(settings(m));
    null_buf nb;
    std::ostream null_stream(&nb);
    int failures = 0, ran = 0, matched = 0;
    const auto t_all = std::chrono::steady_clock::now();
    for (const run_def& r : runs) {
        if (!selected(r, suites, names)) continue;
        ++matched;
        const char* sched_name = scheduler_name(r.sched);
        if (list) {
            std::printf("%-48s threads=%d scheduler=%s bound=%u  # %s\n", r.name.c_str(), r.threads, sched_name, r.bound,
                        r.description);
            continue;
        }
        rl::test_params p;
        p.search_type = r.sched;
        p.context_bound = r.bound;
        p.iteration_count = r.sched == rl::sched_random ? r.iterations : 1000000000;
        fixed_buf report_buf;
        std::ostream report(&report_buf);
        p.output_stream = &report;
        p.progress_stream = &null_stream;
        if (!replay.empty()) p.initial_state = replay.c_str();
        verdict_cache::clear();
        move_anomalies = 0;
        fast_profile_relaxations = 0;
        relaxed_verdict_cache::clear();
        const auto t0 = std::chrono::steady_clock::now();
        const bool ok = r.fn(p);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ++ran;
        std::printf("SUITE %-46s threads=%d scheduler=%-6s bound=%u iterations=%llu seconds=%.2f result=%s%s\n",
                    r.name.c_str(), r.threads, sched_name, r.bound, (unsigned long long)p.stop_iteration, secs,
                    rl::test_result_str(p.test_result), ok ? "" : "  ** FAILED **");
        if (r.name.find("move_while_receiving/atomic") != std::string::npos)
            std::printf("      position finding: %ld of %llu iterations delivered a message twice or a spurious overflow "
                        "through the moved receiver\n",
                        move_anomalies, (unsigned long long)p.stop_iteration);
        if (fast_profile_relaxations != 0)
            std::printf("      profile P-FAST: %ld executions' histories are linearizable only under P-FAST-3 "
                        "(an evicting send overlapped by a receive of the message it evicted; spec/rules.md)\n",
                        fast_profile_relaxations);
        std::fflush(stdout);
        if (!ok) {
            ++failures;
            // fwrite, not %s: a history may hold a NUL (a char-sized value printed as a character).
            const std::string report_text = report_buf.str();
            std::printf("---- Relacy report for %s ----\n", r.name.c_str());
            std::fwrite(report_text.data(), 1, report_text.size(), stdout);
            std::printf("\n---- replay state (params.initial_state): %s\n", p.final_state.c_str());
            std::fflush(stdout);
            if (!keep_going) break;
        }
    }
    if (matched == 0) { // a misspelt name or suite must not pass as "0 runs, 0 failed"
        std::fprintf(stderr, "bcast_relacy: the selection matches no run in mode %s (see --list)\n", name(m));
        return 1;
    }
    if (!list) {
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count();
        std::printf("%d runs, %d failed, %.1f s (mode %s)\n", ran, failures, secs, name(m));
    }
    return failures == 0 ? 0 : 1;
}
