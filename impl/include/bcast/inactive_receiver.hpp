// bcast::inactive_receiver: keeps the channel open without receiving
// (async-broadcast's InactiveReceiver, R-ACT-1). Every method is const.
#pragma once

#include <cstdint>
#include <utility>

#include "detail/handle_base.hpp"
#include "fwd.hpp"

namespace bcast {

template <class T, class Model>
class inactive_receiver : public detail::handle_base<T, Model> {
    using base = detail::handle_base<T, Model>;

public:
    inactive_receiver(const inactive_receiver& other) : base(other.state_) {
        if (this->state_ != nullptr) this->state_->add_inactive_receiver();
    }
    inactive_receiver(inactive_receiver&& other) noexcept = default;
    // R-HANDLE-2: the old channel is released as destruction would; self-assignment is harmless.
    inactive_receiver& operator=(const inactive_receiver& other) {
        inactive_receiver copy(other);
        swap(copy);
        return *this;
    }
    inactive_receiver& operator=(inactive_receiver&& other) noexcept {
        inactive_receiver taken(std::move(other));
        swap(taken);
        return *this;
    }
    ~inactive_receiver() {
        this->release([](auto& state) { return state.release_inactive_receiver(); });
    }

    void swap(inactive_receiver& other) noexcept { std::swap(this->state_, other.state_); }

    // R-LIFE-5: an active receiver at the tail; this handle is consumed.
    receiver<T, Model> activate() && {
        auto& state = this->state();
        const std::uint64_t pos = state.attach_receiver_at_tail(true);
        return detail::handle_access::adopt<receiver<T, Model>>(this->take_state(), pos);
    }

    // R-LIFE-5: an active receiver at the tail; this handle stays.
    receiver<T, Model> activate_cloned() const {
        auto& state = this->state();
        const std::uint64_t pos = state.attach_receiver_at_tail(false);
        return detail::handle_access::adopt<receiver<T, Model>>(&state, pos);
    }

private:
    friend struct detail::handle_access;
    explicit inactive_receiver(typename base::state_type* state) noexcept : base(state) {}
};

} // namespace bcast

#include "receiver.hpp"
#include "sender.hpp"
