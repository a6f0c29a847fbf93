// SPDX-License-Identifier: MIT OR Apache-2.0
// Linearizability check of one recorded concurrent history (history.hpp)
// against the executable spec, bcast::spec::model<int>, and the check that no
// call still blocked when the run ended missed its wake-up (R-WAKE-1 and the
// rules it lists).
//
// Method:
//  * Each channel operation is a `call`: who, what, on which logical handle,
//    its argument, its answer, and two ticks of one clock taken at invocation
//    and response. Call A really happened before call B iff A.returned <
//    B.invoked.
//  * Wing & Gong depth-first search: we look for a sequential order of the
//    completed calls that (1) respects that real-time order and (2) replayed on
//    the model gives exactly the recorded answers. At each step any unplaced
//    call invoked no later than the earliest response among the unplaced
//    completed calls may go next (otherwise it would be ordered before a call
//    that really finished before it began); it is applied to a copy of the
//    model and kept if the model's answer equals the recorded one. Also in
//    program order: `thread` names one thread of control, which makes one call
//    at a time, so a call goes after the call its thread invoked before it,
//    even where a coarse or widened clock makes their intervals overlap.
//  * Lowe's memoisation (as in Porcupine): the search remembers every
//    (set of placed calls, model state, handle bindings) it has entered and
//    never enters one twice, since what can follow depends only on that
//    triple. The set of placed calls is a dynamic bitset (at most
//    max_history_calls calls); model states are interned (model's operator==,
//    hashed from its public queries). check_options::memoise = false gives the
//    plain brute force, with the same verdicts.
//  * Blocking calls (send, recv) linearize at a point where the model would
//    NOT block (broadcast_would_block() / recv_would_block(id) false) and then
//    answer what the try_ call answers there. A timed call that timed out
//    linearizes where it WOULD block and changes nothing; a timed call that
//    completed acts as the blocking one. A model exception (no such handle,
//    capacity 0) means the call cannot be applied there.
//  * Handles are small logical numbers (0..63) chosen by the recorder; a call
//    that creates one (clone_*, new_*, deactivate, activate*) binds its `out`
//    to whatever id the model returns at replay time (out = -1: not bound).
//  * Pending calls (no response when the run ended). A pending send, recv,
//    send_timed or recv_timed is blocked: it is assumed to have changed
//    nothing, and is never placed. A pending call of any other kind may have
//    taken effect or not: it may be placed anywhere after its invocation
//    (its answer unknown, so not compared) or left out (Wing & Gong).
//  * Verdict. No order of the completed calls: not_linearizable (with the
//    longest linearisable prefix found and the earliest-returning call that
//    cannot follow it). Without pending blocked calls, the first order found
//    proves linearizable. With them, the search collects the model's final
//    states over all linearisations (deduplicated). All pending blocked calls
//    were blocked at the same moment, and a blocked call changes nothing, so
//    the real channel's end state must be one of those final states in which
//    the model blocks every one of them: if one exists the spec itself lets
//    them all stay blocked (spec_deadlock, legitimate; the search stops at the
//    first). If none exists, some call missed its wake-up: lost_wakeup.
//    lost_calls are the pending calls the model lets complete in EVERY final
//    state; when no single call is such (each is blocked in some final state,
//    but never all together) check_report::jointly_lost is set and lost_calls
//    are those runnable in the final state that leaves the fewest runnable.
//  * Classification of a lost wake-up: replaying the witness order, find the
//    last call after which the first lost call's would_block turned from true
//    to false, counting from the longest prefix of calls that returned before
//    it was invoked; map that call to the rule of spec/rules.md that should
//    have woken it (R-CLOSE-6 if it closed the channel, R-CAP-4 set_capacity,
//    R-OVF-4 set_overflow, R-ACT-3 set_await_active, R-LIFE-6 the active
//    receiver count went 0 -> 1, else R-WAKE-1: a message queued or a slot
//    freed). If it could proceed from its invocation on, it never had to
//    block: R-WAKE-1 with no wake_call.
//  * max_states bounds the states entered. A search that reaches it reports
//    gave_up: then not_linearizable and lost_wakeup are NOT proofs (a
//    linearizable or spec_deadlock verdict always comes with its witness).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <bcast/errors.hpp>

#include "history.hpp"
#include "model.hpp"
#include "queries.hpp"

