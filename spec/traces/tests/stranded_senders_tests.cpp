// SPDX-License-Identifier: MIT OR Apache-2.0
// The stranded-sender reproducers of docs/traces.md on bcast: the scenarios
// that bench/trace_driver runs on async-broadcast (`bcast-trace-driver
// stranded`), step for step. There the sender stays blocked; here each must go
// on (R-WAKE-1). The sender's thread is known to be waiting (the channel's
// waiter count) before the change is made: no sleep decides the order. The
// bound only ends a failing test.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include <bcast/bcast.hpp>

namespace bcast::trace {
namespace {

using namespace std::chrono_literals;

// `tx` sends 99 in a thread until it waits; `change` runs; the send must then finish.
template <class Change>
send_result<int> sender_goes_on_after(sender<int>& tx, Change change) {
    std::future<send_result<int>> outcome = std::async(std::launch::async, [&tx] { return tx.broadcast(99); });
    while (detail::handle_access::state_of(tx).waiting_senders() == 0) std::this_thread::yield();
    change();
    if (outcome.wait_for(10s) != std::future_status::ready) {
        tx.close(); // release it, so the test ends (R-CLOSE-6)
        ADD_FAILURE() << "the sender is stranded: still waiting 10 s after the change";
    }
    return outcome.get();
}

TEST(stranded_senders, R_CAP_4_growing_the_capacity_wakes_the_waiting_sender) {
    auto ends = channel<int>(1); // not a structured binding: clang 14 cannot capture one
    sender<int>& tx = ends.first;
    receiver<int>& rx = ends.second;
    ASSERT_TRUE(tx.try_broadcast(0));
    const send_result<int> sent = sender_goes_on_after(tx, [&] { tx.set_capacity(2); });
    EXPECT_TRUE(sent.has_value());
    EXPECT_EQ(rx.len(), 2u);
}

TEST(stranded_senders, R_OVF_4_turning_overflow_on_wakes_the_waiting_sender) {
    auto ends = channel<int>(1); // not a structured binding: clang 14 cannot capture one
    sender<int>& tx = ends.first;
    receiver<int>& rx = ends.second;
    ASSERT_TRUE(tx.try_broadcast(0));
    const send_result<int> sent = sender_goes_on_after(tx, [&] { tx.set_overflow(true); });
    ASSERT_TRUE(sent.has_value());
    EXPECT_EQ(**sent, 0);                        // it evicted the oldest message (R-OVF-1)
    EXPECT_EQ(rx.try_recv().error().missed, 1u); // which the receiver had not read (R-OVF-2)
    EXPECT_EQ(rx.try_recv().value(), 99);
}

TEST(stranded_senders, R_LIFE_6_a_new_receiver_wakes_the_sender_waiting_for_one) {
    auto ends = channel<int>(1); // not a structured binding: clang 14 cannot capture one
    sender<int>& tx = ends.first;
    receiver<int>& rx = ends.second;
    inactive_receiver<int> inactive = std::move(rx).deactivate();
    std::optional<receiver<int>> made;
    const send_result<int> sent = sender_goes_on_after(tx, [&] { made.emplace(tx.new_receiver()); });
    EXPECT_TRUE(sent.has_value());
    ASSERT_TRUE(made.has_value());
    EXPECT_EQ(made->try_recv().value(), 99);
}

TEST(stranded_senders, R_ACT_3_turning_await_active_off_wakes_the_sender_waiting_for_a_receiver) {
    auto ends = channel<int>(1); // not a structured binding: clang 14 cannot capture one
    sender<int>& tx = ends.first;
    receiver<int>& rx = ends.second;
    inactive_receiver<int> inactive = std::move(rx).deactivate();
    const send_result<int> sent = sender_goes_on_after(tx, [&] { tx.set_await_active(false); });
    ASSERT_FALSE(sent.has_value());
    EXPECT_EQ(sent.error().code, send_errc::inactive);
    EXPECT_EQ(sent.error().message, 99); // handed back (R-SEND-5)
}

} // namespace
} // namespace bcast::trace
