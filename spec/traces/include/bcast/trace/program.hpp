// SPDX-License-Identifier: MIT OR Apache-2.0
// The concurrent programs of the driver protocol (docs/drivers.md): what
// bcast asks a driver to run, drawn from a seed as the in-process recorder
// draws its runs (record.hpp: the same setup, contention shapes and weighted
// choices), but planned before the run, so that any driver in any language can
// run it and answer raw facts only. Also the program's JSON line, written by
// bcast and read by the C++ driver library (driver.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <bcast/spec/history.hpp>
#include <bcast/spec/linearizability.hpp>
#include <bcast/spec/operations.hpp>

#include "history.hpp"
#include "json.hpp"
#include "record.hpp"

namespace bcast::trace {

// The driver protocol's name and version (a driver's hello says them).
inline constexpr std::string_view driver_format_name = "bcast-driver";
inline constexpr std::int64_t driver_format_version = 1;

// One call of a program: what a history's call asks (kind, handle, out, arg),
// and a timed call's timeout.
struct program_call {
    spec::call request;
    std::int64_t timeout_us = 0;
};

struct program {
    std::uint64_t id = 0;
    std::size_t capacity = 1;
    std::chrono::microseconds bound{20000};       // of each blocking `broadcast` / `recv`
    std::vector<program_call> setup;              // run first, in order, on one thread (thread -1)
    std::vector<std::vector<program_call>> lanes; // one per thread, each in order
    std::optional<int> waker;                     // the thread that starts once the others wait
    bool contention = false;
};

// The operations a driver does without (its hello's "unsupported", or answered so).
using operation_set = std::set<spec::call_kind>;

namespace detail::plan {

using rec::kind;
using spec::call_kind;

// A thread's handles while its program is planned: each call's effect on them
// is known in advance (a call that makes a handle always makes it).
struct planner {
    rec::rng r;
    const operation_set& unsupported;
    int next_number = 2;                              // 0 and 1 are the channel's first sender and receiver
    std::size_t calls_left = spec::max_history_calls; // a history holds at most this many (setup included)

