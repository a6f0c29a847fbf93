// SPDX-License-Identifier: MIT OR Apache-2.0
// Checking an implementation's results against the spec model's traces
// (docs/traces.md, "Checking"): per trace, the first step whose result
// differs, the rule that governs it, and whether spec/rules.md documents the
// difference as one of async-broadcast's (the divergence table below, the one
// place it is kept; docs/traces.md prints it and a test keeps the two equal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "format.hpp"
#include "run.hpp"

namespace bcast::trace {

// ---- the rule that governs a step's result --------------------------------------------

// A success's rule is the operation table's (bcast/spec/operations.hpp); an
// error, an eviction and a refused capacity have their own.
inline std::string governing_rule(const step& expected) {
    const spec::operation& op = spec::operation_of(expected.op->kind); // the trace language is the table's
    const json* error = expected.result.find("error");
    const std::string code = error != nullptr && error->is_string() ? error->as_string() : "";
    if (op.answer == spec::answer_shape::send) {
        if (code == "closed") return "R-CLOSE-5";
        if (code == "inactive") return op.kind == spec::call_kind::broadcast ? "R-ACT-2" : "R-ACT-1";
        if (code == "full") return "R-SEND-1";
        if (code == "timed_out") return "R-SEND-4";
        if (expected.result.find("evicted") != nullptr) return "R-OVF-1";
    }
    if (op.answer == spec::answer_shape::recv) {
        if (code == "overflowed") return "R-OVF-2";
        if (code == "closed") return "R-CLOSE-5";
        if (code == "timed_out") return "R-RECV-5";
        if (code == "empty") return "R-RECV-1";
    }
    if (op.kind == spec::call_kind::set_capacity && code == "invalid_argument") return "R-CAP-2";
    return std::string(op.rules);
}

// ---- the divergence table ----------------------------------------------------------------

// What the check knows of the trace before the step (for a difference that is
// the consequence of an earlier unsupported step).
struct trace_context {
    std::set<std::string> unsupported; // "op" and "op(arg)" of earlier unsupported steps
};

struct divergence {
    std::string_view rule;
    std::string_view kind; // "divergence" (spec/rules.md says so) or "version" (0.4.1 lacks what 0.7.2 has)
    // "trace", "reproducer" (the threaded scenarios of docs/traces.md; a lost
    // wakeup of its rule in an upstream history is documented by it),
    // "reproducer (kept future)" (shown only while a program keeps a finished
    // future, which no history does: documents no history), "history"
    // (recorded histories) or "reading (0.7.2)" (in the newer source only).
    std::string_view seen_by;
    std::string_view upstream; // what async-broadcast does
    std::string_view bcast;    // what the spec (and bcast) does
    std::string_view why;
    // For "trace" rows: whether this row explains an expected/actual pair (an
    // unsupported answer is matched with `actual` = {"unsupported":true}).
    std::function<bool(const trace_context&, const step& expected, const json& actual)> matches;
};

inline const std::vector<divergence>& divergences() {
    static const std::vector<divergence> table = {
        {"R-CAP-2", "divergence", "trace", "`set_capacity(0)` is accepted: the queue is emptied, then a send waits until close (overflow off) or the queue grows without bound (overflow on)",
         "throws `std::invalid_argument` and changes nothing", "a capacity of 0 has no meaning a user could want; upstream's PR #23 (closed unmerged) says it fixes the infinite loop in `send` after `set_capacity(0)`",
         [](const trace_context&, const step& e, const json& actual) {
             return e.op->kind == spec::call_kind::set_capacity && e.arg.as_int() == 0 && actual == ok();
         }},
        {"R-ACT-2", "version", "trace", "0.4.1 has no `await_active` / `set_await_active` (added in 0.5.0): the driver answers `unsupported`",
         "await_active is on by default and can be turned off", "the rules follow 0.7.2; Debian ships 0.4.1",
         [](const trace_context&, const step& e, const json& actual) {
             return (e.op->kind == spec::call_kind::set_await_active || e.op->kind == spec::call_kind::await_active) && is_unsupported(actual);
         }},
        {"R-ACT-2", "version", "trace", "after an unsupported `set_await_active(false)`, `broadcast` with no active receiver waits (0.4.1 always does)",
         "with await_active off, `broadcast` answers `inactive`", "a consequence of the row above",
         [](const trace_context& c, const step& e, const json& actual) {
             const json* error = e.result.find("error");
             return e.op->kind == spec::call_kind::broadcast && error != nullptr && *error == json("inactive") && actual == blocked() &&
                    c.unsupported.count("set_await_active(false)") != 0;
         }},
        {"R-CAP-4", "divergence", "reproducer", "growing the capacity wakes no sender waiting on a full channel: it stays blocked",
         "wakes every sender waiting on a full channel", "its answer may have changed (R-WAKE-1); upstream's sender waits until some other event",
         nullptr},
        {"R-OVF-4", "divergence", "reproducer", "turning overflow on wakes no sender waiting on a full channel; once overflow is on, receives wake no sender either",
         "wakes every sender waiting on a full channel; it then evicts the oldest message", "the same (R-WAKE-1); in the reproducer upstream's sender waits until close (a later successful send with room left, or a 0-to-1 activate, would also wake one)",
         nullptr},
        {"R-LIFE-6", "divergence", "reproducer", "`Sender::new_receiver` taking the active count from 0 to 1 wakes no sender waiting for an active receiver. `activate_cloned` (and `activate`, which calls it) notifies one (`notify(1)`); a sender whose send succeeds passes that on when its finished future is dropped, so with futures dropped on completion every waiting sender goes on; while a finished send future is kept (or, in 0.7.2, with `broadcast_blocking` senders and overflow on) the others are left waiting",
         "wakes them whichever way the first active receiver appears", "the same (R-WAKE-1)", nullptr},
        {"R-WAKE-1", "divergence", "reproducer (kept future)", "a woken sender whose send succeeds returns still holding its notification, which absorbs its own \"room left\" `notify(1)`; the turn passes on only when its finished send future is dropped, so while a program keeps it the other waiting senders stay blocked even with slots free",
         "a waiting sender is woken whenever its answer may have changed: receives that free several slots wake as many senders, whatever any caller keeps", "upstream ties one task's wake-up to the lifetime of another task's finished future (event-listener passes an unused notification on only when its listener is dropped)", nullptr},
        {"R-WAKE-1", "divergence", "reading (0.7.2)", "(0.7.2) with await_active off, dropping or deactivating the last active receiver while senders wait on a full channel (an inactive receiver keeping it open) notifies one; that sender answers `inactive`. An async sender's finished future passes the notification on, so each answers `inactive` in turn; a `broadcast_blocking` sender has consumed it and passes it to nobody, and the others stay blocked. 0.4.1 cannot show it (no `set_await_active`)",
         "wakes every sender waiting on a full channel; each answers `inactive`, its message handed back", "their answers all changed from waiting to `inactive` (R-WAKE-1)", nullptr},
        {"R-LIFE-4", "divergence", "history", "`Receiver::deactivate` is two critical sections: the inactive count is raised, then the consumed receiver's drop releases its unread messages and lowers the active count; a call between them sees the receiver counted as both",
         "one step: the receiver becomes an inactive receiver", "as R-LIFE-5's `activate`; the model has no step for the midpoint, so a history that catches it is not yet documented (none has been seen)", nullptr},
        {"R-ACT-2", "divergence", "reading (0.7.2)", "(0.7.2) `broadcast` decides `inactive` in two critical sections: `try_broadcast` answers `Inactive`, then a second lock reads await_active, so it can fail although an active receiver appeared before await_active was turned off (no single instant had both)",
         "one decision under the lock: `inactive` only if, at one instant, no active receiver exists and await_active is off", "`try_broadcast` and the await_active check are separate lock acquisitions", nullptr},
        {"R-LIFE-5", "divergence", "history", "`InactiveReceiver::activate` is two critical sections: `activate_cloned` adds the active receiver, then the consumed inactive receiver's drop removes it; a call between them sees both",
         "one step: the inactive receiver becomes the active one", "a recorded history is checked with each `activate` as those two calls (history_check.hpp); a history linearizable so is documented",
         nullptr},
        {"R-ACT-3", "divergence", "reproducer", "(0.7.2) turning await_active off wakes no sender waiting for an active receiver; 0.4.1 cannot show it (no `set_await_active`): the driver reports `unsupported`",
         "wakes them; each answers `inactive`", "the same (R-WAKE-1)", nullptr},
    };
    return table;
}

// The table as docs/traces.md prints it (between its divergence markers).
inline std::string divergence_table_markdown() {
    std::string out = "| Rule | Kind | Seen by | async-broadcast 0.4.1 | bcast (the spec) | Why |\n|---|---|---|---|---|---|\n";
    for (const divergence& d : divergences()) {
        out += "| " + std::string(d.rule) + " | " + std::string(d.kind) + " | " + std::string(d.seen_by) + " | " +
               std::string(d.upstream) + " | " + std::string(d.bcast) + " | " + std::string(d.why) + " |\n";
    }
    return out;
}

// ---- checking ------------------------------------------------------------------------------

struct difference {
    std::uint64_t trace = 0;
    std::size_t step = 0;
    std::size_t expected_line = 0, actual_line = 0;
    std::string op;
    json expected, actual;
    std::string rule;                       // governing_rule
    const divergence* documented = nullptr; // the table row that explains it, if any
};

struct verdict {
    std::size_t traces = 0;
    std::size_t traces_agreed = 0; // every step equal (unsupported ones aside)
    std::size_t steps = 0;         // all steps of all traces
    std::size_t steps_agreed = 0;
    std::size_t steps_unsupported = 0;  // answered "unsupported", each matched by a table row
    std::size_t steps_not_compared = 0; // after a trace's first difference (its state has diverged)
    std::map<std::string, std::size_t> unsupported_by_op;
    std::vector<difference> differences; // the first of each trace; an undocumented unsupported answer too