namespace bcast::spec {

// What a check concluded (see the header comment).
enum class verdict { linearizable,
                     not_linearizable,
                     lost_wakeup,
                     spec_deadlock };

// The verdict's name, as reports print it.
inline const char* name(verdict v) {
    switch (v) {
    case verdict::linearizable: return "linearizable";
    case verdict::not_linearizable: return "not_linearizable";
    case verdict::lost_wakeup: return "lost_wakeup";
    case verdict::spec_deadlock: return "spec_deadlock";
    }
    return "?";
}

// The most calls one history may hold (the set of placed calls is a bitset of this many bits at most).
inline constexpr std::size_t max_history_calls = 256;
// Logical handles are 0 .. max_logical_handles - 1.
inline constexpr int max_logical_handles = 64;

// memoise: Lowe's memoisation (false: plain brute force, same verdicts, for
// tests and benchmarks). max_states: the most search states entered.
// program_order: a thread's calls take effect in the order it made them (see
// the top of the file); false: real time alone, for a history whose `thread`
// does not name one thread of control making one call at a time.
// The default limit keeps one search within about 10 s and 500 MB here: a search
// that runs into it took 7-9 s and 460-550 MB (bcast_history_bench --each 10, on
// histories of 4 threads x 50 calls; docs/traces.md, "What the checker costs").
struct check_options {
    bool memoise = true;
    std::size_t max_states = 1'000'000;
    bool program_order = true;
};

// The verdict and the evidence for it.
struct check_report {
    verdict result = verdict::linearizable;
    // linearizable / lost_wakeup / spec_deadlock: a witness order of the completed calls (indices),
    // including the pending non-blocking calls it places; not_linearizable: the longest linearisable prefix found.
    std::vector<std::size_t> order;
    std::optional<std::size_t> unplaceable; // not_linearizable: the earliest-returning unplaced call, which cannot follow `order`
    std::string model_state;                // the model's state after `order`, one line
    std::vector<std::size_t> lost_calls;    // lost_wakeup: pending calls the model lets complete in every final state
    std::string rule;                       // lost_wakeup: rule ID of the wake-up that was missed
    std::optional<std::size_t> wake_call;   // lost_wakeup: the call after which (in `order`) the first lost call could proceed
    // lost_wakeup: `rule` and the wake rules of the other witness orders found by moving one call
    // across the wake call, where real time allows it (classify_alternatives): which
    // wake-up was missed can depend on the order of overlapping calls, and a divergence row that
    // explains any of these orders explains the history (bcast/trace/history_check.hpp).
    std::vector<std::string> possible_rules;
    std::size_t states_explored = 0;
    bool gave_up = false;      // max_states reached: not_linearizable / lost_wakeup are then NOT proofs
    bool jointly_lost = false; // lost_wakeup: no call is runnable in every final state, but no final
                               // state blocks all pending calls; lost_calls are runnable after `order`
};

namespace detail::lin {

using spec_t = model<int>;
inline constexpr std::uint16_t unbound = 0xFFFF;

// A set of call indices, as many bits as the history has calls.
class dynamic_bitset {
public:
    explicit dynamic_bitset(std::size_t bits) : words_((bits + 63) / 64, 0) {}
    bool test(std::size_t i) const { return (words_[i / 64] >> (i % 64) & 1) != 0; }
    void set(std::size_t i) { words_[i / 64] |= std::uint64_t{1} << (i % 64); }
    void reset(std::size_t i) { words_[i / 64] &= ~(std::uint64_t{1} << (i % 64)); }
    const std::vector<std::uint64_t>& words() const { return words_; }

private:
    std::vector<std::uint64_t> words_;
};

// The model plus where each logical handle is bound.
struct state {
    spec_t m;
    std::array<std::uint16_t, max_logical_handles> ids{};

