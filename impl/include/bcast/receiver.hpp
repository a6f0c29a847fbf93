// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::receiver: an active receiving handle (async-broadcast's Receiver).
//
// A receiver owns its read position. The receiving methods are non-const: one
// receiver object has one user at a time, and each copy is an independent
// receiver with its own position (R-THREAD-1; docs/position-design.md explains
// why this is the design).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "async.hpp"
#include "detail/async_operation.hpp"
#include "detail/deadline.hpp"
#include "detail/channel_state.hpp"
#include "detail/state_handle.hpp"
#include "detail/inspector_fwd.hpp"
#include "fwd.hpp"
#include "message_range.hpp"

namespace bcast {

namespace detail {

// An active receiver's seat in the reference channel (a detail::handle_seat):
// its read position, of the primitive set's position type (R-IMPL-2: the
// policy the position experiment compares). A copy starts at the original's
// position (R-LIFE-1); leaving gives up the unread messages (R-LIFE-3).
template <class Position>
struct receiver_seat {
    Position pos; // next sequence number to read; read and written under the channel lock, except by move and swap

    receiver_seat() noexcept : pos(0) {}
    explicit receiver_seat(std::uint64_t at) noexcept : pos(at) {}
    // Moved only (its copy is join_like, which counts it): declaring the move
    // deletes the copies.
    receiver_seat(receiver_seat&& other) noexcept : pos(other.pos.load()) {}

