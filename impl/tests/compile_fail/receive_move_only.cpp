// SPDX-License-Identifier: MIT OR Apache-2.0
// Must not compile: receiving a move-only message type. Sending one is fine,
// but every receiver except the last reader gets a copy (R-RECV-3, R-MSG-4),
// so the receiving members require a copy constructible T: one error at the
// call, not one inside the channel.
// expect: try_recv
// expect: is_copy_constructible
#include <memory>

#include <bcast/bcast.hpp>

#ifdef BCAST_COMPILE_FAIL_CONTROL
using message = std::shared_ptr<int>;
#else
using message = std::unique_ptr<int>;
#endif

int main() {
    auto [tx, rx] = bcast::channel<message>(1);
    if (!tx.try_broadcast(message(new int(1)))) return 1;
    auto got = rx.try_recv();
    return got && **got == 1 ? 0 : 1;
}