    handle_id id(int logical) const {
        const std::uint16_t v = ids[static_cast<std::size_t>(logical)];
        return v == unbound ? ~handle_id{0} : handle_id{v};
    }
    void bind(int logical, handle_id id) {
        if (logical >= 0) ids[static_cast<std::size_t>(logical)] = static_cast<std::uint16_t>(id);
    }
    friend bool operator==(const state&, const state&) = default;
};

struct hasher {
    std::uint64_t h = 1469598103934665603ull;
    void mix(std::uint64_t v) {
        h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 1099511628211ull;
    }
};

struct key_hash {
    std::size_t operator()(const std::vector<std::uint64_t>& key) const {
        hasher h;
        for (std::uint64_t w : key) h.mix(w);
        return static_cast<std::size_t>(h.h);
    }
};

// What a call is, from the one operation table (operations.hpp).
using spec::creates_handle;
using spec::is_blocking;
using spec::is_recv;
using spec::is_send;

// Replays one call on the model; false when the model's answer differs from the
// recorded one or the call cannot take effect here. `unknown_answer`: a pending
// non-blocking call, whose answer was never seen.
inline bool apply(const call& c, state& s, bool unknown_answer) {
    try {
        auto id = [&s](int logical) { return s.id(logical); };
        spec_t& m = s.m;
        const outcome& want = c.result;
        auto answers = [&](const outcome& got) {
            const bool eviction_unreported = is_send(c.kind) && want.code == 0 && want.value == evicted_not_reported && got.code == 0;
            return unknown_answer || got == want || eviction_unreported;
        };
        const int timed_out_send = 1 + int(bcast::send_errc::timed_out);
        const int timed_out_recv = 1 + int(bcast::recv_errc::timed_out);
        switch (c.kind) {
        case call_kind::try_broadcast: return answers(encode_send(m.try_broadcast(id(c.handle), c.arg)));
        case call_kind::broadcast:
        case call_kind::broadcast_timed:
            if (c.kind == call_kind::broadcast_timed && want.code == timed_out_send)
                return m.broadcast_would_block() && want.value == c.arg;
            if (m.broadcast_would_block()) return false;
            return answers(encode_send(m.try_broadcast(id(c.handle), c.arg)));
        case call_kind::try_recv: return answers(encode_recv(m.try_recv(id(c.handle))));
        case call_kind::recv:
        case call_kind::recv_timed:
            if (c.kind == call_kind::recv_timed && want.code == timed_out_recv)
                return m.recv_would_block(id(c.handle)) && want.missed == 0;
            if (m.recv_would_block(id(c.handle))) return false;
            return answers(encode_recv(m.try_recv(id(c.handle))));
        case call_kind::clone_receiver: s.bind(c.out, m.clone_receiver(id(c.handle))); return true;
        case call_kind::new_receiver: s.bind(c.out, m.new_receiver(id(c.handle))); return true;
        case call_kind::drop_receiver: m.drop_receiver(id(c.handle)); return true;
        case call_kind::drop_sender: m.drop_sender(id(c.handle)); return true;
        case call_kind::deactivate: s.bind(c.out, m.deactivate(id(c.handle))); return true;
        case call_kind::activate_cloned: s.bind(c.out, m.activate_cloned(id(c.handle))); return true;
        case call_kind::drop_inactive: m.drop_inactive(id(c.handle)); return true;
        case call_kind::set_capacity:
            if (c.arg < 0) return false;
            m.set_capacity(id(c.handle), std::size_t(c.arg));
            return true;
        case call_kind::set_overflow: m.set_overflow(id(c.handle), c.arg != 0); return true;
        case call_kind::set_await_active: m.set_await_active(id(c.handle), c.arg != 0); return true;
        case call_kind::close: {
            const bool closed_it = m.close(id(c.handle));
            return unknown_answer || int(closed_it) == want.value;
        }
        case call_kind::clone_sender: s.bind(c.out, m.clone_sender(id(c.handle))); return true;
        case call_kind::new_sender: s.bind(c.out, m.new_sender(id(c.handle))); return true;
        case call_kind::activate: s.bind(c.out, m.activate(id(c.handle))); return true;
        // (Not formatted: clang-format would join the query cases' macro lines to this case.)
        // clang-format off
        case call_kind::clone_inactive: s.bind(c.out, m.clone_inactive(id(c.handle))); return true;
        // Queries change nothing and answer one number (R-QUERY-1, R-QUERY-2): a case each, from the table.
#define BCAST_PLAIN_QUERY(name) case call_kind::name: return answers({0, int(m.name(id(c.handle))), 0});
        BCAST_PLAIN_QUERIES
#undef BCAST_PLAIN_QUERY
        // clang-format on
        // The trace language's zero-bound forms: what the try_ call answers,
        // timed_out where that call would have to wait (R-SEND-4, R-RECV-5).
        case call_kind::broadcast_expired:
            if (m.broadcast_would_block()) return want.code == timed_out_send && want.value == c.arg;
            return answers(encode_send(m.try_broadcast(id(c.handle), c.arg)));
        case call_kind::recv_expired:
            if (m.recv_would_block(id(c.handle))) return want.code == timed_out_recv && want.missed == 0;
            return answers(encode_recv(m.try_recv(id(c.handle))));
        case call_kind::same_channel: return answers({0, int(m.same_channel(id(c.handle), id(c.arg))), 0});
        }
    } catch (const std::exception&) {
        return false;
    }
    return false;
}

// Whether a pending send / recv would still wait in this state. A call on a
// handle that does not exist here cannot complete either.
inline bool would_block(const call& c, const state& s) {
    const handle_id h = s.id(c.handle);
    if (is_send(c.kind)) return !s.m.is_sender(h) || s.m.broadcast_would_block();
    return !s.m.is_receiver(h) || s.m.recv_would_block(h);
}

// Channel-wide facts need a live handle to ask through; model ids are below id_limit.
inline std::optional<handle_id> any_live(const spec_t& m, std::size_t id_limit) {
    for (handle_id id = 0; id < id_limit; ++id)
        if (m.exists(id)) return id;
    return std::nullopt;
}
inline bool is_closed(const spec_t& m, std::size_t id_limit) {
    const auto via = any_live(m, id_limit);
    return !via || m.is_closed(*via); // no handle left: the last sender's drop closed it (R-CLOSE-2)
}
inline std::size_t active_receivers(const spec_t& m, std::size_t id_limit) {
    const auto via = any_live(m, id_limit);
    return via ? m.receiver_count(*via) : 0;
}

// A hash of the model from its public queries: equal models hash equally.
inline std::uint64_t model_hash(const spec_t& m, std::size_t id_limit) {
    hasher h;
    h.mix(m.broadcast_would_block() ? 1 : 2);
    bool channel_done = false;
    for (handle_id id = 0; id < id_limit; ++id) {
        if (m.is_sender(id)) {
            h.mix(id * 4 + 1);
        } else if (m.is_receiver(id)) {
            h.mix(id * 4 + 2);
            h.mix(m.unread(id));
            h.mix(m.missed(id));
        } else if (m.is_inactive_receiver(id)) {
            h.mix(id * 4 + 3);
        } else {
            continue;
        }
        if (!channel_done) {
            channel_done = true;
            h.mix(m.capacity(id));
            h.mix(m.len(id));
            h.mix(std::uint64_t(m.is_closed(id)) | std::uint64_t(m.overflow(id)) << 1 |
                  std::uint64_t(m.await_active(id)) << 2);
        }
    }
    return h.h;
}

inline std::uint64_t state_hash(const state& s, std::size_t id_limit) {
    hasher h;
    h.mix(model_hash(s.m, id_limit));
    for (std::uint16_t v : s.ids) h.mix(v);
    return h.h;
}

inline std::string describe(const state& s, std::size_t id_limit) {
    const spec_t& m = s.m;
    const auto via = any_live(m, id_limit);
    if (!via) return "no live handle (closed)";
    std::string out = "capacity=" + std::to_string(m.capacity(*via)) + " len=" + std::to_string(m.len(*via)) +
                      " closed=" + (m.is_closed(*via) ? "yes" : "no") + " overflow=" + (m.overflow(*via) ? "on" : "off") +
                      " await_active=" + (m.await_active(*via) ? "on" : "off") + ";";
    std::vector<bool> named(id_limit, false);
    auto handle_text = [&m](handle_id id) {
        if (m.is_sender(id)) return "sender#" + std::to_string(id);
        if (m.is_receiver(id))
            return "receiver#" + std::to_string(id) + "(unread=" + std::to_string(m.unread(id)) +
                   " missed=" + std::to_string(m.missed(id)) + ")";
        return "inactive#" + std::to_string(id);
    };
    for (int logical = 0; logical < max_logical_handles; ++logical) {
        const handle_id id = s.id(logical);
        if (id >= id_limit || !m.exists(id)) continue;
        named[id] = true;
        out += " h" + std::to_string(logical) + "=" + handle_text(id);
    }
    for (handle_id id = 0; id < id_limit; ++id)
        if (!named[id] && m.exists(id)) out += " (unnamed) " + handle_text(id);
    return out;
}

// Which rule's wake-up the call `c` (taking the model from `before` to `after`)
// stands for (spec/rules.md, "Threads and wakeups").
inline const char* wake_rule(const call& c, const spec_t& before, const spec_t& after, std::size_t id_limit) {
    if (!is_closed(before, id_limit) && is_closed(after, id_limit)) return "R-CLOSE-6";
    switch (c.kind) {
    case call_kind::set_capacity: return "R-CAP-4";
    case call_kind::set_overflow: return "R-OVF-4";
    case call_kind::set_await_active: return "R-ACT-3";
    default: break;
    }
    if (active_receivers(before, id_limit) == 0 && active_receivers(after, id_limit) != 0) return "R-LIFE-6";
    return "R-WAKE-1"; // a message queued for a waiting receiver, or a slot freed for a waiting sender
}

class checker {
public:
    checker(std::span<const call> calls, std::size_t capacity, int first_sender, int first_receiver,
            check_options options)
        : calls_(calls), options_(options), placed_(calls.size()), initial_{spec_t(capacity), {}} {
        validate(first_sender, first_receiver);
        initial_.ids.fill(unbound);
        initial_.bind(first_sender, spec_t::first_sender);
        initial_.bind(first_receiver, spec_t::first_receiver);
        id_limit_ = 2;
        std::array<bool, max_logical_handles> used{};
        used[std::size_t(first_sender)] = used[std::size_t(first_receiver)] = true;
        for (std::size_t i = 0; i < calls_.size(); ++i) {
            const call& c = calls_[i];
            if (creates_handle(c.kind)) ++id_limit_;
            used[std::size_t(c.handle)] = true;
            if (creates_handle(c.kind) && c.out >= 0) used[std::size_t(c.out)] = true;
            if (c.is_pending() && is_blocking(c.kind)) blocked_.push_back(i);
            else if (!c.is_pending()) ++completed_;
            by_invocation_.push_back(i);
        }
        for (int l = 0; l < max_logical_handles; ++l)
            if (used[std::size_t(l)]) used_logicals_.push_back(l);
        std::stable_sort(by_invocation_.begin(), by_invocation_.end(),
                         [this](std::size_t a, std::size_t b) { return calls_[a].invoked < calls_[b].invoked; });
        // Program order by response: a timed_out call's invocation may have been moved to its
        // deadline (check_history), its response never is, and a pending call is its thread's last.
        std::vector<std::size_t> by_response = by_invocation_;
        std::stable_sort(by_response.begin(), by_response.end(),
                         [this](std::size_t a, std::size_t b) { return calls_[a].returned < calls_[b].returned; });
        thread_previous_.assign(calls_.size(), no_call);
        std::unordered_map<int, std::size_t> last_of_thread;
        for (std::size_t i : by_response) {
            const auto [it, first] = last_of_thread.try_emplace(calls_[i].thread, i);
            if (!first) thread_previous_[i] = std::exchange(it->second, i);
        }
    }

