// SPDX-License-Identifier: MIT OR Apache-2.0
// Real-thread stress tests of the reference channel, built for ThreadSanitizer
// in the sanitizer trees: several senders, receivers that read to the end, and
// a chaos thread that copies, creates, deactivates, reactivates and drops
// receivers while flipping overflow and the capacity. The rounds and what they
// check (order, complete-or-counted, no hang) are channel_rounds.hpp's, the
// same for bcast::fast (fast_stress_tests.cpp). Each test repeats its round
// until its time budget is spent (fresh interleavings each time), under a
// watchdog that fails a hung round and names each thread's call.
#include <gtest/gtest.h>

#include <cstddef>

#include <bcast/bcast.hpp>

#include "channel_rounds.hpp"

namespace bcast::stress {
namespace {

struct reference_family {
    static constexpr const char* name = "bcast::channel";
    template <class T>
    static auto channel(std::size_t capacity) {
        return bcast::channel<T>(capacity);
    }
};

TEST(stress, many_senders_two_readers_lose_nothing_and_agree_on_order) { // R-RECV-2, R-SEND-3
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) {
        run_round<reference_family>({.senders = 3, .readers = 2, .capacity = 4, .per_sender = 20000, .overflow = false, .chaos = false, .reader_pause_every = 0});
    }
}

TEST(stress, churn_of_receivers_overflow_and_capacity_keeps_order_and_counts) { // R-LIFE-1, R-CAP-3, R-OVF-2
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) {
        run_round<reference_family>({.senders = 3, .readers = 2, .capacity = 4, .per_sender = 20000, .overflow = false, .chaos = true, .reader_pause_every = 0});
    }
}

TEST(stress, timed_calls_racing_their_events_lose_nothing) { // R-SEND-4, R-RECV-5, R-WAKE-1
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) run_timed_calls_round<reference_family>();
}

} // namespace
} // namespace bcast::stress
