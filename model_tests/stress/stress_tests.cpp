// SPDX-License-Identifier: MIT OR Apache-2.0
// Real-thread stress tests of every registered channel family
// (bcast/spec/families.def), built for ThreadSanitizer in the sanitizer trees,
// where they must be clean with no suppression (bcast::fast's lock-free
// receive reads the slots' words through atomics, a seqlock, so a report
// would be a real race). Several senders and more receivers than cores,
// overflow off and on, small rings that wrap, sleepers on both sides, and a
// chaos thread that copies, creates, deactivates, reactivates and drops
// receivers while changing the capacity and flipping overflow. The rounds and
// what they check (order, complete-or-counted, no torn copy, no hang) are
// channel_rounds.hpp's. Each test repeats its round until its time budget is
// spent (fresh interleavings each time), under a watchdog that fails a hung
// round and names each thread's call. GoogleTest names each family's group
// stress/NAME, NAME from families.def.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include <bcast/spec/families.hpp>

#include "channel_rounds.hpp"

namespace bcast::stress {
namespace {

struct family_name {
    template <class Family>
    static std::string GetName(int) {
        return std::string(Family::name);
    }
};

template <class Family>
class stress : public ::testing::Test {};
TYPED_TEST_SUITE(stress, spec::registered_families::apply<::testing::Types>, family_name);

TYPED_TEST(stress, senders_and_more_readers_than_cores_lose_nothing_and_agree_on_order) { // R-RECV-2, R-SEND-3
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) {
        run_round<TypeParam>({.senders = 3, .readers = 4, .capacity = 4, .per_sender = 10000, .overflow = false, .chaos = false, .reader_pause_every = 0});
    }
}

TYPED_TEST(stress, one_slot_ring_with_sleepers_on_both_sides_loses_no_wakeup) { // R-WAKE-1
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) {
        run_round<TypeParam>({.senders = 2, .readers = 3, .capacity = 1, .per_sender = 5000, .overflow = false, .chaos = false, .reader_pause_every = 0});
    }
}

TYPED_TEST(stress, overflow_with_a_lagging_reader_counts_every_eviction_exactly) { // R-OVF-1, R-OVF-2
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) {
        run_round<TypeParam>({.senders = 3, .readers = 3, .capacity = 2, .per_sender = 10000, .overflow = true, .chaos = false, .reader_pause_every = 7});
    }
}

TYPED_TEST(stress, churn_of_receivers_overflow_and_capacity_keeps_order_and_counts) { // R-LIFE-1, R-CAP-3, R-OVF-2
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) {
        run_round<TypeParam>({.senders = 3, .readers = 2, .capacity = 4, .per_sender = 10000, .overflow = false, .chaos = true, .reader_pause_every = 5});
    }
}

// Timed calls racing the events that end them: a timed-out call hands its
// message back or consumed nothing, and nothing is lost.
TYPED_TEST(stress, timed_calls_racing_their_events_lose_nothing) { // R-SEND-4, R-RECV-5, R-WAKE-1
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) run_timed_calls_round<TypeParam>();
}

} // namespace
} // namespace bcast::stress
