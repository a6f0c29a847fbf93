// SPDX-License-Identifier: MIT OR Apache-2.0
// A generated concurrent scenario: a setup run before the threads start, 1-3
// threads of a few commands each, and a teardown run after they all ended.
//
// The commands are the property tests' command language
// (property_tests/include/bcast_prop/commands.hpp: the same operation names),
// but a command names its handle by a *logical number* instead of a position
// among the live handles: with several threads, "the second live receiver"
// depends on the interleaving, a logical number does not. Each handle belongs
// to one context (the setup, one thread, the teardown) at a time, because
// R-THREAD-1 lets distinct handle objects be used concurrently but a receiver
// object has one user at a time, and a handle must not be dropped while
// another thread uses it.
//
// Logical numbers are handed out in creation order, per context, from fixed
// ranges, so the number a command creates is known without running it:
//   setup: 0 = the first sender, 1 = the first receiver, then 2..11
//   thread t: 12 + 4t .. 15 + 4t          teardown: 24..31
// Setup handles pass to the threads listed as owning them (`t1{1,3}`); the
// setup drops any handle that no thread takes. The teardown owns whatever is
// alive when the threads have ended.
//
// Text form (printed for every scenario, read back by --scenario=):
//   cap:1 | setup: try_broadcast:0 clone_sender:0 | t0{0}: broadcast:0 | t1{1,2;0}: recv:1 len:0 | teardown: close:1
// A command is `name:handle` or `name:handle:arg` (arg: a capacity, a flag,
// or for async_*_cancelled 1: cancelled before it starts, 0: once queued).
// `t1{1,2;0}`: thread 1 owns handles 1 and 2 and borrows handle 0, which
// thread 0 owns: R-THREAD-1 lets two threads use one handle object through
// its const methods (borrowable()), so a borrower may send on a sender, copy
// a receiver or ask a query, and the owner never drops a lent handle.
//
// normalise() removes every command that is not valid where it stands (its
// handle is not owned there, or is of the wrong kind) and fills in the handles
// commands create, so any sub-scenario of a scenario is again a scenario: that
// is what lets minimise() drop commands one by one.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <bcast/spec/operations.hpp>
#include <bcast/spec/queries.hpp>
#include <bcast_prop/commands.hpp>

