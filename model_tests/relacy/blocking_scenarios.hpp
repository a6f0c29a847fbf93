// SPDX-License-Identifier: MIT OR Apache-2.0
// Blocking scenarios: threads blocked in broadcast() / recv() on the
// channel's condition variables, and the events that must wake them
// (R-WAKE-1, the wakeup table of docs/design.md section 4).
//
// Each is a template<int V> over the variant flags (harness.hpp): V = 0 is the
// plain run, CLOSE adds a final close() where `has_close_variant` says it
// makes sense, UNTIL is the reachability twin. The registry (registry.hpp)
// runs every variant of a scenario listed with BCAST_RELACY_VARIANTS in
// scenarios.def.
#pragma once

#include "harness.hpp"
#include "families.hpp"
#include "wake_event.hpp"

namespace bcast_rl {

// ---- one sender blocked vs one event -----------------------------------------
// A sender blocks (thread 0); the other thread waits until it is waiting, then
// does the event, which must end the wait with the blocking call's answer.

// Where the sender blocks before the event.
enum class sender_blocked_on {
    full,                    // capacity 1, one message queued
    full_second_reader_owes, // full, and only the second of two receivers still has to read it
    no_active_receiver,      // the only receiver deactivated, await_active on
};

struct blocked_send_case {
    event_case what;
    sender_blocked_on start;
    bool close_variant; // the event leaves the channel open, so a +close variant is run
    bool drain_after;   // after() receives what is left, so the linearizability check sees it
};

constexpr blocked_send_case blocked_send_case_of(wake_event e) {
    using enum wake_event;
    using enum sender_blocked_on;
    switch (e) {
    // The receiver frees the slot (wake_one_sender), both orders of block/recv.
    case slot_freed:
        return {runs_as("cap 1: a freed slot must wake the blocked sender; both orders of block/recv"), full, true, false};
    // Growth makes room (R-CAP-4).
    case capacity_grown: return {runs_as("capacity growth must wake a sender blocked on full"), full, true, true};
    // Overflow on (R-OVF-4): the sender wakes and evicts.
    case overflow_on:
        return {runs_as("overflow on must wake a sender blocked on full (it then evicts)"), full, true, true};
    // A receiver destroyed releases its unread message, which frees the slot.
    case receiver_left:
        return {runs_as("a dropped receiver releases its unread messages, freeing the sender"), full_second_reader_owes,
                true, true};
    // activate_cloned: the new active receiver wakes the sender and gets the message (R-LIFE-6).
    case receiver_activated:
        return {runs_as("activate_cloned must wake a sender waiting for an active receiver"), no_active_receiver, true,
                false};
    // deactivate() frees the queue, the sender then waits for an active
    // receiver, and activate_cloned() must wake it.
    case last_active_receiver_left:
        return {runs_as("deactivate turns 'full' into 'no active receiver'; reactivation must wake the sender"), full,
                true, false};
    // set_await_active(false): the sender wakes and fails with `inactive` (R-ACT-3).
    case await_active_off:
        return {runs_as("await_active off must wake a sender waiting for an active receiver"), no_active_receiver, false,
                false};
    // The last receiver destroyed: the channel closes (R-CLOSE-3), the sender sees `closed`.
    case last_receiver_left:
        return {runs_as("last receiver gone closes the channel; the blocked sender must see closed"), full, false, false};
    // The last inactive receiver destroyed: the channel closes, the sender sees `closed`.
    case last_inactive_receiver_left:
        return {runs_as("last inactive receiver gone closes the channel; the waiting sender must see closed"),
                no_active_receiver, false, false};
    case message_queued: return {not_run("wakes receivers only"), full, false, false};
    case receiver_left_freeing_several:
        return {not_run("no scenario: capacity 1 frees one message; the wake_all_senders call is the one "
                        "last_active_drop_vs_two_senders reaches"),
                full, false, false};
    case closed:
        return {not_run("no blocking-sender scenario of its own: close_locked's wake_all_senders is reached by "
                        "async_send_vs/close and by the +close variants"),
                full, false, false};
    case last_sender_left: return {not_run("cannot happen: the blocked sender holds a sender"), full, false, false};
    }
    return {not_run("not reached"), full, false, false};
}

template <wake_event E, int V, class On = on_reference>
struct blocked_send_vs_event : On::template harness<blocked_send_vs_event<E, V, On>, 2, expect(V)> {
    static constexpr blocked_send_case this_case = blocked_send_case_of(E);
    static_assert(this_case.what.runs, "blocked_send_case_of() says this event does not run against a blocked sender");
    static_assert(woken_by(E).senders);
    static constexpr const char* description = this_case.what.description;
    static constexpr bool has_close_variant = this_case.close_variant;

