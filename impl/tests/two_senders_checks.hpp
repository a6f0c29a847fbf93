// SPDX-License-Identifier: MIT OR Apache-2.0
// The check both channel families run once two threads wait to broadcast into
// a full channel (blocking_tests.cpp, fast_tests.cpp): each slot that receiving
// frees lets one of them in, and both complete (R-WAKE-1, R-RECV-2).
#pragma once

#include <gtest/gtest.h>

#include <future>
#include <vector>

namespace bcast::two_senders_checks {

// `rx` of a channel of capacity 1 that holds 0; `first` and `second`: the
// answers of the two threads waiting to broadcast 1 and 2.
template <class Receiver, class SendResult>
void expect_both_sends_complete_as_slots_free(Receiver& rx, std::future<SendResult>& first, std::future<SendResult>& second) {
    std::vector<int> got;
    for (int count = 0; count < 3; ++count) got.push_back(*rx.recv());
    EXPECT_TRUE(first.get().has_value());
    EXPECT_TRUE(second.get().has_value());
    EXPECT_EQ(got[0], 0);
    EXPECT_EQ(got[1] + got[2], 3); // both arrived, in the order the senders got the lock: the race's
}

} // namespace bcast::two_senders_checks
