// SPDX-License-Identifier: MIT OR Apache-2.0
// What the three handle types of either channel family share: ownership of
// the channel state and the channel-wide settings and queries (R-QUERY-1), all
// `const` and callable from any thread (R-THREAD-1) -- state_handle; and the
// handle's lifetime (copy, move, assignment, swap, destruction: R-HANDLE-1,
// R-HANDLE-2) -- counted_handle, over a seat that says how one kind of handle
// is counted in its channel. `State` is the family's channel state:
// bcast::detail::channel_state for the reference, bcast::fast::detail::channel_state
// for bcast::fast (fast/detail/handle_base.hpp).
#pragma once

#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <utility>

namespace bcast::detail {

// Builds handles from an existing state; the handles' private constructors
// trust it, and nothing outside bcast uses it.
struct handle_access {
    template <class Handle, class... Args>
    static Handle adopt(Args&&... args) {
        return Handle(std::forward<Args>(args)...);
    }

    // The channel behind a handle, for tests and diagnostics only.
    template <class Handle>
    static auto& state_of(const Handle& handle) {
        return handle.state();
    }
};

template <class State>
class state_handle {
    friend struct handle_access;

public:
    using state_type = State;

    // The queries are [[nodiscard]]: they only answer, so a dropped answer is
    // a mistake (libc++'s and the MSVC STL's convention for queries). close()
    // is not: its bool only says whether this call was the one that closed
    // the channel (R-CLOSE-1), and `tx.close();` is the usual way to close.
    [[nodiscard]] std::size_t capacity() const { return state().capacity(); }
    void set_capacity(std::size_t new_capacity) const { state().set_capacity(new_capacity); }
    [[nodiscard]] bool overflow() const { return state().overflow(); }
    void set_overflow(bool enabled) const { state().set_overflow(enabled); }
    [[nodiscard]] bool await_active() const { return state().await_active(); }
    void set_await_active(bool enabled) const { state().set_await_active(enabled); }
    bool close() const { return state().close(); }
    [[nodiscard]] bool is_closed() const { return state().is_closed(); }
    [[nodiscard]] bool is_empty() const { return state().is_empty(); }
    [[nodiscard]] bool is_full() const { return state().is_full(); }
    [[nodiscard]] std::size_t len() const { return state().len(); }
    [[nodiscard]] std::size_t receiver_count() const { return state().receiver_count(); }
    [[nodiscard]] std::size_t inactive_receiver_count() const { return state().inactive_receiver_count(); }
    [[nodiscard]] std::size_t sender_count() const { return state().sender_count(); }

    // R-HANDLE-3: the handles of one channel share one state. Both sides go
    // through state(), so a moved-from handle on either side throws
    // (R-HANDLE-1) instead of two empty handles comparing equal.
    [[nodiscard]] bool same_channel(const state_handle& other) const { return &state() == &other.state(); }

