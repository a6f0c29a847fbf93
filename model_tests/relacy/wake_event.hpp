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
// the event thread does). The two receiver templates wait for the same events
// and share both: receiver_wake_case_of and make_receiver_wake_event below,
// which names the events it runs. CMakeLists.txt turns -Wswitch into an error, so a
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

// The case table of the receiver templates (blocked_recv_vs_event: a receiver
// blocked in recv(); async_recv_vs_event: an async_recv queued), one row per
// event for both, as they wait for the same events.
struct receiver_wake_case {
    event_case blocked, queued; // each template's run: whether it runs, its --list description (or why not)
    bool close_variant;         // the event leaves the channel open: a +close variant is run
    int blocked_threads;        // blocked_recv_vs_event's threads: the close adds one that reads is_closed()
};
constexpr receiver_wake_case no_receiver_run(const char* why) { return {not_run(why), not_run(why), false, 2}; }

constexpr receiver_wake_case receiver_wake_case_of(wake_event e) {
    using enum wake_event;
    switch (e) {
    // A send must wake it: the message, never `closed` (it was sent before any close).
    case message_queued:
        return {runs_as("a send must wake a blocked receiver"),
                runs_as("an async recv queued on empty vs a send: completed once with the message"), true, 2};
    // close() must wake it (close_locked marks the receive list: `closed`,
    // R-CLOSE-6), while a third thread queries is_closed(): the closed flag is
    // read only under the lock.
    case closed:
        return {runs_as("close must wake blocked receivers; is_closed() read races nothing"),
                runs_as("close completes a queued async recv with closed"), false, 3};
    // The last sender destroyed closes the channel (R-CLOSE-2) and must wake it: `closed`.
    case last_sender_left:
        return {runs_as("dropping the last sender closes and must wake the receiver"),
                runs_as("the last sender gone closes and completes a queued async recv"), false, 2};
    case slot_freed:
    case receiver_left:
    case receiver_left_freeing_several:
    case last_active_receiver_left:
    case capacity_grown:
    case overflow_on:
    case await_active_off:
    case receiver_activated: return no_receiver_run("wakes senders only");
    case last_receiver_left:
    case last_inactive_receiver_left: return no_receiver_run("cannot happen: the waiting receiver is an active receiver");
    }
    return no_receiver_run("not reached");
}

// What the event thread (thread 1) does for an event that wakes a waiting
// receiver, on the channel every receiver scenario opens (sender 0, receiver
// 1). Not a switch: the case table above already names every enumerator; a
// receiver-waking event added to woken_by() stops the build here until it
// says what the thread does.
template <wake_event E, class Scenario>
void make_receiver_wake_event(Scenario& s) {
    static_assert(woken_by(E).receivers, "only the events that wake receivers are run against a waiting receiver");
    if constexpr (E == wake_event::message_queued) s.try_send(1, 0, 7);
    else if constexpr (E == wake_event::closed) s.close(1, 0);
    else if constexpr (E == wake_event::last_sender_left) s.drop_sender(1, 0);
    else static_assert(E != E, "a new event that wakes receivers: say here what the event thread does");
}

} // namespace bcast_rl
