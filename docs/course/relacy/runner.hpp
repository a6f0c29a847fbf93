// SPDX-License-Identifier: MIT OR Apache-2.0
// The course's Relacy runner: the searches a scenario gets, and the command
// line of course_relacy (docs/course/03-first-scenario.md, "Running it").
// Nothing in it names the mailbox or the course's namespace, so the starter
// kit (docs/course/kit) gives a structure of one's own this same file.
//
// A blocking scenario (a thread waits, another thread's event must wake it)
// gets four searches, the same four bcast gives each of its own
// (model_tests/relacy/registry.hpp):
//   NAME/full or NAME/bound   the plain variant, every interleaving (full) or
//                             every one with at most `bound` preemptions (bound)
//   NAME/random               the plain variant, random schedules, with
//                             spurious wakeups injected into waits
//   NAME+close/...            the CLOSE variant, where the scenario has one
//   NAME+until/bound          the reachability twin
// --scheduler and --bound replace, for one run, the scheduler and bound of
// every search but the random ones, so one scenario can be searched full and
// bounded without a second registration (docs/course/03-first-scenario.md,
// "Choosing a bound").
#pragma once

#include "harness.hpp" // and through it every standard header used here, before Relacy

namespace course::relacy {

// Random-scheduler iterations per random search.
constexpr long random_iterations = 20000;

using run_fn = bool (*)(rl::test_params&);

struct search {
    std::string name; // as registered: NAME/full, NAME+close/bound, ...
    int threads;
    rl::scheduler_type_e scheduler;
    unsigned bound;  // preemptions allowed (bound scheduler)
    long iterations; // executions (random scheduler); the others stop when they have seen every one
    run_fn run_full; // the same search under each exhaustive scheduler: --scheduler picks the other one
    run_fn run_bound;
    run_fn run_random; // nullptr where the search has no random run
    const char* description;
    std::string shown = name; // the name with the scheduler it runs under (differs after --scheduler)

