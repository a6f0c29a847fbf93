// SPDX-License-Identifier: MIT OR Apache-2.0
// Recorded histories checked against the spec (docs/traces.md, "Histories"):
// the verdict of the one checker (bcast::spec::check_history), whether the
// divergence table documents it (async-broadcast's stranded senders are lost
// wakeups the table lists), a tally over many histories, and the minimiser
// that re-records a failing program with fewer threads and calls (bcast's own
// recorder in-process, or any recorder that takes the same options as a
// command: `bcast-trace check-history --minimise-with`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <bcast/spec/linearizability.hpp>
#include <bcast/spec/profile_check.hpp>

#include "check.hpp"
#include "history.hpp"
#include "record.hpp"

namespace bcast::trace {

// confirm_lost_wakeup's policy (below): re-recordings tried, and how many must show a lost wakeup again.
inline constexpr int confirm_attempts = 40;
inline constexpr int confirm_needed = 2;

struct history_finding {
    spec::check_report report;         // the strict verdict, against the model as written
    std::string_view accepted_under{}; // a profile entry that accepts what the strict check rejects (P-FAST-3)
    bool documented = false;           // a finding of upstream's that a row of the divergence table lists
    std::string documented_rule;       // that row's rule (a lost wakeup's rule, or R-LIFE-5 for a two-step activate)
    bool unconfirmed = false;          // a lost wakeup that did not happen again (confirm_lost_wakeup): a stall of the machine
    // A rejection the search could not prove: it gave up at its state limit
    // (check_options::max_states) before every order was tried. Neither a pass
    // nor a failure: INCONCLUSIVE (exit 3 of check-history and drive).
    bool inconclusive() const {
        return report.gave_up && (report.result == spec::verdict::not_linearizable || report.result == spec::verdict::lost_wakeup);
    }
    // Whether this is a failure: not linearizable, or an undocumented lost wakeup that was not ruled out.
    bool failed() const {
        return !documented && !unconfirmed && accepted_under.empty() && !inconclusive() &&
               (report.result == spec::verdict::not_linearizable || report.result == spec::verdict::lost_wakeup);
    }
    // The rule a finding is reported and minimised under.
    const std::string& rule() const { return documented ? documented_rule : report.rule; }
};

// The rule of a "reproducer" row (upstream's stranded senders) that explains a
// lost wakeup, or nothing. The report's rule comes first; then the rules of
// the other witness orders (check_report::possible_rules): an upstream lost
// wakeup is documented when some order of its overlapping calls makes it one
// that a row lists.
inline std::optional<std::string> documented_lost_wakeup(const spec::check_report& r) {
    for (const std::string& rule : r.possible_rules)
        for (const divergence& d : divergences())
            if (d.seen_by == "reproducer" && d.rule == rule) return rule;
    return std::nullopt;
}

// async-broadcast's InactiveReceiver::activate is two calls under the lock
// (the "history" row R-LIFE-5 of the divergence table): activate_cloned, then
// the consumed inactive receiver's drop. The same history with each activate
// written as those two calls, over the activate's interval (the model orders
// them: the drop consumes the handle the first call needs).
inline std::vector<spec::call> activate_in_two_steps(const std::vector<spec::call>& calls) {
    std::vector<spec::call> split;
    for (const spec::call& c : calls) {
        if (c.kind != spec::call_kind::activate) {
            split.push_back(c);
            continue;
        }
        spec::call cloned = c, dropped = c;
        cloned.kind = spec::call_kind::activate_cloned;
        dropped.kind = spec::call_kind::drop_inactive;
        dropped.out = -1;
        split.push_back(cloned);
        split.push_back(dropped);
    }
    return split;
}

// The verdict under the profile the history names (bcast/spec/profile_check.hpp).
inline history_finding check_recorded(const history& h, spec::check_options options = {}) {
    const spec::conformance_profile* profile = profile_named(h.profile);
    const spec::profile_verdict v = spec::check_history_under(profile != nullptr ? *profile : spec::reference_profile, h.calls,
                                                              h.capacity, 0, 1, options);
    history_finding f;
    f.report = v.report;
    f.accepted_under = v.accepted_under;
    if (h.target != target_upstream) return f;
    if (f.report.result == spec::verdict::lost_wakeup) {
        if (auto rule = documented_lost_wakeup(f.report)) f.documented = true, f.documented_rule = *rule;
    } else if (f.report.result == spec::verdict::not_linearizable) {
        const std::vector<spec::call> split = activate_in_two_steps(h.calls);
        if (split.size() != h.calls.size() && split.size() <= spec::max_history_calls) {
            const spec::check_report again = spec::check_history(split, h.capacity, 0, 1, options);
            const bool explained = again.result == spec::verdict::linearizable ||
                                   again.result == spec::verdict::spec_deadlock ||
                                   (again.result == spec::verdict::lost_wakeup && documented_lost_wakeup(again));
            if (explained) f.documented = true, f.documented_rule = "R-LIFE-5";
        }
    }
    return f;
}

struct history_tally {
    std::uint64_t histories = 0, calls = 0, pending = 0, states = 0;
    std::map<std::string, std::uint64_t> verdicts;   // by verdict name
    std::map<std::string, std::uint64_t> documented; // documented lost wakeups, by rule
    std::uint64_t unconfirmed = 0;                   // lost wakeups that did not happen again
    std::map<std::string, std::uint64_t> accepted;   // not linearizable as written, accepted under a profile entry
    std::uint64_t failures = 0;
    std::uint64_t inconclusive = 0; // the search gave up before it could prove a rejection (also a verdict above)

