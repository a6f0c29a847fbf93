// SPDX-License-Identifier: MIT OR Apache-2.0
// The wakeup table of docs/design.md (section 4, "Who notifies whom"), as an
// enumeration the scenarios are written against.
//
// Every event that can end a blocked or queued operation's wait is one
// enumerator. The scenario templates that pit a waiter against "the event"
// (blocked_send_vs_event, blocked_recv_vs_event in blocking_scenarios.hpp;
// async_send_vs_event, async_recv_vs_event in async_scenarios.hpp) each
// name every enumerator twice, in switches without a default: in their case
// table (runs or not, and why; the --list description) and in event() (what
// the event thread does; the two receiver templates share theirs,
// make_receiver_wake_event below, which names the events it runs). CMakeLists.txt turns -Wswitch into an error, so a
// new wake site added here makes the compiler point at every scenario
// template that has not yet said whether, and how, it runs against it. (The
// event() switches test a local copy of the template argument: GCC checks
// -Wswitch only on a non-constant condition.)
#pragma once

namespace bcast_rl {

enum class wake_event {
    message_queued,                // attempt_send: wake_all_receivers (R-RECV-2)
    slot_freed,                    // attempt_recv by the last reader of the front message: wake_one_sender
    receiver_left,                 // detach_receiver, one message freed, active receivers remain: wake_one_sender
    receiver_left_freeing_several, // detach_receiver, two or more messages freed: wake_all_senders
    last_active_receiver_left,     // detach_receiver, no active receiver left, an inactive one keeps it open: wake_all_senders
    last_receiver_left,            // detach_receiver, no receiver left: wake_all_senders, then close_locked (R-CLOSE-3)
    last_inactive_receiver_left,   // the last inactive receiver destroyed, no active one: close_locked (R-CLOSE-3)
    capacity_grown,                // set_capacity to more: wake_all_senders (R-CAP-4)
    overflow_on,                   // set_overflow(true): wake_all_senders (R-OVF-4)
    await_active_off,              // set_await_active(false): wake_all_senders (R-ACT-3)
    receiver_activated,            // add_active_receiver, 0 -> 1 active: wake_all_senders (R-LIFE-6)
    closed,                        // close(): close_locked, all senders and receivers (R-CLOSE-6)
    last_sender_left,              // the last sender destroyed: close_locked (R-CLOSE-2)
};

// The "Wakes" column: which waiters an event must reach. Also a switch
// without a default, so a new enumerator has to say whom it wakes.
struct woken {
    bool senders;
    bool receivers;
};
constexpr woken woken_by(wake_event e) {
    switch (e) {
    case wake_event::message_queued: return {false, true};
    case wake_event::slot_freed:
    case wake_event::receiver_left:
    case wake_event::receiver_left_freeing_several:
    case wake_event::last_active_receiver_left:
    case wake_event::capacity_grown:
    case wake_event::overflow_on:
    case wake_event::await_active_off:
    case wake_event::receiver_activated: return {true, false};
    case wake_event::last_receiver_left:
    case wake_event::last_inactive_receiver_left:
    case wake_event::closed:
    case wake_event::last_sender_left: return {true, true}; // close_locked wakes both sides
    }
    return {false, false}; // not reached: every enumerator returns above
}

// What a scenario template says about one event: whether it runs against it,
// and the one-line description --list prints for that run.
struct event_case {
    bool runs;
    const char* description; // for a case that does not run: why not
};
constexpr event_case runs_as(const char* description) { return {true, description}; }
constexpr event_case not_run(const char* reason) { return {false, reason}; }

// What the event thread (thread 1) does for an event that wakes a waiting
// receiver, on the channel every receiver scenario opens (sender 0, receiver
// 1): one place for blocked_recv_vs_event and async_recv_vs_event, which wait
// for the same events. Not a switch: the templates' case tables already name
// every enumerator; a receiver-waking event added to woken_by() stops the
// build here until it says what the thread does.
template <wake_event E, class Scenario>
void make_receiver_wake_event(Scenario& s) {
    static_assert(woken_by(E).receivers, "only the events that wake receivers are run against a waiting receiver");
    if constexpr (E == wake_event::message_queued) s.try_send(1, 0, 7);
    else if constexpr (E == wake_event::closed) s.close(1, 0);
    else if constexpr (E == wake_event::last_sender_left) s.drop_sender(1, 0);
    else static_assert(E != E, "a new event that wakes receivers: say here what the event thread does");
}

} // namespace bcast_rl