    std::size_t undocumented() const {
        std::size_t n = 0;
        for (const difference& d : differences) n += d.documented == nullptr ? 1 : 0;
        return n;
    }
};

struct check_options {
    bool divergences = true; // apply the table (to a trace whose target is async-broadcast); off: every difference counts
};

inline const divergence* documented_by(const trace_context& context, const step& expected, const json& actual) {
    if (expected.result == actual) return nullptr;
    for (const divergence& d : divergences()) {
        if (d.matches && d.matches(context, expected, actual)) return &d;
    }
    return nullptr;
}

// The first difference of one trace (nullopt: none), counting into `v`.
inline std::optional<difference> check_trace(const trace& e, const trace& a, bool apply_table, verdict& v,
                                             std::string_view results_source) {
    if (a.capacity != e.capacity) {
        detail::fail_at(results_source, a.line, "trace " + std::to_string(e.id) + " has capacity " + std::to_string(a.capacity) + ", the traces say " + std::to_string(e.capacity));
    }
    if (a.steps.size() != e.steps.size()) {
        detail::fail_at(results_source, a.line, "trace " + std::to_string(e.id) + " has " + std::to_string(a.steps.size()) + " steps, the traces have " + std::to_string(e.steps.size()));
    }
    trace_context context;
    for (std::size_t i = 0; i < e.steps.size(); ++i) {
        const step& x = e.steps[i];
        const step& y = a.steps[i];
        if (x.op != y.op || x.handle != y.handle || x.made != y.made || x.message != y.message || !(x.arg == y.arg)) {
            detail::fail_at(results_source, y.line, "step " + std::to_string(i) + " of trace " + std::to_string(e.id) + " is not the step of the traces (line " + std::to_string(x.line) + ")");
        }
        ++v.steps;
        if (x.result == y.result) {
            ++v.steps_agreed;
            continue;
        }
        const divergence* row = apply_table ? documented_by(context, x, y.result) : nullptr;
        if (is_unsupported(y.result) && row != nullptr) { // counted, and the trace goes on
            ++v.steps_unsupported;
            ++v.unsupported_by_op[std::string(x.op->name)];
            context.unsupported.insert(std::string(x.op->name));
            if (!x.arg.is_null()) context.unsupported.insert(std::string(x.op->name) + "(" + x.arg.dump() + ")");
            continue;
        }
        difference d{e.id, i, x.line, y.line, std::string(x.op->name), x.result, y.result, governing_rule(x), row};
        v.steps += e.steps.size() - i - 1;
        v.steps_not_compared += e.steps.size() - i - 1;
        return d;
    }
    return std::nullopt;
}

inline verdict check(const std::vector<trace>& expected, const std::vector<trace>& actual, const check_options& options = {},
                     std::string_view results_source = "results") {
    std::map<std::uint64_t, const trace*> by_id;
    for (const trace& a : actual) by_id[a.id] = &a;
    verdict v;
    std::set<std::uint64_t> expected_ids;
    for (const trace& e : expected) expected_ids.insert(e.id);
    for (const trace& a : actual) {
        if (expected_ids.count(a.id) == 0) {
            detail::fail_at(results_source, a.line, "results for trace " + std::to_string(a.id) + ", which the traces do not have");
        }
    }
    for (const trace& e : expected) {
        const auto found = by_id.find(e.id);
        if (found == by_id.end()) {
            throw format_error(std::string(results_source) + ": no results for trace " + std::to_string(e.id) + " (traces line " +
                               std::to_string(e.line) + ")");
        }
        ++v.traces;
        const bool apply_table = options.divergences && e.target == target_upstream;
        if (std::optional<difference> d = check_trace(e, *found->second, apply_table, v, results_source)) {
            v.differences.push_back(std::move(*d));
        } else {
            ++v.traces_agreed;
        }
    }
    return v;
}

// ---- minimising ---------------------------------------------------------------------------------
//
// The prefix of a trace up to its first difference is the shortest prefix that
// shows it. minimise() goes further, as Lincheck and RapidCheck do: it deletes
// earlier steps one at a time (a step that made a handle together with that
// handle's whole life), lowers the capacity, and moves a step to an older
// handle, while the difference (same operation, same rule) still shows, re-running the model for the expected results (resolve()) and
// the implementation through `rerun` for the actual ones. Each round hands
// `rerun` every candidate of the round at once (one process start).

using rerun_fn = std::function<std::vector<trace>(const std::vector<trace>& candidates)>;

inline trace minimise(const trace& original, const difference& d, const rerun_fn& rerun, bool apply_table) {
    trace best = original;
    best.steps.resize(d.step + 1);
    const std::string rule = d.rule;
    const std::string op = d.op;
    for (bool shrunk = true; shrunk;) {
        shrunk = false;
        std::vector<trace> candidates;
        auto add = [&](trace c) {
            if (std::optional<trace> resolved = resolve(std::move(c))) {
                resolved->id = candidates.size();
                candidates.push_back(std::move(*resolved));
            }
        };
        for (std::size_t drop = best.steps.size() - 1; drop-- > 0;) {
            // Delete the step; if it made a handle, with every later step on
            // that handle or on handles made from it (its whole life).
            std::set<std::uint64_t> gone;
            if (best.steps[drop].made) gone.insert(*best.steps[drop].made);
            trace c = best;
            c.steps.clear();
            bool keeps_last = true;
            for (std::size_t i = 0; i < best.steps.size(); ++i) {
                const step& s = best.steps[i];
                const bool on_gone = gone.count(s.handle) != 0 ||
                                     (s.op->arg == arg_kind::handle && gone.count(static_cast<std::uint64_t>(s.arg.as_int())) != 0);
                if (i == drop || (i > drop && on_gone)) {
                    if (s.made) gone.insert(*s.made);
                    keeps_last = keeps_last && i + 1 != best.steps.size();
                    continue;
                }
                c.steps.push_back(s);
            }
            if (keeps_last) add(std::move(c));
        }
        // A smaller capacity; a step on an older handle (of a kind resolve() accepts).
        if (best.capacity > 1) {
            trace c = best;
            --c.capacity;
            add(std::move(c));
        }
        for (std::size_t i = 0; i < best.steps.size(); ++i) {
            for (std::uint64_t older = 0; older < best.steps[i].handle; ++older) {
                trace c = best;
                c.steps[i].handle = older;
                add(std::move(c));
            }
        }
        if (candidates.empty()) break;
        const std::vector<trace> results = rerun(candidates);
        for (std::size_t i = 0; i < candidates.size() && i < results.size(); ++i) {
            verdict scratch;
            const std::optional<difference> still = check_trace(candidates[i], results[i], apply_table, scratch, "rerun");
            // Every candidate is smaller than `best` in (steps, capacity, the sum of
            // the steps' handle ids), so taking any of them ends.
            if (still && still->step + 1 == candidates[i].steps.size() && still->op == op && still->rule == rule) {
                best = candidates[i];
                shrunk = true;
                break;
            }
        }
    }
    best.id = original.id;
    return best;
}

} // namespace bcast::trace
