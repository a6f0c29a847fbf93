// SPDX-License-Identifier: MIT OR Apache-2.0
// The wakeup table of docs/design.md (section 4) as a coverage matrix: every
// row (an event that ends a wait) x every case (one waiter, two waiters the
// event lets through, blocking and async, and each code path that reaches the
// wake site in a different state). docs/verification.md, "The wakeup table,
// row by row", is the matrix, each cell naming its run; the cells the other
// headers already fill (blocking_scenarios.hpp, async_scenarios.hpp) are not
// repeated here. Every run here is in a `wake_*` suite of scenarios.def, one
// suite per row.
//
// The waiters are blocking, async or timed (broadcast_until / recv_until
// against model time, model_clock.hpp: the deadline is an event Relacy places
// before, during or after the path, and a timed waiter may answer timed_out,
// which the history checker accepts only at or after its deadline). Async
// calls have no timeout: a stop token cancels them (R-ASYNC-4).
//
// Three kinds of scenario:
//   senders_vs_path    N senders (1 or 2, blocking or async) wait, one more thread
//                      takes one path to a sender wake site (rows 2-9)
//   receivers_vs_path  N receivers wait, one more thread takes one path to a
//                      receiver wake site (rows 1 and 9)
//   settled_async_send_vs_receiver, close_vs_sender_and_receiver
//                      the wake sites reached from inside the settle of the async
//                      lists, and close waking both sides at once
// Each is a template<int V> over the variant flags (harness.hpp) like the
// blocking scenarios: V = 0 is the plain run, CLOSE adds a final close() where
// `has_close_variant` says so, UNTIL is the reachability twin (every waiter is
// blocked, or suspended, when the event thread goes on).
//
// Each path is an enumerator, named in switches without a default (the case
// table and event()), like wake_event: -Werror=switch makes a new path say how
// it is set up, what it does and what its waiters must answer.
#pragma once

#include <type_traits>

#include "harness.hpp"
#include "families.hpp"
#include "wake_event.hpp"