    check_report run() {
        visit(initial_);
        check_report r;
        r.states_explored = explored_;
        r.gave_up = gave_up_;
        if (finals_.empty()) {
            r.result = verdict::not_linearizable;
            r.order = best_prefix_;
            r.model_state = describe(best_state_ ? *best_state_ : initial_, id_limit_);
            dynamic_bitset in_prefix(calls_.size());
            for (std::size_t i : best_prefix_) in_prefix.set(i);
            for (std::size_t i = 0; i < calls_.size(); ++i) {
                if (in_prefix.test(i) || calls_[i].is_pending()) continue;
                if (!r.unplaceable || calls_[i].returned < calls_[*r.unplaceable].returned) r.unplaceable = i;
            }
            return r;
        }
        if (blocked_.empty()) {
            r.result = verdict::linearizable;
            r.order = finals_.front().order;
            r.model_state = describe(finals_.front().s, id_limit_);
            return r;
        }
        if (deadlock_witness_) {
            const final_state& f = finals_[*deadlock_witness_];
            r.result = verdict::spec_deadlock;
            r.order = f.order;
            r.model_state = describe(f.s, id_limit_);
            return r;
        }
        // No final state blocks every pending call: a wake-up was lost.
        std::vector<std::size_t> everywhere = blocked_;
        const final_state* best = &finals_.front();
        for (const final_state& f : finals_) {
            std::erase_if(everywhere, [&f](std::size_t i) {
                return std::find(f.runnable.begin(), f.runnable.end(), i) == f.runnable.end();
            });
            if (f.runnable.size() < best->runnable.size()) best = &f;
        }
        r.result = verdict::lost_wakeup;
        r.order = best->order;
        r.model_state = describe(best->s, id_limit_);
        r.jointly_lost = everywhere.empty();
        r.lost_calls = r.jointly_lost ? best->runnable : everywhere;
        classify(r.lost_calls.front(), r);
        return r;
    }

private:
    struct final_state {
        state s;
        std::vector<std::size_t> order;
        std::vector<std::size_t> runnable; // pending blocked calls the model would let complete here
    };

