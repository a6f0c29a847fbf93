// SPDX-License-Identifier: MIT OR Apache-2.0
// The user-clock deadline check both channel families run (blocking_tests.cpp,
// fast_tests.cpp): a deadline on a clock the channel does not sleep on is kept
// on that clock (R-SEND-4, R-RECV-5). The clock stands still, the waiter must
// not give up, then the clock reaches the deadline and it must (manual_clock.hpp).
#pragma once

#include <gtest/gtest.h>

#include <bcast/errors.hpp>
#include <bcast_support/manual_clock.hpp>

namespace bcast::user_clock_checks {

// `tx` and `rx` of one channel of capacity 1, nothing queued.
template <class Sender, class Receiver>
void expect_a_user_clock_deadline_reached_on_that_clock(const Sender& tx, Receiver& rx) {
    const auto receive = test_support::timed_call_on_a_standing_clock([&rx](auto deadline) { return rx.recv_until(deadline); });
    EXPECT_FALSE(receive.gave_up_early) << "gave up while its own clock stood before the deadline";
    EXPECT_EQ(receive.answer.error().code, recv_errc::timed_out);

    ASSERT_TRUE(tx.try_broadcast(1));
    const auto send = test_support::timed_call_on_a_standing_clock([&tx](auto deadline) { return tx.broadcast_until(2, deadline); });
    EXPECT_FALSE(send.gave_up_early) << "gave up while its own clock stood before the deadline";
    EXPECT_EQ(send.answer.error(), (send_error<int>{send_errc::timed_out, 2}));
}

} // namespace bcast::user_clock_checks
