// SPDX-License-Identifier: MIT OR Apache-2.0
// Per-rule examples of the async API (R-ASYNC-1..5 in spec/rules.md):
// co_await rx.async_recv() and co_await tx.async_broadcast(m).
//
// The executable spec model has no suspension, so these run on the
// implementation only, with the plain and the atomic position (R-IMPL-2). They
// are single-threaded and deterministic: a suspended coroutine is completed by
// a call the test makes itself (a send, a receive, close, a stop request), and
// resumed inline on this thread or by the test draining a manual scheduler.
// Cross-thread completion is the stress tests' business.
//
// Coroutines are bcast_support::task (eager: a task runs until its first
// suspension as soon as it is created), written as free functions that take
// the handles by reference: the tests keep the handles alive longer than the
// tasks (R-ASYNC-5).
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <bcast/bcast.hpp>
#include <bcast_support/manual_scheduler.hpp>
#include <bcast_support/task.hpp>

#include "channel_types.hpp" // overflowed(n), recv_failure(code)
#include "counted.hpp"
#include "position_policies.hpp"

namespace bcast::impl_tests {
namespace {

using spec_tests::overflowed;
using spec_tests::recv_failure;

using bcast_support::manual_scheduler; // stores completed coroutines: the test resumes them (R-ASYNC-3)
using bcast_support::task;

// ---- coroutines the tests drive --------------------------------------------

template <class T, class Primitives>
task<recv_result<T>> receive(receiver<T, Primitives>& rx, std::stop_token stop = {}) {
    co_return co_await rx.async_recv(std::move(stop));
}

template <class S, class T, class Primitives>
task<recv_result<T>> receive_via(S& scheduler, receiver<T, Primitives>& rx, std::stop_token stop = {}) {
    co_return co_await rx.async_recv(scheduler, std::move(stop));
}

template <class T, class Primitives>
task<send_result<T>> send(const sender<T, Primitives>& tx, T message, std::stop_token stop = {}) {
    co_return co_await tx.async_broadcast(std::move(message), std::move(stop));
}

template <class S, class T, class Primitives>
task<send_result<T>> send_via(S& scheduler, const sender<T, Primitives>& tx, T message, std::stop_token stop = {}) {
    co_return co_await tx.async_broadcast(scheduler, std::move(message), std::move(stop));
}

// A token whose stop was requested before the operation that gets it began.
std::stop_token already_stopped() {
    std::stop_source stop;
    stop.request_stop();
    return stop.get_token(); // the token keeps the stop state, and its request, alive
}

// ---- the typed suite: both implementation models ------------------------------

template <class Primitives>
class async_operations : public ::testing::Test {
protected:
    using tx_type = sender<int, Primitives>;
    using rx_type = receiver<int, Primitives>;

    static std::pair<tx_type, rx_type> make(std::size_t capacity) { return channel<int, Primitives>(capacity); }

    // Fills a channel of capacity 1 so that the next send must wait.
    static void fill(const tx_type& tx, int value) { ASSERT_TRUE(tx.try_broadcast(value).has_value()); }