namespace bcast_rl {

// How the waiters wait: threads blocked in broadcast()/recv() on the channel's
// condition variables, async operations queued in its waiter lists, or threads
// in broadcast_until()/recv_until() whose deadline may come first.
enum class waiters_are { blocking,
                         async,
                         timed };

// An async waiter's node (harness.hpp); a blocking or timed waiter has none.
struct no_node {};
template <waiters_are K, class Node>
using node_if_async = std::conditional_t<K == waiters_are::async, Node, no_node>;

// A waiter's call, as K makes it: an async operation on its node, a timed
// call (its deadline in model time) or a blocking one.
template <waiters_are K, class Scenario, class Node>
outcome send_as(Scenario& s, int t, Node& node, int v) {
    if constexpr (K == waiters_are::async) return s.async_send(t, 0, node, v);
    else if constexpr (K == waiters_are::timed) return s.send_timed(t, 0, v);
    else return s.send(t, 0, v);
}
template <waiters_are K, class Scenario, class Node>
outcome recv_as(Scenario& s, int t, int h, Node& node) {
    if constexpr (K == waiters_are::async) return s.async_recv(t, h, node);
    else if constexpr (K == waiters_are::timed) return s.recv_timed(t, h);
    else return s.recv(t, h);
}

// R-ASYNC-3 for an async waiter's node: resumed once; nothing to check without one.
template <class Scenario, class Node>
void check_resumed_if_async(Scenario& s, const Node& node) {
    if constexpr (!std::is_same_v<Node, no_node>) s.check_resumed(node);
}

// Full (cap 1) of 90, which rx 1 has read and only rx 2 owes: a sender waits
// on full, a receiver on rx 1 (at the tail) for a message, and dropping or
// deactivating rx 2 frees the slot.
template <class Scenario>
void queue_90_owed_by_rx2_only(Scenario& s) {
    s.new_receiver(-1, 0, 2), s.try_send(-1, 0, 90), s.try_recv(-1, 1);
}

// ---- N senders waiting vs one path to a sender wake site ---------------------

enum class sender_path {
    // row 2, the last reader takes a message (attempt_recv: wake_one_sender)
    async_recv_frees_slot, // the reader is an async_recv answered at once (start_recv's critical section)
    // row 3, a receiver leaves, frees 1, active receivers remain (detach_receiver: wake_one_sender)
    receiver_dropped_frees_one,         // destroyed; it alone owed the front message
    receiver_deactivated_frees_one,     // the same by deactivate()
    lagging_receiver_dropped_frees_one, // it lags (a shrink dropped what it had not read): first_unread_index 0
    // row 4, a receiver leaves and frees 2+, or leaves no active receiver (detach_receiver: wake_all_senders)
    receiver_dropped_frees_two,     // cap 2: it alone owed both queued messages
    receiver_deactivated_frees_two, // the same by deactivate()
    last_active_dropped,            // an inactive receiver keeps the channel open, await_active off
    last_active_deactivated,        // the same by deactivate()
    // row 5, capacity grows (set_capacity: wake_all_senders)
    capacity_grown,          // the ring reallocates; not wrapped
    capacity_grown_wrapped,  // the ring reallocates while wrapped (grow() relinearises it)
    capacity_grown_in_place, // no reallocation: slots left over from a shrink
    // row 6, overflow turned on (set_overflow: wake_all_senders)
    overflow_on,
    // row 7, await_active turned off (set_await_active: wake_all_senders)
    await_active_off,
    // row 8, active receivers 0 -> 1 (add_active_receiver: wake_all_senders)
    activate_cloned, // attach_receiver_at_tail(false) from an inactive receiver
    activate,        // attach_receiver_at_tail(true): the inactive receiver is consumed
    new_receiver,    // attach_receiver_at_tail(false) from a sender
    // row 9, close (close_locked: wake_all_senders)
    closed_by_sender,
    closed_by_receiver,
    last_inactive_dropped, // no active receiver (await_active on), the last inactive one dropped (R-CLOSE-3)
    last_receiver_dropped, // full, the only receiver dropped: wake_all_senders, then close_locked (R-CLOSE-3)
};

// What every waiting sender must answer (R-SEND-1..5).
enum class answer_is { sent,
                       sent_evicting,
                       inactive,
                       closed };

struct sender_path_case {
    event_case what;
    wake_event row; // the row of the wakeup table (wake_event.hpp)
    std::size_t capacity;
    answer_is answer;
    bool one_slot;      // the event frees one slot: with two waiters the event thread then receives twice, so the
                        // second waiter must stay blocked until the first receive frees the next slot
    bool close_variant; // the waiters send: a +close variant is run
};

constexpr sender_path_case sender_path_case_of(sender_path p, int waiters) {
    using enum sender_path;
    const bool two = waiters == 2;
    const std::size_t n = std::size_t(waiters);
    switch (p) {
    case async_recv_frees_slot:
        return {runs_as(two ? "an async recv answered at once frees the slot: one sender through, the other next"
                            : "an async recv answered at once (start_recv) frees the slot: the sender must wake"),
                wake_event::slot_freed, 1, answer_is::sent, true, true};
    case receiver_dropped_frees_one:
        return {runs_as(two ? "a dropped receiver frees one slot: one sender through, the other gets the next slot"
                            : "a dropped receiver frees one slot: the sender must wake"),
                wake_event::receiver_left, 1, answer_is::sent, true, true};
    case receiver_deactivated_frees_one:
        return {runs_as(two ? "a deactivated receiver frees one slot: one sender through, the other next"
                            : "a deactivated receiver frees one slot, an active one stays: the sender must wake"),
                wake_event::receiver_left, 1, answer_is::sent, true, true};
    case lagging_receiver_dropped_frees_one:
        return {runs_as(two ? "a lagging receiver dropped frees one slot: one sender through, the other next"
                            : "a lagging receiver (after a shrink) dropped frees one slot: the sender must wake"),
                wake_event::receiver_left, 2, answer_is::sent, true, true};
    case receiver_dropped_frees_two:
        return {runs_as(two ? "a dropped receiver frees two slots: both blocked senders must wake"
                            : "a dropped receiver frees two slots: the sender must wake"),
                wake_event::receiver_left_freeing_several, 2, answer_is::sent, false, true};
    case receiver_deactivated_frees_two:
        return {runs_as(two ? "a deactivated receiver frees two slots: both blocked senders must wake"
                            : "a deactivated receiver frees two slots: the sender must wake"),
                wake_event::receiver_left_freeing_several, 2, answer_is::sent, false, true};
    case last_active_dropped:
        return {runs_as(two ? "the last active receiver dropped, await_active off: both senders see inactive"
                            : "the last active receiver dropped, await_active off: the sender sees inactive"),
                wake_event::last_active_receiver_left, 1, answer_is::inactive, false, false};
    case last_active_deactivated:
        return {runs_as(two ? "the last active receiver deactivated, await_active off: both senders see inactive"
                            : "the last active receiver deactivated, await_active off: the sender sees inactive"),
                wake_event::last_active_receiver_left, 1, answer_is::inactive, false, false};
    case capacity_grown:
        return {runs_as(two ? "growth by two (the ring reallocates): both blocked senders must wake"
                            : "growth (the ring reallocates): the sender must wake"),
                wake_event::capacity_grown, 1, answer_is::sent, false, true};
    case capacity_grown_wrapped:
        return {runs_as(two ? "growth of a wrapped ring (reallocated, relinearised): both senders must wake"
                            : "growth of a wrapped ring (reallocated, relinearised): the sender wakes, order kept"),
                wake_event::capacity_grown, 2, answer_is::sent, false, true};
    case capacity_grown_in_place:
        return {runs_as(two ? "growth into slots left by a shrink (no reallocation): both senders must wake"
                            : "growth into slots left by a shrink (no reallocation): the sender must wake"),
                wake_event::capacity_grown, 3, answer_is::sent, false, true};
    case overflow_on:
        return {runs_as(two ? "overflow on: both blocked senders must wake and evict"
                            : "overflow on: the blocked sender must wake and evict"),
                wake_event::overflow_on, 1, answer_is::sent_evicting, false, true};
    case await_active_off:
        return {runs_as(two ? "await_active off: both senders waiting for a receiver must see inactive"
                            : "await_active off: the sender waiting for a receiver must see inactive"),
                wake_event::await_active_off, 1, answer_is::inactive, false, false};
    case activate_cloned:
        return {runs_as(two ? "activate_cloned, cap 2: both senders waiting for a receiver must send"
                            : "activate_cloned: the sender waiting for a receiver must send"),
                wake_event::receiver_activated, n, answer_is::sent, false, true};
    case activate:
        return {runs_as(two ? "activate() (the inactive one consumed), cap 2: both waiting senders must send"
                            : "activate() (the inactive receiver consumed): the waiting sender must send"),
                wake_event::receiver_activated, n, answer_is::sent, false, true};
    case new_receiver:
        return {runs_as(two ? "sender.new_receiver(), cap 2: both senders waiting for a receiver must send"
                            : "sender.new_receiver(): the sender waiting for a receiver must send"),
                wake_event::receiver_activated, n, answer_is::sent, false, true};
    case closed_by_sender:
        return {runs_as(two ? "close() on a sender: both blocked senders must see closed, messages back"
                            : "close() on a sender: the blocked sender must see closed, message back"),
                wake_event::closed, 1, answer_is::closed, false, false};
    case closed_by_receiver:
        return {runs_as(two ? "close() on a receiver: both blocked senders must see closed, messages back"
                            : "close() on a receiver: the blocked sender must see closed, message back"),
                wake_event::closed, 1, answer_is::closed, false, false};
    case last_inactive_dropped:
        return {runs_as(two ? "the last inactive receiver dropped closes: both senders waiting for a receiver see closed"
                            : "the last inactive receiver dropped closes: the sender waiting for a receiver sees closed"),
                wake_event::last_inactive_receiver_left, 1, answer_is::closed, false, false};
    case last_receiver_dropped:
        return {runs_as(two ? "the last receiver dropped closes: both senders blocked on full see closed"
                            : "the last receiver dropped closes: the sender blocked on full sees closed"),
                wake_event::last_receiver_left, 1, answer_is::closed, false, false};
    }
    return {not_run("not reached"), wake_event::closed, 1, answer_is::closed, false, false};
}

// Setup values are 90..92; waiter i sends 101 + i.
template <sender_path P, waiters_are K, int N, int V, class On = on_reference>
struct senders_vs_path : On::template harness<senders_vs_path<P, K, N, V, On>, N + 1, expect(V)> {
    static_assert(N == 1 || N == 2);
    static constexpr sender_path_case this_case = sender_path_case_of(P, N);
    static_assert(this_case.what.runs);
    static_assert(woken_by(this_case.row).senders);
    static constexpr const char* description = this_case.what.description;
    // Timed waiters get no +close run: a final close can only hide a lost wakeup, and their deadline
    // already ends every wait (with two of them, the +close runs took 2 minutes each).
    static constexpr bool has_close_variant = this_case.close_variant && K != waiters_are::timed;

