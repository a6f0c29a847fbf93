// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::sender: the sending handle (async-broadcast's Sender).
//
// Every method is const and may be called on one sender object from many
// threads at once (R-THREAD-1).
#pragma once

#include <chrono>
#include <stop_token>
#include <utility>

#include "async.hpp"
#include "detail/async_operation.hpp"
#include "detail/deadline.hpp"
#include "detail/channel_state.hpp"
#include "detail/state_handle.hpp"
#include "fwd.hpp"

namespace bcast {

/// The sending handle of a channel: async-broadcast's `Sender`.
///
/// A channel stays open while at least one sender exists; destroying the last
/// one closes it (R-CLOSE-2), which wakes every waiting sender and receiver
/// (R-CLOSE-6). Copying a sender makes one more sender (Rust's `Clone`,
/// R-HANDLE-2); copy, move, assignment, swap() and destruction are
/// detail::counted_handle's, the same for every handle. The channel-wide settings and queries (capacity(),
/// set_overflow(), close(), len(), ...) are inherited from
/// detail::state_handle and describe the channel, not this handle (R-QUERY-1).
///
/// Every member other than destruction, assignment, swap(), valid() and
/// copying throws std::logic_error on a moved-from sender and changes nothing
/// (R-HANDLE-1).
///
/// Every send is `[[nodiscard]]`: its result is where a failed send hands the
/// message back (R-SEND-5), so `tx.try_broadcast(m);` is diagnosed; so are the
/// awaitables, which do nothing until awaited, and new_receiver().
///
/// @threadsafety Every member except assignment is `const` and may be called on
/// one sender object from any number of threads at once; distinct handles are
/// always independent (R-THREAD-1). Each call holds the channel's one mutex
/// only for a bounded number of steps; only broadcast() and its timed forms
/// wait for other threads.
///
/// @tparam T     The message type, a bcast::message_type: nothrow move
///               constructible and nothrow destructible (R-MSG-4, checked at
///               compile time by the constraint).
/// @tparam Primitives The primitive set the channel is built on, a
///               bcast::channel_primitives (R-IMPL-1); std_primitives unless
///               you are model-checking.
template <message_type T, channel_primitives Primitives>
class sender : public detail::counted_handle<detail::channel_state<T, Primitives>, detail::sender_seat> {
    using base = detail::counted_handle<detail::channel_state<T, Primitives>, detail::sender_seat>;

public:
    /// Sends `message` if that needs no waiting.
    ///
    /// @contract Checks, in this order (R-SEND-1): closed → error `closed`;
    /// no active receiver → error `inactive` (R-ACT-1, overflow makes no
    /// difference); full → with overflow on, the oldest message is evicted and
    /// the send succeeds (R-OVF-1), with overflow off error `full`. On success
    /// the message is queued for every receiver active at this moment
    /// (R-SEND-2) and every waiting receiver is woken (R-WAKE-1). The success
    /// value is empty, or holds the evicted message, which now belongs to the
    /// caller. Every error hands `message` back unchanged in
    /// send_error::message (R-SEND-5).
    /// @complexity O(1): one move of the message into a preallocated slot, one
    /// more move out if a message is evicted; no allocation (R-IMPL-3).
    /// @blocking Never waits.
    /// @threadsafety Any number of threads may send on one sender at once;
    /// messages from different threads are queued in the order the channel
    /// mutex admits them.
    /// @param message The message to send; moved in.
    /// @return Empty optional on success, the evicted message in overflow mode,
    /// or a send_error with code `closed`, `inactive` or `full`.
    [[nodiscard("a failed send hands the message back here (R-SEND-5)")]] send_result<T> try_broadcast(T message) const {
        return this->state().try_broadcast(std::move(message));
    }

    /// Sends `message`, waiting while it cannot be sent yet.
    ///
    /// @contract Waits while the channel is full with overflow off, or has no
    /// active receiver while await_active is on (R-SEND-3, R-ACT-2); then does
    /// what try_broadcast() does. It therefore never fails with `full`; it fails
    /// with `closed`, or with `inactive` when await_active is off and no
    /// receiver is active. await_active off never makes a full channel fail:
    /// the sender still waits for room. Every event that may change the answer
    /// ends the wait (R-WAKE-1): a slot freed, capacity grown (R-CAP-4), overflow
    /// turned on (R-OVF-4), an active receiver appearing (R-LIFE-6), await_active
    /// turned off (R-ACT-3), close (R-CLOSE-6). A failed send hands `message`
    /// back (R-SEND-5).
    /// @complexity O(1) per attempt; one attempt per wakeup.
    /// @blocking Yes, without limit; use broadcast_for() to bound the wait. There
    /// is no other way to cancel it.
    /// @threadsafety As try_broadcast(). Waiting senders are not served in a
    /// guaranteed order.
    /// @param message The message to send; moved in.
    /// @return As try_broadcast(), never with code `full`.
    [[nodiscard("a failed send hands the message back here (R-SEND-5)")]] send_result<T> broadcast(T message) const {
        return this->state().broadcast(std::move(message), detail::no_deadline{});
    }