    void validate(int first_sender, int first_receiver) const {
        if (calls_.size() > max_history_calls)
            throw std::invalid_argument("bcast::spec::check_history: the history has " + std::to_string(calls_.size()) +
                                        " calls, more than the " + std::to_string(max_history_calls) + " supported");
        auto logical_ok = [](int h) { return h >= 0 && h < max_logical_handles; };
        if (!logical_ok(first_sender) || !logical_ok(first_receiver) || first_sender == first_receiver)
            throw std::invalid_argument("bcast::spec::check_history: first sender / receiver handles must be distinct, in 0..63");
        for (std::size_t i = 0; i < calls_.size(); ++i) {
            const call& c = calls_[i];
            const std::string which = "bcast::spec::check_history: call #" + std::to_string(i) + " ";
            if (find_operation(c.kind) == nullptr) throw std::invalid_argument(which + "has an unknown kind");
            if (!logical_ok(c.handle)) throw std::invalid_argument(which + "names a handle outside 0..63");
            if (creates_handle(c.kind) && c.out != -1 && !logical_ok(c.out))
                throw std::invalid_argument(which + "creates a handle outside 0..63 (-1: none)");
            if (!c.is_pending() && c.returned < c.invoked)
                throw std::invalid_argument(which + "returned before it was invoked");
        }
    }

    std::vector<std::uint64_t> memo_key(const state& s) {
        const std::uint64_t h = model_hash(s.m, id_limit_);
        std::uint64_t model_index = models_.size();
        for (auto [it, end] = model_index_.equal_range(h); it != end; ++it) {
            if (models_[it->second] == s.m) {
                model_index = it->second;
                break;
            }
        }
        if (model_index == models_.size()) {
            models_.push_back(s.m);
            model_index_.emplace(h, model_index);
        }
        std::vector<std::uint64_t> key = placed_.words();
        key.push_back(model_index);
        std::uint64_t packed = 0;
        std::size_t in_word = 0;
        for (int l : used_logicals_) {
            packed = packed << 16 | s.ids[std::size_t(l)];
            if (++in_word == 4) key.push_back(packed), packed = 0, in_word = 0;
        }
        if (in_word != 0) key.push_back(packed);
        return key;
    }

    // Enters the state reached by path_; explores everything that may follow.
    void visit(const state& s) {
        if (options_.memoise && !seen_.insert(memo_key(s)).second) return;
        if (explored_ >= options_.max_states) {
            gave_up_ = true;
            return;
        }
        ++explored_;
        if (!best_state_ || placed_completed_ > best_completed_) {
            best_completed_ = placed_completed_;
            best_prefix_ = path_;
            best_state_ = s;
        }
        if (placed_completed_ == completed_) {
            on_final(s);
            if (done_) return;
        }
        std::uint64_t min_ret = pending_tick;
        for (std::size_t i = 0; i < calls_.size(); ++i)
            if (!placed_.test(i)) min_ret = std::min(min_ret, calls_[i].returned);
        for (std::size_t i : by_invocation_) {
            const call& c = calls_[i];
            if (c.invoked > min_ret) break;
            if (placed_.test(i) || (c.is_pending() && is_blocking(c.kind))) continue;
            if (options_.program_order && thread_previous_[i] != no_call && !placed_.test(thread_previous_[i])) continue;
            state next = s;
            if (!apply(c, next, c.is_pending())) continue;
            placed_.set(i);
            path_.push_back(i);
            if (!c.is_pending()) ++placed_completed_;
            visit(next);
            if (!c.is_pending()) --placed_completed_;
            path_.pop_back();
            placed_.reset(i);
            if (done_ || gave_up_) return;
        }
    }

