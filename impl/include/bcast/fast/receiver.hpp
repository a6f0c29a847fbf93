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

/// An active receiving handle: bcast::receiver's API (without the async calls,
/// P-FAST-5) on a bcast::fast channel.
///
/// It owns its position, kept in a cell of its own that senders read when the
/// ring looks full; a receive copies (never moves) the message (P-FAST-2).
///
/// @threadsafety The receiving members are non-const: one user at a time per
/// receiver object; copies are independent (R-THREAD-1). The queries, unread()
/// and missed() may be called from any thread.
/// @tparam T The message type (P-FAST-1). @tparam Primitives A bcast::fast::channel_primitives.
template <message_type T, channel_primitives Primitives>
class receiver : public detail::handle_base<T, Primitives> {
    using base = detail::handle_base<T, Primitives>;
    using cell_type = typename base::state_type::position_cell;

public:
    /// An independent receiver at the same position (R-LIFE-1, R-HANDLE-2); the
    /// original's owner may be receiving meanwhile. @param other The receiver to copy.
    receiver(const receiver& other)
        : base(other.state_), cell_(other.state_ != nullptr ? other.state_->attach_copy(*other.cell_) : nullptr) {}
    /// Takes over `other`'s place and position; `other` becomes empty. @param other The receiver to move from.
    receiver(receiver&& other) noexcept : base(std::move(other)), cell_(std::exchange(other.cell_, nullptr)) {}
    /// Releases, then copies `other` (R-HANDLE-2). @param other The receiver to copy. @return `*this`.
    receiver& operator=(const receiver& other) {
        receiver copy(other);
        swap(copy);
        return *this;
    }
    /// Releases, then takes over `other`. @param other The receiver to move from. @return `*this`.
    receiver& operator=(receiver&& other) noexcept {
        receiver taken(std::move(other));
        swap(taken);
        return *this;
    }
    /// Leaves the channel and gives up its unread messages (R-LIFE-3); may close it (R-CLOSE-3).
    ~receiver() {
        this->release([this](auto& state) { return state.detach(std::exchange(cell_, nullptr), false); });
    }
    /// Exchanges the channels and positions of two receivers. @param other The receiver to swap with.
    void swap(receiver& other) noexcept {
        std::swap(this->state_, other.state_);
        std::swap(cell_, other.cell_);
    }

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
        const bool last = state.detach(std::exchange(cell_, nullptr), true);
        static_cast<void>(last); // cannot be last: the inactive receiver remains
        return detail::handle_access::adopt<inactive_receiver<T, Primitives>>(this->take_state());
    }

private:
    friend struct detail::handle_access;
    // The Relacy checker (model_tests/relacy/inspector.hpp) reads cell_'s position for its invariants.
    friend struct bcast::detail::state_inspector;
    receiver(typename base::state_type* state, cell_type* cell) noexcept : base(state), cell_(cell) {}

    // The cell, after state() has checked this receiver is not moved-from.
    cell_type& cell() const {
        static_cast<void>(this->state()); // R-HANDLE-1
        return *cell_;
    }

    cell_type* cell_; // this receiver's position; owned: deleted by detach(); null when moved-from
};

} // namespace bcast::fast

#include "inactive_receiver.hpp"
#include "sender.hpp"