    bool has(call_kind k) const { return !unsupported.contains(k); }
    // Appends call k on lane.handles[which] to `out` and applies its effect;
    // false when it needs a number and none is left (the call is not made).
    bool add(rec::lane& l, std::vector<program_call>& out, call_kind k, std::size_t which, int arg, std::int64_t timeout_us = 0) {
        program_call c;
        c.request.kind = k;
        c.request.thread = l.thread;
        c.request.handle = l.handles[which].logical;
        c.request.arg = arg;
        c.timeout_us = timeout_us;
        const bool makes = spec::creates_handle(k);
        if (calls_left == 0) return false;
        if (makes) {
            if (next_number >= spec::max_logical_handles) return false;
            c.request.out = next_number++;
        }
        out.push_back(c);
        --calls_left;
        if (spec::consumes_handle(k)) l.handles.erase(l.handles.begin() + std::ptrdiff_t(which));
        if (makes) {
            const spec::handle_kind made = spec::operation_of(k).creates;
            l.handles.push_back({c.request.out, 0, made == spec::handle_kind::sender ? kind::sender : made == spec::handle_kind::inactive ? kind::inactive
                                                                                                                                          : kind::receiver});
        }
        return true;
    }
    // A thread's calls drawn as record.hpp's run_lane draws them, without the
    // operations the driver lacks.
    void draw(rec::lane& l, std::vector<program_call>& out, int calls, bool waker, int message) {
        std::vector<call_kind> queries;
        for (call_kind q : rec::queries)
            if (has(q)) queries.push_back(q);
        for (int n = 0; n < calls && !l.handles.empty() && calls_left > 0; ++n) {
            std::vector<rec::choice> options = rec::choices(l, next_number < spec::max_logical_handles, waker);
            std::erase_if(options, [&](const rec::choice& c) { return c.k == call_kind::len ? queries.empty() : !has(c.k); });
            if (options.empty()) return;
            const rec::choice* chosen = &rec::weighted_pick(options, r);
            call_kind k = chosen->k;
            if (k == call_kind::len) {
                k = queries[r.below(queries.size())];
                const bool per_receiver = k == call_kind::unread || k == call_kind::missed;
                if (per_receiver && l.handles[chosen->which].k != kind::receiver) {
                    if (!has(call_kind::len)) continue;
                    k = call_kind::len; // as run_lane: a receiver's query asked of another handle becomes len
                }
            }
            const rec::drawn_argument a = rec::draw_argument(k, r, message);
            add(l, out, k, chosen->which, a.arg, a.timeout_us);
        }
    }
};

} // namespace detail::plan

// Program `id` drawn from `options` (seed, threads, calls per thread, the
// contention shape) without the operations in `unsupported`. The same
// (options, id) always gives the same program: confirmation and shrinking
// send it again, or with fewer threads and calls.
inline program make_program(const record_options& options, std::uint64_t id, const operation_set& unsupported = {}) {
    using namespace detail::plan;
    using detail::rec::lane;
    namespace rec = detail::rec;
    program p;
    p.id = id;
    p.bound = std::chrono::duration_cast<std::chrono::microseconds>(options.stall);
    planner plan{{options.seed * 0x100000001b3ull ^ (id + 1) * 0x9e3779b97f4a7c15ull}, unsupported};
    rec::rng& r = plan.r;
    const int threads = options.min_threads + int(r.below(std::uint64_t(options.max_threads - options.min_threads + 1)));
    p.capacity = 1 + r.below(3);
    p.lanes.resize(std::size_t(threads));

    lane setup;
    setup.thread = -1;
    setup.handles = {{0, 0, kind::sender}, {1, 1, kind::receiver}};
    // The contention shapes of record_one, where the driver has what they need.
    const bool can_wait = plan.has(call_kind::broadcast) && plan.has(call_kind::recv);
    p.contention = can_wait && (r.one_in(2) || options.contention_only);
    int shape = int(r.below(3)); // 0: receivers wait on an empty ring; 1: senders on a full one; 2: senders for an active receiver
    if (shape == 2 && !plan.has(call_kind::deactivate)) shape = 1;
    if (shape == 1 && !plan.has(call_kind::try_broadcast)) shape = 0;
    std::array<int, spec::max_logical_handles> owner{}; // which thread each handle number goes to
    auto made_for = [&](int t, call_kind k, std::size_t from) {
        // A driver without receiver copies (tokio) gets new receivers instead:
        // the same thing here, before any message is sent.
        if (k == call_kind::clone_receiver && !plan.has(k) && plan.has(call_kind::new_receiver)) k = call_kind::new_receiver, from = 0;
        const bool made = plan.has(k) && plan.add(setup, p.setup, k, from, 0);
        if (made) owner[std::size_t(setup.handles.back().logical)] = t;
        return made;
    };
    if (r.one_in(3) && !(p.contention && shape == 1) && plan.has(call_kind::set_overflow))
        plan.add(setup, p.setup, call_kind::set_overflow, 0, 1);
    for (int t = 1; t < threads; ++t) {
        const bool waiter = p.contention && t + 1 < threads;
        const bool draw = r.one_in(2);
        const bool wants_sender = p.contention ? (waiter ? shape != 0 : shape != 0 && draw) : !r.one_in(4);
        const bool wants_receiver = p.contention ? (waiter ? shape == 0 : shape == 0 && draw) : (!wants_sender || !r.one_in(4));
        if (wants_sender) made_for(t, call_kind::clone_sender, 0);
        if (wants_receiver) made_for(t, call_kind::clone_receiver, 1);
    }
    if (p.contention && shape == 1 && r.one_in(2) && plan.has(call_kind::set_await_active) && plan.has(call_kind::deactivate) &&
        plan.has(call_kind::clone_receiver)) {
        // As record_one: the waker also holds an inactive receiver, await_active off.
        plan.add(setup, p.setup, call_kind::set_await_active, 0, 0);
        made_for(threads - 1, call_kind::clone_receiver, 1);
        made_for(threads - 1, call_kind::deactivate, setup.handles.size() - 1);
    }
    if (p.contention && shape == 1)
        for (std::size_t m = 0; m < p.capacity; ++m) plan.add(setup, p.setup, call_kind::try_broadcast, 0, 900 + int(m));
    if (p.contention && shape == 2) {
        for (std::size_t i = 0; i < setup.handles.size();) {
            if (setup.handles[i].k != kind::receiver) {
                ++i;
                continue;
            }
            if (!made_for(owner[std::size_t(setup.handles[i].logical)], call_kind::deactivate, i)) ++i;
        }
    }
    std::vector<lane> lanes(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) lanes[std::size_t(t)].thread = t;
    for (const auto& o : setup.handles) lanes[std::size_t(owner[std::size_t(o.logical)])].handles.push_back(o);
    if (p.contention && threads > 1) {
        const kind waits = shape == 0 ? kind::receiver : kind::sender;
        std::vector<rec::owned>& first = lanes[0].handles;
        for (const auto& o : first)
            if (o.k != waits) lanes[std::size_t(threads - 1)].handles.push_back(o);
        std::erase_if(first, [waits](const rec::owned& o) { return o.k != waits; });
        p.waker = threads - 1;
    }
    for (int t = 0; t < threads; ++t) {
        lane& l = lanes[std::size_t(t)];
        std::vector<program_call>& out = p.lanes[std::size_t(t)];
        plan.r = rec::rng{options.seed ^ (id << 8) ^ std::uint64_t(t + 1) * 0x9e3779b97f4a7c15ull};
        const bool waker = p.waker == t;
        if (p.contention && !waker && !l.handles.empty()) {
            const bool sends = l.handles[0].k == kind::sender;
            plan.add(l, out, sends ? call_kind::broadcast : call_kind::recv, 0, sends ? 1000 * t + 999 : 0);
        }
        const int calls = waker ? std::min(options.calls, 1 + int(plan.r.below(3))) : options.calls;
        plan.draw(l, out, calls, waker, t * 1000);
    }
    return p;
}

// How many calls a program makes, the setup's included.
inline std::size_t call_count(const program& p) {
    std::size_t n = p.setup.size();
    for (const auto& l : p.lanes) n += l.size();
    return n;
}

// `p` without one call: call `index` of the setup (lane 0) or of thread
// lane - 1, and every later call that needs a handle only it (or such a
// removed call) made, so that the rest is still a program a driver can run.
// The setup runs before every thread, so a handle it no longer makes is gone
// for all of them; a thread's handles are its own.
inline program without_call(const program& p, std::size_t lane, std::size_t index) {
    program q = p;
    std::vector<bool> gone(spec::max_logical_handles, false);
    auto drop_from = [&gone](std::vector<program_call>& calls, std::size_t first) {
        for (std::size_t i = first; i < calls.size();) {
            const spec::call& c = calls[i].request;
            if (!gone[std::size_t(c.handle)]) {
                ++i;
                continue;
            }
            if (c.out >= 0) gone[std::size_t(c.out)] = true;
            calls.erase(calls.begin() + std::ptrdiff_t(i));
        }
    };
    std::vector<program_call>& calls = lane == 0 ? q.setup : q.lanes[lane - 1];
    const spec::call removed = calls[index].request;
    calls.erase(calls.begin() + std::ptrdiff_t(index));
    if (removed.out >= 0) gone[std::size_t(removed.out)] = true;
    drop_from(calls, index);
    if (lane == 0)
        for (auto& l : q.lanes) drop_from(l, 0);
    return q;
}

// The program as the one line bcast sends (docs/drivers.md, "The exchange").
inline std::string program_line(const program& p) {
    auto calls = [](const std::vector<program_call>& list) {
        json_array a;
        for (const program_call& c : list) {
            json_object o;
            add_request_members(o, c.request, c.timeout_us);
            a.emplace_back(std::move(o));
        }
        return json(std::move(a));
    };
    json_array lanes;
    for (const auto& l : p.lanes) lanes.push_back(calls(l));
    json_object o{{"program", json(p.id)}, {"capacity", json(std::uint64_t{p.capacity})}, {"bound_us", json(std::int64_t(p.bound.count()))}, {"setup", calls(p.setup)}, {"threads", json(std::move(lanes))}};
    if (p.waker) o.emplace_back("waker", json(*p.waker));
    return json(std::move(o)).dump();
}

// The inverse, for a driver: a program line read back, every call checked as
// a history's call is (its members), or a format_error naming `line`.
inline program read_program(const json& o, std::string_view source, std::size_t line) {
    using namespace detail;
    only_members(o, {"program", "capacity", "bound_us", "setup", "threads", "waker"}, source, line);
    program p;
    p.id = counter(o, "program", source, line);
    p.capacity = counter(o, "capacity", source, line);
    if (p.capacity == 0) fail_at(source, line, "\"capacity\" must be at least 1 (R-CAP-1)");
    p.bound = std::chrono::microseconds(counter(o, "bound_us", source, line));
    auto calls = [&](const json& list, int thread) {
        if (!list.is_array()) fail_at(source, line, "a program's calls must be an array");
        std::vector<program_call> out;
        for (const json& c : list.as_array()) {
            if (!c.is_object()) fail_at(source, line, "a call must be an object");
            only_members(c, {"op", "handle", "new", "message", "arg", "timeout_us"}, source, line);
            program_call pc;
            pc.request.thread = thread;
            read_request_members(c, pc.request, pc.timeout_us, source, line);
            out.push_back(pc);
        }
        return out;
    };
    p.setup = calls(member(o, "setup", source, line), -1);
    const json& lanes = member(o, "threads", source, line);
    if (!lanes.is_array() || lanes.as_array().empty() || lanes.as_array().size() > 8)
        fail_at(source, line, "\"threads\" must be an array of 1..8 call lists");
    for (const json& l : lanes.as_array()) p.lanes.push_back(calls(l, int(p.lanes.size())));
    if (o.find("waker") != nullptr) {
        const std::uint64_t w = counter(o, "waker", source, line);
        if (w >= p.lanes.size()) fail_at(source, line, "\"waker\" must name one of the threads");
        p.waker = int(w);
    }
    return p;
}

} // namespace bcast::trace
