// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast's own lock on real threads (detail/futex_mutex.hpp, futex_condition_variable.hpp;
// docs/design.md, "Why a lock of its own"). Its protocol is model-checked by the
// futex_lock Relacy suite; these pin the behaviour of the real futex build, and the
// TSan trees run them too.
#include <gtest/gtest.h>

#include <bcast/bcast.hpp>

#if BCAST_HAVE_FUTEX

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

using mutex = bcast::futex_lock::mutex;
using condition_variable = bcast::futex_lock::condition_variable;
using namespace std::chrono_literals;

TEST(futex_lock, try_lock_fails_while_held_and_succeeds_after_unlock) {
    mutex m;
    ASSERT_TRUE(m.try_lock());
    bool second = true;
    std::thread([&] { second = m.try_lock(); }).join();
    EXPECT_FALSE(second);
    m.unlock();
    std::thread([&] {
        second = m.try_lock();
        if (second) m.unlock();
    }).join();
    EXPECT_TRUE(second);
}

TEST(futex_lock, contended_increments_are_all_counted) {
    mutex m;
    long counter = 0;
    constexpr int threads = 4, each = 50'000; // more threads than cores: the sleeping path runs
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&] {
            for (int k = 0; k < each; ++k) {
                std::lock_guard<mutex> guard(m);
                ++counter;
            }
        });
    }
    for (auto& w : workers) w.join();
    EXPECT_EQ(counter, long{threads} * each);
}

// The real Ops, with the sleeps counted, so the notifier can wait until the
// waiter has spent its back-off and is going into the kernel (no sleep needed).
std::atomic<int> kernel_sleeps{0};
struct counted_ops : bcast::detail::linux_futex_ops {
    static void wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept {
        kernel_sleeps.fetch_add(1);
        linux_futex_ops::wait(word, expected);
    }
};

TEST(futex_lock, notify_one_wakes_a_waiter_asleep_in_the_kernel) {
    bcast::detail::futex_mutex<counted_ops> m;
    bcast::detail::futex_condition_variable<counted_ops> cv;
    bool ready = false;
    kernel_sleeps = 0;
    std::thread waiter([&] {
        std::unique_lock<bcast::detail::futex_mutex<counted_ops>> lock(m);
        while (!ready) cv.wait(lock);
    });
    while (kernel_sleeps.load() == 0) std::this_thread::yield(); // the waiter is past its back-off
    {
        std::lock_guard<bcast::detail::futex_mutex<counted_ops>> guard(m);
        ready = true;
        cv.notify_one();
    }
    waiter.join(); // hangs (the test's timeout) if the wake is lost
    EXPECT_TRUE(ready);
}

TEST(futex_lock, wait_until_a_past_deadline_reports_timeout_and_a_future_one_waits) {
    mutex m;
    condition_variable cv;
    std::unique_lock<mutex> lock(m);
    EXPECT_EQ(cv.wait_until(lock, std::chrono::steady_clock::now() - 1s), std::cv_status::timeout);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(cv.wait_until(lock, start + 30ms), std::cv_status::timeout);
    EXPECT_GE(std::chrono::steady_clock::now() - start, 30ms);
    EXPECT_TRUE(lock.owns_lock());
}

} // namespace

#endif
