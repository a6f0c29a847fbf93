// SPDX-License-Identifier: MIT OR Apache-2.0
// The definition of bcast::detail::state_inspector (declared in
// impl/include/bcast/detail/inspector_fwd.hpp): the only place outside impl/
// that names the channel's private fields. channel_state and receiver
// befriend it, and their friend lines list the fields read here, so renaming
// one breaks this file at compile time with the reason in view.
//
// Everything here is a read, done from invariant() between critical sections
// (where Relacy neither schedules nor race-checks rl::var loads), or the
// address of a receiver's position handed to an async waiter node.
#pragma once

#include "relacy_primitives.hpp" // first: it maps BCAST_ASSERT before bcast is included

namespace bcast::detail {

struct state_inspector {
    // ---- channel_state: the queue, counters and flags the invariants use ----
    static bool lock_held(const auto& state) { return state.mutex_.held(); }
    static const auto& ring(const auto& state) { return state.ring_; }
    static std::uint64_t head_position(const auto& state) { return state.head_pos_.get(); }
    static std::size_t capacity(const auto& state) { return state.capacity_.get(); }
    static std::size_t active_receivers(const auto& state) { return state.receiver_count_.get(); }
    static bool closed(const auto& state) { return state.closed_.get(); }
    static bool overflow(const auto& state) { return state.overflow_.get(); }
    static bool await_active(const auto& state) { return state.await_active_.get(); }
    // Threads the channel counts as inside a condition-variable wait.
    static std::size_t counted_waiting_threads(const auto& state) {
        return state.waiting_senders_.get() + state.waiting_receivers_.get();
    }

    // ---- channel_state: the async waiter lists (R-ASYNC-2) ----
    static const waiter* first_queued_receive(const auto& state) { return state.recv_waiters_.front(); }
    static const waiter* first_queued_send(const auto& state) { return state.send_waiters_.front(); }
    // The "settle me" marks and the resume batch: both must be empty whenever
    // the lock is free.
    static unsigned async_marks(const auto& state) { return state.async_marks_.get(); }
    static bool completed_waiters_pending(const auto& state) { return !state.completed_waiters_.empty(); }

    // ---- bcast::fast's channel_state: the lock holder's fields (fast_harness.hpp) ----
    static std::uint64_t fast_tail(const auto& state) { return state.tail_.get(); }
    static std::uint64_t fast_evict_head(const auto& state) { return state.evict_head_value_.get(); }
    static std::uint64_t fast_cached_min(const auto& state) { return state.cached_min_.get(); }
    static std::size_t fast_slot_count(const auto& state) { return state.rings_.back()->slot_count(); }
    static bool fast_closed(const auto& state) { return state.closed_flag_.get(); }

    // ---- receiver: where an async receive reads and advances the position ----
    template <class T, class Primitives>
    static typename Primitives::position& position(receiver<T, Primitives>& rx) {
        return rx.seat_.pos;
    }
};

} // namespace bcast::detail

namespace bcast_rl {
using inspector = bcast::detail::state_inspector;
} // namespace bcast_rl
