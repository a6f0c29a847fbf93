// SPDX-License-Identifier: MIT OR Apache-2.0
// The README's first example, compiled and run as a test.
#include <bcast/bcast.hpp>
#include <cstdio>
#include <future>

int main() {
    auto [tx, rx] = bcast::channel<int>(2);              // bounded: senders wait when both slots are unread
    auto sum_all = [](bcast::receiver<int> r) { int sum = 0; while (auto m = r.recv()) sum += *m; return sum; };
    auto audit = std::async(std::launch::async, sum_all, rx);  // a copy: same position, gets everything too
    auto main_sum = std::async(std::launch::async, sum_all, std::move(rx));
    for (int i = 1; i <= 100; ++i) if (!tx.broadcast(i)) return 1; // waits while the slowest receiver is 2 behind
    tx.close();                                          // receivers drain what is queued, then see `closed`
    const int seen = main_sum.get(), audited = audit.get();
    std::printf("%d %d\n", seen, audited);              // 5050 5050
    return seen == 5050 && audited == 5050 ? 0 : 1;
}
