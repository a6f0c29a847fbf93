// SPDX-License-Identifier: MIT OR Apache-2.0
// Must not compile under -Werror=unused-result: a dropped try_broadcast()
// result. It is the only place a failed send hands its message back
// (R-SEND-5), so the call is [[nodiscard]] with that reason. The expected text
// is the reason string, so the diagnostic is bcast's own.
// flags: -Werror=unused-result
// expect: R-SEND-5
// expect: unused-result
#include <bcast/bcast.hpp>

int main() {
    auto [tx, rx] = bcast::channel<int>(1);
#ifdef BCAST_COMPILE_FAIL_CONTROL
    if (!tx.try_broadcast(1)) return 1; // the same call, its result looked at
#else
    tx.try_broadcast(1);
#endif
    return rx.try_recv() ? 0 : 1;
}
