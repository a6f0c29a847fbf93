// SPDX-License-Identifier: MIT OR Apache-2.0
// What the three handle types of either channel family share: ownership of
// the channel state and the channel-wide settings and queries (R-QUERY-1), all
// `const` and callable from any thread (R-THREAD-1). `State` is the family's
// channel state: bcast::detail::channel_state for the reference
// (handle_base.hpp), bcast::fast::detail::channel_state for bcast::fast
// (fast/detail/handle_base.hpp).
#pragma once

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

    // Drops this handle's share; the last handle deletes the state.
    // `detach(state)` removes this handle from the counts and returns whether
    // it was the last one.
    template <class Detach>
    void release(Detach detach) noexcept {
        if (state_ == nullptr) return;
        state_type* state = std::exchange(state_, nullptr);
        if (detach(*state)) delete state; // no other handle exists: no one else can touch it
    }

    state_type* state_;
};

} // namespace bcast::detail
