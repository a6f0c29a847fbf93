// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::fast::receiver: an active receiving handle of the lock-free-receive
// channel (docs/fast-design.md, section 3). A receive that finds a message
// takes no lock and makes no read-modify-write: it copies the message out of
// its slot, checks the copy is whole, and stores its new position.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "../detail/deadline.hpp"
#include "../detail/inspector_fwd.hpp"
#include "../message_range.hpp"
#include "detail/handle_base.hpp"
#include "fwd.hpp"

namespace bcast::fast {

namespace detail {

// An active receiver's seat in a bcast::fast channel (a
// bcast::detail::handle_seat): its position cell, which it owns and which
// senders read when the ring looks full. A copy gets a cell at the original's
// position (R-LIFE-1); leaving unlinks and deletes the cell (R-LIFE-3).
template <class Cell>
struct receiver_seat {
    Cell* cell = nullptr; // owned: deleted by the channel's detach(); null when moved-from

    receiver_seat() = default;
    explicit receiver_seat(Cell* owned) noexcept : cell(owned) {}
    // Moved only (its copy is join_like, which counts it): declaring the move
    // deletes the copies.
    receiver_seat(receiver_seat&& other) noexcept : cell(std::exchange(other.cell, nullptr)) {}

    template <class State>
    static receiver_seat join_like(State& state, const receiver_seat& original) {
        return receiver_seat(state.attach_copy(*original.cell));
    }
    template <class State>
    bool leave(State& state) noexcept {
        return state.detach(std::exchange(cell, nullptr), false);
    }
    void swap(receiver_seat& other) noexcept { std::swap(cell, other.cell); }
};

} // namespace detail

/// An active receiving handle: bcast::receiver's API (without the async calls,
/// P-FAST-5) on a bcast::fast channel.
///
/// It owns its position, kept in a cell of its own that senders read when the
/// ring looks full; a receive copies (never moves) the message (P-FAST-2).
/// A copy is an independent receiver at the same position (R-LIFE-1,
/// R-HANDLE-2), and may be made while the original's owner receives;
/// destruction gives up the unread messages (R-LIFE-3) and may close the
/// channel (R-CLOSE-3). Copy, move, assignment, swap() and destruction are
/// bcast::detail::counted_handle's, the same for every handle of both families.
///
/// @threadsafety The receiving members are non-const: one user at a time per
/// receiver object; copies are independent (R-THREAD-1). The queries, unread()
/// and missed() may be called from any thread.
/// @tparam T The message type (P-FAST-1). @tparam Primitives A bcast::fast::channel_primitives.
template <message_type T, channel_primitives Primitives>
class receiver
    : public bcast::detail::counted_handle<detail::channel_state<T, Primitives>,
                                           detail::receiver_seat<typename detail::channel_state<T, Primitives>::position_cell>> {
    using cell_type = typename detail::channel_state<T, Primitives>::position_cell;
    using base = bcast::detail::counted_handle<detail::channel_state<T, Primitives>, detail::receiver_seat<cell_type>>;

public:
    /// The next message if there is one (R-RECV-1): overflowed(n) if this receiver
    /// lagged (R-OVF-2), else the next message, else `closed` (R-CLOSE-5), else `empty`.
    /// Takes no lock. @return The message, or why there is none.
    [[nodiscard("the message, or why there is none (R-RECV-1)")]] recv_result<T> try_recv() {
        return this->state().try_recv(cell());
    }
    /// try_recv() that waits while there is nothing and the channel is open (R-RECV-4).
    /// @return As try_recv(), never `empty`.
    [[nodiscard("the message, or why there is none (R-RECV-1)")]] recv_result<T> recv() {
        return this->state().recv(cell(), detail::no_deadline{});
    }
    /// recv() that gives up with `timed_out` after `timeout` (R-RECV-5). @param timeout How long at most.
    /// @return As recv(), or `timed_out`.
    template <class Rep, class Period>
    [[nodiscard("the message, or why there is none (R-RECV-1)")]] recv_result<T> recv_for(
        const std::chrono::duration<Rep, Period>& timeout) {
        if (const auto deadline = bcast::detail::deadline_after(timeout)) return recv_until(*deadline);
        return recv();
    }
    /// recv() that gives up at `deadline` (R-RECV-5). @param deadline When to give up, on any clock.
    /// @return As recv_for().
    template <class Clock, class Duration>
    [[nodiscard("the message, or why there is none (R-RECV-1)")]] recv_result<T> recv_until(
        const std::chrono::time_point<Clock, Duration>& deadline) {
        return detail::until_on_its_clock(
            deadline, [&](auto steady) { return this->state().recv(cell(), steady); },
            [](const recv_result<T>& r) { return !r.has_value() && r.error().code == recv_errc::timed_out; });
    }

    /// recv()'s answers as an input range (R-RECV-6): messages and lag reports,
    /// ending at `closed`; bcast::message_range, as the reference's.
    /// @return The range; it refers to this receiver.
    [[nodiscard("the range receives nothing until iterated (R-RECV-6)")]] message_range<T, Primitives, true, receiver> messages() & {
        static_cast<void>(this->state()); // R-HANDLE-1: a moved-from receiver fails here, not in the loop
        return message_range<T, Primitives, true, receiver>(*this);
    }
    /// Not on a temporary receiver: it would be destroyed before the loop runs.
    void messages() && = delete;
    /// try_recv()'s answers as an input range, ending at `empty` or `closed` (R-RECV-6).
    /// @return The range; it refers to this receiver.
    [[nodiscard("the range receives nothing until iterated (R-RECV-6)")]] message_range<T, Primitives, false, receiver> try_messages() & {
        static_cast<void>(this->state());
        return message_range<T, Primitives, false, receiver>(*this);
    }
    /// Not on a temporary receiver.
    void try_messages() && = delete;

    /// Queued messages this receiver will still receive (R-QUERY-2). @return At most len().
    [[nodiscard]] std::size_t unread() const { return this->state().unread(cell()); }
    /// The n of the overflowed(n) its next receive reports, 0 if none (R-QUERY-2). @return The count.
    [[nodiscard]] std::uint64_t missed() const { return this->state().missed(cell()); }

    /// A new active receiver at the tail (R-LIFE-2). @return The receiver.
    [[nodiscard("a dropped handle is destroyed at once")]] receiver new_receiver() const {
        auto& state = this->state();
        return receiver(&state, state.attach_at_tail(false));
    }
    /// One more sender on this channel. @return The sender.
    [[nodiscard("a dropped handle is destroyed at once")]] sender<T, Primitives> new_sender() const {
        auto& state = this->state();
        state.add_sender();
        return detail::handle_access::adopt<sender<T, Primitives>>(&state);
    }
    /// Turns into an inactive receiver, giving up its unread messages (R-LIFE-4).
    /// @return The inactive receiver.
    [[nodiscard("dropped, the channel may close (R-CLOSE-3)")]] inactive_receiver<T, Primitives> deactivate() && {
        auto& state = this->state();
        const bool last = state.detach(std::exchange(this->seat_.cell, nullptr), true);
        static_cast<void>(last); // cannot be last: the inactive receiver remains
        return detail::handle_access::adopt<inactive_receiver<T, Primitives>>(this->take_state());
    }

private:
    friend struct detail::handle_access;
    receiver(typename base::state_type* state, cell_type* cell) noexcept : base(state, detail::receiver_seat<cell_type>(cell)) {}

    // The cell, after state() has checked this receiver is not moved-from.
    cell_type& cell() const {
        static_cast<void>(this->state()); // R-HANDLE-1
        return *this->seat_.cell;
    }
};

} // namespace bcast::fast

#include "inactive_receiver.hpp"
#include "sender.hpp"
