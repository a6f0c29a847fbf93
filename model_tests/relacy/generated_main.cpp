// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_relacy_generated: generated concurrent scenarios (model_tests/generator/)
// explored by Relacy on an unmodified channel (the reference, or bcast::fast
// with --channel=fast), every execution checked
// (generated_scenario.hpp); a failure is minimised and printed with its
// replay command. docs/verification.md ("Generated scenarios") says what the
// search covers.
#include "generated_scenario.hpp"


#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <set>

using namespace bcast_rl;
namespace gen = bcast::gen;

namespace {

constexpr const char* usage_text = R"(usage: bcast_relacy_generated [--help] [--budget=N] [--seed=S] [--enumerate] [--count]
                              [--threads=MIN-MAX] [--steps=K] [--capacity=C] [--no-lifecycle]
                              [--no-queries] [--no-borrowing] [--no-mix] [--two-waiters]
                              [--bound=B] [--random=R] [--no-minimise] [--keep-going] [--verbose]
                              [--channel=FAMILY] [--scenario='TEXT']

Generates concurrent scenarios over the property tests' command language and explores each
under Relacy on an unmodified channel: a context-bound search (bound B, default 2) and R
random-scheduler executions (default 1000: the scheduler that injects spurious wakeups).
Every execution is checked: no data race or Relacy error, every message destroyed once, the
channel's invariants, a history linearizable against bcast::spec::model. A DEADLOCK is
classified by the history checker: a lost wakeup (named by the rule of the missed wake-up)
when the spec lets a blocked call go on in every linearisation. Scenarios whose spec can
deadlock in some interleaving are not run (counted).

  --budget=N      explore N random scenarios (default 200): seeds S, S+1, ... are drawn
                  until N of them ran (a scenario the spec can deadlock is drawn but not run),
                  at most 20 N seeds
  --seed=S        the first seed (default 1)
  --enumerate     every scenario of the space (--threads/--steps/--capacity), in order
  --count         print the size of the space and how many of its scenarios the spec can
                  deadlock, run nothing
  --threads=A-B   2-3 by default;  --steps=K  at most K commands per thread (default 3)
  --capacity=C    at most C (default 2); --no-lifecycle: only send/receive commands
  --no-queries    no queries (len, is_closed, unread, ...)
  --no-borrowing  no thread uses a handle object another thread owns
  --no-mix        draw every seed from the space as given; by default the seeds take turns
                  (generator.hpp, sampling_config): S%3==0 as given, 1 the core commands
                  (no queries, no borrowing), 2 the core commands with two waiters on one event
  --two-waiters   (with --no-mix) every seed in the contention shape: three threads, the
                  first two blocked on the same event
  --scenario=TEXT run this one scenario (the text form a failure prints)
  --channel=C     the channel family, a line of families.def: reference (default) or fast,
                  bcast::fast on its own Relacy harness (model_tests/relacy/fast_harness.hpp: histories checked
                  against the model under profile P-FAST-3, no message instances to count);
                  fast has no async calls (P-FAST-5), so its scenarios have none, and
                  searches bound 1 (0 with a timed command) and 5000 random executions by
                  default (every atomic access is a scheduling point there)
  --bound=B       context bound (default 2; fast: 1, and 0 for a scenario with a timed
                  command); --random=R random executions per scenario
                  (default 1000; fast: 5000)
  --no-minimise   report a failure as found
  --keep-going    continue after a failure
  --verbose       one line per scenario
Exit status: 0 all passed, 1 a scenario failed (or none ran), 2 usage error.
)";

struct options {
    long budget = 200;
    std::uint64_t seed = 1;
    bool enumerate = false, count = false, minimise = true, keep_going = false, verbose = false, mix = true;
    std::string scenario_text;
    gen::generator_config cfg;
    // The searches per scenario: --bound and --random, else the family's row (generated_scenario.hpp).
    std::optional<unsigned> bound_given;
    std::optional<long> random_given;
    const generated_family* family = &generated_families[0];
    unsigned bound() const { return bound_given.value_or(family->bound); }
    unsigned bound_for(const gen::scenario& s) const {
        return bound_given.value_or(gen::has_command(s, gen::is_timed) ? family->bound_with_a_timed_command
                                                                       : family->bound);
    }
    long random() const { return random_given.value_or(family->random); }
};