    void on_final(const state& s) {
        if (blocked_.empty()) {
            finals_.push_back({s, path_, {}});
            done_ = true;
            return;
        }
        const std::uint64_t h = state_hash(s, id_limit_);
        for (auto [it, end] = final_index_.equal_range(h); it != end; ++it)
            if (finals_[it->second].s == s) return;
        final_state f{s, path_, {}};
        for (std::size_t i : blocked_)
            if (!would_block(calls_[i], s)) f.runnable.push_back(i);
        final_index_.emplace(h, finals_.size());
        finals_.push_back(std::move(f));
        if (finals_.back().runnable.empty()) {
            deadlock_witness_ = finals_.size() - 1;
            done_ = true;
        }
    }

    // The states along `order` (states[k]: after its first k calls), or nothing
    // when a call of it cannot take effect where it stands.
    std::optional<std::vector<state>> replay(const std::vector<std::size_t>& order) const {
        std::vector<state> states{initial_};
        for (std::size_t i : order) {
            state next = states.back();
            if (!apply(calls_[i], next, calls_[i].is_pending())) return std::nullopt;
            states.push_back(std::move(next));
        }
        return states;
    }

    // The length of the longest prefix of `order` that really happened before
    // the call `lost` was invoked (each of its calls returned before that).
    std::size_t done_before(std::size_t lost, const std::vector<std::size_t>& order) const {
        std::size_t from = 0;
        while (from < order.size() && calls_[order[from]].returned < calls_[lost].invoked) ++from;
        return from;
    }

    // Where along `order` the lost call `lost` could last start to proceed: the
    // wake call's position in `order`, or nothing when it never had to wait.
    std::optional<std::size_t> woken_at(std::size_t lost, const std::vector<std::size_t>& order,
                                        const std::vector<state>& states) const {
        const call& l = calls_[lost];
        const std::size_t from = done_before(lost, order);
        std::optional<std::size_t> at;
        for (std::size_t p = from + 1; p < states.size(); ++p)
            if (would_block(l, states[p - 1]) && !would_block(l, states[p])) at = p - 1;
        return at;
    }

    // Finds in r.order where the lost call `lost` could last start to proceed.
    void classify(std::size_t lost, check_report& r) const {
        const std::vector<state> states = *replay(r.order); // succeeded in the search: deterministic
        const std::optional<std::size_t> at = woken_at(lost, r.order, states);
        if (!at) {
            r.rule = "R-WAKE-1"; // it never had to wait
            r.possible_rules = {r.rule};
            classify_later_calls(lost, r);
            return;
        }
        r.wake_call = r.order[*at];
        r.rule = wake_rule(calls_[*r.wake_call], states[*at].m, states[*at + 1].m, id_limit_);
        r.possible_rules = {r.rule};
        classify_alternatives(lost, r, *at);
    }

    // When the lost call never had to wait in r.order: the orders that move one
    // call overlapping its invocation later, where real time allows it (past
    // calls invoked before it returned). Which wake-up was missed can depend on
    // such an order: in history 1085 of async-broadcast's, two receives of the
    // oldest message overlapped the send's invocation; in the order where one
    // of them comes after set_capacity(4) the channel was full when the send
    // began, and upstream's stranded sender is R-CAP-4's.
    void classify_later_calls(std::size_t lost, check_report& r) const {
        const std::size_t from = done_before(lost, r.order);
        std::size_t tried = 0;
        const std::size_t n = r.order.size();
        for (std::size_t q = from; q < n && tried < max_alternatives; ++q) {
            const call& x = calls_[r.order[q]];
            for (std::size_t k = q + 1; k < n && tried < max_alternatives; ++k) {
                if (x.returned < calls_[r.order[k]].invoked) break; // it ended before that began: it cannot pass it
                std::vector<std::size_t> moved = r.order;
                moved.erase(moved.begin() + std::ptrdiff_t(q));
                moved.insert(moved.begin() + std::ptrdiff_t(k), r.order[q]);
                ++tried;
                add_possible_rule(lost, moved, r);
            }
        }
    }

    // The wake rule `lost` missed in `order`, added to r.possible_rules, where
    // the model accepts the order and the call had to wait in it.
    void add_possible_rule(std::size_t lost, const std::vector<std::size_t>& order, check_report& r) const {
        const std::optional<std::vector<state>> states = replay(order);
        if (!states || would_block(calls_[lost], states->back())) return; // here it is not lost at all
        const std::optional<std::size_t> w = woken_at(lost, order, *states);
        if (!w) return;
        std::string rule = wake_rule(calls_[order[*w]], (*states)[*w].m, (*states)[*w + 1].m, id_limit_);
        if (std::find(r.possible_rules.begin(), r.possible_rules.end(), rule) == r.possible_rules.end())
            r.possible_rules.push_back(std::move(rule));
    }