    /// broadcast() that gives up after `timeout`.
    ///
    /// @contract As broadcast(), but if the time runs out while it would still
    /// wait, fails with `timed_out` and hands `message` back (R-SEND-4,
    /// R-SEND-5). The outcome is re-checked once after the deadline, so a slot
    /// freed just in time is used, and a call that need not wait succeeds even
    /// with a zero timeout. Measured on `std::chrono::steady_clock`.
    /// @complexity O(1) per attempt.
    /// @blocking At most about `timeout`, plus the time to reacquire the mutex.
    /// @threadsafety As try_broadcast().
    /// @param message The message to send; moved in.
    /// @param timeout How long to wait at most. A duration beyond the clock's
    ///        range (such as `std::chrono::hours::max()`) waits without limit.
    /// @return As broadcast(), or a send_error with code `timed_out`.
    template <class Rep, class Period>
    [[nodiscard("a failed send hands the message back here (R-SEND-5)")]] send_result<T> broadcast_for(
        T message, const std::chrono::duration<Rep, Period>& timeout) const {
        if (const auto deadline = detail::deadline_after(timeout)) return broadcast_until(std::move(message), *deadline);
        return broadcast(std::move(message));
    }
    /// broadcast() that gives up at `deadline`.
    ///
    /// @contract As broadcast_for(); a deadline already in the past still
    /// sends when no waiting is needed.
    /// @complexity O(1) per attempt.
    /// @blocking Until `deadline` at most, plus the time to reacquire the mutex.
    /// @threadsafety As try_broadcast().
    /// @param message The message to send; moved in.
    /// @param deadline When to give up, on any clock the Primitives's
    ///        condition_variable accepts (std_primitives: any clock).
    /// @return As broadcast(), or a send_error with code `timed_out`.
    template <class Clock, class Duration>
    [[nodiscard("a failed send hands the message back here (R-SEND-5)")]] send_result<T> broadcast_until(
        T message, const std::chrono::time_point<Clock, Duration>& deadline) const {
        return this->state().broadcast(std::move(message), deadline);
    }

    /// Sends `message` from a coroutine: `co_await tx.async_broadcast(msg)`.
    ///
    /// @contract The same answer as broadcast() (R-ASYNC-1): waits while the
    /// channel is full with overflow off, or has no active receiver while
    /// await_active is on; the same events end the wait (R-WAKE-1); fails with
    /// `closed` or `inactive`, handing `message` back; in overflow mode
    /// returns the evicted message. Instead of blocking the thread, the
    /// coroutine is suspended, queued on the channel in FIFO order without
    /// allocating (R-ASYNC-2), and resumed inline on the thread that made room,
    /// after that thread released the channel lock (R-ASYNC-3). With `stop`, a
    /// stop request ends a pending wait with `cancelled` and hands `message`
    /// back, unsent (R-ASYNC-4); a send that needs no wait is not cancelled.
    /// @exception None from the channel.
    /// @complexity O(1) to start and per completion.
    /// @blocking Never blocks the thread; suspends the coroutine while it must wait.
    /// @threadsafety As try_broadcast(). The sender must outlive the pending
    /// operation (R-ASYNC-5).
    /// @param message The message to send; moved in.
    /// @param stop Cancels a pending wait when stop is requested.
    /// @return An awaitable whose `co_await` yields a send_result<T>, as broadcast().
    [[nodiscard("does nothing until co_awaited (R-ASYNC-1)")]] detail::send_operation<T, Primitives> async_broadcast(
        T message, std::stop_token stop = {}) const {
        return {this->state(), std::move(message), std::move(stop), detail::resumer::inline_resume()};
    }

    /// async_broadcast() that resumes its coroutine through `scheduler`
    /// (`scheduler.schedule(handle)`) instead of inline (R-ASYNC-3).
    /// @contract As async_broadcast(message, stop). An answer that is there at
    /// once does not go through the scheduler.
    /// @complexity O(1) to start and per completion.
    /// @blocking Never blocks the thread.
    /// @threadsafety As async_broadcast(); `scheduler` must outlive the operation.
    /// @tparam S A bcast::scheduler.
    /// @param scheduler Where the coroutine resumes after waiting.
    /// @param message The message to send; moved in.
    /// @param stop Cancels a pending wait when stop is requested.
    /// @return An awaitable yielding a send_result<T>.
    template <scheduler S>
    [[nodiscard("does nothing until co_awaited (R-ASYNC-1)")]] detail::send_operation<T, Primitives> async_broadcast(
        S& scheduler, T message, std::stop_token stop = {}) const {
        return {this->state(), std::move(message), std::move(stop), detail::resumer::through(scheduler)};
    }

    /// A new active receiver that gets only the messages sent from now on.
    ///
    /// @contract The receiver starts at the tail (R-LIFE-2), unlike a copy of a
    /// receiver (R-LIFE-1). If it is the only active receiver, senders waiting
    /// for one are woken (R-LIFE-6, a divergence: upstream wakes nobody here).
    /// On a closed channel it is counted but the channel stays closed; it
    /// receives `closed` (R-CLOSE-4).
    /// @complexity O(1).
    /// @blocking Never.
    /// @threadsafety As try_broadcast().
    /// @return The new receiver.
    [[nodiscard("a dropped handle is destroyed at once")]] receiver<T, Primitives> new_receiver() const {
        auto& state = this->state();
        const std::uint64_t pos = state.attach_receiver_at_tail(false);
        return detail::handle_access::adopt<receiver<T, Primitives>>(&state, pos);
    }

private:
    friend struct detail::handle_access;
    explicit sender(typename base::state_type* state) noexcept : base(state) {}
};

} // namespace bcast

#include "inactive_receiver.hpp"
#include "receiver.hpp"
