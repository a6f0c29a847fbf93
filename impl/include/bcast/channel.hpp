// bcast::channel<T>(capacity): creates a channel, async-broadcast's broadcast().
#pragma once

#include <cstddef>
#include <utility>

#include "detail/channel_state.hpp"
#include "detail/handle_base.hpp"
#include "inactive_receiver.hpp"
#include "receiver.hpp"
#include "sender.hpp"

namespace bcast {

// One sender and one receiver over a new channel holding at most `capacity`
// messages. Throws std::invalid_argument if capacity is 0 (R-CAP-1).
// Defaults: overflow off, await_active on (R-ACT-2).
template <class T, class Model = std_model>
std::pair<sender<T, Model>, receiver<T, Model>> channel(std::size_t capacity) {
    auto* state = new detail::channel_state<T, Model>(capacity);
    return {detail::handle_access::adopt<sender<T, Model>>(state),
            detail::handle_access::adopt<receiver<T, Model>>(state, std::uint64_t{0})};
}

} // namespace bcast