    node_if_async<K, send_node> nodes[N];
    std::conditional_t<P == sender_path::async_recv_frees_slot, recv_node, no_node> taker; // the event's async recv
    outcome got[N];

    void before() {
        this->open(this_case.capacity);
        sender_path p = P; // not constant, for -Wswitch (see event())
        switch (p) {
        case sender_path::async_recv_frees_slot:
        case sender_path::capacity_grown:
        case sender_path::overflow_on:
        case sender_path::closed_by_sender:
        case sender_path::closed_by_receiver:
        case sender_path::last_receiver_dropped: this->try_send(-1, 0, 90); break; // full
        case sender_path::receiver_dropped_frees_one:
        case sender_path::receiver_deactivated_frees_one: queue_90_owed_by_rx2_only(*this); break;
        case sender_path::lagging_receiver_dropped_frees_one: // cap 2 -> 1: 90 dropped, rx 2 lags and alone owes 91
            this->new_receiver(-1, 0, 2), this->try_send(-1, 0, 90), this->try_send(-1, 0, 91);
            this->try_recv(-1, 1), this->try_recv(-1, 1), this->set_capacity(-1, 0, 1);
            break;
        case sender_path::receiver_dropped_frees_two:
        case sender_path::receiver_deactivated_frees_two: // cap 2 full; rx 1 read both, only rx 2 owes them
            this->new_receiver(-1, 0, 2), this->try_send(-1, 0, 90), this->try_send(-1, 0, 91);
            this->try_recv(-1, 1), this->try_recv(-1, 1);
            break;
        case sender_path::last_active_dropped:
        case sender_path::last_active_deactivated: // full; inactive irx 3 keeps it open; await_active off
            this->clone_receiver(-1, 1, 2), this->deactivate(-1, 2, 3), this->set_await_active(-1, 0, false);
            this->try_send(-1, 0, 90);
            break;
        case sender_path::capacity_grown_wrapped: // cap 2 full of 91, 92, and 92 sits in slot 0 (wrapped)
            this->try_send(-1, 0, 90), this->try_send(-1, 0, 91), this->try_recv(-1, 1), this->try_send(-1, 0, 92);
            break;
        case sender_path::capacity_grown_in_place: // cap 3 -> 1 keeps 3 slots; full
            this->try_send(-1, 0, 90), this->set_capacity(-1, 0, 1);
            break;
        case sender_path::await_active_off:
        case sender_path::activate_cloned:
        case sender_path::activate:
        case sender_path::new_receiver:
        case sender_path::last_inactive_dropped: this->deactivate(-1, 1, 2); break; // no active receiver, await_active on
        }
    }
    void thread(unsigned t) {
        if (int(t) < N) {
            got[t] = send_as<K>(*this, int(t), nodes[t], 101 + int(t));
            return;
        }
        until<V>(On::waiting() >= N);
        event();
        if (this_case.one_slot && N == 2) {
            // the first sender's, then the second's; a timed sender may have given up, so only look
            if constexpr (K == waiters_are::timed) this->try_recv(N, 1), this->try_recv(N, 1);
            else this->recv(N, 1), this->recv(N, 1);
        }
        if (this_case.close_variant && (V & CLOSE)) this->close(N, 0);
    }
    void event() {
        sender_path p = P; // not constant: GCC checks -Wswitch only on a non-constant condition
        switch (p) {
        case sender_path::async_recv_frees_slot:
            if constexpr (P == sender_path::async_recv_frees_slot) this->async_recv(N, 1, taker);
            break;
        case sender_path::receiver_dropped_frees_one:
        case sender_path::lagging_receiver_dropped_frees_one:
        case sender_path::receiver_dropped_frees_two: this->drop_receiver(N, 2); break;
        case sender_path::receiver_deactivated_frees_one:
        case sender_path::receiver_deactivated_frees_two: this->deactivate(N, 2, 3); break;
        case sender_path::last_active_dropped: this->drop_receiver(N, 1); break;
        case sender_path::last_active_deactivated: this->deactivate(N, 1, 4); break;
        case sender_path::capacity_grown: this->set_capacity(N, 0, 1 + N); break;
        case sender_path::capacity_grown_wrapped: this->set_capacity(N, 0, 2 + N); break;
        case sender_path::capacity_grown_in_place: this->set_capacity(N, 0, 1 + N); break; // <= 3 slots
        case sender_path::overflow_on: this->set_overflow(N, 0, true); break;
        case sender_path::await_active_off: this->set_await_active(N, 0, false); break;
        case sender_path::activate_cloned: this->activate_cloned(N, 2, 3); break;
        case sender_path::activate: this->activate(N, 2, 3); break;
        case sender_path::new_receiver: this->new_receiver(N, 0, 3); break;
        case sender_path::closed_by_sender: this->close(N, 0); break;
        case sender_path::closed_by_receiver: this->close(N, 1); break;
        case sender_path::last_inactive_dropped: this->drop_inactive(N, 2); break;
        case sender_path::last_receiver_dropped: this->drop_receiver(N, 1); break;
        }
    }
    static bool answered_as_expected(const outcome& got, int v) {
        const outcome closed{1 + int(bcast::send_errc::closed), v, 0};
        if ((V & CLOSE) && got == closed) return true; // the final close came first
        // The deadline came first: whether it really had, the history's deadline says (finish()).
        if (K == waiters_are::timed && got == (outcome{1 + int(bcast::send_errc::timed_out), v, 0})) return true;
        answer_is a = this_case.answer;
        switch (a) {
        case answer_is::sent: return got == (outcome{0, -1, 0});
        case answer_is::sent_evicting: return got.code == 0 && got.value != -1 && got.value != v; // R-OVF-1
        case answer_is::inactive: return got == (outcome{1 + int(bcast::send_errc::inactive), v, 0});
        case answer_is::closed: return got == closed;
        }
        return false;
    }
    void after() {
        for (int i = 0; i < N; ++i) {
            RL_ASSERT(answered_as_expected(got[i], 101 + i));
            check_resumed_if_async(*this, nodes[i]);
        }
        check_resumed_if_async(*this, taker); // the event's async recv, answered at once
        this->drain_all(), this->finish();
    }
};

// ---- N receivers waiting vs one path to a receiver wake site -------------------

enum class receiver_path {
    // row 1, a message queued (attempt_send: wake_all_receivers)
    evicting_send,          // overflow on, full: the send evicts the front a lagging receiver owes
    send_into_wrapped_ring, // the message goes into slot 0 behind the front (the ring wraps)
    async_send_at_once,     // the message comes from an async send answered at once (start_send's critical section)
    // row 9, close (close_locked: wake_all_receivers)
    closed_by_sender,
    closed_by_receiver,  // close() on another receiver handle
    last_sender_dropped, // the last sender destroyed (R-CLOSE-2)
};

struct receiver_path_case {
    event_case what;
    wake_event row;
    std::size_t capacity;
    bool gets_message; // every waiter must get 101; otherwise `closed`
};

constexpr receiver_path_case receiver_path_case_of(receiver_path p, int waiters) {
    using enum receiver_path;
    const bool two = waiters == 2;
    switch (p) {
    case evicting_send:
        return {runs_as(two ? "a send that evicts (overflow) must wake both receivers waiting at the tail"
                            : "a send that evicts (overflow) must wake the receiver waiting at the tail"),
                wake_event::message_queued, 1, true};
    case send_into_wrapped_ring:
        return {runs_as(two ? "a send into slot 0 of a wrapped ring must wake both waiting receivers"
                            : "a send into slot 0 of a wrapped ring must wake the waiting receiver"),
                wake_event::message_queued, 2, true};
    case async_send_at_once:
        return {runs_as(two ? "an async send answered at once must wake both waiting receivers"
                            : "an async send answered at once (start_send) must wake the waiting receiver"),
                wake_event::message_queued, 1, true};
    case closed_by_sender:
        return {runs_as(two ? "close() on the sender must wake both waiting receivers"
                            : "close() on the sender must wake the waiting receiver"),
                wake_event::closed, 1, false};
    case closed_by_receiver:
        return {runs_as(two ? "close() on another receiver must wake both waiting receivers"
                            : "close() on another receiver must wake the waiting receiver"),
                wake_event::closed, 1, false};
    case last_sender_dropped:
        return {runs_as(two ? "the last sender dropped closes: both waiting receivers must see closed"
                            : "the last sender dropped closes: the waiting receiver must see closed"),
                wake_event::last_sender_left, 1, false};
    }
    return {not_run("not reached"), wake_event::closed, 1, false};
}

// Waiter 0 receives on rx 1, waiter 1 on rx 3 (a receiver made at the tail).
template <receiver_path P, waiters_are K, int N, int V, class On = on_reference>
struct receivers_vs_path : On::template harness<receivers_vs_path<P, K, N, V, On>, N + 1, expect(V)> {
    static_assert(N == 1 || N == 2);
    static constexpr receiver_path_case this_case = receiver_path_case_of(P, N);
    static_assert(this_case.what.runs);
    static_assert(woken_by(this_case.row).receivers);
    static constexpr const char* description = this_case.what.description;
    // Sent before the close: still received. Timed waiters get no +close run (senders_vs_path says why).
    static constexpr bool has_close_variant = this_case.gets_message && K != waiters_are::timed;
    static constexpr int waiter_handle[2] = {1, 3};

