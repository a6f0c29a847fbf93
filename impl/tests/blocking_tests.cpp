// SPDX-License-Identifier: MIT OR Apache-2.0
// Blocking calls with real threads: every event that can end a wait does end
// it (R-WAKE-1). Each test first waits until the other thread is really inside
// its wait (observable through the channel's waiter count), so the wakeup path
// is what is tested, never a lucky ordering; no sleeps. A missing wakeup hangs
// the test, and ctest's timeout turns that into a failure.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <thread>

#include <bcast/bcast.hpp>
#include <bcast_support/manual_clock.hpp>

#include "two_senders_checks.hpp"
#include "user_clock_checks.hpp"

namespace bcast::impl_tests {
namespace {

using namespace std::chrono_literals;

template <class Handle>
void wait_until_senders_block(const Handle& handle, std::size_t count = 1) {
    while (detail::handle_access::state_of(handle).waiting_senders() < count) std::this_thread::yield();
}
template <class Handle>
void wait_until_receivers_block(const Handle& handle, std::size_t count = 1) {
    while (detail::handle_access::state_of(handle).waiting_receivers() < count) std::this_thread::yield();
}

// A channel of capacity 1, and the answer of a call another thread is blocked in.
template <class Result>
struct blocked_call {
    std::pair<sender<int>, receiver<int>> ends = channel<int>(1);
    sender<int>& tx = ends.first;
    receiver<int>& rx = ends.second;
    std::future<Result> outcome;
};

// A full channel of capacity 1 holding 1, and a thread blocked sending 2.
struct blocked_sender : blocked_call<send_result<int>> {
    blocked_sender() {
        EXPECT_TRUE(tx.try_broadcast(1));
        outcome = std::async(std::launch::async, [this] { return tx.broadcast(2); });
        wait_until_senders_block(tx);
    }
};

TEST(blocking, sender_blocked_on_full_completes_when_a_receiver_frees_a_slot) { // R-SEND-3, R-WAKE-1
    blocked_sender blocked;
    EXPECT_EQ(*blocked.rx.recv(), 1);
    EXPECT_TRUE(blocked.outcome.get().has_value());
    EXPECT_EQ(*blocked.rx.recv(), 2);
}

TEST(blocking, capacity_growth_wakes_a_sender_blocked_on_full) { // R-CAP-4
    blocked_sender blocked;
    blocked.tx.set_capacity(2);
    EXPECT_TRUE(blocked.outcome.get().has_value());
    EXPECT_EQ(blocked.tx.len(), 2u);
}

TEST(blocking, overflow_on_wakes_a_sender_blocked_on_full) { // R-OVF-4
    blocked_sender blocked;
    blocked.tx.set_overflow(true);
    const auto sent = blocked.outcome.get();
    ASSERT_TRUE(sent.has_value());
    EXPECT_EQ(*sent, std::optional<int>(1));
}

TEST(blocking, close_wakes_a_sender_blocked_on_full_with_its_message) { // R-CLOSE-6, R-SEND-5
    blocked_sender blocked;
    EXPECT_TRUE(blocked.rx.close());
    const auto sent = blocked.outcome.get();
    ASSERT_FALSE(sent.has_value());
    EXPECT_EQ(sent.error(), (send_error<int>{send_errc::closed, 2}));
}

TEST(blocking, destroying_the_lagging_receiver_releases_the_slot_for_a_blocked_sender) { // R-LIFE-3
    blocked_sender blocked;
    receiver<int> keeper = blocked.rx.new_receiver(); // keeps the channel open, has nothing unread
    { receiver<int> gone = std::move(blocked.rx); }
    EXPECT_TRUE(blocked.outcome.get().has_value());
    EXPECT_EQ(*keeper.recv(), 2);
}

TEST(blocking, destroying_every_receiver_wakes_a_blocked_sender_with_closed) { // R-CLOSE-3, R-CLOSE-6
    blocked_sender blocked;
    { receiver<int> gone = std::move(blocked.rx); }
    EXPECT_EQ(blocked.outcome.get().error().code, send_errc::closed);
}

// No active receiver, await_active on, and a thread blocked sending 1.
struct sender_waiting_for_receiver {
    std::pair<sender<int>, receiver<int>> ends = channel<int>(1);
    sender<int>& tx = ends.first;
    inactive_receiver<int> parked = std::move(ends.second).deactivate();
    std::future<send_result<int>> outcome;

