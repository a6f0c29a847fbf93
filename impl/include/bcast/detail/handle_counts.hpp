// SPDX-License-Identifier: MIT OR Apache-2.0
// The handle counts both channel families keep the same way, written once:
// senders and inactive receivers join and leave here (an active receiver joins
// with a position instead, in each family's attach_*), and the three counts
// are read here (R-QUERY-1). Each family's state derives from this class.
//
// The state keeps the counters, their invariants and the rest (it befriends
// this class):
//   sender_count_, inactive_receiver_count_   counters, under mutex_
//   lock_type, mutex_                         what an add holds
//   release_section                           what a release holds, made from
//     the state: the reference's critical_section, which completes the async
//     waiters a close finishes after it unlocks (R-ASYNC-3); bcast::fast's
//     plain lock (it has no async waiter, P-FAST-5)
//   receiver_count_ (the active receivers), close_locked(), close_if_no_receivers()
#pragma once

#include <cstddef>

namespace bcast::detail {

template <class State>
class handle_counts {
public:
    void add_sender() {
        typename State::lock_type lock(self().mutex_);
        self().sender_count_.set(self().sender_count_.get() + 1); // does not reopen (R-CLOSE-4)
    }

    // Returns true when this was the last handle: the caller deletes the state.
    bool release_sender() noexcept {
        State& state = self();
        typename State::release_section section(state);
        state.sender_count_.set(state.sender_count_.get() - 1);
        if (state.sender_count_.get() == 0) state.close_locked(); // R-CLOSE-2
        return no_handles_left();
    }

    void add_inactive_receiver() {
        typename State::lock_type lock(self().mutex_);
        self().inactive_receiver_count_.set(self().inactive_receiver_count_.get() + 1);
    }

    // Returns true when this was the last handle, as release_sender().
    bool release_inactive_receiver() noexcept {
        State& state = self();
        typename State::release_section section(state);
        state.inactive_receiver_count_.set(state.inactive_receiver_count_.get() - 1);
        state.close_if_no_receivers(); // R-CLOSE-3
        return no_handles_left();
    }

    // The counts (R-QUERY-1), each read under the lock.
    std::size_t receiver_count() const { return read(self().receiver_count_); }
    std::size_t inactive_receiver_count() const { return read(self().inactive_receiver_count_); }
    std::size_t sender_count() const { return read(self().sender_count_); }

protected:
    // One field of the state, read under its lock (the state's queries use it too).
    template <class Field>
    auto read(const Field& field) const {
        typename State::lock_type lock(self().mutex_);
        return field.get();
    }

    // Whether no handle of any kind is left (the caller of a release, or of the
    // state's own detach, then deletes the state).
    bool no_handles_left() const noexcept {
        const State& state = self();
        return state.sender_count_.get() + state.receiver_count_.get() + state.inactive_receiver_count_.get() == 0;
    }

private:
    State& self() noexcept { return static_cast<State&>(*this); }
    const State& self() const noexcept { return static_cast<const State&>(*this); }
};

} // namespace bcast::detail