    template <class State>
    static receiver_seat join_like(State& state, const receiver_seat& original) {
        return receiver_seat(state.attach_receiver_copy(original.pos)); // reads original.pos under the lock
    }
    template <class State>
    bool leave(State& state) noexcept {
        return state.detach_receiver(pos, false);
    }
    void swap(receiver_seat& other) noexcept {
        const std::uint64_t mine = pos.load();
        pos.store(other.pos.load());
        other.pos.store(mine);
    }
};

} // namespace detail

/// An active receiving handle: async-broadcast's `Receiver`.
///
/// A receiver owns its read position, the sequence number of the next message
/// it wants, and receives every message sent while it is active, in order,
/// exactly once, unless it falls so far behind that messages are evicted or
/// shrunk away before it reads them; then it is told how many it lost
/// (R-RECV-2, R-OVF-2). While it has unread messages they stay queued and, with
/// overflow off, hold back the senders (R-SEND-3): a receiver that is kept but
/// never read stalls the channel, so destroy it or deactivate() it.
///
/// The channel-wide settings and queries are inherited from
/// detail::state_handle and describe the channel, not this receiver: len()
/// counts queued messages, not this receiver's unread ones (R-QUERY-1).
///
/// A copy is a new, independent active receiver at the same position (Rust's
/// `Clone`, R-LIFE-1, R-HANDLE-2): it receives exactly the messages the
/// original still has to read, a pending `overflowed(n)` report included, and
/// never wakes a sender (R-LIFE-6). Copying takes O(len()) (each queued
/// message the original has not read gains one pending reader) and may run
/// while the original receives on another thread: the copy starts wherever
/// the original is at that instant. Moving takes no lock and needs exclusive
/// use of the original: moving a receiver another thread is receiving on is a
/// data race (Relacy shows it, docs/position-question-relacy.md).
/// Destruction gives up every unread message (R-LIFE-3): messages no other
/// receiver still needs are destroyed then (R-MSG-1), under the channel's
/// mutex, and the senders waiting for the freed slots are woken; the last
/// receiver, when no inactive receiver remains, closes the channel
/// (R-CLOSE-3). Copy, move, assignment, swap() and destruction are
/// detail::counted_handle's, the same for every handle.
///
/// Every member other than destruction, assignment, swap(), valid() and
/// copying throws std::logic_error on a moved-from receiver and changes
/// nothing (R-HANDLE-1).
///
/// Every receive is `[[nodiscard]]`, since its result holds the message or the
/// reason there is none (R-RECV-1); so are the awaitables, the new handles
/// and deactivate(). The receiving members require a copy constructible T
/// (R-RECV-3, R-MSG-4), so receiving a move-only type is one error at the call.
///
/// @threadsafety The receiving members are non-const: one receiver object has
/// one user at a time. For several consuming threads give each its own copy,
/// which is an independent receiver with its own position (R-THREAD-1). The
/// `const` members may be called from any thread at any time. Two threads
/// calling try_recv() on one object without a lock would not corrupt the
/// channel (the channel touches the position only under its mutex; only
/// moving and swapping the handle touch it without one), but they would
/// split the messages between them instead of each seeing all of them
/// (docs/position-question-relacy.md).
///
/// @tparam T     The message type, a bcast::message_type (R-MSG-4); receiving
///               copies it (R-RECV-3), so the receiving members require it to
///               be copy constructible.
/// @tparam Primitives The primitive set (R-IMPL-1); its `position` type is the
///               position policy (R-IMPL-2).
template <message_type T, channel_primitives Primitives>
class receiver : public detail::counted_handle<detail::channel_state<T, Primitives>,
                                               detail::receiver_seat<typename Primitives::position>> {
    using base =
        detail::counted_handle<detail::channel_state<T, Primitives>, detail::receiver_seat<typename Primitives::position>>;

public:
    /// Receives the next message for this receiver if there is one now.
    ///
    /// @contract In this order (R-RECV-1): if this receiver is lagging, error
    /// `overflowed` with recv_error::missed = the exact number of messages it
    /// lost; its position moves to the oldest kept message and the loss is
    /// reported once (R-OVF-2). Else the next message, in sequence order
    /// (R-RECV-2). Else `closed` if the channel is closed (R-CLOSE-5), else
    /// `empty`. A lagging receiver gets `overflowed` even on a closed channel,
    /// before its remaining messages. The last receiver to read a message
    /// takes it by move; the others get copies (R-RECV-3). Taking the last
    /// reader's copy frees a slot and wakes one waiting sender.
    /// @exception Whatever T's copy constructor throws. The channel and this
    /// receiver's position are then exactly as before, and the next call
    /// retries the same message (R-MSG-3).
    /// @complexity O(1) plus one copy (or, for the last reader, one move) of
    /// the message.
    /// @blocking Never waits.
    /// @threadsafety One user at a time per receiver object (R-THREAD-1).
    /// @return The message, or a recv_error with code `overflowed`, `closed` or
    /// `empty`.
    [[nodiscard("the message, or why there is none (R-RECV-1)")]] recv_result<T> try_recv() requires std::is_copy_constructible_v<T> {
        return this->state().try_recv(this->seat_.pos);
    }

    /// Receives the next message for this receiver, waiting for one if needed.
    ///
    /// @contract Waits while this receiver has nothing to read and the channel
    /// is open (R-RECV-4), then does what try_recv() does; so it never returns
    /// `empty`. Every send and close ends the wait (R-WAKE-1, R-CLOSE-6). A
    /// loop `while (auto m = rx.recv())` ends at the first error: handle
    /// `overflowed` explicitly if the channel may overflow.
    /// @exception As try_recv() (R-MSG-3).
    /// @complexity As try_recv(), per wakeup.
    /// @blocking Yes, without limit; use recv_for() to bound the wait.
    /// @threadsafety One user at a time per receiver object (R-THREAD-1).
    /// @return The message, or a recv_error with code `overflowed` or `closed`.
    [[nodiscard("the message, or why there is none (R-RECV-1)")]] recv_result<T> recv() requires std::is_copy_constructible_v<T> {
        return this->state().recv(this->seat_.pos, detail::no_deadline{});
    }

    /// recv() that gives up after `timeout`.
    ///
    /// @contract As recv(), but if the time runs out while it would still wait,
    /// fails with `timed_out` (R-RECV-5). The outcome is re-checked once after
    /// the deadline, so a message that arrives just in time is received, and a
    /// call that need not wait succeeds even with a zero timeout. On a closed
    /// channel it answers at once: `timed_out` means "open, nothing yet".
    /// Measured on `std::chrono::steady_clock`.
    /// @exception As try_recv() (R-MSG-3).
    /// @complexity As try_recv(), per wakeup.
    /// @blocking At most about `timeout`, plus the time to reacquire the mutex.
    /// @threadsafety One user at a time per receiver object (R-THREAD-1).
    /// @param timeout How long to wait at most. A duration beyond the clock's
    ///        range (such as `std::chrono::hours::max()`) waits without limit.
    /// @return As recv(), or a recv_error with code `timed_out`.
    template <class Rep, class Period>
    [[nodiscard("the message, or why there is none (R-RECV-1)")]] recv_result<T> recv_for(
        const std::chrono::duration<Rep, Period>& timeout) requires std::is_copy_constructible_v<T> {
        if (const auto deadline = detail::deadline_after(timeout)) return recv_until(*deadline);
        return recv();
    }
    /// recv() that gives up at `deadline`.
    ///
    /// @contract As recv_for(); a deadline already in the past still receives
    /// when no waiting is needed.
    /// @exception As try_recv() (R-MSG-3).
    /// @complexity As try_recv(), per wakeup.
    /// @blocking Until `deadline` at most, plus the time to reacquire the mutex.
    /// @threadsafety One user at a time per receiver object (R-THREAD-1).
    /// @param deadline When to give up, on any clock the Primitives's
    ///        condition_variable accepts (std_primitives: any clock).
    /// @return As recv(), or a recv_error with code `timed_out`.
    template <class Clock, class Duration>
    [[nodiscard("the message, or why there is none (R-RECV-1)")]] recv_result<T> recv_until(
        const std::chrono::time_point<Clock, Duration>& deadline) requires std::is_copy_constructible_v<T> {
        return this->state().recv(this->seat_.pos, deadline);
    }

    /// Receives from a coroutine: `co_await rx.async_recv()`, so that
    /// `while (auto m = co_await rx.async_recv())` reads until an error.
    ///
    /// @contract The same answer as recv() (R-ASYNC-1): the next message, the
    /// overflow report, or `closed` once drained. Instead of blocking the
    /// thread, the coroutine is suspended and queued on the channel without
    /// allocating (R-ASYNC-2), and resumed inline on the thread that sent the
    /// message or closed the channel, after that thread released the channel
    /// lock (R-ASYNC-3). With `stop`, a stop request ends a pending wait with
    /// `cancelled`; no message is consumed (R-ASYNC-4); an answer already there
    /// is returned even if stop was requested.
    /// @exception As try_recv(): a throwing copy is rethrown at the co_await,
    /// and the message stays queued (R-MSG-3).
    /// @complexity As try_recv() to start and per completion.
    /// @blocking Never blocks the thread; suspends the coroutine while it must wait.
    /// @threadsafety One user at a time per receiver object (R-THREAD-1); the
    /// receiver must not be moved, used or destroyed while the operation is
    /// pending (R-ASYNC-5).
    /// @param stop Cancels a pending wait when stop is requested.
    /// @return An awaitable whose `co_await` yields a recv_result<T>, as recv().
    [[nodiscard("does nothing until co_awaited (R-ASYNC-1)")]] detail::recv_operation<T, Primitives> async_recv(
        std::stop_token stop = {}) requires std::is_copy_constructible_v<T> {
        return {this->state(), this->seat_.pos, std::move(stop), detail::resumer::inline_resume()};
    }

    /// async_recv() that resumes its coroutine through `scheduler`
    /// (`scheduler.schedule(handle)`) instead of inline (R-ASYNC-3).
    /// @contract As async_recv(stop). An answer that is there at once does not
    /// go through the scheduler.
    /// @exception As async_recv().
    /// @complexity As async_recv().
    /// @blocking Never blocks the thread.
    /// @threadsafety As async_recv(); `scheduler` must outlive the operation.
    /// @tparam S A bcast::scheduler.
    /// @param scheduler Where the coroutine resumes after waiting.
    /// @param stop Cancels a pending wait when stop is requested.
    /// @return An awaitable yielding a recv_result<T>.
    template <scheduler S>
    [[nodiscard("does nothing until co_awaited (R-ASYNC-1)")]] detail::recv_operation<T, Primitives> async_recv(
        S& scheduler, std::stop_token stop = {}) requires std::is_copy_constructible_v<T> {
        return {this->state(), this->seat_.pos, std::move(stop), detail::resumer::through(scheduler)};
    }

    /// This receiver's answers as a range: `for (auto&& item : rx.messages())`
    /// reads until the channel is closed and drained (R-RECV-6).
    ///
    /// @contract Each item is what one recv() answers: a message, or an
    /// `overflowed(n)` report when this receiver lagged (R-OVF-2), yielded as an
    /// item instead of being skipped as upstream's `Stream` does. The range ends
    /// at `closed` (R-CLOSE-5), which it does not yield. An item is received
    /// when the loop first looks at it, so `rx.messages() | std::views::take(n)`
    /// receives exactly n and never waits for more. See message_range.
    /// @exception std::logic_error on a moved-from receiver (R-HANDLE-1); while
    /// iterating, as recv() (R-MSG-3).
    /// @complexity O(1) to make; one recv() per item.
    /// @blocking Making it never; looking at an item waits as recv() does.
    /// @threadsafety One user at a time per receiver object (R-THREAD-1); this
    /// receiver must outlive the range and is not used otherwise while an
    /// iteration is going on.
    /// @return A std::ranges::input_range and view of recv_result<T> items.
    [[nodiscard("the range receives nothing until iterated (R-RECV-6)")]] message_range<T, Primitives, true> messages() & requires std::is_copy_constructible_v<T> {
        static_cast<void>(this->state()); // R-HANDLE-1: a moved-from receiver fails here, not in the loop
        return message_range<T, Primitives, true>(*this);
    }
    /// Not on a temporary receiver: it would be destroyed before the loop runs.
    void messages() && = delete;

    /// messages() without waiting: the items try_recv() answers now, up to
    /// `empty` or `closed` (R-RECV-6); for polling loops that take what is
    /// there and go on.
    ///
    /// @contract As messages(), with try_recv() instead of recv(); the range
    /// also ends at `empty`, which it does not yield.
    /// @exception As messages().
    /// @complexity O(1) to make; one try_recv() per item, plus one for the end.
    /// @blocking Never waits.
    /// @threadsafety As messages().
    /// @return A std::ranges::input_range and view of recv_result<T> items.
    [[nodiscard("the range receives nothing until iterated (R-RECV-6)")]] message_range<T, Primitives, false> try_messages() & requires std::is_copy_constructible_v<T> {
        static_cast<void>(this->state());
        return message_range<T, Primitives, false>(*this);
    }
    /// Not on a temporary receiver: it would be destroyed before the loop runs.
    void try_messages() && = delete;

    /// How many queued messages this receiver will still receive: those at or
    /// after its position (R-QUERY-2). Unlike len(), which counts the whole
    /// queue (R-QUERY-1), this is tokio's `Receiver::len()` without the lost ones.
    ///
    /// @contract Messages evicted or shrunk away before this receiver read them
    /// are not counted: they are missed(). After close it is what this receiver
    /// still drains (R-CLOSE-5). Like every query, it may be stale as soon as it
    /// returns: senders and evictions go on.
    /// @exception std::logic_error on a moved-from receiver (R-HANDLE-1).
    /// @complexity O(1). @blocking Never; takes the channel mutex briefly.
    /// @threadsafety `const`: callable from any thread, also while this
    /// receiver's user receives (the position is read under the channel mutex).
    /// @return The number of messages, at most len().
    [[nodiscard]] std::size_t unread() const { return this->state().unread(this->seat_.pos); }

    /// How many messages this receiver lost and has not been told about: the
    /// `n` of the `overflowed(n)` its next receive reports, 0 if none (R-QUERY-2,
    /// R-OVF-2). Asking does not report it.
    ///
    /// @contract `unread() + missed()` is what tokio's `Receiver::len()` counts:
    /// everything sent since this receiver's position.
    /// @exception std::logic_error on a moved-from receiver (R-HANDLE-1).
    /// @complexity O(1). @blocking Never; takes the channel mutex briefly.
    /// @threadsafety As unread().
    /// @return The number of lost messages not yet reported.
    [[nodiscard]] std::uint64_t missed() const { return this->state().missed(this->seat_.pos); }

    /// A new active receiver that gets only the messages sent from now on
    /// (R-LIFE-2); cheaper than a copy, and independent of this receiver's
    /// position.
    ///
    /// @contract As sender::new_receiver(): counted even on a closed channel,
    /// which stays closed (R-CLOSE-4).
    /// @complexity O(1). @blocking Never.
    /// @threadsafety `const`: callable from any thread.
    /// @return The new receiver.
    [[nodiscard("a dropped handle is destroyed at once")]] receiver new_receiver() const {
        auto& state = this->state();
        return receiver(&state, state.attach_receiver_at_tail(false));
    }

    /// One more sender on this receiver's channel.
    ///
    /// @contract Counted even on a closed channel, which stays closed
    /// (R-CLOSE-4): its sends then fail with `closed`.
    /// @complexity O(1). @blocking Never.
    /// @threadsafety `const`: callable from any thread.
    /// @return The new sender.
    [[nodiscard("a dropped handle is destroyed at once")]] sender<T, Primitives> new_sender() const {
        auto& state = this->state();
        state.add_sender();
        return detail::handle_access::adopt<sender<T, Primitives>>(&state);
    }

    /// Turns this receiver into an inactive receiver (R-LIFE-4).
    ///
    /// @contract Unread messages are given up as by destruction (R-LIFE-3,
    /// R-MSG-1) and the inactive count grows by one; the channel stays open
    /// because the inactive receiver remains (R-CLOSE-3). `*this` becomes
    /// empty. Use std::move(rx).deactivate().
    /// @complexity O(len()). @blocking Never.
    /// @threadsafety Needs exclusive use of `*this`.
    /// @return The inactive receiver.
    [[nodiscard("dropped, the channel may close (R-CLOSE-3)")]] inactive_receiver<T, Primitives> deactivate() && {
        auto& state = this->state();
        const bool last = state.detach_receiver(this->seat_.pos, true);
        static_cast<void>(last); // cannot be last: the inactive receiver remains
        return detail::handle_access::adopt<inactive_receiver<T, Primitives>>(this->take_state());
    }

private:
    friend struct detail::handle_access;
    // The Relacy checker (model_tests/relacy/inspector.hpp) takes the address of seat_.pos to build
    // an async receive's waiter node, as async_recv() does; it never reads or writes it.
    friend struct detail::state_inspector;
    receiver(typename base::state_type* state, std::uint64_t pos) noexcept
        : base(state, detail::receiver_seat<typename Primitives::position>(pos)) {}
};

} // namespace bcast

#include "inactive_receiver.hpp"
#include "sender.hpp"
