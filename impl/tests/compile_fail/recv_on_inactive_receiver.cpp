// SPDX-License-Identifier: MIT OR Apache-2.0
// Must not compile: receiving from an inactive receiver. It receives nothing
// and no message is queued for it (R-ACT-1), so it has no receiving members;
// activate() first (R-LIFE-5).
// expect: no member named.*recv
#include <bcast/bcast.hpp>

int main() {
    auto [tx, rx] = bcast::channel<int>(1);
    auto inactive = std::move(rx).deactivate();
#ifdef BCAST_COMPILE_FAIL_CONTROL
    auto active = std::move(inactive).activate();
    if (!tx.try_broadcast(1)) return 1;
    return active.recv() ? 0 : 1;
#else
    return inactive.recv() ? 0 : 1;
#endif
}