    run_fn run() const {
        if (scheduler == rl::sched_full) return run_full;
        return scheduler == rl::sched_bound ? run_bound : run_random;
    }
};

inline const char* scheduler_name(rl::scheduler_type_e s) {
    return s == rl::sched_full ? "full" : s == rl::sched_bound ? "bound"
                                                               : "random";
}

// One Relacy search of scenario S with one scheduler. On a failure Relacy's
// own protocol follows: run the failing execution again, from its state,
// with the history on, which prints the report. (rl::simulate<S>() does the
// same for whichever scheduler params names; this instantiates only one.)
template <class S, rl::scheduler_type_e Scheduler>
bool run_search(rl::test_params& params) {
    constexpr rl::thread_id_t n = S::params::thread_count;
    using scheduler_t = std::conditional_t<Scheduler == rl::sched_full, rl::full_search_scheduler<n>,
                                           std::conditional_t<Scheduler == rl::sched_bound, rl::context_bound_scheduler<n>,
                                                              rl::random_scheduler<n>>>;
    params.search_type = Scheduler;
    rl::ostringstream state;
    const rl::test_result_e result = rl::run_test<S, scheduler_t>(params, state, false);
    if (result != rl::test_result_success) {
        rl::ostringstream unused;
        params.initial_state = state.str();
        params.final_state = state.str();
        params.collect_history = true;
        const rl::iteration_t stop = params.stop_iteration;
        rl::run_test<S, scheduler_t>(params, unused, true);
        params.stop_iteration = stop;
    }
    params.test_result = result;
    return S::params::expected_result == result;
}

// The four searches of a blocking scenario template S<Variant> (see the top of the file).
template <template <int> class S>
void add_blocking(std::vector<search>& searches, const std::string& name, rl::scheduler_type_e scheduler, unsigned bound) {
    const auto add = [&](const std::string& n, auto* variant, rl::scheduler_type_e s, unsigned b, long iterations,
                         const char* description) {
        using V = std::remove_pointer_t<decltype(variant)>;
        searches.push_back({n + "/" + scheduler_name(s), int(V::params::thread_count), s, b, iterations,
                            &run_search<V, rl::sched_full>, &run_search<V, rl::sched_bound>,
                            &run_search<V, rl::sched_random>, description});
    };
    const char* what = S<PLAIN>::description;
    add(name, static_cast<S<PLAIN>*>(nullptr), scheduler, bound, 0, what);
    add(name, static_cast<S<PLAIN>*>(nullptr), rl::sched_random, 0, random_iterations, what);
    if constexpr (S<PLAIN>::has_close_variant)
        add(name + "+close", static_cast<S<CLOSE>*>(nullptr), scheduler, bound, 0, "the same, then close()");
    add(name + "+until", static_cast<S<UNTIL>*>(nullptr), rl::sched_bound, 2, 0,
        "reachability twin: some execution has a thread waiting when the event comes");
}

// Where Relacy writes a report. It writes while its execution is live, when
// the heap belongs to the checked program (an allocation there is an event
// Relacy tracks), so a growing std::ostringstream would crash: this buffer
// never allocates. It keeps the first 1 MiB; progress output goes nowhere.
struct report_buffer : std::streambuf {
    static constexpr std::size_t capacity = std::size_t{1} << 20;
    static inline char text[capacity];
    std::size_t length = 0;
    bool keep = true;
    int overflow(int c) override {
        if (keep && c != EOF && length < capacity) text[length++] = char(c);
        return c;
    }
};

// One line of Relacy's execution history made short and stable:
//   [8] 0: <0x55d0c8a0> cond_var: notify one ..., in course::status course::mailbox<Model>::store(int) [with Model = ...], /src/docs/course/mailbox/mailbox.hpp(81)
// becomes
//   [8] 0: cond_var: notify one ..., in mailbox::store mailbox.hpp(81)
// (object addresses change from run to run; the line number says which field
// it was). Events Relacy raises from its own code keep no location.
// "course::relacy::" here: read from this function's own name, so that the
// runner holds no namespace but the one it is declared in.
inline std::string own_namespace() {
    const std::string f = std::source_location::current().function_name(); // "std::string NS::relacy::own_namespace()"
    const std::size_t end = f.find("own_namespace(");
    const std::size_t begin = f.rfind(' ', end) + 1; // after the return type
    return f.substr(begin, end - begin);
}

inline std::string short_function(std::string f) {
    f = f.substr(0, f.find(" [with "));
    f = f.substr(0, f.find('('));
    f = f.substr(f.rfind(' ') + 1); // drop the return type
    std::string out;
    int depth = 0; // drop template arguments
    for (char c : f) {
        if (c == '<') ++depth;
        else if (c == '>') --depth;
        else if (depth == 0) out += c;
    }
    // The namespaces this runner is compiled in ("course::relacy::", then
    // "course::", in the course): the code under test and the scenarios live
    // there, so whatever a structure's namespace is, its names come out short.
    std::string prefix = own_namespace();
    while (!prefix.empty()) {
        if (out.rfind(prefix, 0) == 0) return out.substr(prefix.size());
        const std::size_t outer = prefix.rfind("::", prefix.size() - 3); // "course::relacy::" -> "course::"
        prefix = outer == std::string::npos ? "" : prefix.substr(0, outer + 2);
    }
    return out;
}

inline std::string short_event(const std::string& line) {
    if (line.empty() || line[0] != '[') return line;
    const std::size_t head_end = line.find(": ") + 2; // "[8] 0: "
    std::string event = line.substr(head_end);
    if (event.rfind("<0x", 0) == 0) event = event.substr(event.find("> ") + 2);
    const std::size_t file_at = event.rfind(", ");
    const std::size_t in_at = event.rfind(", in ", file_at - 1);
    if (file_at == std::string::npos || in_at == std::string::npos || in_at >= file_at) return line.substr(0, head_end) + event;
    std::string file = event.substr(file_at + 2);
    const std::string function = short_function(event.substr(in_at + 5, file_at - in_at - 5));
    event = event.substr(0, in_at);
    if (file.find("relacy/") != std::string::npos) return line.substr(0, head_end) + event; // Relacy's own
    file = file.substr(file.rfind('/') + 1);
    return line.substr(0, head_end) + event + ", in " + function + " " + file;
}

// One search of a scenario that blocks nowhere: no wakeup can be lost, so it
// has no CLOSE variant and no twin; its checks are its assertions and the
// linearizability check, and Relacy's race detection on every `var`.
template <class S>
void add_search(std::vector<search>& searches, const std::string& name, rl::scheduler_type_e scheduler, unsigned bound) {
    searches.push_back({name + "/" + scheduler_name(scheduler), int(S::params::thread_count), scheduler, bound, 0,
                        &run_search<S, rl::sched_full>, &run_search<S, rl::sched_bound>, nullptr, S::description});
}

// %s: the program's name (course_relacy in the course).
constexpr const char* usage = R"(usage: %s [--list] [--raw] [--history] [--replay=STATE]
                     [--scheduler=full|bound] [--bound=N] [NAME ...]

Runs the Relacy searches its relacy/scenarios.cpp registers, all of them or
those NAME selects: a search's full name (SCENARIO/full), or a scenario's
name, which selects all its searches (SCENARIO: /full, /random, +close,
+until). Prints one line per search; a failing search prints Relacy's report, the
replay state and the command that replays it, and ends the run.

