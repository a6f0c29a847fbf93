// SPDX-License-Identifier: MIT OR Apache-2.0
// Async scenarios (R-ASYNC-1..5): the waiter-list protocol of channel_state
// (start_recv / start_send, cancel, settle_async_waiters, completion after
// the unlock), driven directly: each async operation is a recv_node /
// send_node whose owner thread blocks on an event until on_complete fires
// (harness.hpp). Besides the per-scenario checks, invariant() asserts at
// every scheduling point with the lock free that no waiter list is left
// marked and that every queued waiter really has to wait, and
// check_resumed() that each queued waiter was resumed exactly once.
#pragma once

#include "harness.hpp"
#include "wake_event.hpp"

namespace bcast_rl {

// Counts how often value v was received through handle h (recorded receives,
// the async ones included): the no-loss, no-duplicate check.
template <class S>
int received(const S& s, int h, int v) {
    int n = 0;
    for (int i = 0; i < s.hist.count; ++i) {
        const op& o = s.hist.ops[i];
        const bool receive = o.kind == op_kind::recv || o.kind == op_kind::try_recv || o.kind == op_kind::recv_timed;
        if (receive && o.handle == h && o.result.code == 0 && o.result.value == v) ++n;
    }
    return n;
}

// The answer of a send that was waiting on a full channel: sent (nothing
// evicted); or, when the variant closes or cancels, `closed` / `cancelled`
// with its own message handed back (R-SEND-5, R-ASYNC-4).
inline bool sent_or_handed_back(const outcome& got, int v, int variant, bool may_be_cancelled) {
    if (got == (outcome{0, -1, 0})) return true;
    if ((variant & CLOSE) && got == (outcome{1 + int(bcast::send_errc::closed), v, 0})) return true;
    return may_be_cancelled && got == (outcome{1 + int(bcast::send_errc::cancelled), v, 0});
}

// ---- one async receive queued vs one event -----------------------------------
// R-ASYNC-2: the check and the queueing are one critical section, so the
// event either comes first (answered at once, no suspension: R-ASYNC-1) or
// finds the waiter queued and completes it; R-ASYNC-3: resumed once.

template <wake_event E, int V>
struct async_recv_vs_event : scenario<async_recv_vs_event<E, V>, plain_primitives, 2, expect(V)> {
    static constexpr receiver_wake_case this_case = receiver_wake_case_of(E); // wake_event.hpp
    static_assert(this_case.queued.runs, "receiver_wake_case_of() says this event does not run against a queued receive");
    static constexpr const char* description = this_case.queued.description;
    static constexpr bool has_close_variant = this_case.close_variant;

