// SPDX-License-Identifier: MIT OR Apache-2.0
// Must not compile: a bcast::fast channel of a message type that is not
// trivially copyable (profile P-FAST-1, spec/rules.md). A receiver's copy of a
// message may race with a sender overwriting its slot and is checked
// afterwards (docs/fast-design.md, section 4), which only a trivially
// copyable type survives. fast::channel() is constrained on
// bcast::fast::message_type, so this is one error at the call.
// expect: message_type
// expect: is_trivially_copyable
#include <bcast/fast.hpp>

#include <string>

struct message {
#ifdef BCAST_COMPILE_FAIL_CONTROL
    char text[16]; // trivially copyable: fine
#else
    std::string text; // nothrow movable (bcast::message_type holds), but not trivially copyable
#endif
};

int main() {
    auto [tx, rx] = bcast::fast::channel<message>(1);
    return tx.try_broadcast(message{}) && rx.try_recv() ? 0 : 1;
}