    // `operation`, started through `scheduler` with `stop`'s token, has just
    // completed: a stop requested before the scheduler resumes it is too late,
    // the answer is decided (R-ASYNC-4).
    template <class Operation>
    static void stop_before_resumption(manual_scheduler& scheduler, std::stop_source& stop, Operation& operation) {
        ASSERT_EQ(scheduler.scheduled, 1u);
        stop.request_stop();
        EXPECT_EQ(scheduler.scheduled, 1u) << "a late cancel does not complete it a second time";
        scheduler.resume_all();
        ASSERT_TRUE(operation.done());
        ASSERT_TRUE(operation.result().has_value()) << "a late cancel neither loses a message nor hands one back";
    }
};

TYPED_TEST_SUITE(async_operations, position_policies, position_policy_name);

// ---- answers that need no wait (R-ASYNC-1) ------------------------------------
//
// These drive the awaitable by hand, as co_await would: await_suspend returns
// false when the coroutine does not suspend.

TYPED_TEST(async_operations, async_recv_returns_queued_message_without_suspending) { // R-ASYNC-1
    auto [tx, rx] = this->make(2);
    ASSERT_TRUE(tx.try_broadcast(7).has_value());
    auto operation = rx.async_recv();
    ASSERT_FALSE(operation.await_suspend(std::noop_coroutine())) << "an answer was there: no suspension";
    const recv_result<int> got = operation.await_resume();
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, 7);
    EXPECT_EQ(tx.len(), 0u); // really received, not peeked
}

TYPED_TEST(async_operations, async_broadcast_with_room_sends_without_suspending) { // R-ASYNC-1, R-SEND-2
    auto [tx, rx] = this->make(1);
    auto operation = tx.async_broadcast(5);
    ASSERT_FALSE(operation.await_suspend(std::noop_coroutine()));
    const send_result<int> sent = operation.await_resume();
    ASSERT_TRUE(sent.has_value());
    EXPECT_FALSE(sent->has_value()); // nothing evicted
    EXPECT_EQ(*rx.try_recv(), 5);
}

TYPED_TEST(async_operations, async_recv_on_closed_and_drained_channel_answers_closed_without_suspending) { // R-ASYNC-1, R-CLOSE-5
    auto [tx, rx] = this->make(2);
    ASSERT_TRUE(tx.try_broadcast(1).has_value());
    tx.close();
    task<recv_result<int>> first = receive(rx); // drains what is queued first
    ASSERT_TRUE(first.done());
    ASSERT_TRUE(first.result().has_value());
    EXPECT_EQ(*first.result(), 1);
    task<recv_result<int>> second = receive(rx);
    ASSERT_TRUE(second.done()) << "closed is an answer: no wait";
    EXPECT_EQ(second.result().error(), recv_failure(recv_errc::closed));
}

TYPED_TEST(async_operations, async_broadcast_on_closed_channel_hands_message_back) { // R-ASYNC-1, R-CLOSE-5, R-SEND-5
    auto [tx, rx] = this->make(1);
    rx.close();
    task<send_result<int>> sending = send(tx, 9);
    ASSERT_TRUE(sending.done());
    ASSERT_FALSE(sending.result().has_value());
    EXPECT_EQ(sending.result().error(), (send_error<int>{send_errc::closed, 9}));
}

TYPED_TEST(async_operations, lagging_async_receiver_gets_overflowed_then_oldest_kept_message) { // R-ASYNC-1, R-OVF-2, R-OVF-1
    auto [tx, rx] = this->make(2);
    tx.set_overflow(true);
    for (int value = 1; value <= 5; ++value) ASSERT_TRUE(tx.try_broadcast(value).has_value()); // 1, 2, 3 evicted
    task<recv_result<int>> lag = receive(rx);
    ASSERT_TRUE(lag.done());
    EXPECT_EQ(lag.result().error(), overflowed(3)); // exactly the three it lost, reported once
    task<recv_result<int>> next = receive(rx);
    ASSERT_TRUE(next.done());
    ASSERT_TRUE(next.result().has_value());
    EXPECT_EQ(*next.result(), 4);
}

TYPED_TEST(async_operations, lag_report_comes_before_closed_for_an_async_receiver) { // R-ASYNC-1, R-OVF-2, R-CLOSE-5
    auto [tx, rx] = this->make(1);
    tx.set_overflow(true);
    ASSERT_TRUE(tx.try_broadcast(1).has_value());
    ASSERT_TRUE(tx.try_broadcast(2).has_value()); // evicts 1
    tx.close();
    task<recv_result<int>> lag = receive(rx);
    ASSERT_TRUE(lag.done());
    EXPECT_EQ(lag.result().error(), overflowed(1));
    task<recv_result<int>> kept = receive(rx);
    ASSERT_TRUE(kept.done() && kept.result().has_value());
    EXPECT_EQ(*kept.result(), 2);
    task<recv_result<int>> closed = receive(rx);
    ASSERT_TRUE(closed.done());
    EXPECT_EQ(closed.result().error(), recv_failure(recv_errc::closed));
}

TYPED_TEST(async_operations, async_broadcast_in_overflow_mode_returns_evicted_message_without_suspending) { // R-ASYNC-1, R-OVF-1
    auto [tx, rx] = this->make(1);
    tx.set_overflow(true);
    this->fill(tx, 1);
    task<send_result<int>> sending = send(tx, 2);
    ASSERT_TRUE(sending.done()) << "overflow mode never waits on a full channel";
    ASSERT_TRUE(sending.result().has_value());
    EXPECT_EQ(sending.result()->value_or(-1), 1); // the oldest, handed to the sender
    EXPECT_EQ(rx.try_recv().error(), overflowed(1));
    EXPECT_EQ(*rx.try_recv(), 2);
}

TYPED_TEST(async_operations, async_broadcast_without_active_receiver_fails_inactive_when_await_active_is_off) { // R-ASYNC-1, R-ACT-2
    auto [tx, rx] = this->make(1);
    tx.set_await_active(false);
    inactive_receiver<int, TypeParam> parked = std::move(rx).deactivate();
    task<send_result<int>> sending = send(tx, 3);
    ASSERT_TRUE(sending.done()) << "await_active off: no wait for a receiver";
    ASSERT_FALSE(sending.result().has_value());
    EXPECT_EQ(sending.result().error(), (send_error<int>{send_errc::inactive, 3}));
    EXPECT_EQ(parked.len(), 0u);
}

// ---- waiting and completion (R-ASYNC-1, R-ASYNC-3) ---------------------------------

TYPED_TEST(async_operations, suspended_async_recv_is_resumed_inline_by_try_broadcast_before_it_returns) { // R-ASYNC-3
    auto [tx, rx] = this->make(1);
    bool try_broadcast_returned = false;
    bool resumed_before_return = false;
    std::thread::id resumed_on;
    auto watcher = [](typename TestFixture::rx_type& r, const bool& returned, bool& before,
                      std::thread::id& on) -> task<recv_result<int>> {
        recv_result<int> got = co_await r.async_recv();
        before = !returned; // still inside try_broadcast: its caller has not seen it return
        on = std::this_thread::get_id();
        co_return got;
    };
    task<recv_result<int>> receiving = watcher(rx, try_broadcast_returned, resumed_before_return, resumed_on);
    ASSERT_FALSE(receiving.done()) << "nothing to read: the coroutine must wait";
    ASSERT_TRUE(tx.try_broadcast(42).has_value());
    try_broadcast_returned = true;
    ASSERT_TRUE(receiving.done());
    EXPECT_TRUE(resumed_before_return) << "inline resumption happens inside the completing call";
    EXPECT_EQ(resumed_on, std::this_thread::get_id());
    ASSERT_TRUE(receiving.result().has_value());
    EXPECT_EQ(*receiving.result(), 42);
    EXPECT_EQ(tx.len(), 0u); // received under the sender's lock: nothing left queued
}

TYPED_TEST(async_operations, close_ends_a_suspended_async_recv_with_closed) { // R-ASYNC-1, R-CLOSE-5, R-CLOSE-6
    auto [tx, rx] = this->make(1);
    task<recv_result<int>> receiving = receive(rx);
    ASSERT_FALSE(receiving.done());
    EXPECT_TRUE(tx.close());
    ASSERT_TRUE(receiving.done());
    EXPECT_EQ(receiving.result().error(), recv_failure(recv_errc::closed));
}

TYPED_TEST(async_operations, dropping_the_last_sender_ends_a_suspended_async_recv_with_closed) { // R-ASYNC-1, R-CLOSE-2
    auto [tx, rx] = this->make(1);
    task<recv_result<int>> receiving = receive(rx);
    ASSERT_FALSE(receiving.done());
    { auto gone = std::move(tx); }
    ASSERT_TRUE(receiving.done());
    EXPECT_EQ(receiving.result().error(), recv_failure(recv_errc::closed));
}

TYPED_TEST(async_operations, async_broadcast_waits_on_full_channel_and_is_completed_by_a_recv) { // R-ASYNC-1, R-SEND-3
    auto [tx, rx] = this->make(1);
    this->fill(tx, 1);
    task<send_result<int>> sending = send(tx, 2);
    ASSERT_FALSE(sending.done()) << "full, overflow off: the sender waits";
    EXPECT_EQ(tx.len(), 1u);
    EXPECT_EQ(*rx.try_recv(), 1); // frees the slot; the waiting send takes it before try_recv returns
    ASSERT_TRUE(sending.done());
    ASSERT_TRUE(sending.result().has_value());
    EXPECT_FALSE(sending.result()->has_value());
    EXPECT_EQ(tx.len(), 1u);
    EXPECT_EQ(*rx.try_recv(), 2);
}

TYPED_TEST(async_operations, waiting_async_broadcast_gets_evicted_message_when_overflow_is_turned_on) { // R-ASYNC-1, R-OVF-4, R-OVF-1
    auto [tx, rx] = this->make(1);
    this->fill(tx, 1);
    task<send_result<int>> sending = send(tx, 2);
    ASSERT_FALSE(sending.done());
    tx.set_overflow(true);
    ASSERT_TRUE(sending.done());
    ASSERT_TRUE(sending.result().has_value());
    EXPECT_EQ(sending.result()->value_or(-1), 1);
    EXPECT_EQ(rx.try_recv().error(), overflowed(1));
    EXPECT_EQ(*rx.try_recv(), 2);
}

TYPED_TEST(async_operations, waiting_async_broadcast_is_completed_by_growing_the_capacity) { // R-ASYNC-1, R-CAP-4
    auto [tx, rx] = this->make(1);
    this->fill(tx, 1);
    task<send_result<int>> sending = send(tx, 2);
    ASSERT_FALSE(sending.done());
    tx.set_capacity(2);
    ASSERT_TRUE(sending.done());
    EXPECT_TRUE(sending.result().has_value());
    EXPECT_EQ(tx.len(), 2u);
}

TYPED_TEST(async_operations, close_ends_a_waiting_async_broadcast_and_hands_message_back) { // R-ASYNC-1, R-CLOSE-6, R-SEND-5
    auto [tx, rx] = this->make(1);
    this->fill(tx, 1);
    task<send_result<int>> sending = send(tx, 2);
    ASSERT_FALSE(sending.done());
    rx.close();
    ASSERT_TRUE(sending.done());
    ASSERT_FALSE(sending.result().has_value());
    EXPECT_EQ(sending.result().error(), (send_error<int>{send_errc::closed, 2}));
    EXPECT_EQ(*rx.try_recv(), 1); // what was queued before close is still delivered
}

TYPED_TEST(async_operations, async_broadcast_waits_for_an_active_receiver_with_await_active) { // R-ASYNC-1, R-ACT-2, R-LIFE-6
    auto [tx, rx] = this->make(1);
    inactive_receiver<int, TypeParam> parked = std::move(rx).deactivate();
    task<send_result<int>> sending = send(tx, 4);
    ASSERT_FALSE(sending.done()) << "await_active on, no active receiver: the sender waits";
    EXPECT_EQ(tx.len(), 0u);
    receiver<int, TypeParam> back = parked.activate_cloned(); // 0 -> 1 active receivers
    ASSERT_TRUE(sending.done());
    ASSERT_TRUE(sending.result().has_value());
    EXPECT_EQ(*back.try_recv(), 4); // sent after the receiver appeared, so it is there for it
}

TYPED_TEST(async_operations, waiting_async_broadcast_fails_inactive_when_await_active_is_turned_off) { // R-ASYNC-1, R-ACT-3
    auto [tx, rx] = this->make(1);
    inactive_receiver<int, TypeParam> parked = std::move(rx).deactivate();
    task<send_result<int>> sending = send(tx, 4);
    ASSERT_FALSE(sending.done());
    tx.set_await_active(false);
    ASSERT_TRUE(sending.done());
    ASSERT_FALSE(sending.result().has_value());
    EXPECT_EQ(sending.result().error(), (send_error<int>{send_errc::inactive, 4}));
}

TYPED_TEST(async_operations, waiting_async_senders_are_served_in_fifo_order) { // R-ASYNC-2
    auto [tx, rx] = this->make(1);
    this->fill(tx, 0);
    task<send_result<int>> first = send(tx, 1);
    task<send_result<int>> second = send(tx, 2);
    task<send_result<int>> third = send(tx, 3);
    ASSERT_FALSE(first.done() || second.done() || third.done());
    EXPECT_EQ(*rx.try_recv(), 0); // one slot: only the oldest waiter gets it
    EXPECT_TRUE(first.done());
    EXPECT_FALSE(second.done());
    EXPECT_FALSE(third.done());
    EXPECT_EQ(*rx.try_recv(), 1);
    EXPECT_TRUE(second.done());
    EXPECT_FALSE(third.done());
    EXPECT_EQ(*rx.try_recv(), 2);
    EXPECT_TRUE(third.done());
    EXPECT_EQ(*rx.try_recv(), 3);
}

TYPED_TEST(async_operations, every_waiting_async_receiver_gets_each_message) { // R-ASYNC-2, R-RECV-2
    auto [tx, rx] = this->make(1);
    typename TestFixture::rx_type second = rx;
    typename TestFixture::rx_type third = rx;
    task<recv_result<int>> a = receive(rx);
    task<recv_result<int>> b = receive(second);
    task<recv_result<int>> c = receive(third);
    ASSERT_FALSE(a.done() || b.done() || c.done());
    ASSERT_TRUE(tx.try_broadcast(8).has_value());
    for (task<recv_result<int>>* each : {&a, &b, &c}) {
        ASSERT_TRUE(each->done());
        ASSERT_TRUE(each->result().has_value());
        EXPECT_EQ(*each->result(), 8);
    }
    EXPECT_EQ(tx.len(), 0u); // read by all three: released at once (R-MSG-1)
}

TYPED_TEST(async_operations, while_loop_over_async_recv_reads_until_closed) { // R-ASYNC-1, R-CLOSE-5
    auto [tx, rx] = this->make(2);
    ASSERT_TRUE(tx.try_broadcast(1).has_value());
    ASSERT_TRUE(tx.try_broadcast(2).has_value());
    std::vector<int> seen;
    auto consume = [](typename TestFixture::rx_type& r, std::vector<int>& out) -> task<recv_error> {
        recv_result<int> m = co_await r.async_recv();
        while (m) {
            out.push_back(*m);
            m = co_await r.async_recv();
        }
        co_return m.error();
    };
    // The loop form of the docs, `while (auto m = co_await ...)`, written out so
    // that the error that ends it can be checked too.
    task<recv_error> loop = consume(rx, seen);
    EXPECT_EQ(seen, (std::vector<int>{1, 2})); // the queued ones without waiting
    ASSERT_FALSE(loop.done());
    ASSERT_TRUE(tx.try_broadcast(3).has_value());
    EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
    ASSERT_FALSE(loop.done());
    tx.close();
    ASSERT_TRUE(loop.done());
    EXPECT_EQ(loop.result(), recv_failure(recv_errc::closed));
}

TYPED_TEST(async_operations, while_auto_m_loop_compiles_and_stops_at_close) { // R-ASYNC-1
    auto [tx, rx] = this->make(4);
    for (int value = 1; value <= 3; ++value) ASSERT_TRUE(tx.try_broadcast(value).has_value());
    tx.close();
    auto sum_all = [](typename TestFixture::rx_type& r) -> task<int> {
        int sum = 0;
        while (auto m = co_await r.async_recv()) sum += *m;
        co_return sum;
    };
    task<int> summing = sum_all(rx);
    ASSERT_TRUE(summing.done());
    EXPECT_EQ(summing.result(), 6);
}

// ---- schedulers (R-ASYNC-3) ----------------------------------------------------------

TYPED_TEST(async_operations, scheduler_overload_resumes_a_completed_recv_through_the_scheduler) { // R-ASYNC-3
    auto [tx, rx] = this->make(1);
    manual_scheduler scheduler;
    task<recv_result<int>> receiving = receive_via(scheduler, rx);
    ASSERT_FALSE(receiving.done());
    ASSERT_TRUE(tx.try_broadcast(6).has_value());
    EXPECT_EQ(scheduler.scheduled, 1u);
    EXPECT_FALSE(receiving.done()) << "completed, but resumed only by the scheduler";
    EXPECT_EQ(tx.len(), 0u); // the message was received under the sender's lock already
    scheduler.resume_all();
    ASSERT_TRUE(receiving.done());
    ASSERT_TRUE(receiving.result().has_value());
    EXPECT_EQ(*receiving.result(), 6);
}

TYPED_TEST(async_operations, scheduler_overload_resumes_a_completed_send_through_the_scheduler) { // R-ASYNC-3
    auto [tx, rx] = this->make(1);
    this->fill(tx, 1);
    manual_scheduler scheduler;
    task<send_result<int>> sending = send_via(scheduler, tx, 2);
    ASSERT_FALSE(sending.done());
    EXPECT_EQ(*rx.try_recv(), 1);
    EXPECT_EQ(scheduler.scheduled, 1u);
    EXPECT_FALSE(sending.done());
    EXPECT_EQ(*rx.try_recv(), 2); // already sent, before the coroutine resumed
    scheduler.resume_all();
    ASSERT_TRUE(sending.done());
    EXPECT_TRUE(sending.result().has_value());
}

TYPED_TEST(async_operations, scheduler_is_not_used_when_the_answer_is_there_at_once) { // R-ASYNC-1, R-ASYNC-3
    auto [tx, rx] = this->make(1);
    manual_scheduler scheduler;
    task<send_result<int>> sending = send_via(scheduler, tx, 1);
    task<recv_result<int>> receiving = receive_via(scheduler, rx);
    EXPECT_TRUE(sending.done());
    EXPECT_TRUE(receiving.done());
    EXPECT_EQ(scheduler.scheduled, 0u);
}

// ---- cancellation (R-ASYNC-4) ----------------------------------------------------------

TYPED_TEST(async_operations, cancelling_a_pending_async_recv_answers_cancelled_and_consumes_nothing) { // R-ASYNC-4
    auto [tx, rx] = this->make(1);
    std::stop_source stop;
    task<recv_result<int>> receiving = receive(rx, stop.get_token());
    ASSERT_FALSE(receiving.done());
    EXPECT_TRUE(stop.request_stop());
    ASSERT_TRUE(receiving.done()) << "the canceller resumes it inline";
    EXPECT_EQ(receiving.result().error(), recv_failure(recv_errc::cancelled));
    // The cancelled wait is gone from the channel and the position did not move:
    // the next message is there for the next receive.
    ASSERT_TRUE(tx.try_broadcast(1).has_value());
    EXPECT_EQ(tx.len(), 1u);
    EXPECT_EQ(*rx.try_recv(), 1);
}

TYPED_TEST(async_operations, cancelling_a_pending_async_broadcast_hands_message_back_and_queues_nothing) { // R-ASYNC-4, R-SEND-5
    auto [tx, rx] = this->make(1);
    this->fill(tx, 1);
    std::stop_source stop;
    task<send_result<int>> sending = send(tx, 2, stop.get_token());
    ASSERT_FALSE(sending.done());
    stop.request_stop();
    ASSERT_TRUE(sending.done());
    ASSERT_FALSE(sending.result().has_value());
    EXPECT_EQ(sending.result().error(), (send_error<int>{send_errc::cancelled, 2}));
    // Nothing was queued, now or later: freeing the slot does not send it.
    EXPECT_EQ(*rx.try_recv(), 1);
    EXPECT_EQ(tx.len(), 0u);
    EXPECT_EQ(rx.try_recv().error(), recv_failure(recv_errc::empty));
}

TYPED_TEST(async_operations, stop_requested_before_async_recv_still_returns_an_available_message) { // R-ASYNC-4
    auto [tx, rx] = this->make(1);
    ASSERT_TRUE(tx.try_broadcast(3).has_value());
    task<recv_result<int>> receiving = receive(rx, already_stopped());
    ASSERT_TRUE(receiving.done());
    ASSERT_TRUE(receiving.result().has_value()) << "no wait was needed, so nothing to cancel";
    EXPECT_EQ(*receiving.result(), 3);
}

TYPED_TEST(async_operations, stop_requested_before_async_broadcast_with_room_still_sends) { // R-ASYNC-4
    auto [tx, rx] = this->make(1);
    task<send_result<int>> sending = send(tx, 3, already_stopped());
    ASSERT_TRUE(sending.done());
    EXPECT_TRUE(sending.result().has_value());
    EXPECT_EQ(*rx.try_recv(), 3);
}

TYPED_TEST(async_operations, stop_requested_before_async_recv_with_nothing_available_cancels_without_suspending) { // R-ASYNC-4
    auto [tx, rx] = this->make(1);
    auto operation = rx.async_recv(already_stopped());
    ASSERT_FALSE(operation.await_suspend(std::noop_coroutine())) << "it would wait, and stop is requested";
    EXPECT_EQ(operation.await_resume().error(), recv_failure(recv_errc::cancelled));
    ASSERT_TRUE(tx.try_broadcast(1).has_value()); // not queued: the message goes to the next receive
    EXPECT_EQ(*rx.try_recv(), 1);
}

TYPED_TEST(async_operations, stop_requested_before_async_broadcast_on_full_channel_cancels_without_suspending) { // R-ASYNC-4
    auto [tx, rx] = this->make(1);
    this->fill(tx, 1);
    auto operation = tx.async_broadcast(2, already_stopped());
    ASSERT_FALSE(operation.await_suspend(std::noop_coroutine()));
    EXPECT_EQ(operation.await_resume().error(), (send_error<int>{send_errc::cancelled, 2}));
    EXPECT_EQ(*rx.try_recv(), 1);
    EXPECT_EQ(tx.len(), 0u); // the cancelled message was not queued when the slot freed
}

TYPED_TEST(async_operations, stop_after_completion_but_before_resumption_keeps_the_received_message) { // R-ASYNC-4
    auto [tx, rx] = this->make(1);
    manual_scheduler scheduler; // holds the completed coroutine, so the stop comes in between
    std::stop_source stop;
    task<recv_result<int>> receiving = receive_via(scheduler, rx, stop.get_token());
    ASSERT_FALSE(receiving.done());
    ASSERT_TRUE(tx.try_broadcast(5).has_value());
    ASSERT_NO_FATAL_FAILURE(this->stop_before_resumption(scheduler, stop, receiving));
    EXPECT_EQ(*receiving.result(), 5);
}

TYPED_TEST(async_operations, stop_after_completion_but_before_resumption_keeps_the_send) { // R-ASYNC-4
    auto [tx, rx] = this->make(1);
    this->fill(tx, 1);
    manual_scheduler scheduler;
    std::stop_source stop;
    task<send_result<int>> sending = send_via(scheduler, tx, 2, stop.get_token());
    ASSERT_FALSE(sending.done());
    EXPECT_EQ(*rx.try_recv(), 1); // completes the send
    ASSERT_NO_FATAL_FAILURE(this->stop_before_resumption(scheduler, stop, sending));
    EXPECT_EQ(*rx.try_recv(), 2);
}

TYPED_TEST(async_operations, stop_after_an_inline_completion_changes_nothing) { // R-ASYNC-4
    auto [tx, rx] = this->make(1);
    std::stop_source stop;
    task<recv_result<int>> receiving = receive(rx, stop.get_token());
    ASSERT_TRUE(tx.try_broadcast(5).has_value());
    ASSERT_TRUE(receiving.done());
    stop.request_stop();
    ASSERT_TRUE(receiving.result().has_value());
    EXPECT_EQ(*receiving.result(), 5);
    ASSERT_TRUE(tx.try_broadcast(6).has_value()); // the channel has no trace of the finished operation
    EXPECT_EQ(*rx.try_recv(), 6);
}

// ---- a resumed coroutine may use the channel at once (R-ASYNC-3) ----------------------------

TYPED_TEST(async_operations, resumed_receiver_can_wait_again_at_once) { // R-ASYNC-3
    auto [tx, rx] = this->make(1);
    auto two = [](typename TestFixture::rx_type& r) -> task<std::vector<int>> {
        std::vector<int> got;
        for (int i = 0; i < 2; ++i) {
            recv_result<int> m = co_await r.async_recv(); // the second one queues from inside the completion
            got.push_back(m ? *m : -1);
        }
        co_return got;
    };
    task<std::vector<int>> receiving = two(rx);
    ASSERT_TRUE(tx.try_broadcast(1).has_value());
    EXPECT_FALSE(receiving.done()) << "resumed with 1, then waits for the second";
    ASSERT_TRUE(tx.try_broadcast(2).has_value());
    ASSERT_TRUE(receiving.done());
    EXPECT_EQ(receiving.result(), (std::vector<int>{1, 2}));
}

TYPED_TEST(async_operations, resumed_receiver_can_send_on_the_same_channel) { // R-ASYNC-3
    auto [tx, rx] = this->make(2);
    typename TestFixture::rx_type observer = rx;
    auto echo = [](typename TestFixture::rx_type& r, const typename TestFixture::tx_type& t) -> task<send_result<int>> {
        recv_result<int> m = co_await r.async_recv();
        co_return t.try_broadcast(*m + 100); // would deadlock if resumed under the channel lock
    };
    task<send_result<int>> echoing = echo(rx, tx);
    ASSERT_TRUE(tx.try_broadcast(1).has_value());
    ASSERT_TRUE(echoing.done());
    EXPECT_TRUE(echoing.result().has_value());
    EXPECT_EQ(*observer.try_recv(), 1);
    EXPECT_EQ(*observer.try_recv(), 101);
}

TYPED_TEST(async_operations, resumed_receiver_can_forward_to_another_channel) { // R-ASYNC-3
    auto [tx, rx] = this->make(1);
    auto [next_tx, next_rx] = this->make(1);
    auto forward = [](typename TestFixture::rx_type& from, const typename TestFixture::tx_type& to) -> task<int> {
        int forwarded = 0;
        while (auto m = co_await from.async_recv()) {
            auto sent = co_await to.async_broadcast(*m * 10);
            if (!sent) break;
            ++forwarded;
        }
        co_return forwarded;
    };
    task<int> forwarding = forward(rx, next_tx);
    ASSERT_TRUE(tx.try_broadcast(1).has_value());
    EXPECT_EQ(*next_rx.try_recv(), 10);
    ASSERT_TRUE(tx.try_broadcast(2).has_value());
    ASSERT_TRUE(tx.try_broadcast(3).has_value()); // the forwarder waits on the full second channel meanwhile
    EXPECT_FALSE(forwarding.done());
    EXPECT_EQ(*next_rx.try_recv(), 20); // frees room: the forwarder resumes, sends 30
    EXPECT_EQ(*next_rx.try_recv(), 30);
    tx.close();
    ASSERT_TRUE(forwarding.done());
    EXPECT_EQ(forwarding.result(), 3);
}

TYPED_TEST(async_operations, resumed_receiver_can_drop_its_receiver_and_close_the_channel) { // R-ASYNC-3, R-CLOSE-3
    auto [tx, rx] = this->make(1);
    // The coroutine owns the channel's only receiver and destroys it as soon as
    // it has one message: inside the sender's try_broadcast, after its unlock.
    auto take_one = [](typename TestFixture::rx_type owned) -> task<int> {
        std::optional<typename TestFixture::rx_type> r(std::move(owned));
        recv_result<int> m = co_await r->async_recv();
        r.reset(); // the last receiver: closes the channel (R-CLOSE-3)
        co_return m ? *m : -1;
    };
    task<int> taking = take_one(std::move(rx));
    ASSERT_FALSE(taking.done());
    ASSERT_TRUE(tx.try_broadcast(9).has_value());
    ASSERT_TRUE(taking.done());
    EXPECT_EQ(taking.result(), 9);
    EXPECT_TRUE(tx.is_closed());
    EXPECT_EQ(tx.receiver_count(), 0u);
    EXPECT_EQ(tx.len(), 0u);
}

// ---- destroying a suspended coroutine (R-ASYNC-5) -------------------------------------------

template <class Primitives>
class async_lifetimes : public ::testing::Test {
protected:
    void SetUp() override { counted::reset(); }
    void TearDown() override { EXPECT_EQ(counted::live, 0) << "a message object leaked or died twice"; }
};
TYPED_TEST_SUITE(async_lifetimes, position_policies, position_policy_name);

TYPED_TEST(async_lifetimes, destroying_a_task_suspended_in_async_recv_unlinks_it) { // R-ASYNC-5, R-MSG-2
    auto [tx, rx] = channel<counted, TypeParam>(1);
    {
        task<recv_result<counted>> abandoned = receive(rx);
        ASSERT_FALSE(abandoned.done());
    } // destroyed while suspended: the operation leaves the channel, consuming nothing
    ASSERT_TRUE(tx.try_broadcast(counted(1)).has_value()); // must not resume the destroyed frame
    EXPECT_EQ(tx.len(), 1u);
    {
        auto got = rx.try_recv();
        ASSERT_TRUE(got.has_value());
        EXPECT_EQ(got->value, 1);
    }
    task<recv_result<counted>> next = receive(rx); // and the receiver can wait again
    ASSERT_TRUE(tx.try_broadcast(counted(2)).has_value());
    ASSERT_TRUE(next.done());
    EXPECT_EQ(next.result()->value, 2);
    EXPECT_EQ(counted::destroyed, 1); // message 1; message 2 still lives in next's result
}

TYPED_TEST(async_lifetimes, destroying_a_task_suspended_in_async_broadcast_destroys_its_message_once) { // R-ASYNC-5, R-MSG-2
    auto [tx, rx] = channel<counted, TypeParam>(1);
    ASSERT_TRUE(tx.try_broadcast(counted(1)).has_value());
    {
        task<send_result<counted>> abandoned = send(tx, counted(2));
        ASSERT_FALSE(abandoned.done());
        EXPECT_EQ(counted::destroyed, 0); // the waiting send owns its message
    }
    EXPECT_EQ(counted::live, 1);
    EXPECT_EQ(counted::destroyed, 1) << "the abandoned send's message, exactly once";
    {
        auto got = rx.try_recv(); // frees the slot: no unlinked waiter may take it
        ASSERT_TRUE(got.has_value());
        EXPECT_EQ(got->value, 1);
    }
    EXPECT_EQ(tx.len(), 0u);
    ASSERT_TRUE(tx.try_broadcast(counted(3)).has_value()); // the channel still works
    {
        auto got = rx.try_recv();
        ASSERT_TRUE(got.has_value());
        EXPECT_EQ(got->value, 3);
    }
    EXPECT_EQ(counted::destroyed, 3);
}

TYPED_TEST(async_lifetimes, destroying_one_of_several_waiting_senders_keeps_the_others_in_order) { // R-ASYNC-5, R-ASYNC-2
    auto [tx, rx] = channel<counted, TypeParam>(1);
    ASSERT_TRUE(tx.try_broadcast(counted(0)).has_value());
    task<send_result<counted>> first = send(tx, counted(1));
    // unique_ptr, not optional: g++ 12 at -O1 warns falsely that an optional
    // task's handle may be used uninitialized (-Wmaybe-uninitialized).
    auto middle = std::make_unique<task<send_result<counted>>>(send(tx, counted(2)));
    task<send_result<counted>> last = send(tx, counted(3));
    middle.reset(); // unlinked from the middle of the FIFO
    EXPECT_EQ(rx.try_recv()->value, 0);
    EXPECT_TRUE(first.done());
    EXPECT_EQ(rx.try_recv()->value, 1);
    EXPECT_TRUE(last.done());
    EXPECT_EQ(rx.try_recv()->value, 3);
    EXPECT_EQ(counted::destroyed, 4) << "every message exactly once, the abandoned one included";
}

// ---- exceptions (R-MSG-3) --------------------------------------------------------------------

struct disarm {
    ~disarm() { throwing_copy::armed = false; }
};

template <class Primitives>
class async_exceptions : public ::testing::Test {};
TYPED_TEST_SUITE(async_exceptions, position_policies, position_policy_name);

TYPED_TEST(async_exceptions, throwing_copy_in_a_recv_completed_by_a_send_is_rethrown_at_co_await) { // R-MSG-3, R-ASYNC-3
    disarm guard;
    auto [tx, rx] = channel<throwing_copy, TypeParam>(1);
    receiver<throwing_copy, TypeParam> other = rx; // two readers: rx's receive copies
    task<recv_result<throwing_copy>> receiving = receive(rx);
    ASSERT_FALSE(receiving.done());
    throwing_copy::armed = true;
    const auto sent = tx.try_broadcast(throwing_copy(1)); // moves only: the send itself succeeds
    throwing_copy::armed = false;
    EXPECT_TRUE(sent.has_value());
    ASSERT_TRUE(receiving.done());
    EXPECT_THROW(receiving.result(), std::runtime_error);
    // The channel and rx's position are as before the copy: the message is still
    // queued for both receivers, and a retry delivers it.
    EXPECT_EQ(tx.len(), 1u);
    EXPECT_EQ(rx.try_recv()->value, 1);
    EXPECT_EQ(other.try_recv()->value, 1);
    EXPECT_EQ(tx.len(), 0u);
}

TYPED_TEST(async_exceptions, throwing_copy_in_an_immediate_async_recv_is_rethrown_and_changes_nothing) { // R-MSG-3, R-ASYNC-1
    disarm guard;
    auto [tx, rx] = channel<throwing_copy, TypeParam>(1);
    receiver<throwing_copy, TypeParam> other = rx;
    ASSERT_TRUE(tx.try_broadcast(throwing_copy(1)).has_value());
    throwing_copy::armed = true;
    task<recv_result<throwing_copy>> receiving = receive(rx);
    throwing_copy::armed = false;
    ASSERT_TRUE(receiving.done());
    EXPECT_THROW(receiving.result(), std::runtime_error);
    EXPECT_EQ(tx.len(), 1u);
    task<recv_result<throwing_copy>> retry = receive(rx); // the operation left nothing queued
    ASSERT_TRUE(retry.done());
    EXPECT_EQ(retry.result()->value, 1);
    EXPECT_EQ(other.try_recv()->value, 1);
}

} // namespace
} // namespace bcast::impl_tests