    // The same for each order that moves one call across the wake call, where
    // real time allows it and the model accepts the new order: a call after it
    // moved to any earlier place from the lost call's invocation on, or one
    // before it moved to any later place. Which wake-up was missed can depend
    // on such an order: in history 735 of async-broadcast's, the receive that
    // freed the slot overlapped set_overflow(true), and in the order where the
    // other receive comes first and the setting before it, upstream's stranded
    // sender is R-OVF-4's (its pop wakes no sender once overflow is on).
    // At most max_alternatives orders are replayed.
    static constexpr std::size_t max_alternatives = 4096;
    void classify_alternatives(std::size_t lost, check_report& r, std::size_t at) const {
        const std::size_t from = done_before(lost, r.order);
        std::size_t tried = 0;
        auto try_order = [&](const std::vector<std::size_t>& moved) {
            ++tried;
            add_possible_rule(lost, moved, r);
        };
        const std::size_t n = r.order.size();
        for (std::size_t q = at + 1; q < n && tried < max_alternatives; ++q) { // a later call, earlier
            const call& x = calls_[r.order[q]];
            for (std::size_t k = q; k-- > from && tried < max_alternatives;) {
                if (calls_[r.order[k]].returned < x.invoked) break; // x began after it ended: it cannot pass it
                if (k > at) continue;
                std::vector<std::size_t> moved = r.order;
                moved.erase(moved.begin() + std::ptrdiff_t(q));
                moved.insert(moved.begin() + std::ptrdiff_t(k), r.order[q]);
                try_order(moved);
            }
        }
        for (std::size_t k = from; k <= at && tried < max_alternatives; ++k) { // an earlier call, later
            const call& y = calls_[r.order[k]];
            for (std::size_t q = k + 1; q < n && tried < max_alternatives; ++q) {
                if (y.returned < calls_[r.order[q]].invoked) break; // it began after y ended: y cannot pass it
                if (q < at) continue;
                std::vector<std::size_t> moved = r.order;
                moved.erase(moved.begin() + std::ptrdiff_t(k));
                moved.insert(moved.begin() + std::ptrdiff_t(q), r.order[k]);
                try_order(moved);
            }
        }
    }

    std::span<const call> calls_;
    check_options options_;
    dynamic_bitset placed_;
    state initial_;
    std::size_t id_limit_ = 2;
    std::vector<std::size_t> by_invocation_;
    // Program order: the call its thread made just before this one (no_call: none). A thread
    // makes one call at a time, so its calls take effect in the order it made them, even where
    // their recorded intervals overlap (a coarse or widened clock); real time alone would let
    // the search try them the other way round too.
    static constexpr std::size_t no_call = ~std::size_t{0};
    std::vector<std::size_t> thread_previous_;
    std::vector<std::size_t> blocked_; // pending send / recv (and timed) calls: never placed
    std::vector<int> used_logicals_;
    std::size_t completed_ = 0;

    std::vector<std::size_t> path_;
    std::size_t placed_completed_ = 0;
    std::size_t explored_ = 0;
    bool gave_up_ = false;
    bool done_ = false;

    std::vector<spec_t> models_; // interned model states, for the memo keys
    std::unordered_multimap<std::uint64_t, std::size_t> model_index_;
    std::unordered_set<std::vector<std::uint64_t>, key_hash> seen_;

    std::vector<std::size_t> best_prefix_;
    std::size_t best_completed_ = 0;
    std::optional<state> best_state_;

