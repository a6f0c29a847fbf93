// SPDX-License-Identifier: MIT OR Apache-2.0
// The portable trace format, version 1 (docs/traces.md is its definition).
//
// A trace file is JSON Lines. A trace is a header line and then one line per
// step; traces follow each other in one file:
//   {"format":"bcast-trace","version":1,"trace":0,"capacity":2,"profile":"lag","target":"async-broadcast"}
//   {"trace":0,"step":0,"op":"try_broadcast","handle":0,"message":0,"result":{"ok":true}}
//   {"trace":0,"step":1,"op":"clone_receiver","handle":1,"new":2,"result":{"ok":true}}
// Handles are named by ids: the channel's first sender is 0 and its first
// receiver 1, and a step that makes a handle says the id it gets ("new").
// A file of traces holds the spec model's results; an implementation that
// replays it writes the same lines with its own results (and its name in the
// header's "implementation"), which `bcast-trace check` compares.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <bcast/spec/operations.hpp>

#include "json.hpp"

namespace bcast::trace {

inline constexpr std::string_view format_name = "bcast-trace";
inline constexpr std::int64_t format_version = 1;

// Which handles a step's "handle" may name: the operation table's kinds.
using spec::handle_kind;

// What a step's "arg" is.
enum class arg_kind { none,
                      capacity,
                      flag,
                      handle };

// One operation of the trace language: a row of the one operation table
// (bcast/spec/operations.hpp) as a trace step writes it.
struct op_info {
    spec::call_kind kind{};
    std::string_view name;
    handle_kind on{};
    bool makes_handle = false; // the step has "new"
    bool sends = false;        // the step has "message"
    arg_kind arg{};
    bool extension = false; // bcast's own (R-SEND-4, R-RECV-5, R-QUERY-2, R-HANDLE-3): not in traces for upstream
};

// The trace language is the table but its timed calls: a trace's time bound
// is always zero, so it has their zero-bound rows (broadcast_expired,
// recv_expired) instead. "broadcast" and "recv" appear only where the model
// says they cannot block.
constexpr bool in_trace_language(const spec::operation& o) { return !spec::is_timed(o.kind); }

namespace detail {
constexpr arg_kind trace_arg(spec::argument_shape a) {
    switch (a) {
    case spec::argument_shape::capacity: return arg_kind::capacity;
    case spec::argument_shape::flag: return arg_kind::flag;
    case spec::argument_shape::handle: return arg_kind::handle;
    case spec::argument_shape::none:
    case spec::argument_shape::message: // written as the step's "message"
    case spec::argument_shape::message_and_timeout:
    case spec::argument_shape::timeout: return arg_kind::none;
    }
    return arg_kind::none;
}
inline constexpr std::size_t trace_op_count = [] {
    std::size_t n = 0;
    for (const spec::operation& o : spec::operations) n += in_trace_language(o) ? 1 : 0;
    return n;
}();
} // namespace detail

inline constexpr std::array<op_info, detail::trace_op_count> ops = [] {
    std::array<op_info, detail::trace_op_count> out{};
    std::size_t i = 0;
    for (const spec::operation& o : spec::operations) {
        if (!in_trace_language(o)) continue;
        const bool sends = o.argument == spec::argument_shape::message;
        out[i++] = {o.kind, o.name, o.acts_on, o.creates != handle_kind::none, sends, detail::trace_arg(o.argument), o.extension};
    }
    return out;
}();

inline const op_info* find_op(std::string_view name) {
    for (const op_info& info : ops) {
        if (info.name == name) return &info;
    }
    return nullptr;
}

// Targets: which operations a trace may use.
inline constexpr std::string_view target_bcast = "bcast";              // every operation
inline constexpr std::string_view target_upstream = "async-broadcast"; // no extensions
inline bool valid_target(std::string_view t) { return t == target_bcast || t == target_upstream; }

struct step {
    std::size_t line = 0; // in the file it was read from (0: made in memory)
    std::size_t index = 0;
    const op_info* op = nullptr;
    std::uint64_t handle = 0;
    std::optional<std::uint64_t> made; // "new"
    std::optional<std::int64_t> message;
    json arg; // null when the op has none
    json result;
};

struct trace {
    std::size_t line = 0;
    std::uint64_t id = 0;
    std::size_t capacity = 1;
    std::string profile;
    std::string target{target_bcast};
    std::string implementation; // results files only
    std::vector<step> steps;
};

// A file that does not follow the format; what() names the file and line.
struct format_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// ---- writing -------------------------------------------------------------------

inline json header_json(const trace& t) {
    json_object h{{"format", json(std::string(format_name))}, {"version", json(format_version)}, {"trace", json(t.id)}, {"capacity", json(std::uint64_t{t.capacity})}, {"profile", json(t.profile)}, {"target", json(t.target)}};
    if (!t.implementation.empty()) h.emplace_back("implementation", json(t.implementation));
    return json(std::move(h));
}

inline json step_json(std::uint64_t trace_id, const step& s) {
    json_object o{{"trace", json(trace_id)}, {"step", json(std::uint64_t{s.index})}, {"op", json(std::string(s.op->name))}, {"handle", json(s.handle)}};
    if (s.made) o.emplace_back("new", json(*s.made));
    if (s.message) o.emplace_back("message", json(*s.message));
    if (!s.arg.is_null()) o.emplace_back("arg", s.arg);
    o.emplace_back("result", s.result);
    return json(std::move(o));
}

inline void write_trace(std::ostream& out, const trace& t) {
    out << header_json(t).dump() << '\n';
    for (const step& s : t.steps) out << step_json(t.id, s).dump() << '\n';
}

// ---- reading -------------------------------------------------------------------

namespace detail {

[[noreturn]] inline void fail_at(std::string_view source, std::size_t line, const std::string& what) {
    throw format_error(std::string(source) + ":" + std::to_string(line) + ": " + what);
}

inline const json& member(const json& o, std::string_view key, std::string_view source, std::size_t line) {
    const json* m = o.find(key);
    if (m == nullptr) fail_at(source, line, "missing \"" + std::string(key) + "\"");
    return *m;
}

inline std::uint64_t counter(const json& o, std::string_view key, std::string_view source, std::size_t line) {
    const json& m = member(o, key, source, line);
    if (!m.is_int() || m.as_int() < 0) fail_at(source, line, "\"" + std::string(key) + "\" must be a non-negative integer");
    return static_cast<std::uint64_t>(m.as_int());
}

inline std::string text(const json& o, std::string_view key, std::string_view source, std::size_t line) {
    const json& m = member(o, key, source, line);
    if (!m.is_string()) fail_at(source, line, "\"" + std::string(key) + "\" must be a string");
    return m.as_string();
}

inline void only_members(const json& o, std::initializer_list<std::string_view> allowed, std::string_view source,
                         std::size_t line) {
    for (const auto& [name, value] : o.as_object()) {
        bool known = false;
        for (std::string_view a : allowed) known = known || a == name;
        if (!known) fail_at(source, line, "unknown member \"" + name + "\"");
    }
}

// One line of JSON Lines as an object; anything else is refused naming its
// line (and, for bad JSON, its column).
inline json parse_object_line(const std::string& text_line, std::string_view source, std::size_t line) {
    json o;
    try {
        o = json::parse(text_line);
    } catch (const json_error& e) {
        fail_at(source, line, "column " + std::to_string(e.column) + ": " + e.what());
    }
    if (!o.is_object()) fail_at(source, line, "a line must be a JSON object");
    return o;
}

// Calls `each(object, line)` for every line of a JSON Lines file that is not
// blank. The readers of traces, of histories and of driver answers share it.
template <class Each>
void for_each_object(std::istream& in, std::string_view source, Each each) {
    std::string text_line;
    std::size_t line = 0;
    while (std::getline(in, text_line)) {
        ++line;
        if (text_line.find_first_not_of(" \t\r") == std::string::npos) continue; // blank lines are allowed
        each(parse_object_line(text_line, source, line), line);
    }
}

// A header's "format" must be `name` and its "version" this reader's.
inline void check_format(const json& o, std::string_view name, std::int64_t version, std::string_view source, std::size_t line) {
    if (text(o, "format", source, line) != name) fail_at(source, line, "\"format\" must be \"" + std::string(name) + "\"");
    const json& v = member(o, "version", source, line);
    if (!v.is_int() || v.as_int() != version)
        fail_at(source, line, "unsupported version " + v.dump() + " (this reader reads version " + std::to_string(version) + ")");
}

} // namespace detail

// Reads every trace of a file. Throws format_error naming the line for
// anything that is not version 1 of the format: bad JSON, a missing or
// unknown member, an unknown operation, a step out of order or outside a
// trace. Whether a handle id exists is the replayer's business (it needs the
// channel's state): replay.hpp and the Rust driver report that, also by line.
inline std::vector<trace> read_traces(std::istream& in, std::string_view source) {
    using namespace detail;
    std::vector<trace> traces;
    for_each_object(in, source, [&](const json& o, std::size_t line) {
        if (o.find("format") != nullptr) { // a header
            only_members(o, {"format", "version", "trace", "capacity", "profile", "target", "implementation"}, source, line);
            check_format(o, format_name, format_version, source, line);
            trace t;
            t.line = line;
            t.id = counter(o, "trace", source, line);
            t.capacity = counter(o, "capacity", source, line);
            if (t.capacity == 0) fail_at(source, line, "\"capacity\" must be at least 1 (R-CAP-1)");
            t.profile = text(o, "profile", source, line);
            t.target = text(o, "target", source, line);
            if (!valid_target(t.target)) fail_at(source, line, "unknown target \"" + t.target + "\"");
            if (o.find("implementation") != nullptr) t.implementation = text(o, "implementation", source, line);
            for (const trace& earlier : traces) {
                if (earlier.id == t.id) fail_at(source, line, "trace " + std::to_string(t.id) + " appears twice");
            }
            traces.push_back(std::move(t));
            return;
        }
        only_members(o, {"trace", "step", "op", "handle", "new", "message", "arg", "result"}, source, line);
        if (traces.empty()) fail_at(source, line, "a step before any trace header");
        trace& t = traces.back();
        if (counter(o, "trace", source, line) != t.id) {
            fail_at(source, line, "a step of trace " + member(o, "trace", source, line).dump() + " inside trace " + std::to_string(t.id));
        }
        step s;
        s.line = line;
        s.index = counter(o, "step", source, line);
        if (s.index != t.steps.size()) {
            fail_at(source, line, "step " + std::to_string(s.index) + " where step " + std::to_string(t.steps.size()) + " was due");
        }
        const std::string name = text(o, "op", source, line);
        s.op = find_op(name);
        if (s.op == nullptr) fail_at(source, line, "unknown operation \"" + name + "\"");
        if (s.op->extension && t.target == target_upstream) {
            fail_at(source, line, "\"" + name + "\" is a bcast extension, not allowed in an async-broadcast trace");
        }
        s.handle = counter(o, "handle", source, line);
        if (s.op->makes_handle) {
            s.made = counter(o, "new", source, line);
        } else if (o.find("new") != nullptr) {
            fail_at(source, line, "\"" + name + "\" makes no handle: no \"new\"");
        }
        if (s.op->sends) {
            const json& m = member(o, "message", source, line);
            if (!m.is_int()) fail_at(source, line, "\"message\" must be an integer");
            s.message = m.as_int();
        } else if (o.find("message") != nullptr) {
            fail_at(source, line, "\"" + name + "\" sends nothing: no \"message\"");
        }
        switch (s.op->arg) {
        case arg_kind::none:
            if (o.find("arg") != nullptr) fail_at(source, line, "\"" + name + "\" takes no \"arg\"");
            break;
        case arg_kind::capacity:
        case arg_kind::handle:
            s.arg = member(o, "arg", source, line);
            if (!s.arg.is_int() || s.arg.as_int() < 0) fail_at(source, line, "\"arg\" of \"" + name + "\" must be a non-negative integer");
            break;
        case arg_kind::flag:
            s.arg = member(o, "arg", source, line);
            if (!s.arg.is_bool()) fail_at(source, line, "\"arg\" of \"" + name + "\" must be true or false");
            break;
        }
        s.result = member(o, "result", source, line);
        if (!s.result.is_object()) fail_at(source, line, "\"result\" must be an object");
        t.steps.push_back(std::move(s));
    });
    return traces;
}

} // namespace bcast::trace
