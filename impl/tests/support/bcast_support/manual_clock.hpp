// SPDX-License-Identifier: MIT OR Apache-2.0
// A user-defined clock the test moves by hand, for deadlines on a clock that is
// not the one the channel sleeps on (R-SEND-4, R-RECV-5): a timed call must give
// up only once *this* clock has reached its deadline, however long it has
// slept on steady_clock. It also counts how often it was read, so a test can
// wait for a waiter to have looked at it again (progress, not a sleep).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace bcast::test_support {

struct manual_clock {
    using duration = std::chrono::milliseconds;
    using rep = duration::rep;
    using period = duration::period;
    using time_point = std::chrono::time_point<manual_clock>;
    static constexpr bool is_steady = false;

    static time_point now() noexcept {
        reads.fetch_add(1, std::memory_order_relaxed);                      // a count only: nothing is published through it
        return time_point(duration(ticks.load(std::memory_order_acquire))); // pairs with advance()'s release
    }
    static void advance(duration d) noexcept { ticks.fetch_add(d.count(), std::memory_order_release); }

    static inline std::atomic<rep> ticks{0};
    static inline std::atomic<std::uint64_t> reads{0};
};

} // namespace bcast::test_support
