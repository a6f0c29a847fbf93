// SPDX-License-Identifier: MIT OR Apache-2.0
// Real-thread stress tests of bcast::fast (docs/fast-design.md), built for
// ThreadSanitizer in the sanitizer trees, where they must be clean with no
// suppression: the lock-free receive reads the slots' words through atomics
// (a seqlock), so a report would be a real race. Several senders and more
// receivers than cores, overflow off and on, small rings that wrap, sleepers
// on both sides, and a chaos thread that copies, creates, deactivates and
// drops receivers while growing and shrinking the ring and flipping overflow.
// The rounds and what they check (order, complete-or-counted, no torn copy,
// no hang) are channel_rounds.hpp's, the same for the reference channel
// (stress_tests.cpp); the shapes below are bcast::fast's.
#include <gtest/gtest.h>

#include <cstddef>

#include <bcast/fast.hpp>

#include "channel_rounds.hpp"

namespace bcast::stress {
namespace {

struct fast_family {
    static constexpr const char* name = "bcast::fast";
    template <class T>
    static auto channel(std::size_t capacity) {
        return fast::channel<T>(capacity);
    }
};

TEST(fast_stress, senders_and_more_readers_than_cores_lose_nothing_and_agree_on_order) { // R-RECV-2, R-SEND-3
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) {
        run_round<fast_family>({.senders = 3, .readers = 4, .capacity = 4, .per_sender = 10000, .overflow = false, .chaos = false, .reader_pause_every = 0});
    }
}

TEST(fast_stress, one_slot_ring_with_sleepers_on_both_sides_loses_no_wakeup) { // R-WAKE-1
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) {
        run_round<fast_family>({.senders = 2, .readers = 3, .capacity = 1, .per_sender = 5000, .overflow = false, .chaos = false, .reader_pause_every = 0});
    }
}

TEST(fast_stress, overflow_with_a_lagging_reader_counts_every_eviction_exactly) { // R-OVF-1, R-OVF-2
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) {
        run_round<fast_family>({.senders = 3, .readers = 3, .capacity = 2, .per_sender = 10000, .overflow = true, .chaos = false, .reader_pause_every = 7});
    }
}

TEST(fast_stress, churn_of_receivers_rings_and_overflow_keeps_order_and_counts) { // R-LIFE-1, R-CAP-3, R-OVF-2
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) {
        run_round<fast_family>({.senders = 2, .readers = 2, .capacity = 4, .per_sender = 10000, .overflow = false, .chaos = true, .reader_pause_every = 5});
    }
}

// Timed calls racing the events that end them: a timed-out call hands its
// message back or consumed nothing, and nothing is lost (R-SEND-4, R-RECV-5).
TEST(fast_stress, timed_calls_racing_their_events_lose_nothing) {
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) run_timed_calls_round<fast_family>();
}

} // namespace
} // namespace bcast::stress