namespace bcast::gen {

using prop::op;

inline constexpr int max_threads = 3;
inline constexpr int max_steps_per_thread = 4;
inline constexpr int max_logical_handles = 32;
inline constexpr int setup_context = -1;
inline constexpr int teardown_context = max_threads;

// The first logical number a context hands out, and one past its last.
constexpr int first_logical(int context) {
    return context == setup_context ? 2 : context == teardown_context ? 24
                                                                      : 12 + 4 * context;
}
constexpr int end_logical(int context) {
    return context == setup_context ? 12 : context == teardown_context ? 32
                                                                       : 16 + 4 * context;
}

enum class handle_kind : std::uint8_t { none,
                                        sender,
                                        receiver,
                                        inactive };

struct step {
    op what = op::try_recv;
    int handle = 0; // logical handle it is called on
    int arg = 0;    // capacity (set_capacity), flag (set_overflow, set_await_active)
    int out = -1;   // logical handle it creates (filled in by normalise())
    friend bool operator==(const step&, const step&) = default;
};

struct thread_plan {
    std::vector<int> owns;    // setup handles this thread takes when it starts
    std::vector<int> borrows; // setup handles another thread owns, which this one may also use (see borrowable())
    std::vector<step> steps;
    friend bool operator==(const thread_plan&, const thread_plan&) = default;
};

struct scenario {
    int capacity = 1;
    std::vector<step> setup;
    std::vector<thread_plan> threads;
    std::vector<step> teardown;
    friend bool operator==(const scenario&, const scenario&) = default;
};

// What a command is, from the one operation table (bcast/spec/operations.hpp):
// a command of the property language is the table's operation of the same
// name, an async command (async_recv, async_broadcast_cancelled, ...) the
// blocking operation it awaits. Commands with no row (create, recv_throwing,
// the iterators) are the property tests' only.
inline const spec::operation* operation_of(op what) {
    std::string_view name = prop::name_of(what);
    if (name.starts_with("async_")) name.remove_prefix(6);
    if (name.ends_with("_cancelled")) name.remove_suffix(10);
    return spec::find_operation(name);
}
inline handle_kind from_table(spec::handle_kind k) {
    switch (k) {
    case spec::handle_kind::sender: return handle_kind::sender;
    case spec::handle_kind::receiver: return handle_kind::receiver;
    case spec::handle_kind::inactive: return handle_kind::inactive;
    case spec::handle_kind::none:
    case spec::handle_kind::sender_or_receiver:
    case spec::handle_kind::any: return handle_kind::none;
    }
    return handle_kind::none;
}

// What kind of handle an operation is called on, and what it creates. Where
// the table allows several kinds the harness (model_tests/relacy/harness.hpp)
// picks one: new_receiver and the settings go through a sender; close and the
// queries are valid on several kinds (valid_on), so they need none here.
inline handle_kind needs(op what) {
    const spec::operation* row = operation_of(what);
    if (row == nullptr) return handle_kind::none;
    if (row->acts_on == spec::handle_kind::sender_or_receiver) return handle_kind::sender;
    if (row->acts_on == spec::handle_kind::any && !row->query && row->answer == spec::answer_shape::none)
        return handle_kind::sender; // set_capacity, set_overflow, set_await_active
    return row->query ? handle_kind::none : from_table(row->acts_on);
}
inline handle_kind creates(op what) {
    const spec::operation* row = operation_of(what);
    return row != nullptr ? from_table(row->creates) : handle_kind::none;
}
// The queries (R-QUERY-1, R-QUERY-2): every handle answers them but
// unread and missed, which only a receiver has. They change nothing.
// same_channel takes a second handle, which scenarios do not name.
inline bool is_query(op what) {
    const spec::operation* row = operation_of(what);
    return row != nullptr && spec::is_plain_query(row->kind);
}
// In the command language's order (a generator draws from it by index).
inline const std::vector<op> queries = [] {
    std::vector<op> out;
    for (std::size_t i = 0; i < prop::op_count; ++i)
        if (is_query(op(i))) out.push_back(op(i));
    return out;
}();
inline bool receiver_only_query(op what) {
    return is_query(what) && operation_of(what)->acts_on == spec::handle_kind::receiver;
}

// Operations that consume the handle they are called on.
inline bool consumes(op what) {
    const spec::operation* row = operation_of(what);
    return row != nullptr && row->consumes;
}
// The operations a generated scenario may use; the rest of the command
// language (create, recv_throwing, same_channel, iterators) is the property tests'.
inline bool supported(op what) {
    return needs(what) != handle_kind::none || what == op::close || is_query(what);
}
// Blocking commands: the ones that may wait for another thread.
inline bool may_block(op what) {
    return what == op::broadcast || what == op::recv || what == op::async_broadcast || what == op::async_recv;
}
// The coroutine commands (R-ASYNC-1): a family without async calls
// (bcast::fast, P-FAST-5) is explored without them (generator_config::async).
inline bool is_async(op what) { return prop::name_of(what).starts_with("async_"); }
// The timed commands: a deadline Relacy may place at any scheduling point.
inline bool is_timed(op what) { return what == op::broadcast_expired || what == op::recv_expired; }
// Commands that may wait at all (blocking, timed, cancelled): only threads
// run them; the setup and the teardown run alone, with no one to wake them.
inline bool may_wait(op what) {
    return may_block(what) || is_timed(what) || what == op::async_broadcast_cancelled ||
           what == op::async_recv_cancelled;
}
// Whether any command of `s` (setup, threads, teardown) satisfies `pred`.
template <class Pred>
bool has_command(const scenario& s, Pred pred) {
    auto any = [&](const std::vector<step>& steps) {
        return std::any_of(steps.begin(), steps.end(), [&](const step& st) { return pred(st.what); });
    };
    if (any(s.setup) || any(s.teardown)) return true;
    return std::any_of(s.threads.begin(), s.threads.end(), [&](const auto& t) { return any(t.steps); });
}
inline bool valid_on(op what, handle_kind kind) {
    if (what == op::close) return kind == handle_kind::sender || kind == handle_kind::receiver;
    if (is_query(what)) return kind != handle_kind::none && (!receiver_only_query(what) || kind == handle_kind::receiver);
    return kind != handle_kind::none && needs(what) == kind;
}
// What a thread may do with a handle object another thread owns (R-THREAD-1):
// every const method, on a sender and an inactive receiver anything that does
// not consume the object; on a receiver only copying it and the queries (its
// receiving methods have one user at a time).
inline bool borrowable(op what, handle_kind kind) {
    if (!valid_on(what, kind) || consumes(what)) return false;
    if (kind == handle_kind::receiver) return what == op::clone_receiver || is_query(what);
    return true;
}
// Whether the argument of a command is part of it (printed in the text form).
inline bool has_arg(op what) {
    return what == op::set_capacity || what == op::set_overflow || what == op::set_await_active ||
           what == op::async_recv_cancelled || what == op::async_broadcast_cancelled;
}

// The message a context sends at its n-th step: unique in the scenario, so a
// delivered value names its send.
constexpr int message_value(int context, int index) { return 100 + 10 * (context + 1) + index; }

// Drops invalid commands and fills in `out`; see the header comment.
inline scenario normalise(scenario s) {
    std::array<handle_kind, max_logical_handles> kind{};
    kind[0] = handle_kind::sender;
    kind[1] = handle_kind::receiver;
    std::array<int, max_logical_handles> owner{};
    owner.fill(setup_context);
    std::array<bool, max_logical_handles> lent{}; // some thread borrows it
    auto run = [&](int context, std::vector<step>& steps) {
        int next = first_logical(context);
        std::vector<step> kept;
        auto borrows = [&](int h) {
            if (context < 0 || context >= int(s.threads.size())) return false;
            const auto& b = s.threads[std::size_t(context)].borrows;
            return std::find(b.begin(), b.end(), h) != b.end();
        };
        for (step st : steps) {
            if (!supported(st.what) || st.handle < 0 || st.handle >= max_logical_handles) continue;
            if ((context == setup_context || context == teardown_context) && may_wait(st.what)) continue;
            if (owner[st.handle] == context) {
                if (!valid_on(st.what, kind[st.handle])) continue;
                if (consumes(st.what) && lent[st.handle]) continue; // a borrower may be using it
            } else if (!borrows(st.handle) || !borrowable(st.what, kind[st.handle])) {
                continue;
            }
            if (creates(st.what) != handle_kind::none && next == end_logical(context)) continue;
            if (st.what == op::set_capacity) st.arg = std::clamp(st.arg, 1, 5);
            if (st.what == op::set_overflow || st.what == op::set_await_active) st.arg = st.arg != 0;
            if (st.what == op::async_recv_cancelled || st.what == op::async_broadcast_cancelled) st.arg = st.arg != 0;
            if (!has_arg(st.what)) st.arg = 0;
            st.out = -1;
            if (consumes(st.what)) kind[st.handle] = handle_kind::none;
            if (creates(st.what) != handle_kind::none) {
                st.out = next++;
                kind[st.out] = creates(st.what);
                owner[st.out] = context;
            }
            kept.push_back(st);
        }
        steps = kept;
    };
    s.capacity = std::clamp(s.capacity, 1, 5);
    run(setup_context, s.setup);
    if (s.threads.size() > max_threads) s.threads.resize(max_threads);
    for (std::size_t t = 0; t < s.threads.size(); ++t) {
        std::vector<int> owns;
        for (int h : s.threads[t].owns)
            if (h >= 0 && h < first_logical(0) && owner[h] == setup_context && kind[h] != handle_kind::none) {
                owner[h] = int(t);
                owns.push_back(h);
            }
        s.threads[t].owns = owns;
        if (s.threads[t].steps.size() > max_steps_per_thread) s.threads[t].steps.resize(max_steps_per_thread);
    }
    for (std::size_t t = 0; t < s.threads.size(); ++t) { // a borrowed handle is one another thread owns
        std::vector<int> borrows;
        for (int h : s.threads[t].borrows)
            if (h >= 0 && h < first_logical(0) && owner[h] != setup_context && owner[h] != int(t) &&
                kind[h] != handle_kind::none && std::find(borrows.begin(), borrows.end(), h) == borrows.end()) {
                borrows.push_back(h);
                lent[h] = true;
            }
        s.threads[t].borrows = borrows;
    }
    for (int h = 0; h < first_logical(0); ++h) // the setup drops what no thread took
        if (owner[h] == setup_context) kind[h] = handle_kind::none;
    for (std::size_t t = 0; t < s.threads.size(); ++t) run(int(t), s.threads[t].steps);
    for (int h = 0; h < max_logical_handles; ++h) owner[h] = teardown_context;
    run(teardown_context, s.teardown);
    return s;
}

// The setup handles no thread takes: the setup drops them before the threads
// start (the runner records these drops like any other call).
inline std::vector<int> unowned_setup_handles(const scenario& s) {
    std::array<handle_kind, max_logical_handles> kind{};
    kind[0] = handle_kind::sender;
    kind[1] = handle_kind::receiver;
    for (const step& st : s.setup) {
        if (consumes(st.what)) kind[st.handle] = handle_kind::none;
        if (st.out >= 0) kind[st.out] = creates(st.what);
    }
    for (const thread_plan& t : s.threads)
        for (int h : t.owns) kind[h] = handle_kind::none;
    std::vector<int> left;
    for (int h = 0; h < first_logical(0); ++h)
        if (kind[h] != handle_kind::none) left.push_back(h);
    return left;
}

inline std::size_t thread_steps(const scenario& s) {
    std::size_t n = 0;
    for (const thread_plan& t : s.threads) n += t.steps.size();
    return n;
}

// ---- text form ---------------------------------------------------------------
inline std::string to_string(const step& st) {
    std::string out(prop::name_of(st.what));
    out += ':' + std::to_string(st.handle);
    if (has_arg(st.what)) out += ':' + std::to_string(st.arg);
    return out;
}

inline std::string to_string(const scenario& s) {
    std::ostringstream out;
    out << "cap:" << s.capacity << " | setup:";
    for (const step& st : s.setup) out << ' ' << to_string(st);
    for (std::size_t t = 0; t < s.threads.size(); ++t) {
        out << " | t" << t << '{';
        for (std::size_t i = 0; i < s.threads[t].owns.size(); ++i) out << (i ? "," : "") << s.threads[t].owns[i];
        if (!s.threads[t].borrows.empty()) out << ';';
        for (std::size_t i = 0; i < s.threads[t].borrows.size(); ++i) out << (i ? "," : "") << s.threads[t].borrows[i];
        out << "}:";
        for (const step& st : s.threads[t].steps) out << ' ' << to_string(st);
    }
    out << " | teardown:";
    for (const step& st : s.teardown) out << ' ' << to_string(st);
    return out.str();
}

// Reads the text form back (then normalises it). On a malformed text, nullopt
// and `error` says which part and why.
inline std::optional<scenario> parse_scenario(std::string_view text, std::string* error = nullptr) {
    auto fail = [&](const std::string& why) -> std::optional<scenario> {
        if (error != nullptr) *error = why;
        return std::nullopt;
    };
    std::vector<std::string> parts;
    {
        std::string cur;
        for (char c : text) {
            if (c == '|') parts.push_back(cur), cur.clear();
            else cur += c;
        }
        parts.push_back(cur);
    }
    auto trim = [](std::string x) {
        const auto b = x.find_first_not_of(" \t\n"), e = x.find_last_not_of(" \t\n");
        return b == std::string::npos ? std::string() : x.substr(b, e - b + 1);
    };
    auto parse_steps = [&](const std::string& body, std::vector<step>& steps, const std::string& where) -> bool {
        std::istringstream in(body);
        std::string token;
        while (in >> token) {
            const std::vector<std::string> f = prop::colon_fields(token);
            const std::optional<op> what = prop::op_named(f[0]);
            if (!what || !supported(*what)) return fail(where + ": unknown or unsupported command '" + f[0] + "'"), false;
            if (f.size() < 2 || f.size() > 3) return fail(where + ": '" + token + "' is not name:handle[:arg]"), false;
            step st{*what, 0, 0, -1};
            try {
                st.handle = std::stoi(f[1]);
                if (f.size() == 3) st.arg = std::stoi(f[2]);
            } catch (...) {
                return fail(where + ": bad number in '" + token + "'"), false;
            }
            if (st.handle < 0 || st.handle >= max_logical_handles)
                return fail(where + ": handle out of range in '" + token + "'"), false;
            steps.push_back(st);
        }
        return true;
    };
    scenario s;
    s.capacity = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string part = trim(parts[i]);
        const std::string where = "part " + std::to_string(i + 1) + " ('" + part.substr(0, 24) + "')";
        if (i == 0) {
            if (part.rfind("cap:", 0) != 0) return fail(where + ": must be cap:N");
            try {
                s.capacity = std::stoi(part.substr(4));
            } catch (...) {
                return fail(where + ": bad capacity");
            }
            if (s.capacity < 1 || s.capacity > 5) return fail(where + ": capacity must be 1..5");
            continue;
        }
        const std::size_t colon = part.find(':');
        if (colon == std::string::npos) return fail(where + ": expected 'setup:', 'tN{...}:' or 'teardown:'");
        const std::string head = part.substr(0, colon), body = part.substr(colon + 1);
        if (head == "setup") {
            if (!parse_steps(body, s.setup, where)) return std::nullopt;
        } else if (head == "teardown") {
            if (!parse_steps(body, s.teardown, where)) return std::nullopt;
        } else if (head.size() >= 4 && head[0] == 't' && head.find('{') != std::string::npos && head.back() == '}') {
            thread_plan t;
            const std::string list = head.substr(head.find('{') + 1, head.size() - head.find('{') - 2);
            const std::size_t semicolon = list.find(';'); // owned;borrowed
            auto read_list = [&](const std::string& text, std::vector<int>& into) {
                std::istringstream in(text);
                std::string h;
                while (std::getline(in, h, ','))
                    if (!trim(h).empty()) {
                        try {
                            into.push_back(std::stoi(trim(h)));
                        } catch (...) {
                            return false;
                        }
                    }
                return true;
            };
            if (!read_list(list.substr(0, semicolon), t.owns) ||
                (semicolon != std::string::npos && !read_list(list.substr(semicolon + 1), t.borrows)))
                return fail(where + ": bad handle list");
            if (!parse_steps(body, t.steps, where)) return std::nullopt;
            if (s.threads.size() == max_threads) return fail(where + ": at most 3 threads");
            s.threads.push_back(t);
        } else {
            return fail(where + ": expected 'setup:', 'tN{...}:' or 'teardown:'");
        }
    }
    if (s.capacity == 0) return fail("empty scenario: must start with cap:N");
    if (s.threads.empty()) return fail("a scenario needs at least one thread");
    return normalise(s);
}

} // namespace bcast::gen
