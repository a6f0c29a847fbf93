// SPDX-License-Identifier: MIT OR Apache-2.0
// Must not compile: a Primitives set whose condition variable has no timed
// wait (R-IMPL-1: recv_for() and broadcast_for() need one). channel() is
// constrained on bcast::channel_primitives, so the error is at the call and
// names the concept and the missing expression.
// expect: channel_primitives
// expect: wait_until
#include <condition_variable>
#include <mutex>

#include <bcast/bcast.hpp>

// Everything of the std_lock Primitives (std::mutex) but the condition variable.
struct my_primitives : bcast::basic_std_primitives<bcast::plain_position, bcast::std_lock> {
#ifndef BCAST_COMPILE_FAIL_CONTROL
    struct condition_variable {
        void wait(std::unique_lock<std::mutex>& lock) { cv.wait(lock); }
        void notify_one() noexcept { cv.notify_one(); }
        void notify_all() noexcept { cv.notify_all(); }
        std::condition_variable cv;
    };
#endif
};

int main() {
    auto [tx, rx] = bcast::channel<int, my_primitives>(1);
    return tx.try_broadcast(1) && rx.try_recv() ? 0 : 1;
}
