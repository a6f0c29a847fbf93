// SPDX-License-Identifier: MIT OR Apache-2.0
// Must not compile: a message type whose move constructor may throw
// (R-MSG-4). channel() is constrained on bcast::message_type, so this is one
// error at the call, naming the concept and the part of it that failed.
// expect: message_type
// expect: is_nothrow_move_constructible
#include <bcast/bcast.hpp>

struct message {
    message() = default;
    message(const message&) = default;
#ifdef BCAST_COMPILE_FAIL_CONTROL
    message(message&&) noexcept = default;
#else
    message(message&& /*other*/) noexcept(false) {} // may throw: a half-moved queue could not be undone
#endif
    message& operator=(const message&) = default;
    message& operator=(message&&) = default;
    ~message() = default;
};

int main() {
    auto [tx, rx] = bcast::channel<message>(1);
    return tx.try_broadcast(message{}) && rx.try_recv() ? 0 : 1;
}