// What one scenario's exploration found.
struct finding {
    bool failed = false;
    std::string kind; // Relacy's result, or the deadlock's classification
    rl::scheduler_type_e sched = rl::sched_bound;
    unsigned bound = 0;
    bool spec_deadlock = false; // a DEADLOCK the checker found legitimate: the search stopped there
    bool inconclusive = false;  // the failing execution was not one of the program's (generated_scenario.hpp)
    std::uint64_t reruns = 0;   // executions in which Relacy resumed a finished thread
    std::string checker_report; // the history checker's report of a DEADLOCK
    generated_run run;
    double seconds = 0;
    std::uint64_t executions = 0;
};

// Relacy's verdict; a DEADLOCK is classified by the history checker
// (bcast::spec::check_history) from the calls of the deadlocked execution,
// the blocked ones still pending: a lost wakeup when in every linearisation
// of the completed calls some blocked call could go on (the report names the
// rule of the missed wake-up), a wrong answer before it when the completed
// calls have no linearisation, and a deadlock the spec allows otherwise,
// which is neither a pass nor a failure (spec_deadlocks counts it; it cannot
// happen in a scenario that runs, since those the spec can deadlock in some
// interleaving are never run: spec_explorer.hpp).
void classify(const gen::scenario& s, finding& f) {
    f.kind = rl::test_result_str(f.run.result);
    f.failed = true;
    if (f.run.failure_is_a_rerun) { // not an execution of the program (generated_scenario.hpp)
        f.kind += " (INCONCLUSIVE: Relacy resumed a finished thread in this execution)";
        f.failed = false, f.inconclusive = true;
        return;
    }
    if (f.run.result != rl::test_result_deadlock) return;
    const bcast::spec::check_report r =
        bcast::spec::check_history(f.run.calls.calls(), std::size_t(s.capacity), 0, 1);
    f.checker_report = bcast::spec::to_string(r, f.run.calls.calls());
    switch (r.result) {
    case bcast::spec::verdict::lost_wakeup: f.kind += " (LOST WAKEUP, " + r.rule + ")"; break;
    case bcast::spec::verdict::not_linearizable: f.kind += " (NOT LINEARIZABLE before it)"; break;
    case bcast::spec::verdict::spec_deadlock:
    case bcast::spec::verdict::linearizable:
        f.kind += " (a deadlock the spec allows)";
        f.failed = false, f.spec_deadlock = true;
        break;
    }
}

bool is_failure(const finding& f) { return f.failed; }

finding explore(const gen::scenario& s, const options& o) {
    finding f;
    auto attempt = [&](rl::scheduler_type_e sched, unsigned bound, long iterations) {
        f.run = run_generated(s, sched, bound, iterations, *o.family);
        f.seconds += f.run.seconds;
        f.executions += f.run.executions;
        f.reruns += f.run.reruns;
        if (f.run.result == rl::test_result_success) return false;
        f.sched = sched, f.bound = bound;
        classify(s, f);
        return true;
    };
    if (attempt(rl::sched_bound, o.bound_for(s), 0) && !f.inconclusive) return f;
    if (o.random() > 0) {
        const bool bound_inconclusive = f.inconclusive;
        f.inconclusive = false;
        if (!attempt(rl::sched_random, 0, o.random())) f.inconclusive = bound_inconclusive;
    }
    return f;
}

