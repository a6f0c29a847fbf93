// SPDX-License-Identifier: MIT OR Apache-2.0
// Conformance profiles: the named divergences from spec/rules.md that an
// implementation declares, each with the rules it touches and the reason, so
// that the conformance kit checks everything else exactly and says, where it
// skips a check, which entry skips it (spec/rules.md, "Profiles").
//
// An adapter declares its profile as `static constexpr const
// conformance_profile& profile = ...;`; one without is checked against the
// reference profile, which diverges from nothing. The entries here are the
// ones spec/rules.md defines; an implementation outside bcast would add its
// own next to its adapter.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace bcast::spec {

// One divergence: its ID (spec/rules.md), the rules it touches, what differs.
struct profile_entry {
    std::string_view id;
    std::string_view rules;
    std::string_view what;
};

struct conformance_profile {
    std::string_view name;
    // What the property suite assumes of an implementation (docs/conformance.md),
    // and the entry that says it does not hold, empty when it holds:
    std::string_view without_counted_messages{}; // any nothrow-movable message type, instances counted (lifetimes, R-MSG-1, R-MSG-2)
    std::string_view without_throwing_copies{};  // a copy that throws changes nothing (exception_safety, R-MSG-3)
    std::span<const profile_entry> entries{};
    // Where the implementation is fixed in a state the model can be put in, and
    // the entry that says so, empty when not: a recorded history is checked
    // against the model started in that state (profile_check.hpp, model_start).
    std::string_view capacity_rounded_up_to_power_of_two{}; // the channel's capacity is the next power of two
    std::string_view overflow_always_on{};                  // the model starts with overflow on
    std::string_view await_active_always_off{};             // the model starts with await_active off
    std::string_view last_receiver_does_not_close{};        // the model starts with a hidden inactive receiver
    std::string_view sends_report_no_eviction{};            // a successful send is compared without its evicted message

    // The entry with this ID; throws std::logic_error for an ID the profile lacks.
    const profile_entry& entry(std::string_view id) const {
        for (const profile_entry& e : entries)
            if (e.id == id) return e;
        throw std::logic_error("bcast::spec: profile " + std::string(name) + " has no entry " + std::string(id));
    }
    // "profile P-FAST, P-FAST-1 (R-MSG-4, ...): what", for a skipped check's message.
    std::string describe(std::string_view id) const {
        const profile_entry& e = entry(id);
        return "profile " + std::string(name) + ", " + std::string(e.id) + " (" + std::string(e.rules) + "): " +
               std::string(e.what);
    }
};

// The reference: every rule as written.
inline constexpr conformance_profile reference_profile{"reference"};

// bcast::fast (docs/fast-design.md): the receive path takes no lock and makes
// no read-modify-write. The entries restate spec/rules.md, "Profile P-FAST".
inline constexpr profile_entry fast_profile_entries[] = {
    {"P-FAST-1", "R-MSG-4, R-MSG-1, R-MSG-2, R-MSG-3, R-EXC-1",
     "messages are trivially copyable (a compile-time error otherwise): a receiver's copy is validated after it is "
     "made (a seqlock), which only such a type allows; there is no destructor to run and no copy that can throw"},
    {"P-FAST-2", "R-RECV-3, R-MSG-1",
     "every reader copies the message (no move to the last reader), and its bytes stay in the slot until the slot "
     "is reused: knowing which reader is the last needs a read-modify-write per receive"},
    {"P-FAST-3", "R-OVF-1",
     "an evicting send may hand back a message that a receive overlapping it delivered to the one receiver that "
     "still held it; sequential histories are exact, and every receiver still gets each message at most once, in "
     "order, with exact overflowed(n) counts"},
    {"P-FAST-4", "R-EXC-1, R-IMPL-3",
     "creating a receiver (a copy, new_receiver, activate, activate_cloned) allocates its position cell and may "
     "throw std::bad_alloc, changing nothing; a growing set_capacity keeps the old ring until the channel is "
     "destroyed (at most twice the largest ring)"},
    {"P-FAST-5", "R-ASYNC-1, R-ASYNC-2, R-ASYNC-3, R-ASYNC-4, R-ASYNC-5", "no async calls"},
    {"P-FAST-6", "R-IMPL-1, R-IMPL-2",
     "its own primitive set (atomics, wait words and a fence pair, no condition variable), and the position is "
     "atomic: senders read it while its receiver writes it (a plain integer is a data race)"},
};
inline constexpr conformance_profile fast_profile{"P-FAST", "P-FAST-1", "P-FAST-1", fast_profile_entries};