    node_if_async<K, recv_node> nodes[N];
    std::conditional_t<P == receiver_path::async_send_at_once, send_node, no_node> giver; // the event's async send
    outcome got[N];

    void before() {
        this->open(this_case.capacity);
        receiver_path p = P; // not constant, for -Wswitch (see event())
        switch (p) {
        case receiver_path::evicting_send: // full of 90, which only rx 2 owes
            this->new_receiver(-1, 0, 2), this->set_overflow(-1, 0, true), this->try_send(-1, 0, 90);
            this->try_recv(-1, 1);
            break;
        case receiver_path::send_into_wrapped_ring: // front in slot 1 (91, owed by rx 2 only): the next goes to slot 0
            this->new_receiver(-1, 0, 2), this->try_send(-1, 0, 90), this->try_recv(-1, 1), this->try_recv(-1, 2);
            this->try_send(-1, 0, 91), this->try_recv(-1, 1);
            break;
        case receiver_path::async_send_at_once:
        case receiver_path::closed_by_sender:
        case receiver_path::last_sender_dropped: break;
        case receiver_path::closed_by_receiver: this->new_receiver(-1, 0, 2); break; // the one that closes
        }
        if (N == 2) this->new_receiver(-1, 0, 3); // at the tail, like rx 1
    }
    void thread(unsigned t) {
        if (int(t) < N) {
            got[t] = recv_as<K>(*this, int(t), waiter_handle[t], nodes[t]);
            return;
        }
        until<V>(On::waiting() >= N);
        event();
        if (has_close_variant && (V & CLOSE)) this->close(N, 0);
    }
    void event() {
        receiver_path p = P; // not constant: GCC checks -Wswitch only on a non-constant condition
        switch (p) {
        case receiver_path::evicting_send:
        case receiver_path::send_into_wrapped_ring: this->try_send(N, 0, 101); break;
        case receiver_path::async_send_at_once:
            if constexpr (P == receiver_path::async_send_at_once) this->async_send(N, 0, giver, 101); // not full: at once
            break;
        case receiver_path::closed_by_sender: this->close(N, 0); break;
        case receiver_path::closed_by_receiver: this->close(N, 2); break;
        case receiver_path::last_sender_dropped: this->drop_sender(N, 0); break;
        }
    }
    void after() {
        for (int i = 0; i < N; ++i) {
            // The deadline came first: whether it really had, the history's deadline says (finish()).
            if (K == waiters_are::timed && got[i].code == 1 + int(bcast::recv_errc::timed_out)) continue;
            if (this_case.gets_message) RL_ASSERT(got[i] == (outcome{0, 101, 0})); // sent before any close
            else RL_ASSERT(got[i].code == 1 + int(bcast::recv_errc::closed));
            check_resumed_if_async(*this, nodes[i]);
        }
        check_resumed_if_async(*this, giver); // the event's async send, answered at once
        this->drain_all(), this->finish();
    }
};

// ---- wake sites reached from inside the settle of the async lists -------------

// Row 1 reached from settle_senders: an async send waits on full (cap 1, 90
// owed by rx 2 only) and a receiver (rx 1, at the tail) waits for a message.
// rx 2 reads 90 (the last reader: wake_one_sender marks the send list), the
// settle sends 101 on the waiter's behalf, and that send's wake_all_receivers
// must reach rx 1: a notify under the lock (blocking), or a mark that the
// settle loop takes in its next round (async).
template <waiters_are K, int V>
struct settled_async_send_vs_receiver : scenario<settled_async_send_vs_receiver<K, V>, plain_primitives, 3, expect(V)> {
    static constexpr const char* description =
        K == waiters_are::async ? "a send made by the settle (async sender) must complete a queued async recv"
                                : "a send made by the settle (async sender) must wake a blocked receiver";
    static constexpr bool has_close_variant = true;
    send_node s;
    node_if_async<K, recv_node> r;
    outcome sent, got;
    void before() { this->open(1), queue_90_owed_by_rx2_only(*this); }
    void thread(unsigned t) {
        if (t == 0) {
            sent = this->async_send(0, 0, s, 101);
        } else if (t == 1) {
            got = recv_as<K>(*this, 1, 1, r);
        } else {
            until<V>(threads_waiting >= 2);
            this->recv(2, 2); // 90: frees the slot
            if (V & CLOSE) this->close(2, 0);
        }
    }
    void after() {
        const outcome closed_send{1 + int(bcast::send_errc::closed), 101, 0};
        RL_ASSERT(sent == (outcome{0, -1, 0}) || ((V & CLOSE) && sent == closed_send));
        if (sent.code == 0) RL_ASSERT(got == (outcome{0, 101, 0}));
        else RL_ASSERT(got.code == 1 + int(bcast::recv_errc::closed));
        this->check_resumed(s), check_resumed_if_async(*this, r);
        this->drain_all(), this->finish();
    }
};

// Row 9, both sides at once: a sender waits on full (cap 1, 90 owed by rx 2
// only) while a receiver (rx 1, at the tail) waits for a message; one close()
// must end both waits: the sender gets `closed` and its message back, the
// receiver `closed` (R-CLOSE-6).
template <waiters_are K, int V, class On = on_reference>
struct close_vs_sender_and_receiver : On::template harness<close_vs_sender_and_receiver<K, V, On>, 3, expect(V)> {
    static constexpr const char* description =
        K == waiters_are::async   ? "one close() completes a queued async send and a queued async recv"
        : K == waiters_are::timed ? "one close() or the deadlines: a timed sender on full, a timed receiver on empty"
                                  : "one close() wakes a sender blocked on full and a receiver blocked on empty";
    static constexpr bool has_close_variant = false; // the event is the close
    node_if_async<K, send_node> s;
    node_if_async<K, recv_node> r;
    outcome sent, got;
    void before() { this->open(1), queue_90_owed_by_rx2_only(*this); }
    void thread(unsigned t) {
        if (t == 0) {
            sent = send_as<K>(*this, 0, s, 101);
        } else if (t == 1) {
            got = recv_as<K>(*this, 1, 1, r);
        } else {
            until<V>(On::waiting() >= 2);
            this->close(2, 0);
        }
    }
    void after() {
        // A timed waiter may see its deadline first; the history's deadline says whether it may (finish()).
        const bool timed = K == waiters_are::timed;
        RL_ASSERT(sent == (outcome{1 + int(bcast::send_errc::closed), 101, 0}) ||
                  (timed && sent == (outcome{1 + int(bcast::send_errc::timed_out), 101, 0})));
        RL_ASSERT(got.code == 1 + int(bcast::recv_errc::closed) || (timed && got.code == 1 + int(bcast::recv_errc::timed_out)));
        check_resumed_if_async(*this, s), check_resumed_if_async(*this, r);
        this->drain_all(), this->finish();
    }
};

// ---- the runs of scenarios.def (its "wake_*" section) --------------------------
// Named <row>_<path>_<waiters><count>: b = blocking, a = async, t = timed.
#define BCAST_WAKE_SENDERS(alias, path, kind, n) \
    template <int V> \
    using alias = senders_vs_path<sender_path::path, waiters_are::kind, n, V>;
#define BCAST_WAKE_RECEIVERS(alias, path, kind, n) \
    template <int V> \
    using alias = receivers_vs_path<receiver_path::path, waiters_are::kind, n, V>;

// row 1: a message queued
BCAST_WAKE_RECEIVERS(wake_queued_evicting_b1, evicting_send, blocking, 1)
BCAST_WAKE_RECEIVERS(wake_queued_evicting_a1, evicting_send, async, 1)
BCAST_WAKE_RECEIVERS(wake_queued_wrapped_b1, send_into_wrapped_ring, blocking, 1)
BCAST_WAKE_RECEIVERS(wake_queued_async_send_b1, async_send_at_once, blocking, 1)
BCAST_WAKE_RECEIVERS(wake_queued_async_send_a1, async_send_at_once, async, 1)
BCAST_WAKE_RECEIVERS(wake_queued_evicting_t1, evicting_send, timed, 1)
BCAST_WAKE_RECEIVERS(wake_queued_wrapped_t2, send_into_wrapped_ring, timed, 2)
template <int V> using wake_queued_settled_b1 = settled_async_send_vs_receiver<waiters_are::blocking, V>;
template <int V> using wake_queued_settled_a1 = settled_async_send_vs_receiver<waiters_are::async, V>;
// row 2: the last reader takes a message
BCAST_WAKE_SENDERS(wake_reader_async_recv_b1, async_recv_frees_slot, blocking, 1)
BCAST_WAKE_SENDERS(wake_reader_async_recv_a1, async_recv_frees_slot, async, 1)
BCAST_WAKE_SENDERS(wake_reader_async_recv_t1, async_recv_frees_slot, timed, 1)
BCAST_WAKE_SENDERS(wake_reader_async_recv_t2, async_recv_frees_slot, timed, 2)
// row 3: a receiver leaves, frees 1, active receivers remain
BCAST_WAKE_SENDERS(wake_left_one_drop_b2, receiver_dropped_frees_one, blocking, 2)
BCAST_WAKE_SENDERS(wake_left_one_drop_a1, receiver_dropped_frees_one, async, 1)
BCAST_WAKE_SENDERS(wake_left_one_drop_a2, receiver_dropped_frees_one, async, 2)
BCAST_WAKE_SENDERS(wake_left_one_deactivate_b1, receiver_deactivated_frees_one, blocking, 1)
BCAST_WAKE_SENDERS(wake_left_one_lagging_b1, lagging_receiver_dropped_frees_one, blocking, 1)
BCAST_WAKE_SENDERS(wake_left_one_drop_t1, receiver_dropped_frees_one, timed, 1)
BCAST_WAKE_SENDERS(wake_left_one_drop_t2, receiver_dropped_frees_one, timed, 2)
// row 4: a receiver leaves and frees 2+, or leaves no active receiver
BCAST_WAKE_SENDERS(wake_left_all_two_b1, receiver_dropped_frees_two, blocking, 1)
BCAST_WAKE_SENDERS(wake_left_all_two_b2, receiver_dropped_frees_two, blocking, 2)
BCAST_WAKE_SENDERS(wake_left_all_two_a1, receiver_dropped_frees_two, async, 1)
BCAST_WAKE_SENDERS(wake_left_all_two_a2, receiver_dropped_frees_two, async, 2)
BCAST_WAKE_SENDERS(wake_left_all_two_deactivate_b1, receiver_deactivated_frees_two, blocking, 1)
BCAST_WAKE_SENDERS(wake_left_all_last_active_deactivate_b1, last_active_deactivated, blocking, 1)
BCAST_WAKE_SENDERS(wake_left_all_last_active_deactivate_b2, last_active_deactivated, blocking, 2)
BCAST_WAKE_SENDERS(wake_left_all_last_active_drop_a1, last_active_dropped, async, 1)
BCAST_WAKE_SENDERS(wake_left_all_last_active_drop_a2, last_active_dropped, async, 2)
BCAST_WAKE_SENDERS(wake_left_all_two_t1, receiver_dropped_frees_two, timed, 1)
BCAST_WAKE_SENDERS(wake_left_all_two_t2, receiver_dropped_frees_two, timed, 2)
BCAST_WAKE_SENDERS(wake_left_all_last_active_drop_t1, last_active_dropped, timed, 1)
BCAST_WAKE_SENDERS(wake_left_all_last_active_drop_t2, last_active_dropped, timed, 2)
// row 5: capacity grows
BCAST_WAKE_SENDERS(wake_grown_b2, capacity_grown, blocking, 2)
BCAST_WAKE_SENDERS(wake_grown_a2, capacity_grown, async, 2)
BCAST_WAKE_SENDERS(wake_grown_wrapped_b1, capacity_grown_wrapped, blocking, 1)
BCAST_WAKE_SENDERS(wake_grown_in_place_b1, capacity_grown_in_place, blocking, 1)
BCAST_WAKE_SENDERS(wake_grown_t1, capacity_grown, timed, 1)
BCAST_WAKE_SENDERS(wake_grown_t2, capacity_grown, timed, 2)
// row 6: overflow turned on
BCAST_WAKE_SENDERS(wake_overflow_on_b2, overflow_on, blocking, 2)
BCAST_WAKE_SENDERS(wake_overflow_on_a2, overflow_on, async, 2)
BCAST_WAKE_SENDERS(wake_overflow_on_t1, overflow_on, timed, 1)
BCAST_WAKE_SENDERS(wake_overflow_on_t2, overflow_on, timed, 2)
// row 7: await_active turned off
BCAST_WAKE_SENDERS(wake_await_active_off_b2, await_active_off, blocking, 2)
BCAST_WAKE_SENDERS(wake_await_active_off_a2, await_active_off, async, 2)
BCAST_WAKE_SENDERS(wake_await_active_off_t1, await_active_off, timed, 1)
BCAST_WAKE_SENDERS(wake_await_active_off_t2, await_active_off, timed, 2)
// row 8: active receivers 0 -> 1
BCAST_WAKE_SENDERS(wake_activated_cloned_b2, activate_cloned, blocking, 2)
BCAST_WAKE_SENDERS(wake_activated_cloned_a2, activate_cloned, async, 2)
BCAST_WAKE_SENDERS(wake_activated_activate_b1, activate, blocking, 1)
BCAST_WAKE_SENDERS(wake_activated_new_receiver_b1, new_receiver, blocking, 1)
BCAST_WAKE_SENDERS(wake_activated_cloned_t1, activate_cloned, timed, 1)
BCAST_WAKE_SENDERS(wake_activated_cloned_t2, activate_cloned, timed, 2)
// row 9: close
BCAST_WAKE_SENDERS(wake_close_senders_b1, closed_by_sender, blocking, 1)
BCAST_WAKE_SENDERS(wake_close_senders_b2, closed_by_sender, blocking, 2)
BCAST_WAKE_SENDERS(wake_close_senders_a2, closed_by_sender, async, 2)
BCAST_WAKE_SENDERS(wake_close_senders_by_receiver_b1, closed_by_receiver, blocking, 1)
BCAST_WAKE_SENDERS(wake_close_senders_last_inactive_b2, last_inactive_dropped, blocking, 2)
BCAST_WAKE_SENDERS(wake_close_senders_last_inactive_a1, last_inactive_dropped, async, 1)
BCAST_WAKE_RECEIVERS(wake_close_receivers_b2, closed_by_sender, blocking, 2)
BCAST_WAKE_RECEIVERS(wake_close_receivers_a2, closed_by_sender, async, 2)
BCAST_WAKE_RECEIVERS(wake_close_receivers_by_receiver_b1, closed_by_receiver, blocking, 1)
BCAST_WAKE_RECEIVERS(wake_close_receivers_last_sender_b2, last_sender_dropped, blocking, 2)
BCAST_WAKE_SENDERS(wake_close_senders_t1, closed_by_sender, timed, 1)
BCAST_WAKE_SENDERS(wake_close_senders_t2, closed_by_sender, timed, 2)
BCAST_WAKE_SENDERS(wake_close_senders_last_inactive_t1, last_inactive_dropped, timed, 1)
BCAST_WAKE_SENDERS(wake_close_senders_last_inactive_t2, last_inactive_dropped, timed, 2)
BCAST_WAKE_SENDERS(wake_close_senders_last_receiver_t1, last_receiver_dropped, timed, 1)
BCAST_WAKE_SENDERS(wake_close_senders_last_receiver_t2, last_receiver_dropped, timed, 2)
BCAST_WAKE_RECEIVERS(wake_close_receivers_t1, closed_by_sender, timed, 1)
BCAST_WAKE_RECEIVERS(wake_close_receivers_t2, closed_by_sender, timed, 2)
BCAST_WAKE_RECEIVERS(wake_close_receivers_last_sender_t1, last_sender_dropped, timed, 1)
BCAST_WAKE_RECEIVERS(wake_close_receivers_last_sender_t2, last_sender_dropped, timed, 2)
template <int V> using wake_close_both_sides_b = close_vs_sender_and_receiver<waiters_are::blocking, V>;
template <int V> using wake_close_both_sides_a = close_vs_sender_and_receiver<waiters_are::async, V>;
template <int V> using wake_close_both_sides_t = close_vs_sender_and_receiver<waiters_are::timed, V>;

#undef BCAST_WAKE_SENDERS
#undef BCAST_WAKE_RECEIVERS

// The same cells on any family (scenarios.def's BCAST_RELACY_CELL lines, blocking and timed
// waiters: fast_wake_senders, fast_wake_receivers on bcast::fast, which has no async calls).
template <sender_path P, waiters_are K, int N>
struct senders_cell {
    template <int V, class On> using scenario = senders_vs_path<P, K, N, V, On>;
};
template <receiver_path P, waiters_are K, int N>
struct receivers_cell {
    template <int V, class On> using scenario = receivers_vs_path<P, K, N, V, On>;
};
template <waiters_are K>
struct both_sides_cell {
    template <int V, class On> using scenario = close_vs_sender_and_receiver<K, V, On>;
};

} // namespace bcast_rl
