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
#include <future>
#include <thread>

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

// What a timed call on a standing manual_clock did: whether it returned while
// the clock stood before its deadline, and its answer once the clock reached it.
template <class Answer>
struct standing_clock_run {
    bool gave_up_early;
    Answer answer;
};

// Runs `call(deadline)` (a timed call that must wait) on another thread with a
// deadline 5 ms ahead on manual_clock, lets it look at the standing clock six
// more times (each look follows a sleep on the channel's own clock for what
// it believes is left) or return, then moves the clock to the deadline.
template <class Call>
auto timed_call_on_a_standing_clock(Call call) {
    std::atomic<bool> returned{false};
    auto running = std::async(std::launch::async, [&] {
        auto answer = call(manual_clock::now() + std::chrono::milliseconds(5));
        returned.store(true);
        return answer;
    });
    const std::uint64_t seen = manual_clock::reads.load();
    while (manual_clock::reads.load() < seen + 6 && !returned.load()) std::this_thread::yield(); // the waiter's progress, not a sleep
    const bool early = returned.load();
    manual_clock::advance(std::chrono::milliseconds(5));
    return standing_clock_run<decltype(running.get())>{early, running.get()};
}

} // namespace bcast::test_support