    void before() {
        this->open(1);
        sender_blocked_on start = this_case.start; // not constant, for -Wswitch (see event())
        switch (start) {
        case sender_blocked_on::full: this->try_send(-1, 0, 100); break;
        case sender_blocked_on::full_second_reader_owes:
            this->new_receiver(-1, 0, 2), this->try_send(-1, 0, 100), this->try_recv(-1, 1);
            break;
        case sender_blocked_on::no_active_receiver: this->deactivate(-1, 1, 2); break;
        }
    }
    void thread(unsigned t) {
        if (t == 0) {
            this->send(0, 0, 101);
            return;
        }
        until<V>(On::waiting() > 0);
        event();
        if (this_case.close_variant && (V & CLOSE)) this->close(1, 0);
    }
    void event() {
        wake_event e = E; // not constant: GCC checks -Wswitch only on a non-constant condition
        switch (e) {
        case wake_event::slot_freed: this->recv(1, 1), this->recv(1, 1); break;
        case wake_event::capacity_grown: this->set_capacity(1, 0, 2); break;
        case wake_event::overflow_on: this->set_overflow(1, 0, true); break;
        case wake_event::receiver_left: this->drop_receiver(1, 2); break;
        case wake_event::receiver_activated: this->activate_cloned(1, 2, 3), this->recv(1, 3); break;
        case wake_event::last_active_receiver_left:
            this->deactivate(1, 1, 2), this->activate_cloned(1, 2, 3), this->recv(1, 3);
            break;
        case wake_event::await_active_off: this->set_await_active(1, 0, false); break;
        case wake_event::last_receiver_left: this->drop_receiver(1, 1); break;
        case wake_event::last_inactive_receiver_left: this->drop_inactive(1, 2); break;
        case wake_event::message_queued:
        case wake_event::receiver_left_freeing_several:
        case wake_event::closed:
        case wake_event::last_sender_left: break; // not run (static_assert above)
        }
    }
    void after() {
        if (this_case.drain_after) this->drain_all();
        this->finish();
    }
};
template <int V> using full_send_vs_recv = blocked_send_vs_event<wake_event::slot_freed, V>;
template <int V> using grow_vs_blocked_send = blocked_send_vs_event<wake_event::capacity_grown, V>;
template <int V> using overflow_on_vs_blocked_send = blocked_send_vs_event<wake_event::overflow_on, V>;
template <int V> using receiver_drop_vs_blocked_send = blocked_send_vs_event<wake_event::receiver_left, V>;
template <int V> using activate_vs_awaiting_sender = blocked_send_vs_event<wake_event::receiver_activated, V>;
template <int V> using deactivate_vs_blocked_send = blocked_send_vs_event<wake_event::last_active_receiver_left, V>;
template <int V> using await_active_off_vs_sender = blocked_send_vs_event<wake_event::await_active_off, V>;
template <int V> using last_receiver_drop_vs_blocked_send = blocked_send_vs_event<wake_event::last_receiver_left, V>;
template <int V> using last_inactive_drop_vs_sender = blocked_send_vs_event<wake_event::last_inactive_receiver_left, V>;

// ---- one receiver blocked vs one event ---------------------------------------
// A receiver blocks on an empty channel (thread 0); the other thread waits
// until it is waiting, then does the event.

template <wake_event E, int V, class On = on_reference>
struct blocked_recv_vs_event
    : On::template harness<blocked_recv_vs_event<E, V, On>, receiver_wake_case_of(E).blocked_threads, expect(V)> {
    static constexpr receiver_wake_case this_case = receiver_wake_case_of(E); // wake_event.hpp
    static_assert(this_case.blocked.runs, "receiver_wake_case_of() says this event does not run against a blocked receiver");
    static constexpr const char* description = this_case.blocked.description;
    static constexpr bool has_close_variant = this_case.close_variant;

    void before() { this->open(1); }
    void thread(unsigned t) {
        if (t == 0) {
            this->recv(0, 1);
        } else if (t == 1) {
            until<V>(On::waiting() > 0);
            event();
            if (this_case.close_variant && (V & CLOSE)) this->close(1, 0);
        } else {
            static_cast<void>(this->tx[0]->is_closed());
        }
    }
    void event() { make_receiver_wake_event<E>(*this); } // asserts that E wakes receivers
};
template <int V> using recv_blocked_vs_send = blocked_recv_vs_event<wake_event::message_queued, V>;
template <int V> using recv_blocked_vs_close = blocked_recv_vs_event<wake_event::closed, V>;
template <int V> using recv_blocked_vs_last_sender_drop = blocked_recv_vs_event<wake_event::last_sender_left, V>;

// The same rows as cells of the wakeup table on any family (scenarios.def's
// BCAST_RELACY_CELL lines: fast_wake_senders, fast_wake_receivers on bcast::fast).
template <wake_event E>
struct send_event_cell {
    template <int V, class On> using scenario = blocked_send_vs_event<E, V, On>;
};
template <wake_event E>
struct recv_event_cell {
    template <int V, class On> using scenario = blocked_recv_vs_event<E, V, On>;
};

// ---- several waiters ---------------------------------------------------------

// Two senders blocked on a full channel, one receiver draining: each freed
// slot must reach a sender; nothing lost, each sender's order kept.
template <int V>
struct two_senders_full : two_waiters_vs_event<two_senders_full<V>, V> {
    static constexpr const char* description =
        "two blocked senders, one drainer: each freed slot must reach a sender, order kept";
    void before() { this->open(1), this->try_send(-1, 0, 100); }
    void waiter(int t) { this->send(t, 0, 101 + t); }
    void event() {
        for (int i = 0; i < 3; ++i) this->recv(2, 1);
    }
};

// Two senders and two receivers on capacity 1 (4 threads): a slot is
// freed only when BOTH receivers have read the front message, so wakeups
// cross in both directions; each receiver gets both messages in one order.
template <int V>
struct two_by_two : scenario<two_by_two<V>, plain_primitives, 4, expect(V)> {
    static constexpr const char* description =
        "2 senders x 2 receivers, cap 1: a slot frees only after both reads; wakeups both ways";
    static constexpr bool has_close_variant = true;
    void before() { this->open(1), this->new_receiver(-1, 0, 2); }
    void thread(unsigned t) {
        if (t < 2) {
            this->send(int(t), 0, 101 + int(t));
        } else {
            until<V>(threads_waiting >= 2);
            this->recv(int(t), int(t) - 1);
            this->recv(int(t), int(t) - 1);
            if ((V & CLOSE) && t == 3) this->close(3, 0);
        }
    }
};

// Two receivers blocked vs one send: EVERY waiting receiver wants the
// message, so the send must notify all (notify_one strands one).
template <int V>
struct two_receivers_blocked_vs_send : two_waiters_vs_event<two_receivers_blocked_vs_send<V>, V> {
    static constexpr const char* description = "every waiting receiver wants each message: notify_all, not notify_one";
    void before() { this->open(2), this->new_receiver(-1, 0, 2); }
    void waiter(int t) { this->recv(t, 1 + t); }
    void event() { this->try_send(2, 0, 7); }
};

// The last ACTIVE receiver destroyed (an inactive one keeps the channel
//  open) while two senders are blocked on full, await_active off: one slot
//  is freed, but BOTH senders' answer changes (full -> inactive), so both
//  must be woken (the lost wakeup fixed in 55aac32).
template <int V>
struct last_active_drop_vs_two_senders : two_waiters_vs_event<last_active_drop_vs_two_senders<V>, V> {
    static constexpr const char* description =
        "last active receiver gone, inactive one left: both blocked senders must see inactive";
    void before() {
        this->open(1);
        this->clone_receiver(-1, 1, 2);
        this->deactivate(-1, 2, 3);
        this->set_await_active(-1, 0, false);
        this->try_send(-1, 0, 100);
    }
    void waiter(int t) { this->send(t, 0, 101 + t); }
    void event() { this->drop_receiver(2, 1); }
};

// ---- timeouts ------------------------------------------------------------------

// Timed send racing the receive that frees its slot: timing out and
// succeeding are both valid; the message is never lost or duplicated.
template <int V>
struct timed_send_vs_recv : scenario<timed_send_vs_recv<V>, plain_primitives, 2, expect(V)> {
    static constexpr const char* description = "timeout racing the freeing recv: either outcome, nothing lost";
    static constexpr bool has_close_variant = false;
    void before() { this->open(1), this->try_send(-1, 0, 100); }
    void thread(unsigned t) {
        if (t == 0) {
            this->send_timed(0, 0, 101);
        } else {
            until<V>(threads_waiting > 0);
            this->recv(1, 1);
        }
    }
    void after() { this->drain_all(), this->finish(); }
};

// Timed receive racing the send it waits for: either outcome, nothing lost.
template <int V>
struct timed_recv_vs_send : scenario<timed_recv_vs_send<V>, plain_primitives, 2, expect(V)> {
    static constexpr const char* description = "timeout racing the send: either outcome, nothing lost";
    static constexpr bool has_close_variant = false;
    void before() { this->open(1); }
    void thread(unsigned t) {
        if (t == 0) {
            this->recv_timed(0, 1);
        } else {
            until<V>(threads_waiting > 0);
            this->try_send(1, 0, 7);
        }
    }
    void after() { this->drain_all(), this->finish(); }
};

} // namespace bcast_rl