// The rule IDs of what a scenario does (printed with a failure).
std::string rules_of(const gen::scenario& s) {
    std::set<std::string> ids;
    auto add = [&](const gen::step& st) {
        using gen::op;
        switch (st.what) {
        case op::try_broadcast: ids.insert("R-SEND-1"); break;
        case op::broadcast: ids.insert("R-SEND-3"); break;
        case op::broadcast_expired: ids.insert("R-SEND-4"); break;
        case op::try_recv: ids.insert("R-RECV-1"); break;
        case op::recv: ids.insert("R-RECV-4"); break;
        case op::recv_expired: ids.insert("R-RECV-5"); break;
        case op::async_recv:
        case op::async_broadcast: ids.insert("R-ASYNC-1"), ids.insert("R-ASYNC-2"); break;
        case op::async_recv_cancelled:
        case op::async_broadcast_cancelled: ids.insert("R-ASYNC-4"); break;
        case op::clone_receiver: ids.insert("R-LIFE-1"); break;
        case op::new_receiver: ids.insert("R-LIFE-2"); break;
        case op::drop_receiver: ids.insert("R-LIFE-3"), ids.insert("R-CLOSE-3"); break;
        case op::deactivate: ids.insert("R-LIFE-4"); break;
        case op::activate:
        case op::activate_cloned: ids.insert("R-LIFE-5"), ids.insert("R-LIFE-6"); break;
        case op::drop_sender: ids.insert("R-CLOSE-2"); break;
        case op::set_capacity: ids.insert("R-CAP-2"), ids.insert("R-CAP-4"); break;
        case op::set_overflow: ids.insert(st.arg ? "R-OVF-4" : "R-OVF-3"), ids.insert("R-OVF-1"); break;
        case op::set_await_active: ids.insert("R-ACT-2"), ids.insert("R-ACT-3"); break;
        case op::close: ids.insert("R-CLOSE-1"), ids.insert("R-CLOSE-6"); break;
        default: break;
        }
    };
    for (const auto& st : s.setup) add(st);
    for (const auto& t : s.threads)
        for (const auto& st : t.steps) add(st);
    for (const auto& st : s.teardown) add(st);
    std::string out;
    for (const auto& id : ids) out += (out.empty() ? "" : " ") + id;
    return out + " (R-WAKE-1 for every blocked call)";
}

// Smaller and smaller variants while they still fail (variants the spec can
// deadlock are skipped), then the smallest context bound that still finds it.
std::pair<gen::scenario, finding> minimise(gen::scenario s, finding f, const options& o, int& tried) {
    for (bool smaller = true; smaller;) {
        smaller = false;
        for (const gen::scenario& v : gen::smaller_variants(s)) {
            if (gen::explore(v).spec_may_deadlock) continue;
            ++tried;
            finding g = explore(v, o);
            if (is_failure(g)) {
                s = v, f = g, smaller = true;
                break;
            }
        }
    }
    for (unsigned b = 0; b < o.bound(); ++b) { // the fewest preemptions: the shortest trace to read
        generated_run r = run_generated(s, rl::sched_bound, b, 0, *o.family);
        if (r.result == rl::test_result_success) continue;
        finding g;
        g.sched = rl::sched_bound, g.bound = b, g.run = r;
        classify(s, g);
        if (is_failure(g)) return {s, g};
    }
    return {s, f};
}

std::string replay_command(const gen::scenario& s, const finding& f, const options& o) {
    std::string cmd = "bcast_relacy_generated --scenario='" + gen::to_string(s) + "'";
    if (o.family != &generated_families[0]) cmd += std::string(" --channel=") + o.family->name;
    if (f.sched == rl::sched_bound) cmd += " --bound=" + std::to_string(f.bound) + " --random=0";
    else cmd += " --random=" + std::to_string(o.random());
    return cmd;
}

void print_failure(const gen::scenario& found, const gen::scenario& s, const finding& f, const options& o,
                   int tried) {
    std::printf("\n==== FAILED: %s\n", f.kind.c_str());
    std::printf("found:     %s\n", gen::to_string(found).c_str());
    if (o.minimise) std::printf("minimised: %s   (%d smaller variants tried)\n", gen::to_string(s).c_str(), tried);
    std::printf("rules:     %s\n", rules_of(s).c_str());
    std::printf("scheduler: %s, bound %u\n", scheduler_name(f.sched), f.bound);
    if (f.run.calls.count != 0) { // the calls of the failing execution
        std::printf("---- calls of the failing execution ([invoked, returned] ticks; pending: still blocked) ----\n");
        f.run.calls.print(stdout);
    }
    if (!f.checker_report.empty())
        std::printf("---- the history checker on those calls ----\n%s", f.checker_report.c_str());
    std::printf("---- Relacy report of the failing execution ----\n");
    std::fwrite(f.run.report.data(), 1, f.run.report.size(), stdout);
    std::printf("\n---- replay: %s\n", replay_command(s, f, o).c_str());
    std::fflush(stdout);
}