    // False for a moved-from handle (R-HANDLE-1).
    [[nodiscard]] bool valid() const noexcept { return state_ != nullptr; }

protected:
    explicit state_handle(state_type* state) noexcept : state_(state) {}
    state_handle(state_handle&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
    state_handle(const state_handle&) = delete;
    state_handle& operator=(const state_handle&) = delete;
    state_handle& operator=(state_handle&&) = delete;
    ~state_handle() = default;

    // R-HANDLE-1: every use of a moved-from handle is a clear error that
    // changes nothing.
    state_type& state() const {
        if (state_ == nullptr) throw std::logic_error("bcast: use of a moved-from channel handle");
        return *state_;
    }

    // Gives up the state without releasing it (the caller hands it on).
    state_type* take_state() noexcept { return std::exchange(state_, nullptr); }

    state_type* state_;
};

// A handle's seat: what one kind of handle holds in its channel besides the
// state (a receiver's position; nothing for a sender) and how it is counted
// there. `join_like` counts one more handle like `original` (a copy, R-HANDLE-2,
// R-LIFE-1); `leave` gives the seat up and returns whether it was the channel's
// last handle; a default-constructed seat is a moved-from handle's (R-HANDLE-1);
// moving a seat takes it over and swapping exchanges two.
template <class Seat, class State>
concept handle_seat = std::default_initializable<Seat> && std::move_constructible<Seat> &&
    requires(Seat& seat, const Seat& original, State& state) {
    { Seat::join_like(state, original) } -> std::same_as<Seat>;
    { seat.leave(state) }
    noexcept->std::same_as<bool>;
    { seat.swap(seat) }
    noexcept;
};

/// The lifetime every handle of both families has, written once: a copy joins
/// the channel as one more handle of its kind, destruction leaves it (the last
/// handle deletes the state), assignment is copy-or-move then swap (strong
/// guarantee: a copy that throws leaves `*this` as it was), and a moved-from
/// handle is empty. The handle classes declare none of these themselves.
///
/// @tparam State The channel family's shared state.
/// @tparam Seat  What one kind of handle holds in the channel and how it is
///               counted there (a bcast::detail::handle_seat).
template <class State, handle_seat<State> Seat>
class counted_handle : public state_handle<State> {
    using base = state_handle<State>;

public:
    /// One more handle of this kind on the same channel (Rust's `Clone`,
    /// R-HANDLE-2); a receiver's copy starts at the original's position
    /// (R-LIFE-1). Works on a closed channel and does not reopen it
    /// (R-CLOSE-4); copying a moved-from handle gives another moved-from
    /// handle (R-HANDLE-1).
    /// @threadsafety `other` may be in use by other threads meanwhile.
    /// @param other The handle to copy.
    counted_handle(const counted_handle& other)
        : base(other.state_), seat_(other.state_ != nullptr ? Seat::join_like(*other.state_, other.seat_) : Seat()) {}
    /// Takes over `other`'s place in the channel (a receiver's position
    /// included); `other` becomes empty (R-HANDLE-1). No count changes.
    /// @threadsafety Needs exclusive use of `other`, as any move in C++.
    /// @param other The handle to move from.
    counted_handle(counted_handle&& other) noexcept : base(std::move(other)), seat_(std::move(other.seat_)) {}
    /// Releases this handle exactly as destruction would, then becomes a copy
    /// of `other` (R-HANDLE-2). Self-assignment changes nothing observable.
    /// @threadsafety Needs exclusive use of `*this`.
    /// @param other The handle to copy. @return `*this`.
    counted_handle& operator=(const counted_handle& other) {
        counted_handle copy(other);
        swap(copy);
        return *this;
    }
    /// Releases this handle exactly as destruction would (R-HANDLE-2), then
    /// takes over `other`, which becomes empty.
    /// @threadsafety Needs exclusive use of `*this` and `other`.
    /// @param other The handle to move from. @return `*this`.
    counted_handle& operator=(counted_handle&& other) noexcept {
        counted_handle taken(std::move(other));
        swap(taken);
        return *this;
    }
    /// Exchanges two handles of one kind, their places included; no channel
    /// sees a change. Takes no lock. @param other The handle to swap with.
    void swap(counted_handle& other) noexcept {
        std::swap(this->state_, other.state_);
        seat_.swap(other.seat_);
    }

protected:
    /// For the handle types: a handle holding `seat` in `state`, already counted.
    /// @param state The channel. @param seat This handle's place in it.
    explicit counted_handle(State* state, Seat seat = Seat()) noexcept : base(state), seat_(std::move(seat)) {}
    /// Leaves the channel: the last sender closes it (R-CLOSE-2), the last
    /// receiver of either kind closes it (R-CLOSE-3), a receiver gives up its
    /// unread messages (R-LIFE-3); the last handle frees the channel. Does
    /// nothing on a moved-from handle.
    ~counted_handle() {
        if (this->state_ == nullptr) return;
        State* state = std::exchange(this->state_, nullptr);
        if (seat_.leave(*state)) delete state; // no other handle exists: no one else can touch it
    }

    /// This handle's place in the channel (a receiver's position); empty when moved from.
    Seat seat_;
};

/// The seats of the handles that hold nothing but their share of the channel:
/// one count in the state each, which both families keep with the same calls
/// (detail/handle_counts.hpp).
enum class share {
    sender,            // the state's sender count
    inactive_receiver, // the state's inactive receiver count
};

template <share Kind>
struct share_seat {
    template <class State>
    static share_seat join_like(State& state, const share_seat& /*original*/) {
        if constexpr (Kind == share::sender) state.add_sender();
        else state.add_inactive_receiver();
        return {};
    }
    template <class State>
    bool leave(State& state) noexcept {
        if constexpr (Kind == share::sender) return state.release_sender(); // the last sender closes the channel (R-CLOSE-2)
        else return state.release_inactive_receiver();                      // may close the channel (R-CLOSE-3)
    }
    void swap(share_seat& /*other*/) noexcept {}
};
/// A sender's seat: its share of the sender count.
using sender_seat = share_seat<share::sender>;
/// An inactive receiver's seat: its share of the inactive receiver count.
using inactive_receiver_seat = share_seat<share::inactive_receiver>;

} // namespace bcast::detail