    std::vector<final_state> finals_;
    std::unordered_multimap<std::uint64_t, std::size_t> final_index_;
    std::optional<std::size_t> deadlock_witness_;
};

// An outcome's code: 0 for success, else 1 + the errc value (whose values start at 1).
inline const char* errc_name(call_kind k, int code) {
    static const char* const send_names[] = {"ok", "?", "full", "closed", "inactive", "timed_out", "cancelled"};
    static const char* const recv_names[] = {"ok", "?", "empty", "closed", "overflowed", "timed_out", "cancelled"};
    if (!is_send(k) && !is_recv(k)) return nullptr;
    if (code < 0 || code > 6) return "?";
    return is_send(k) ? send_names[code] : recv_names[code];
}

inline const char* rule_text(const std::string& rule) {
    if (rule == "R-WAKE-1") return "no missed wakeups: a waiter is woken whenever its answer may have changed";
    if (rule == "R-CAP-4") return "growing the capacity wakes every sender waiting on a full channel";
    if (rule == "R-OVF-4") return "turning overflow on wakes every sender waiting on a full channel";
    if (rule == "R-ACT-3") return "turning await_active off wakes every sender waiting for an active receiver";
    if (rule == "R-LIFE-6") return "the active receiver count going from 0 to 1 wakes senders waiting for an active receiver";
    if (rule == "R-CLOSE-6") return "closing wakes every waiting sender and receiver";
    return "";
}

} // namespace detail::lin

// Checks a recorded history against bcast::spec::model<int> (see the header
// comment): the channel starts with `capacity`, its first sender and receiver
// named by the given logical handles. Throws std::invalid_argument for more
// than max_history_calls calls or a malformed call (a handle outside 0..63, a
// response before its invocation), and what the model throws for capacity 0.
//
// A timed call that answered timed_out and carries its deadline takes effect
// at or after it (R-SEND-4, R-RECV-5): it is searched as if invoked at the
// deadline, so every call that returned before the deadline comes first; and
// one that returned before its deadline gave up too early, a violation
// reported as not linearizable with the rule it breaks.
inline check_report check_history(std::span<const call> calls, std::size_t capacity, int first_sender_handle = 0,
                                  int first_receiver_handle = 1, check_options options = {}) {
    std::vector<call> timed(calls.begin(), calls.end());
    bool moved = false;
    for (std::size_t i = 0; i < timed.size(); ++i) {
        call& c = timed[i];
        const bool gave_up = !c.is_pending() && c.deadline != 0 &&
                             c.result.code == 1 + int(is_send(c.kind) ? int(bcast::send_errc::timed_out) : int(bcast::recv_errc::timed_out)) &&
                             (is_send(c.kind) || is_recv(c.kind));
        if (!gave_up || c.deadline <= c.invoked) continue;
        if (c.deadline > c.returned) {
            check_report r;
            r.result = verdict::not_linearizable;
            r.unplaceable = i;
            r.rule = is_send(c.kind) ? "R-SEND-4" : "R-RECV-5";
            r.model_state = "call #" + std::to_string(i) + " answered timed_out at tick " + std::to_string(c.returned) +
                            ", before its deadline (tick " + std::to_string(c.deadline) + ")";
            return r;
        }
        c.invoked = c.deadline;
        moved = true;
    }
    if (!moved) return detail::lin::checker(calls, capacity, first_sender_handle, first_receiver_handle, options).run();
    return detail::lin::checker(timed, capacity, first_sender_handle, first_receiver_handle, options).run();
}

// One call on one line: "thread T kind h=.. [out=..] arg=.. [invoked,returned] -> code/value/missed (name)".
inline std::string to_string(const call& c) {
    std::string s = "thread " + std::to_string(c.thread) + " " + name(c.kind) + " h=" + std::to_string(c.handle);
    if (detail::lin::creates_handle(c.kind)) s += " out=" + std::to_string(c.out);
    s += " arg=" + std::to_string(c.arg) + (c.deadline != 0 ? " deadline=" + std::to_string(c.deadline) : std::string()) + " [" +
         std::to_string(c.invoked) + ",";
    if (c.is_pending()) return s + "pending] -> pending";
    s += std::to_string(c.returned) + "] -> " + std::to_string(c.result.code) + "/" + std::to_string(c.result.value) +
         "/" + std::to_string(c.result.missed);
    if (const char* code = detail::lin::errc_name(c.kind, c.result.code)) s += std::string(" (") + code + ")";
    return s;
}

// A report for people, several lines: the verdict, the witness order or the
// longest prefix, the call that cannot follow it or the calls that lost their
// wake-up and the rule that should have woken them, and the model's state.
inline std::string to_string(const check_report& r, std::span<const call> calls) {
    auto line = [&calls](std::size_t i) {
        return "  #" + std::to_string(i) + " " + (i < calls.size() ? to_string(calls[i]) : std::string("(no such call)")) + "\n";
    };
    auto list = [&](const std::vector<std::size_t>& indices) {
        std::string s;
        for (std::size_t i : indices) s += line(i);
        return s;
    };
    std::size_t completed = 0;
    std::vector<std::size_t> blocked;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        if (!calls[i].is_pending()) ++completed;
        else if (detail::lin::is_blocking(calls[i].kind)) blocked.push_back(i);
    }
    std::string s = std::string("verdict: ") + name(r.result);
    if (r.gave_up)
        s += " (the search gave up at its max_states";
    if (r.gave_up && (r.result == verdict::not_linearizable || r.result == verdict::lost_wakeup))
        s += ": this verdict is NOT a proof, an unexplored order may explain the history)";
    else if (r.gave_up)
        s += ")";
    s += "\nstates explored: " + std::to_string(r.states_explored) + "\n";
    switch (r.result) {
    case verdict::linearizable:
        s += "witness order (" + std::to_string(r.order.size()) + " calls):\n" + list(r.order);
        s += "model state after it: " + r.model_state + "\n";
        break;
    case verdict::not_linearizable:
        s += "no order of the " + std::to_string(completed) +
             " completed calls respects real time and gives the recorded answers\n";
        s += "longest linearisable prefix (" + std::to_string(r.order.size()) + " calls):\n" + list(r.order);
        s += "model state after the prefix: " + r.model_state + "\n";
        if (!r.rule.empty()) s += "rule " + r.rule + ": a timed call gives up only once its deadline has passed\n";
        if (r.unplaceable) s += "cannot place next (the earliest-returning unplaced call):\n" + line(*r.unplaceable);
        break;
    case verdict::lost_wakeup:
        s += "lost wakeup, rule " + r.rule + ": " + detail::lin::rule_text(r.rule) + "\n";
        s += r.jointly_lost ? "no final state of any linearisation leaves every pending call blocked; after the "
                              "witness order the model lets these complete:\n"
                            : "pending calls the model lets complete in the final state of every linearisation:\n";
        s += list(r.lost_calls);
        if (r.wake_call) {
            s += "#" + std::to_string(r.lost_calls.front()) + " could proceed after this call, which should have woken it:\n" +
                 line(*r.wake_call);
        } else if (!r.lost_calls.empty()) {
            s += "#" + std::to_string(r.lost_calls.front()) +
                 " blocked although the model says it need not wait when called\n";
        }
        s += "witness order (" + std::to_string(r.order.size()) + " calls):\n" + list(r.order);
        s += "model state at the end: " + r.model_state + "\n";
        break;
    case verdict::spec_deadlock:
        s += "the spec lets every pending call stay blocked (legitimate): after this order the model blocks each of them\n";
        s += "pending:\n" + list(blocked);
        s += "witness order (" + std::to_string(r.order.size()) + " calls):\n" + list(r.order);
        s += "model state at the end: " + r.model_state + "\n";
        break;
    }
    return s;
}

} // namespace bcast::spec