    void add(const history& h, const history_finding& f) {
        ++histories;
        calls += h.calls.size();
        for (const spec::call& c : h.calls) pending += c.is_pending() ? 1 : 0;
        states += f.report.states_explored;
        ++verdicts[f.inconclusive() ? "inconclusive" : spec::name(f.report.result)];
        if (f.documented) ++documented[f.documented_rule];
        if (f.unconfirmed) ++unconfirmed;
        if (!f.accepted_under.empty()) ++accepted[std::string(f.accepted_under)];
        if (f.failed()) ++failures;
        if (f.inconclusive()) ++inconclusive;
    }
    std::string summary() const {
        std::string s = std::to_string(histories) + " histories, " + std::to_string(calls) + " calls (" +
                        std::to_string(pending) + " pending), " + std::to_string(states) + " search states:";
        for (const auto& [verdict, n] : verdicts) {
            s += " " + verdict + " " + std::to_string(n);
            // Said once, next to the count it is part of (a ruled-out lost wakeup is no finding).
            if (verdict == spec::name(spec::verdict::lost_wakeup) && unconfirmed > 0)
                s += " (" + std::to_string(unconfirmed) + " of them not seen again in " + std::to_string(confirm_attempts) +
                     " more runs: a stall of the machine, not counted)";
            s += ",";
        }
        for (const auto& [rule, n] : documented) s += " documented " + rule + " " + std::to_string(n) + ",";
        for (const auto& [entry, n] : accepted) s += " accepted under " + entry + " " + std::to_string(n) + ",";
        return s + " " + std::to_string(failures) + " failed";
    }
};

// A lost wakeup on real threads counts only once it happens again: history
// `id` is recorded again with `options` (the same seeded program) up to
// `attempts` times, and it is confirmed when at least `needed` of them show a
// lost wakeup too. A stall of the machine itself (a virtual CPU the host did
// not run: a woken waiter then runs past its bound, and no thread's
// accounting shows it; record.hpp) looks like a lost wakeup once, about one
// history in 5000 on a loaded machine here, and never repeats; a real one
// repeats (the two wake mutants' failing programs: 34 and 51 of 100
// re-recordings). With 40 attempts and 2 needed, a stall is confirmed with a
// chance of about 40 * 39 / 2 / 5000^2 = 3e-5, and a bug that repeats one
// time in three missed with a chance of 1e-6.
template <class Record>
bool confirm_lost_wakeup(record_options options, int threads, std::uint64_t id, Record record,
                         int attempts = confirm_attempts, int needed = confirm_needed) {
    options.min_threads = options.max_threads = threads; // the same draw: record_one takes one number for it either way
    int seen = 0;
    for (int a = 0; a < attempts && seen < needed; ++a) {
        const std::optional<history> again = record(options, id);
        if (again && check_recorded(*again).report.result == spec::verdict::lost_wakeup) ++seen;
    }
    return seen >= needed;
}

// Whether history `h` fails as `original` did: the same verdict and, for a
// lost wakeup, the same rule (a documented lost wakeup of upstream's counts as
// a finding to keep, so that its picture is small too).
inline bool same_finding(const history_finding& original, const history& h) {
    const history_finding f = check_recorded(h);
    return f.report.result == original.report.result && f.rule() == original.rule();
}

// A failing program made smaller: `options` with fewer threads and fewer calls
// per thread, while history `id` recorded with them by `record` (a callable
// (const record_options&, std::uint64_t id) -> std::optional<history>) still
// satisfies `still_fails` (a callable (const history&) -> bool). Real threads
// do not repeat a run exactly, so each candidate is recorded up to `attempts`
// times. Returns the smallest failing history found (or `failing` itself) and
// its options.
template <class Record, class StillFails>
std::pair<history, record_options> minimise_recorded(history failing, record_options options, std::uint64_t id,
                                                     Record record, StillFails still_fails, int attempts = 20) {
    auto fails = [&](const record_options& candidate) -> std::optional<history> {
        for (int a = 0; a < attempts; ++a) {
            std::optional<history> h = record(candidate, id);
            if (h && still_fails(*h)) return h;
        }
        return std::nullopt;
    };
    options.max_threads = options.min_threads = failing.threads;
    bool smaller = true;
    while (smaller) {
        smaller = false;
        if (options.max_threads > 2) {
            record_options fewer = options;
            fewer.max_threads = fewer.min_threads = options.max_threads - 1;
            if (auto h = fails(fewer)) {
                failing = *h, options = fewer, smaller = true;
                continue;
            }
        }
        for (int calls : {options.calls / 2, options.calls - 1}) {
            if (calls < 1 || calls >= options.calls) continue;
            record_options shorter = options;
            shorter.calls = calls;
            if (auto h = fails(shorter)) {
                failing = *h, options = shorter, smaller = true;
                break;
            }
        }
    }
    return {failing, options};
}

// The same for bcast's own recorder on Impl: smaller while it still fails.
template <class Impl>
std::pair<history, record_options> minimise_recorded(history failing, record_options options, std::uint64_t id,
                                                     int attempts = 20) {
    auto record = [](const record_options& candidate, std::uint64_t which) {
        record_stats ignored;
        return record_one<Impl>(candidate, which, ignored);
    };
    auto still_fails = [](const history& h) { return check_recorded(h).failed(); };
    return minimise_recorded(std::move(failing), std::move(options), id, record, still_fails, attempts);
}

} // namespace bcast::trace