bool parse_range(const std::string& v, int& lo, int& hi) {
    const auto dash = v.find('-');
    try {
        lo = std::stoi(v.substr(0, dash));
        hi = dash == std::string::npos ? lo : std::stoi(v.substr(dash + 1));
    } catch (...) {
        return false;
    }
    return lo >= 1 && lo <= hi && hi <= gen::max_threads;
}

} // namespace

int main(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char* prefix) { return a.substr(std::strlen(prefix)); };
        try {
            if (a == "--help" || a == "-h") {
                std::fputs(usage_text, stdout);
                return 0;
            } else if (a.rfind("--budget=", 0) == 0) o.budget = std::stol(value("--budget="));
            else if (a.rfind("--seed=", 0) == 0) o.seed = std::stoull(value("--seed="));
            else if (a == "--enumerate") o.enumerate = true;
            else if (a == "--count") o.count = true;
            else if (a.rfind("--threads=", 0) == 0) {
                if (!parse_range(value("--threads="), o.cfg.min_threads, o.cfg.max_threads)) throw std::invalid_argument(a);
            } else if (a.rfind("--steps=", 0) == 0) o.cfg.max_steps = std::stoi(value("--steps="));
            else if (a.rfind("--capacity=", 0) == 0) o.cfg.max_capacity = std::stoi(value("--capacity="));
            else if (a == "--no-lifecycle") o.cfg.lifecycle = false;
            else if (a == "--no-queries") o.cfg.queries = false;
            else if (a == "--no-borrowing") o.cfg.borrowing = false;
            else if (a == "--no-mix") o.mix = false;
            else if (a == "--two-waiters") o.cfg.two_waiters = true;
            else if (a.rfind("--bound=", 0) == 0) o.bound_given = unsigned(std::stoul(value("--bound=")));
            else if (a.rfind("--random=", 0) == 0) o.random_given = std::stol(value("--random="));
            else if (a == "--no-minimise") o.minimise = false;
            else if (a == "--keep-going") o.keep_going = true;
            else if (a == "--verbose") o.verbose = true;
            else if (a.rfind("--scenario=", 0) == 0) o.scenario_text = value("--scenario=");
            else if (a.rfind("--channel=", 0) == 0) {
                const auto row = std::find_if(std::begin(generated_families), std::end(generated_families),
                                              [&](const generated_family& f) { return value("--channel=") == f.name; });
                if (row == std::end(generated_families)) throw std::invalid_argument(a);
                o.family = &*row;
            } else throw std::invalid_argument(a);
        } catch (const std::exception&) {
            std::fprintf(stderr, "bcast_relacy_generated: bad argument %s\n\n%s", a.c_str(), usage_text);
            return 2;
        }
    }
    if (o.cfg.max_steps < 1 || o.cfg.max_steps > gen::max_steps_per_thread || o.cfg.max_capacity < 1 ||
        o.cfg.max_capacity > 5) {
        std::fprintf(stderr, "bcast_relacy_generated: --steps must be 1..%d, --capacity 1..5\n", gen::max_steps_per_thread);
        return 2;
    }

    o.cfg.async = o.family->async;

    if (o.count) {
        std::uint64_t spec_deadlocks = 0;
        const std::uint64_t n = gen::enumerate(o.cfg, [&](const gen::scenario& s) {
            spec_deadlocks += gen::explore(s).spec_may_deadlock;
            return true;
        });
        std::printf("space: threads %d-%d, <= %d commands each, capacity <= %d%s%s%s: %llu scenarios, %llu of them "
                    "can deadlock in the spec\n",
                    o.cfg.min_threads, o.cfg.max_threads, o.cfg.max_steps, o.cfg.max_capacity,
                    o.cfg.lifecycle ? "" : ", send/receive only", o.cfg.queries ? "" : ", no queries",
                    o.cfg.borrowing ? "" : ", no borrowing", (unsigned long long)n,
                    (unsigned long long)spec_deadlocks);
        return 0;
    }

    long ran = 0, skipped = 0, failed = 0, legitimate_deadlocks = 0, inconclusive = 0;
    long drawn = 0; // random sampling: the seeds drawn
    std::uint64_t reruns = 0;
    std::uint64_t executions = 0;
    double seconds = 0;
    std::set<std::string> distinct;
    auto check_one = [&](const gen::scenario& s, const std::string& label) {
        if (gen::explore(s).spec_may_deadlock) {
            ++skipped;
            if (o.verbose) std::printf("SKIP %s  (the spec can deadlock) %s\n", label.c_str(), gen::to_string(s).c_str());
            return true;
        }
        ++ran;
        distinct.insert(gen::to_string(s));
        finding f = explore(s, o);
        executions += f.executions;
        seconds += f.seconds;
        legitimate_deadlocks += f.spec_deadlock;
        inconclusive += f.inconclusive;
        reruns += f.reruns;
        if (o.verbose || f.failed || f.spec_deadlock || f.inconclusive)
            std::printf("%s %s executions=%llu seconds=%.2f %s\n", f.run.result != rl::test_result_success ? f.kind.c_str() : "ok  ", label.c_str(),
                        (unsigned long long)f.executions, f.seconds, gen::to_string(s).c_str());
        if (f.spec_deadlock && o.verbose) {
            f.run.calls.print(stdout);
            std::printf("%s", f.checker_report.c_str());
            std::fwrite(f.run.report.data(), 1, f.run.report.size(), stdout);
        }
        std::fflush(stdout);
        if (!is_failure(f)) return true;
        ++failed;
        int tried = 0;
        auto [small, g] = o.minimise ? minimise(s, f, o, tried) : std::pair{s, f};
        print_failure(s, small, g, o, tried);
        return o.keep_going;
    };

    if (!o.scenario_text.empty()) {
        std::string error;
        const auto s = gen::parse_scenario(o.scenario_text, &error);
        if (!s) {
            std::fprintf(stderr, "bcast_relacy_generated: --scenario: %s\n", error.c_str());
            return 2;
        }
        if (!o.cfg.async && gen::has_command(*s, gen::is_async)) {
            std::fprintf(stderr, "bcast_relacy_generated: --scenario has an async command, which --channel=%s does not have (P-FAST-5)\n",
                         o.family->name);
            return 2;
        }
        check_one(*s, "given");
    } else if (o.enumerate) {
        long k = 0;
        gen::enumerate(o.cfg, [&](const gen::scenario& s) { return check_one(s, "#" + std::to_string(k++)); });
    } else {
        for (long i = 0; ran < o.budget && i < 20 * o.budget; ++i) {
            const std::uint64_t seed = o.seed + std::uint64_t(i);
            ++drawn;
            gen::scenario s = gen::random_scenario(seed, o.mix ? gen::sampling_config(seed, o.cfg) : o.cfg);
            if (!check_one(s, "seed=" + std::to_string(seed))) break;
        }
    }
    std::printf("%ld scenarios explored (%zu distinct), %ld not run (the spec can deadlock), %ld failed, "
                "%ld stopped at a deadlock the spec allows, %ld stopped inconclusive; %llu executions (%llu with a "
                "finished thread resumed by Relacy), %.1f s; context bound %u + %ld random executions each\n",
                ran, distinct.size(), skipped, failed, legitimate_deadlocks, inconclusive,
                (unsigned long long)executions, (unsigned long long)reruns, seconds, o.bound(), o.random());
    if (o.family->profile != nullptr)
        std::printf("channel %s: %ld histories accepted only under profile %s\n", o.family->name,
                    fast_profile_relaxations, o.family->profile);
    if (drawn != 0)
        std::printf("seeds %llu..%llu drawn\n", (unsigned long long)o.seed, (unsigned long long)(o.seed + std::uint64_t(drawn) - 1));
    if (ran == 0) return 1;
    return failed == 0 ? 0 : 1;
}