// tokio::sync::broadcast 1.24 through its driver (bench/tokio_driver): the
// entries restate spec/rules.md, "Profile P-TOKIO". Of them, the ones a
// recorded history shows are checked by starting the model in tokio's state.
inline constexpr profile_entry tokio_profile_entries[] = {
    {"P-TOKIO-1", "R-CAP-1, R-OVF-2", "the capacity is rounded up to a power of two (channel(3) holds 4 and lags against 4); capacity 0 panics"},
    {"P-TOKIO-2", "R-CAP-2, R-CAP-3, R-CAP-4, R-CAP-5, R-QUERY-1", "the capacity is fixed at creation and cannot be read: no set_capacity, capacity or is_full"},
    {"P-TOKIO-3", "R-OVF-1, R-OVF-3, R-OVF-4, R-SEND-1, R-SEND-2, R-MSG-1",
     "overflow is always on: a send into a full ring overwrites the oldest message and drops it itself (never handed back); "
     "success is the receiver count, never full"},
    {"P-TOKIO-4", "R-ACT-1, R-ACT-2, R-ACT-3, R-LIFE-4, R-LIFE-5, R-LIFE-6, R-SEND-3, R-QUERY-1",
     "no inactive receivers and no await_active: with no receiver a send fails at once (inactive), handing the message back"},
    {"P-TOKIO-5", "R-CLOSE-3", "dropping the last receiver does not close: sends answer inactive until a new receiver subscribes"},
    {"P-TOKIO-6", "R-CLOSE-1, R-CLOSE-4, R-HANDLE-2, R-QUERY-1",
     "no close(), no new_sender, no is_closed or sender_count: only the last sender's drop closes (R-CLOSE-2 holds)"},
    {"P-TOKIO-7", "R-LIFE-1, R-HANDLE-2", "a receiver cannot be copied (no Clone); resubscribe starts at the tail: it is new_receiver, not a copy"},
    {"P-TOKIO-8", "R-QUERY-1, R-QUERY-2, R-CAP-5",
     "no channel-wide len or is_empty (Receiver::len counts this receiver's backlog, lost messages included); receiver_count on senders only"},
    {"P-TOKIO-9", "R-RECV-3, R-MSG-1, R-MSG-2, R-MSG-4",
     "every reader clones the message (no move to the last reader); the overwriting send drops an unread one; channel() needs T: Clone"},
    {"P-TOKIO-10", "R-MSG-3, R-EXC-1",
     "a panicking clone loses the message for that receiver (a retry gets the next one); a panicking drop poisons a slot; allocation failure aborts"},
    {"P-TOKIO-11", "R-SEND-4, R-RECV-5, R-RECV-6, R-QUERY-2, R-HANDLE-3",
     "none of bcast's extensions (timed calls, ranges, unread/missed, same_channel); a timed receive is the recv() future under a timeout"},
    {"P-TOKIO-12", "R-ERR-1, R-ERR-2, R-ERR-3, R-ERR-4",
     "tokio's own error types and wording (SendError, RecvError, TryRecvError), mapped by the driver; wording not compared"},
    {"P-TOKIO-13", "R-SEND-3, R-SEND-5, R-WAKE-1, R-CLOSE-6, R-CAP-4, R-OVF-4, R-LIFE-6, R-ACT-3",
     "no send ever waits, so nothing wakes or cancels a sender; a pending broadcast is a failure"},
    {"P-TOKIO-14", "R-ASYNC-1, R-ASYNC-2, R-ASYNC-3, R-ASYNC-4, R-ASYNC-5, R-RECV-4, R-THREAD-1, R-IMPL-1, R-IMPL-2, R-IMPL-3, R-HANDLE-1",
     "the only wait is the recv() future (cancel safe, completed by its own next poll; no blocking receive); the C++ coroutine, "
     "primitive and moved-from rules do not apply"},
    {"P-TOKIO-15", "R-LIFE-3",
     "dropping a receiver is two steps: it leaves the count, then releases its unread messages slot by slot (only message lifetimes "
     "see the gap in 1.24)"},
};
inline constexpr conformance_profile tokio_profile{
    .name = "P-TOKIO",
    .without_counted_messages = "P-TOKIO-9",
    .without_throwing_copies = "P-TOKIO-10",
    .entries = tokio_profile_entries,
    .capacity_rounded_up_to_power_of_two = "P-TOKIO-1",
    .overflow_always_on = "P-TOKIO-3",
    .await_active_always_off = "P-TOKIO-4",
    .last_receiver_does_not_close = "P-TOKIO-5",
    .sends_report_no_eviction = "P-TOKIO-3",
};

// Every profile spec/rules.md defines, for the tools that read a profile's name.
inline constexpr const conformance_profile* known_profiles[] = {&reference_profile, &fast_profile, &tokio_profile};

// The profile an adapter declares, or the reference's.
template <class C>
constexpr const conformance_profile& profile_of() {
    if constexpr (requires { C::profile; }) return C::profile;
    else return reference_profile;
}

} // namespace bcast::spec