    sender_waiting_for_receiver() {
        outcome = std::async(std::launch::async, [this] { return tx.broadcast(1); });
        wait_until_senders_block(tx);
    }
};

TEST(blocking, activate_cloned_wakes_a_sender_waiting_for_a_receiver) { // R-LIFE-6, R-ACT-2
    sender_waiting_for_receiver waiting;
    receiver<int> active = waiting.parked.activate_cloned();
    EXPECT_TRUE(waiting.outcome.get().has_value());
    EXPECT_EQ(*active.recv(), 1);
}

TEST(blocking, new_receiver_wakes_a_sender_waiting_for_a_receiver) { // R-LIFE-6
    sender_waiting_for_receiver waiting;
    receiver<int> active = waiting.tx.new_receiver();
    EXPECT_TRUE(waiting.outcome.get().has_value());
    EXPECT_EQ(*active.recv(), 1);
}

TEST(blocking, await_active_off_wakes_a_waiting_sender_with_inactive) { // R-ACT-3
    sender_waiting_for_receiver waiting;
    waiting.parked.set_await_active(false);
    const auto sent = waiting.outcome.get();
    EXPECT_EQ(sent.error(), (send_error<int>{send_errc::inactive, 1}));
}

// An empty channel and a thread blocked receiving.
struct blocked_receiver : blocked_call<recv_result<int>> {
    blocked_receiver() {
        outcome = std::async(std::launch::async, [this] { return rx.recv(); });
        wait_until_receivers_block(tx);
    }
};

TEST(blocking, receiver_blocked_on_empty_wakes_on_send) { // R-RECV-4, R-WAKE-1
    blocked_receiver blocked;
    ASSERT_TRUE(blocked.tx.try_broadcast(5));
    EXPECT_EQ(*blocked.outcome.get(), 5);
}

TEST(blocking, close_wakes_a_blocked_receiver_with_closed) { // R-CLOSE-6
    blocked_receiver blocked;
    EXPECT_TRUE(blocked.tx.close());
    EXPECT_EQ(blocked.outcome.get().error().code, recv_errc::closed);
}

TEST(blocking, destroying_the_last_sender_wakes_a_blocked_receiver) { // R-CLOSE-2, R-CLOSE-6
    blocked_receiver blocked;
    { sender<int> gone = std::move(blocked.tx); }
    EXPECT_EQ(blocked.outcome.get().error().code, recv_errc::closed);
}

TEST(blocking, two_blocked_senders_both_complete_in_order_as_slots_free) { // R-WAKE-1, R-RECV-2
    auto [tx, rx] = channel<int>(1);
    ASSERT_TRUE(tx.try_broadcast(0));
    auto first = std::async(std::launch::async, [&tx = tx] { return tx.broadcast(1); });
    wait_until_senders_block(tx, 1);
    auto second = std::async(std::launch::async, [&tx = tx] { return tx.broadcast(2); });
    wait_until_senders_block(tx, 2);
    two_senders_checks::expect_both_sends_complete_as_slots_free(rx, first, second);
}

TEST(blocking, broadcast_for_times_out_on_a_full_channel_with_the_message) { // R-SEND-4
    auto [tx, rx] = channel<int>(1);
    ASSERT_TRUE(tx.try_broadcast(1));
    const auto sent = tx.broadcast_for(2, 1ms);
    EXPECT_EQ(sent.error(), (send_error<int>{send_errc::timed_out, 2}));
    EXPECT_EQ(tx.len(), 1u);
}

TEST(blocking, recv_until_a_past_deadline_times_out) { // R-RECV-5
    auto [tx, rx] = channel<int>(1);
    EXPECT_EQ(rx.recv_until(std::chrono::steady_clock::now() - 1s).error().code, recv_errc::timed_out);
    EXPECT_EQ(rx.recv_for(1ms).error().code, recv_errc::timed_out);
}

// The deadline may be on any clock (sender.hpp, receiver.hpp); the futex
// condition variable sleeps on steady_clock and converts (futex_condition_variable.hpp).
TEST(blocking, deadlines_on_another_clock_time_out_and_a_far_one_is_no_limit) { // R-SEND-4, R-RECV-5
    auto [tx, rx] = channel<int>(1);
    EXPECT_EQ(rx.recv_until(std::chrono::system_clock::now() + 20ms).error().code, recv_errc::timed_out);
    ASSERT_TRUE(tx.try_broadcast(1));
    EXPECT_EQ(tx.broadcast_until(2, std::chrono::system_clock::now() + 20ms).error(),
              (send_error<int>{send_errc::timed_out, 2}));
    const auto received = rx.recv_until(std::chrono::system_clock::time_point::max()); // beyond steady_clock's range
    ASSERT_TRUE(received);
    EXPECT_EQ(*received, 1);
}

// A deadline on a clock the channel does not sleep on is kept on that clock: the
// waiter sleeps on steady_clock for what is left, looks at the user clock again,
// and gives up only once that clock has reached the deadline (R-SEND-4,
// R-RECV-5). The test waits for the waiter to have looked several times while
// the clock stands still (its reads: progress, not a sleep), then moves the
// clock to the deadline. A channel that converted the deadline once would have
// given up after 5 ms of steady time.
TEST(blocking, a_deadline_on_a_user_clock_is_reached_on_that_clock) { // R-SEND-4, R-RECV-5
    auto [tx, rx] = channel<int>(1);
    user_clock_checks::expect_a_user_clock_deadline_reached_on_that_clock(tx, rx);
}

// A deadline already past on a user clock: one try, no wait (R-SEND-4, R-RECV-5).
TEST(blocking, a_past_deadline_on_a_user_clock_is_one_try) { // R-SEND-4, R-RECV-5
    using test_support::manual_clock;
    auto [tx, rx] = channel<int>(1);
    EXPECT_EQ(rx.recv_until(manual_clock::now() - 1ms).error().code, recv_errc::timed_out);
    ASSERT_TRUE(tx.broadcast_until(1, manual_clock::now() - 1ms));
    EXPECT_EQ(tx.broadcast_until(2, manual_clock::now() - 1ms).error(), (send_error<int>{send_errc::timed_out, 2}));
    EXPECT_EQ(*rx.recv_until(manual_clock::now() - 1ms), 1);
}

TEST(blocking, one_sender_object_used_from_many_threads) { // R-THREAD-1
    auto [tx, rx] = channel<int>(4);
    constexpr int per_thread = 200;
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
        threads.emplace_back([&tx = tx, t] {
            for (int i = 0; i < per_thread; ++i) EXPECT_TRUE(tx.broadcast(t * per_thread + i));
        });
    }
    std::vector<int> last_seen(3, -1);
    for (int count = 0; count < 3 * per_thread; ++count) {
        const int value = *rx.recv();
        EXPECT_GT(value, last_seen[value / per_thread]); // each thread's messages stay in order
        last_seen[value / per_thread] = value;
    }
    for (auto& thread : threads) thread.join();
}


// Found while writing docs/design.md: a departing receiver that freed one
// slot woke one sender, but when it was the last active receiver every
// waiting sender's answer changed (full -> inactive with await_active off).
TEST(blocking, last_active_receiver_leaving_wakes_every_sender_blocked_on_full) { // R-WAKE-1, R-ACT-3
    auto [tx, rx] = channel<int>(1);
    tx.set_await_active(false);
    ASSERT_TRUE(tx.try_broadcast(0));
    auto first = std::async(std::launch::async, [&tx = tx] { return tx.broadcast(1); });
    auto second = std::async(std::launch::async, [&tx = tx] { return tx.broadcast(2); });
    wait_until_senders_block(tx, 2);
    inactive_receiver<int> parked = std::move(rx).deactivate(); // frees one slot, leaves no active receiver
    EXPECT_EQ(first.get().error().code, send_errc::inactive);
    EXPECT_EQ(second.get().error().code, send_errc::inactive);
}


TEST(blocking, timeout_beyond_the_clock_range_means_no_limit) { // R-SEND-4, R-RECV-5
    auto [tx, rx] = channel<int>(1);
    EXPECT_TRUE(tx.broadcast_for(1, std::chrono::hours::max())); // would overflow now() + timeout
    EXPECT_EQ(*rx.recv_for(std::chrono::hours::max()), 1);
    auto blocked = std::async(std::launch::async, [&rx = rx] { return rx.recv_for(std::chrono::hours::max()); });
    wait_until_receivers_block(tx);
    ASSERT_TRUE(tx.try_broadcast(2));
    EXPECT_EQ(*blocked.get(), 2);
}

} // namespace
} // namespace bcast::impl_tests
