// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::fast::sender: the sending handle of the lock-free-receive channel
// (docs/fast-design.md). The same API as bcast::sender, without the async
// calls; every method is const and may be called on one sender from many
// threads at once (R-THREAD-1).
#pragma once

#include <chrono>
#include <utility>

#include "../detail/deadline.hpp"
#include "detail/handle_base.hpp"
#include "fwd.hpp"

namespace bcast::fast {

/// The sending handle of a bcast::fast channel: bcast::sender's API (without
/// the async calls) over the lock-free-receive design.
///
/// A send takes the channel's lock for a few dozen instructions: it gates on
/// the slowest receiver through a cached minimum (a scan of the receivers only
/// when the ring looks full), writes one slot and publishes it. Copying makes
/// one more sender (R-HANDLE-2); destroying the last one closes the channel
/// (R-CLOSE-2).
///
/// @threadsafety Every member except assignment is `const` and may be called
/// on one sender from many threads at once; sends are serialised by the lock
/// (docs/fast-design.md, section 2).
/// @tparam T The message type, a bcast::fast::message_type (trivially copyable, P-FAST-1).
/// @tparam Primitives A bcast::fast::channel_primitives (R-IMPL-1).
template <message_type T, channel_primitives Primitives>
class sender : public bcast::detail::counted_handle<detail::channel_state<T, Primitives>, bcast::detail::sender_seat> {
    using base = bcast::detail::counted_handle<detail::channel_state<T, Primitives>, bcast::detail::sender_seat>;

public:
    /// Sends `message` if that needs no waiting: closed → `closed`, no active
    /// receiver → `inactive`, full → with overflow on the oldest is evicted and
    /// handed back (R-OVF-1; P-FAST-3 for an eviction that races a receive), else
    /// `full` (R-SEND-1). Every error hands the message back (R-SEND-5).
    /// @param message The message. @return As bcast::sender::try_broadcast().
    [[nodiscard("a failed send hands the message back here (R-SEND-5)")]] send_result<T> try_broadcast(T message) const {
        return this->state().try_broadcast(message);
    }

    /// Sends `message`, waiting while the channel is full with overflow off, or has
    /// no active receiver while await_active is on (R-SEND-3, R-ACT-2); every event
    /// that may change the answer ends the wait (R-WAKE-1). @param message The message.
    /// @return As try_broadcast(), never `full`.
    [[nodiscard("a failed send hands the message back here (R-SEND-5)")]] send_result<T> broadcast(T message) const {
        return this->state().broadcast(message, detail::no_deadline{});
    }

    /// broadcast() that gives up with `timed_out` after `timeout`, re-checking once
    /// after the deadline (R-SEND-4). @param message The message.
    /// @param timeout How long to wait at most. @return As broadcast(), or `timed_out`.
    template <class Rep, class Period>
    [[nodiscard("a failed send hands the message back here (R-SEND-5)")]] send_result<T> broadcast_for(
        T message, const std::chrono::duration<Rep, Period>& timeout) const {
        if (const auto deadline = bcast::detail::deadline_after(timeout)) return broadcast_until(message, *deadline);
        return broadcast(message);
    }
    /// broadcast() that gives up at `deadline` (R-SEND-4). @param message The message.
    /// @param deadline When to give up, on any clock. @return As broadcast_for().
    template <class Clock, class Duration>
    [[nodiscard("a failed send hands the message back here (R-SEND-5)")]] send_result<T> broadcast_until(
        T message, const std::chrono::time_point<Clock, Duration>& deadline) const {
        return detail::until_on_its_clock(
            deadline, [&](auto steady) { return this->state().broadcast(message, steady); },
            [](const send_result<T>& r) { return !r.has_value() && r.error().code == send_errc::timed_out; });
    }

    /// A new active receiver at the tail (R-LIFE-2, R-LIFE-6). @return The receiver.
    [[nodiscard("a dropped handle is destroyed at once")]] receiver<T, Primitives> new_receiver() const {
        auto& state = this->state();
        return detail::handle_access::adopt<receiver<T, Primitives>>(&state, state.attach_at_tail(false));
    }

private:
    friend struct detail::handle_access;
    explicit sender(typename base::state_type* state) noexcept : base(state) {}
};

} // namespace bcast::fast

#include "inactive_receiver.hpp"
#include "receiver.hpp"
