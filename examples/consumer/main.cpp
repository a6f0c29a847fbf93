// SPDX-License-Identifier: MIT OR Apache-2.0
#include <bcast/bcast.hpp>

int main() {
    auto [tx, rx] = bcast::channel<int>(1);
    if (!tx.try_broadcast(42)) return 1;
    auto got = rx.try_recv();
    return got && *got == 42 ? 0 : 1;
}