  --list          print the selected searches instead of running them
  --replay=STATE  start the selected search at STATE, which a failure printed
  --raw           print Relacy's report as Relacy writes it (addresses, full
                  function names and paths); by default each event is shortened
  --history       print the events of the first execution of each selected search,
                  also when it passes (the report shows only a failing one)
  --scheduler=full|bound, --bound=N
                  run every selected search that is not a random one (the plain,
                  +close and +until variants) under this scheduler instead of
                  the one main() registered it with; --bound=N alone means
                  --scheduler=bound --bound=N, and bound defaults to 2. The name
                  printed says the scheduler it ran under (NAME/full,
                  NAME+until/bound); either name selects it.
Exit status: 0 when every selected search passed, 1 when one failed or none is
selected, 2 on a usage error.
)";

inline bool selected(const search& s, const std::vector<std::string>& names) {
    if (names.empty()) return true;
    for (const std::string& n : names)
        for (const std::string* name : {&s.name, &s.shown})
            if (*name == n || name->rfind(n + "/", 0) == 0 || name->rfind(n + "+", 0) == 0) return true;
    return false;
}

// --scheduler, --bound: every exhaustive search of the list, under the scheduler asked for.
inline void override_scheduler(std::vector<search>& searches, rl::scheduler_type_e scheduler, unsigned bound) {
    for (search& s : searches) {
        if (s.scheduler == rl::sched_random) continue; // the random searches are random already
        s.scheduler = scheduler;
        s.bound = scheduler == rl::sched_bound ? bound : 0;
        s.shown = s.name.substr(0, s.name.rfind('/') + 1) + scheduler_name(scheduler);
    }
}