    recv_node w;
    outcome got;
    void before() { this->open(1); }
    void thread(unsigned t) {
        if (t == 0) {
            got = this->async_recv(0, 1, w);
        } else {
            until<V>(threads_waiting > 0); // the owner is suspended on its event
            event();
            if (this_case.close_variant && (V & CLOSE)) this->close(1, 0);
        }
    }
    void event() { make_receiver_wake_event<E>(*this); } // asserts that E wakes receivers
    void after() {
        if constexpr (E == wake_event::message_queued) {
            RL_ASSERT(got == (outcome{0, 7, 0})); // sent before any close: the message, never `closed`
            this->check_resumed(w);
            this->drain_all(), this->finish();
            RL_ASSERT(received(*this, 1, 7) == 1);
        } else { // the events that close the channel
            RL_ASSERT(got.code == 1 + int(bcast::recv_errc::closed));
            this->check_resumed(w);
            this->finish();
        }
    }
};
// The run against event E, as scenarios.def names it: async_recv_vs<E>::scenario.
template <wake_event E>
struct async_recv_vs {
    template <int V> using scenario = async_recv_vs_event<E, V>;
};

// ---- one async send queued vs one event --------------------------------------
// An async send waiting (full, or no active receiver with await_active) vs
// each event that ends its wait (R-WAKE-1 table, R-ASYNC-1): every wake site
// must also mark the send list so the critical section settles it. The send's
// answer is the blocking call's.

struct async_send_case {
    event_case what;
    bool waits_for_receiver; // the only receiver deactivated (await_active on); otherwise full
    outcome answer;          // what the queued send must get
};

constexpr async_send_case async_send_case_of(wake_event e) {
    using enum wake_event;
    constexpr outcome sent{0, -1, 0};
    constexpr outcome closed_with_message{1 + int(bcast::send_errc::closed), 101, 0};
    switch (e) {
    case slot_freed: return {runs_as("a freed slot completes a queued async send"), false, sent};
    case closed: // R-CLOSE-6
        return {runs_as("close completes a queued async send with closed, message handed back"), false,
                closed_with_message};
    case last_receiver_left: // R-CLOSE-3
        return {runs_as("the last receiver gone closes and completes a queued async send"), false, closed_with_message};
    case await_active_off: // R-ACT-3
        return {runs_as("await_active off completes an async send waiting for a receiver with inactive"), true, {1 + int(bcast::send_errc::inactive), 101, 0}};
    case capacity_grown: return {runs_as("capacity growth completes a queued async send"), false, sent}; // R-CAP-4
    case overflow_on:                                                                                    // R-OVF-4: sent, 100 evicted
        return {runs_as("overflow on completes a queued async send, which evicts"), false, {0, 100, 0}};
    case receiver_activated: // R-LIFE-6
        return {runs_as("activate_cloned completes an async send waiting for an active receiver"), true, sent};
    case message_queued: return {not_run("wakes receivers only"), false, sent};
    case receiver_left:
    case receiver_left_freeing_several:
    case last_active_receiver_left:
    case last_inactive_receiver_left:
        return {not_run("no async scenario: these reach the same wake_one_sender / wake_all_senders, which mark the "
                        "send list for every caller, as the blocking scenarios for them"),
                false, sent};
    case last_sender_left: return {not_run("cannot happen: the queued send holds a sender"), false, sent};
    }
    return {not_run("not reached"), false, sent};
}

template <wake_event E, int V>
struct async_send_vs_event : scenario<async_send_vs_event<E, V>, plain_primitives, 2, expect(V)> {
    static constexpr async_send_case this_case = async_send_case_of(E);
    static_assert(this_case.what.runs, "async_send_case_of() says this event does not run against a queued send");
    static_assert(woken_by(E).senders);
    static constexpr const char* description = this_case.what.description;
    static constexpr bool has_close_variant = false; // every event here already ends the wait for good

