// SPDX-License-Identifier: MIT OR Apache-2.0
// The history format, version 1 (docs/traces.md, "Histories", is its
// definition): a recorded concurrent run, as JSON Lines, read into and written
// from bcast::spec::call, the vocabulary of the one linearizability checker
// (bcast/spec/linearizability.hpp).
//
//   {"format":"bcast-history","version":1,"history":0,"capacity":2,"threads":2,"target":"bcast","implementation":"bcast"}
//   {"history":0,"call":0,"thread":0,"op":"broadcast","handle":0,"message":7,"invoked":1,"returned":4,"result":{"ok":true}}
//   {"history":0,"call":1,"thread":1,"op":"recv","handle":1,"invoked":2,"pending":true}
//
// Operation names and results are the trace format's (format.hpp); handles are
// the recorder's logical numbers 0..63 (the first sender 0, the first receiver 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <bcast/spec/conformance_profile.hpp>
#include <bcast/spec/history.hpp>
#include <bcast/spec/linearizability.hpp>

#include "format.hpp"
#include "json.hpp"

namespace bcast::trace {

inline constexpr std::string_view history_format_name = "bcast-history";
// Version 2 adds a timed call's "deadline" (docs/traces.md); a history without
// one is written as version 1, and both are read.
inline constexpr std::int64_t history_format_version = 2;

struct history {
    std::size_t line = 0;                          // of its header in the file it was read from (0: made in memory)
    std::int64_t version = history_format_version; // as read (1: no deadlines)
    std::uint64_t id = 0;
    std::size_t capacity = 1;
    int threads = 0;
    std::string target{target_bcast};
    std::string implementation;
    // What a seeded recorder needs to record the same program again (the
    // minimiser of `check-history --minimise-with`): its seed, the bound of a
    // blocking call, the most calls a thread makes, and whether every run had
    // the contention shape. All optional: a history from elsewhere may lack them.
    std::optional<std::uint64_t> seed;
    std::optional<std::uint64_t> stall_ms;
    std::optional<std::uint64_t> calls_per_thread;
    bool contention = false;
    // The conformance profile the implementation declares (spec/rules.md,
    // "Profiles"): "reference" (every rule as written; the default) or "P-FAST".
    std::string profile{spec::reference_profile.name};
    std::vector<spec::call> calls;
    std::vector<std::int64_t> timeout_us; // per call; the timed calls' bound, else 0
    std::vector<std::size_t> call_lines;  // per call, its line in the file (0: made in memory)
};

// The conformance profile a history names, or nullptr for a name this reader does not know.
inline const spec::conformance_profile* profile_named(std::string_view name) {
    for (const spec::conformance_profile* p : spec::known_profiles)
        if (p->name == name) return p;
    return nullptr;
}

// "reference, P-FAST, ...": the names profile_named knows, for an error message.
inline std::string known_profile_names() {
    std::string names;
    for (const spec::conformance_profile* p : spec::known_profiles) names += (names.empty() ? "" : ", ") + std::string(p->name);
    return names;
}

namespace detail {

// What a call is, from the one operation table (bcast/spec/operations.hpp).
inline bool is_bool_answer(spec::call_kind k) { return spec::operation_of(k).answer == spec::answer_shape::flag; }
inline bool is_flag_setting(spec::call_kind k) { return spec::operation_of(k).argument == spec::argument_shape::flag; }
using spec::is_timed;

// An outcome's error code is 1 + the errc value, and the errc values start at 1.
inline const char* send_error_name(int code) {
    static const char* const names[] = {"full", "closed", "inactive", "timed_out", "cancelled"};
    return code >= 2 && code <= 6 ? names[code - 2] : nullptr;
}
inline const char* recv_error_name(int code) {
    static const char* const names[] = {"empty", "closed", "overflowed", "timed_out", "cancelled"};
    return code >= 2 && code <= 6 ? names[code - 2] : nullptr;
}
inline int error_code(std::string_view name, const char* (*names)(int)) {
    for (int code = 2; code <= 6; ++code)
        if (name == names(code)) return code;
    return 0;
}

} // namespace detail

// The op name a history writes for a call kind: the table's one name.
inline std::string_view history_op_name(spec::call_kind kind) { return spec::name(kind); }

// The inverse: nullopt for a name that is not in the history language (the
// table's rows that recorders make; the trace language's zero-bound forms and
// same_channel are not).
inline std::optional<spec::call_kind> history_op_kind(std::string_view name) {
    const spec::operation* op = spec::find_operation(name);
    if (op == nullptr || !op->recorded) return std::nullopt;
    return op->kind;
}

// A call's answer as a result object of the trace format (docs/traces.md, "Results").
inline json result_json(const spec::call& c) {
    using namespace spec::detail::lin;
    const spec::outcome& r = c.result;
    if (is_send(c.kind)) {
        if (r.code == 0) {
            json_object o{{"ok", json(true)}};
            if (r.value >= 0) o.emplace_back("evicted", json(r.value));
            return json(std::move(o));
        }
        const char* e = detail::send_error_name(r.code);
        return json(json_object{{"error", json(e ? e : "?")}, {"message", json(r.value)}});
    }
    if (is_recv(c.kind)) {
        if (r.code == 0) return json(json_object{{"ok", json(true)}, {"message", json(r.value)}});
        const char* e = detail::recv_error_name(r.code);
        json_object o{{"error", json(e ? e : "?")}};
        if (r.code == 1 + int(recv_errc::overflowed)) o.emplace_back("missed", json(r.missed));
        return json(std::move(o));
    }
    if (spec::answers_value(c.kind)) {
        if (detail::is_bool_answer(c.kind)) return json(json_object{{"value", json(r.value != 0)}});
        return json(json_object{{"value", json(std::int64_t{r.value})}});
    }
    return json(json_object{{"ok", json(true)}});
}

// What a call asks, as members of its JSON object: "op", "handle", and the
// members its operation takes ("new", "message", "arg", "timeout_us"). Shared
// by the history format and the driver protocol's programs (docs/drivers.md).
inline void add_request_members(json_object& o, const spec::call& c, std::int64_t timeout_us) {
    o.emplace_back("op", json(std::string(history_op_name(c.kind))));
    o.emplace_back("handle", json(c.handle));
    if (spec::detail::lin::creates_handle(c.kind)) o.emplace_back("new", json(c.out));
    if (spec::detail::lin::is_send(c.kind)) o.emplace_back("message", json(c.arg));
    if (c.kind == spec::call_kind::set_capacity) o.emplace_back("arg", json(c.arg));
    if (detail::is_flag_setting(c.kind)) o.emplace_back("arg", json(c.arg != 0));
    if (detail::is_timed(c.kind)) o.emplace_back("timeout_us", json(timeout_us));
}

inline json call_json(const history& h, std::size_t index) {
    const spec::call& c = h.calls[index];
    json_object o{{"history", json(h.id)}, {"call", json(std::uint64_t{index})}, {"thread", json(c.thread)}};
    add_request_members(o, c, index < h.timeout_us.size() ? h.timeout_us[index] : 0);
    o.emplace_back("invoked", json(c.invoked));
    if (c.deadline != 0) o.emplace_back("deadline", json(c.deadline)); // version 2
    if (c.is_pending()) {
        o.emplace_back("pending", json(true));
    } else {
        o.emplace_back("returned", json(c.returned));
        o.emplace_back("result", result_json(c));
    }
    return json(std::move(o));
}

inline void write_history(std::ostream& out, const history& h) {
    const bool deadlines = std::any_of(h.calls.begin(), h.calls.end(), [](const spec::call& c) { return c.deadline != 0; });
    json_object head{{"format", json(std::string(history_format_name))}, {"version", json(std::int64_t{deadlines ? 2 : 1})}, {"history", json(h.id)}, {"capacity", json(std::uint64_t{h.capacity})}, {"threads", json(h.threads)}, {"target", json(h.target)}, {"implementation", json(h.implementation)}};
    if (h.seed) head.emplace_back("seed", json(*h.seed));
    if (h.stall_ms) head.emplace_back("stall_ms", json(*h.stall_ms));
    if (h.calls_per_thread) head.emplace_back("calls", json(*h.calls_per_thread));
    if (h.contention) head.emplace_back("contention", json(true));
    if (h.profile != spec::reference_profile.name) head.emplace_back("profile", json(h.profile));
    out << json(std::move(head)).dump() << '\n';
    for (std::size_t i = 0; i < h.calls.size(); ++i) out << call_json(h, i).dump() << '\n';
}

namespace detail {

inline std::int64_t integer(const json& o, std::string_view key, std::string_view source, std::size_t line) {
    const json& m = member(o, key, source, line);
    if (!m.is_int()) fail_at(source, line, "\"" + std::string(key) + "\" must be an integer");
    return m.as_int();
}

inline int handle_number(const json& o, std::string_view key, std::string_view source, std::size_t line) {
    const std::uint64_t h = counter(o, key, source, line);
    if (h >= std::uint64_t(spec::max_logical_handles))
        fail_at(source, line, "\"" + std::string(key) + "\" must be a handle number in 0..63");
    return int(h);
}

// The result object of call `c` (kind, argument known) as a spec::outcome.
inline spec::outcome outcome_of(const spec::call& c, const json& r, std::string_view source, std::size_t line) {
    using namespace spec::detail::lin;
    if (!r.is_object()) fail_at(source, line, "\"result\" must be an object");
    const std::string_view op = history_op_name(c.kind);
    auto wrong = [&](const std::string& what) {
        fail_at(source, line, "the result of \"" + std::string(op) + "\" " + what + ": " + r.dump());
    };
    auto only = [&](std::initializer_list<std::string_view> allowed) { only_members(r, allowed, source, line); };
    const json* ok_member = r.find("ok");
    const json* error = r.find("error");
    if (ok_member != nullptr && !(ok_member->is_bool() && ok_member->as_bool())) wrong("has an \"ok\" that is not true");
    if (error != nullptr && !error->is_string()) wrong("has an \"error\" that is not a string");
    if (is_send(c.kind)) {
        if (ok_member != nullptr) {
            only({"ok", "evicted"});
            const json* ev = r.find("evicted");
            if (ev != nullptr && (!ev->is_int() || ev->as_int() < 0)) wrong("has an \"evicted\" that is not a message");
            return {0, ev != nullptr ? int(ev->as_int()) : -1, 0};
        }
        if (error == nullptr) wrong("is neither {\"ok\":true,...} nor {\"error\":...}");
        only({"error", "message"});
        const int code = error_code(error->as_string(), send_error_name);
        if (code == 0) wrong("names an error a send does not have (full, closed, inactive, timed_out)");
        const json* m = r.find("message");
        if (m == nullptr || !m->is_int() || m->as_int() != c.arg) wrong("must hand the message back (\"message\": " + std::to_string(c.arg) + ")");
        return {code, c.arg, 0};
    }
    if (is_recv(c.kind)) {
        if (ok_member != nullptr) {
            only({"ok", "message"});
            const json* m = r.find("message");
            if (m == nullptr || !m->is_int()) wrong("must say the \"message\" received");
            return {0, int(m->as_int()), 0};
        }
        if (error == nullptr) wrong("is neither {\"ok\":true,...} nor {\"error\":...}");
        const int code = error_code(error->as_string(), recv_error_name);
        if (code == 0) wrong("names an error a receive does not have (empty, closed, overflowed, timed_out)");
        if (code == 1 + int(recv_errc::overflowed)) {
            only({"error", "missed"});
            const json* n = r.find("missed");
            if (n == nullptr || !n->is_int() || n->as_int() < 1) wrong("must say how many were \"missed\" (at least 1)");
            return {code, -1, std::uint64_t(n->as_int())};
        }
        only({"error"});
        return {code, -1, 0};
    }
    if (spec::answers_value(c.kind)) {
        only({"value"});
        const json* v = r.find("value");
        if (v == nullptr) wrong("must be {\"value\":...}");
        if (is_bool_answer(c.kind)) {
            if (!v->is_bool()) wrong("must be true or false");
            return {0, v->as_bool() ? 1 : 0, 0};
        }
        if (!v->is_int() || v->as_int() < 0) wrong("must be a non-negative integer");
        return {0, int(v->as_int()), 0};
    }
    only({"ok"});
    if (ok_member == nullptr) wrong("must be {\"ok\":true}");
    return {};
}

// The kind of handle a call of `kind` needs, and the kind of the handle it makes.
inline handle_kind needs(spec::call_kind kind) { return spec::operation_of(kind).acts_on; }
inline handle_kind makes(spec::call_kind kind) { return spec::operation_of(kind).creates; }
using spec::consumes_handle;
inline const char* kind_name(handle_kind k) {
    switch (k) {
    case handle_kind::sender: return "a sender";
    case handle_kind::receiver: return "a receiver";
    case handle_kind::inactive: return "an inactive receiver";
    case handle_kind::sender_or_receiver: return "a sender or a receiver";
    case handle_kind::any: return "any handle";
    case handle_kind::none: return "no handle";
    }
    return "?";
}
inline bool fits(handle_kind needed, handle_kind have) {
    return needed == handle_kind::any || needed == have ||
           (needed == handle_kind::sender_or_receiver && (have == handle_kind::sender || have == handle_kind::receiver));
}

// The checks that need a whole history: no call on a handle invoked after the
// call that dropped or converted it returned, and no handle consumed twice.
inline void check_handle_lifetimes(const history& h, std::string_view source) {
    std::vector<std::optional<std::size_t>> consumed_by(spec::max_logical_handles); // index of the consuming call
    for (std::size_t i = 0; i < h.calls.size(); ++i) {
        const spec::call& c = h.calls[i];
        if (!consumes_handle(c.kind)) continue;
        auto& by = consumed_by[std::size_t(c.handle)];
        if (by) fail_at(source, h.call_lines[i], "handle " + std::to_string(c.handle) + " is dropped or converted twice (also on line " + std::to_string(h.call_lines[*by]) + ")");
        by = i;
    }
    for (std::size_t i = 0; i < h.calls.size(); ++i) {
        const spec::call& c = h.calls[i];
        const auto& by = consumed_by[std::size_t(c.handle)];
        if (!by || *by == i || h.calls[*by].is_pending()) continue;
        if (c.invoked > h.calls[*by].returned)
            fail_at(source, h.call_lines[i], "handle " + std::to_string(c.handle) + " was used after the call on line " + std::to_string(h.call_lines[*by]) + " dropped or converted it");
    }
}

} // namespace detail

// The inverse of add_request_members: "op", "handle" and the members the
// operation takes, each checked (and none it does not take), into c.kind,
// c.handle, c.out, c.arg and `timeout_us`. Whether the handle exists is the
// caller's to check.
inline void read_request_members(const json& o, spec::call& c, std::int64_t& timeout_us, std::string_view source, std::size_t line) {
    using namespace detail;
    const std::string name = text(o, "op", source, line);
    const auto kind = history_op_kind(name);
    if (!kind) fail_at(source, line, "unknown operation \"" + name + "\"");
    c.kind = *kind;
    c.handle = handle_number(o, "handle", source, line);
    if (spec::detail::lin::creates_handle(c.kind)) {
        c.out = handle_number(o, "new", source, line);
    } else if (o.find("new") != nullptr) {
        fail_at(source, line, "\"" + name + "\" makes no handle: no \"new\"");
    }
    if (spec::detail::lin::is_send(c.kind)) {
        c.arg = int(integer(o, "message", source, line));
    } else if (o.find("message") != nullptr) {
        fail_at(source, line, "\"" + name + "\" sends nothing: no \"message\"");
    }
    if (c.kind == spec::call_kind::set_capacity) {
        const std::uint64_t n = counter(o, "arg", source, line);
        if (n == 0 || n > 1'000'000) fail_at(source, line, "\"arg\" of \"set_capacity\" must be 1..1000000 (a history cannot hold R-CAP-2's throw)");
        c.arg = int(n);
    } else if (is_flag_setting(c.kind)) {
        const json& a = member(o, "arg", source, line);
        if (!a.is_bool()) fail_at(source, line, "\"arg\" of \"" + name + "\" must be true or false");
        c.arg = a.as_bool() ? 1 : 0;
    } else if (o.find("arg") != nullptr) {
        fail_at(source, line, "\"" + name + "\" takes no \"arg\"");
    }
    timeout_us = 0;
    if (is_timed(c.kind)) {
        timeout_us = std::int64_t(counter(o, "timeout_us", source, line));
    } else if (o.find("timeout_us") != nullptr) {
        fail_at(source, line, "\"" + name + "\" has no \"timeout_us\"");
    }
}

// Reads every history of a file. Throws format_error naming the file and line
// for anything that is not version 1: bad JSON, a missing or unknown member, an
// unknown operation, a call out of order or outside a history, a handle
// number outside 0..63 or used before any call made it, a call on a handle of
// the wrong kind, a handle used after (in real time) the call that dropped or
// converted it returned, or consumed twice, a response before its
// invocation, a result that does not fit the operation, a file that ends
// inside a history's numbering (the header's promise of threads unkept is not
// checkable, so "threads" only bounds "thread").
inline std::vector<history> read_histories(std::istream& in, std::string_view source) {
    using namespace detail;
    std::vector<history> histories;
    std::vector<bool> named;                 // the current history's handle numbers made so far
    std::vector<handle_kind> kind_of_handle; // and what each is
    for_each_object(in, source, [&](const json& o, std::size_t line) {
        if (o.find("format") != nullptr) {
            only_members(o, {"format", "version", "history", "capacity", "threads", "target", "implementation", "seed", "stall_ms", "calls", "contention", "profile"}, source, line);
            const json* v = o.find("version");
            const bool first_version = v != nullptr && v->is_int() && v->as_int() == 1; // read too: no deadlines
            check_format(o, history_format_name, first_version ? 1 : history_format_version, source, line);
            history h;
            h.line = line;
            h.version = first_version ? 1 : history_format_version;
            h.id = counter(o, "history", source, line);
            h.capacity = counter(o, "capacity", source, line);
            if (h.capacity == 0) fail_at(source, line, "\"capacity\" must be at least 1 (R-CAP-1)");
            const std::uint64_t threads = counter(o, "threads", source, line);
            if (threads == 0 || threads > 64) fail_at(source, line, "\"threads\" must be 1..64");
            h.threads = int(threads);
            h.target = text(o, "target", source, line);
            if (!valid_target(h.target)) fail_at(source, line, "unknown target \"" + h.target + "\"");
            h.implementation = text(o, "implementation", source, line);
            if (o.find("seed") != nullptr) h.seed = counter(o, "seed", source, line);
            if (o.find("stall_ms") != nullptr) h.stall_ms = counter(o, "stall_ms", source, line);
            if (o.find("calls") != nullptr) h.calls_per_thread = counter(o, "calls", source, line);
            if (o.find("profile") != nullptr) {
                h.profile = text(o, "profile", source, line);
                if (profile_named(h.profile) == nullptr) fail_at(source, line, "unknown profile \"" + h.profile + "\" (known: " + known_profile_names() + ")");
            }
            if (const json* c = o.find("contention")) {
                if (!c->is_bool()) fail_at(source, line, "\"contention\" must be true or false");
                h.contention = c->as_bool();
            }
            for (const history& earlier : histories)
                if (earlier.id == h.id) fail_at(source, line, "history " + std::to_string(h.id) + " appears twice");
            if (!histories.empty()) check_handle_lifetimes(histories.back(), source);
            histories.push_back(std::move(h));
            named.assign(spec::max_logical_handles, false);
            named[0] = named[1] = true;
            kind_of_handle.assign(spec::max_logical_handles, handle_kind::any);
            kind_of_handle[0] = handle_kind::sender;
            kind_of_handle[1] = handle_kind::receiver;
            return;
        }
        only_members(o, {"history", "call", "thread", "op", "handle", "new", "message", "arg", "timeout_us", "invoked", "deadline", "returned", "pending", "result"}, source, line);
        if (histories.empty()) fail_at(source, line, "a call before any history header");
        history& h = histories.back();
        if (counter(o, "history", source, line) != h.id)
            fail_at(source, line, "a call of history " + member(o, "history", source, line).dump() + " inside history " + std::to_string(h.id));
        const std::uint64_t index = counter(o, "call", source, line);
        if (index != h.calls.size())
            fail_at(source, line, "call " + std::to_string(index) + " where call " + std::to_string(h.calls.size()) + " was due");
        if (h.calls.size() == spec::max_history_calls)
            fail_at(source, line, "more than " + std::to_string(spec::max_history_calls) + " calls in one history");
        spec::call c;
        const std::int64_t thread = integer(o, "thread", source, line);
        if (thread < -1 || thread >= h.threads)
            fail_at(source, line, "\"thread\" must be -1 (setup) or 0.." + std::to_string(h.threads - 1));
        c.thread = int(thread);
        std::int64_t timeout = 0;
        read_request_members(o, c, timeout, source, line);
        const std::string name(history_op_name(c.kind));
        const bool upstream = h.target == target_upstream;
        const auto* trace_op = find_op(name);
        if (upstream && trace_op != nullptr && trace_op->extension)
            fail_at(source, line, "\"" + name + "\" is a bcast extension, not allowed in an async-broadcast history");
        if (!named[std::size_t(c.handle)]) fail_at(source, line, "handle " + std::to_string(c.handle) + " was never made");
        const handle_kind have = kind_of_handle[std::size_t(c.handle)];
        if (!fits(needs(c.kind), have))
            fail_at(source, line, "handle " + std::to_string(c.handle) + " is " + kind_name(have) + "; \"" + name + "\" needs " + kind_name(needs(c.kind)));
        if (spec::detail::lin::creates_handle(c.kind)) {
            if (named[std::size_t(c.out)]) fail_at(source, line, "handle number " + std::to_string(c.out) + " is made twice");
            named[std::size_t(c.out)] = true;
            kind_of_handle[std::size_t(c.out)] = makes(c.kind);
        }
        c.invoked = counter(o, "invoked", source, line);
        if (o.find("deadline") != nullptr) {
            if (h.version < 2) fail_at(source, line, "\"deadline\" is a member of version 2 (this history says version 1)");
            if (!is_timed(c.kind)) fail_at(source, line, "\"" + name + "\" has no deadline (only the timed calls)");
            c.deadline = counter(o, "deadline", source, line);
            if (c.deadline < c.invoked) fail_at(source, line, "\"deadline\" is before \"invoked\"");
        }
        if (const json* p = o.find("pending")) {
            if (!p->is_bool() || !p->as_bool()) fail_at(source, line, "\"pending\" must be true (leave it out otherwise)");
            if (o.find("returned") != nullptr || o.find("result") != nullptr)
                fail_at(source, line, "a pending call has no \"returned\" and no \"result\"");
        } else {
            c.returned = counter(o, "returned", source, line);
            if (c.returned == spec::pending_tick) fail_at(source, line, "\"returned\" is out of range");
            if (c.returned < c.invoked) fail_at(source, line, "\"returned\" is before \"invoked\"");
            c.result = outcome_of(c, member(o, "result", source, line), source, line);
        }
        h.calls.push_back(c);
        h.timeout_us.push_back(timeout);
        h.call_lines.push_back(line);
    });
    if (!histories.empty()) check_handle_lifetimes(histories.back(), source);
    return histories;
}

} // namespace bcast::trace