inline int run_main(int argc, char** argv, std::vector<search> searches) {
    const char* program = std::strrchr(argv[0], '/') ? std::strrchr(argv[0], '/') + 1 : argv[0]; // for messages
    bool list = false, raw = false, history = false;
    std::string replay, scheduler_arg, bound_arg;
    std::vector<std::string> names;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--list") list = true;
        else if (arg == "--raw") raw = true;
        else if (arg == "--history") history = true;
        else if (arg.rfind("--replay=", 0) == 0) replay = arg.substr(9);
        else if (arg.rfind("--scheduler=", 0) == 0) scheduler_arg = arg.substr(12);
        else if (arg.rfind("--bound=", 0) == 0) bound_arg = arg.substr(8);
        else if (arg == "--help") return std::printf(usage, program), 0;
        else if (arg.rfind("-", 0) == 0)
            return std::fprintf(stderr, "%s: unknown option %s\n\n", program, arg.c_str()), std::fprintf(stderr, usage, program), 2;
        else names.push_back(arg);
    }
    std::string override_args; // repeated in the replay command, which must run the search the same way
    if (!scheduler_arg.empty() || !bound_arg.empty()) {
        if (scheduler_arg.empty()) scheduler_arg = "bound";
        const bool digits = !bound_arg.empty() && bound_arg.find_first_not_of("0123456789") == std::string::npos;
        if ((scheduler_arg != "full" && scheduler_arg != "bound") || (!bound_arg.empty() && !digits) ||
            (scheduler_arg == "full" && !bound_arg.empty()))
            return std::fprintf(stderr, "%s: --scheduler=full, or --scheduler=bound with --bound=N (N >= 0)\n\n", program),
                   std::fprintf(stderr, usage, program), 2;
        const unsigned bound = bound_arg.empty() ? 2 : unsigned(std::stoul(bound_arg));
        override_scheduler(searches, scheduler_arg == "full" ? rl::sched_full : rl::sched_bound, bound);
        override_args = "--scheduler=" + scheduler_arg + (scheduler_arg == "bound" ? " --bound=" + std::to_string(bound) : "") + " ";
    }
    int matched = 0;
    for (const search& s : searches) {
        if (!selected(s, names)) continue;
        ++matched;
        if (list) {
            std::printf("%-40s threads=%d scheduler=%-6s bound=%u  # %s\n", s.shown.c_str(), s.threads,
                        scheduler_name(s.scheduler), s.bound, s.description);
            continue;
        }
        rl::test_params params;
        params.context_bound = s.bound;
        params.iteration_count = s.scheduler == rl::sched_random ? s.iterations : 1000000000;
        report_buffer report, progress;
        progress.keep = false;
        std::ostream report_stream(&report), progress_stream(&progress);
        params.output_stream = &report_stream;
        params.progress_stream = &progress_stream;
        if (!replay.empty()) params.initial_state = replay;
        if (history) { // every execution's events as they happen: the first is shown below
            params.collect_history = true;
            params.output_history = true;
        }
        const bool ok = s.run()(params);
        std::printf("SEARCH %-40s threads=%d scheduler=%-6s bound=%u iterations=%llu result=%s%s\n", s.shown.c_str(),
                    s.threads, scheduler_name(s.scheduler), s.bound, (unsigned long long)params.stop_iteration,
                    rl::test_result_str(params.test_result), ok ? "" : "  ** FAILED **");
        const std::string text(report.text, report.length);
        const auto print = [&](std::size_t from, std::size_t to) {
            for (std::size_t at = from; at < to;) {
                const std::size_t end = std::min(text.find('\n', at), to);
                const std::string line = text.substr(at, end - at);
                std::printf("%s\n", raw ? line.c_str() : short_event(line).c_str());
                at = end + 1;
            }
        };
        if (history && ok) {
            std::printf("---- execution history of the first execution of %s ----\n", s.shown.c_str());
            const std::size_t first_end = text.find("ITERATION END"); // its line is "[N] -1: ITERATION END"
            print(0, first_end == std::string::npos ? text.size() : text.rfind('\n', first_end) + 1);
        }
        if (!ok && params.test_result == rl::test_result_success) {
            // A twin whose condition no execution met: nothing failed, so
            // there is no report to print, and the search never reached the
            // moment its scenario is about.
            std::printf("---- %s: no execution reached the twin's condition (a thread waiting when the event "
                        "comes): the search proves nothing about waking; raise the bound, or fix the scenario\n",
                        s.shown.c_str());
            return 1;
        }
        if (!ok) {
            std::printf("---- Relacy report for %s ----\n", s.shown.c_str());
            print(0, text.size());
            std::string state(params.final_state.c_str());
            state.erase(state.find_last_not_of(' ') + 1); // Relacy ends it with a space
            std::printf("---- replay state: %s\n", state.c_str());
            std::printf("---- replay: %s %s--replay='%s' %s\n", argv[0], override_args.c_str(), state.c_str(), s.shown.c_str());
            return 1;
        }
    }
    if (matched == 0) return std::fprintf(stderr, "%s: no search is named that (see --list)\n", program), 1;
    return 0;
}

} // namespace course::relacy