    send_node w;
    outcome got;
    void before() {
        this->open(1);
        if (this_case.waits_for_receiver) this->deactivate(-1, 1, 2); // no active receiver, await_active on
        else this->try_send(-1, 0, 100);                              // full
    }
    void thread(unsigned t) {
        if (t == 0) {
            got = this->async_send(0, 0, w, 101);
            return;
        }
        until<V>(threads_waiting > 0);
        event();
    }
    void event() {
        wake_event e = E; // not constant: GCC checks -Wswitch only on a non-constant condition
        switch (e) {
        case wake_event::slot_freed: this->recv(1, 1); break;
        case wake_event::closed: this->close(1, 0); break;
        case wake_event::last_receiver_left: this->drop_receiver(1, 1); break;
        case wake_event::await_active_off: this->set_await_active(1, 0, false); break;
        case wake_event::capacity_grown: this->set_capacity(1, 0, 2); break;
        case wake_event::overflow_on: this->set_overflow(1, 0, true); break;
        case wake_event::receiver_activated: this->activate_cloned(1, 2, 3); break;
        case wake_event::message_queued:
        case wake_event::receiver_left:
        case wake_event::receiver_left_freeing_several:
        case wake_event::last_active_receiver_left:
        case wake_event::last_inactive_receiver_left:
        case wake_event::last_sender_left: break; // not run (static_assert above)
        }
    }
    void after() {
        RL_ASSERT(got == this_case.answer);
        this->check_resumed(w);
        this->drain_all(), this->finish();
    }
};
// The run against event E, as scenarios.def names it: async_send_vs<E>::scenario.
template <wake_event E>
struct async_send_vs {
    template <int V> using scenario = async_send_vs_event<E, V>;
};

// ---- several waiters, cancellation, both mechanisms --------------------------

// Two async receives (two receivers) vs one send. R-ASYNC-2: every waiting
// async receiver is served by each message, so settling the receive list
// must try all of them, not stop at the first it completes.
template <int V>
struct two_async_recvs_vs_send : two_waiters_vs_event<two_async_recvs_vs_send<V>, V> {
    static constexpr const char* description = "every queued async recv is served by each message";
    recv_node w[2];
    outcome got[2];
    void before() { this->open(1), this->new_receiver(-1, 0, 2); }
    void waiter(int t) { got[t] = this->async_recv(t, 1 + t, w[t]); }
    void event() { this->try_send(2, 0, 7); }
    void after() {
        for (int i = 0; i < 2; ++i) {
            RL_ASSERT(got[i] == (outcome{0, 7, 0}));
            this->check_resumed(w[i]);
        }
        this->finish();
    }
};

// An async receive, a cancel and a send, all orders (R-ASYNC-4): the
// receive gets the message, or `cancelled` and the message is still there
// for the receiver (nothing is lost to a cancel, nothing received twice).
// A cancel before the start makes the start answer `cancelled` without
// queueing, unless the message is already there; a cancel after the
// completion changes nothing.
struct async_recv_vs_cancel : scenario<async_recv_vs_cancel, plain_primitives, 3> {
    static constexpr const char* description =
        "async recv vs cancel vs send, all orders: the message or cancelled, never lost or doubled";
    recv_node w;
    outcome got;
    bool cancelled_queued = false;
    void before() { open(1); }
    void thread(unsigned t) {
        if (t == 0) got = async_recv(0, 1, w);
        else if (t == 1) cancelled_queued = cancel(w);
        else try_send(2, 0, 7);
    }
    void after() {
        const bool was_cancelled = got.code == 1 + int(bcast::recv_errc::cancelled);
        RL_ASSERT(was_cancelled || got == (outcome{0, 7, 0}));
        RL_ASSERT(!cancelled_queued || (was_cancelled && w.suspended)); // cancel() true: it ended the wait
        check_resumed(w);
        drain_all(), finish();
        RL_ASSERT(received(*this, 1, 7) == 1); // exactly once: by the async receive or by the drain
    }
};

// Two async sends queued on a full channel (capacity 1), one receiver
// freeing one slot at a time. R-ASYNC-2: each freed slot goes to the
// oldest waiting send (FIFO), both complete, every message is delivered
// once and in queue order. +cancel: the receiver first cancels the second
// send: queued, or not started while the channel is still full, it answers
// `cancelled` with its message, which is never delivered; started after a
// slot was freed, it sends (R-ASYNC-4). The first send still gets a slot.
template <int V>
struct two_async_senders_vs_freed_slot : scenario<two_async_senders_vs_freed_slot<V>, plain_primitives, 3, expect(V)> {
    static constexpr const char* description =
        (V & CANCEL) ? "the second queued send cancelled: its message comes back, the first still gets a slot"
                     : "two async sends queued on full: each freed slot to the oldest (FIFO), each message once";
    static constexpr bool has_close_variant = true;
    send_node w[2];
    outcome got[2];
    int arrival[2] = {0, 0}; // when w[i] was first seen queued (1, 2), 0: never queued
    int arrivals = 0;
    bool cancelled_queued = false;
    void before() { this->open(1), this->try_send(-1, 0, 100); }
    void thread(unsigned t) {
        if (t < 2) {
            got[t] = this->async_send(int(t), 0, w[t], 101 + int(t));
        } else {
            if (V & CANCEL) cancelled_queued = this->cancel(w[1]);
            until<V>(threads_waiting >= 2);
            this->recv(2, 1);
            this->recv(2, 1);
            if (V & CLOSE) this->close(2, 0);
        }
    }
    // The arrival order, observed between critical sections: a critical
    // section queues at most one waiter and Relacy calls invariant() after its
    // unlock, so the first time each node is seen in the list gives the order
    // in which they were queued (whatever order the list keeps them in).
    void invariant() {
        scenario<two_async_senders_vs_freed_slot<V>, plain_primitives, 3, expect(V)>::invariant();
        if (!this->channel_quiescent()) return;
        for (const bcast::detail::waiter* n = inspector::first_queued_send(*this->channel); n != nullptr; n = n->next) {
            int& when = arrival[n == &w[0] ? 0 : 1];
            if (when == 0) when = ++arrivals;
        }
    }
    void after() {
        for (int i = 0; i < 2; ++i) {
            RL_ASSERT(sent_or_handed_back(got[i], 101 + i, V, i == 1 && (V & CANCEL)));
            this->check_resumed(w[i]);
        }
        // cancel() true: it unlinked the queued send. A send cancelled before it
        // started still sends if a slot was freed by then (R-ASYNC-4: one that
        // needs no wait is not cancelled).
        if (cancelled_queued) RL_ASSERT(w[1].suspended && got[1].code == 1 + int(bcast::send_errc::cancelled));
        if (!(V & CLOSE)) RL_ASSERT(got[0].code == 0); // two slots freed: the other send always gets one
        this->drain_all(), this->finish();
        RL_ASSERT(received(*this, 1, 100) == 1);
        for (int i = 0; i < 2; ++i) RL_ASSERT(received(*this, 1, 101 + i) == (got[i].code == 0 ? 1 : 0)); // once, or handed back
        int order[3] = {0, 0, 0}, n = 0;                                                                  // the values rx 1 received, in order
        for (int i = 0; i < this->hist.count && n < 3; ++i) {
            const op& o = this->hist.ops[i];
            if ((o.kind == op_kind::recv || o.kind == op_kind::try_recv) && o.result.code == 0) order[n++] = o.result.value;
        }
        if (arrival[0] != 0 && arrival[1] != 0 && got[0].code == 0 && got[1].code == 0) {
            const int first = arrival[0] < arrival[1] ? 0 : 1; // FIFO: served in the order they were queued
            RL_ASSERT(order[1] == 101 + first && order[2] == 102 - first);
        }
    }
};

// A blocking sender (condition variable) and an async sender (waiter
// list) both waiting on a full channel; the receiver frees one slot, then
// another. The freed slot's notify_one may pick the blocking sender while
// the settle hands the slot to the async one: the blocking sender must
// then wait again, not hang, and the next slot must reach it (R-WAKE-1,
// R-ASYNC-2). No close in the plain variant: it would mask a lost wakeup.
template <int V>
struct mixed_senders_vs_freed_slots : two_waiters_vs_event<mixed_senders_vs_freed_slots<V>, V> {
    static constexpr const char* description =
        "a blocking and an async sender on full, two slots freed: neither is left waiting";
    send_node w;
    outcome got[2];
    void before() { this->open(1), this->try_send(-1, 0, 100); }
    void waiter(int t) { got[t] = t == 0 ? this->send(0, 0, 101) : this->async_send(1, 0, w, 102); }
    void event() { this->recv(2, 1), this->recv(2, 1); }
    void after() {
        RL_ASSERT(sent_or_handed_back(got[0], 101, V, false) && sent_or_handed_back(got[1], 102, V, false));
        if (!(V & CLOSE)) RL_ASSERT(got[0].code == 0 && got[1].code == 0);
        this->check_resumed(w);
        this->drain_all(), this->finish();
        RL_ASSERT(received(*this, 1, 100) == 1);
        for (int i = 0; i < 2; ++i) RL_ASSERT(received(*this, 1, 101 + i) == (got[i].code == 0 ? 1 : 0));
    }
};

} // namespace bcast_rl
