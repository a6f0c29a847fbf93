// SPDX-License-Identifier: MIT OR Apache-2.0
// R-MSG-1, R-MSG-2, R-RECV-3 on the implementation: when each message object
// dies, and how many copies a receive costs.
#include <gtest/gtest.h>

#include <memory>

#include <bcast/bcast.hpp>

#include "counted.hpp"

namespace bcast::impl_tests {
namespace {

class lifetimes : public ::testing::Test {
protected:
    void SetUp() override { counted::reset(); }
    void TearDown() override { EXPECT_EQ(counted::live, 0) << "a message object leaked or died twice"; }
};

TEST_F(lifetimes, last_reader_takes_the_message_and_others_copy) { // R-RECV-3, R-MSG-1
    auto [tx, rx] = channel<counted>(1);
    receiver<counted> second = rx;
    receiver<counted> third = rx;
    ASSERT_TRUE(tx.try_broadcast(counted(1)));
    EXPECT_EQ(rx.try_recv()->value, 1);
    EXPECT_EQ(second.try_recv()->value, 1);
    EXPECT_EQ(counted::copies, 2); // N-1 copies for N = 3
    EXPECT_EQ(tx.len(), 1u);
    {
        auto last = third.try_recv(); // moved out, not copied
        EXPECT_EQ(counted::copies, 2);
        EXPECT_EQ(tx.len(), 0u);
        EXPECT_EQ(counted::live, 1); // only the one in `last`: the channel kept nothing
    }
}

TEST_F(lifetimes, message_dies_when_the_last_interested_receiver_is_destroyed) { // R-MSG-1, R-LIFE-3
    auto [tx, rx] = channel<counted>(2);
    ASSERT_TRUE(tx.try_broadcast(counted(1)));
    ASSERT_TRUE(tx.try_broadcast(counted(2)));
    EXPECT_EQ(counted::live, 2);
    { receiver<counted> gone = std::move(rx); }
    EXPECT_EQ(counted::live, 0);
    EXPECT_EQ(counted::destroyed, 2);
}

TEST_F(lifetimes, deactivation_releases_unread_messages_at_once) { // R-MSG-1, R-LIFE-4
    auto [tx, rx] = channel<counted>(2);
    ASSERT_TRUE(tx.try_broadcast(counted(1)));
    inactive_receiver<counted> parked = std::move(rx).deactivate();
    EXPECT_EQ(counted::live, 0);
    EXPECT_EQ(parked.inactive_receiver_count(), 1u);
}

TEST_F(lifetimes, shrink_destroys_the_dropped_messages) { // R-MSG-1, R-CAP-3
    auto [tx, rx] = channel<counted>(3);
    for (int value = 1; value <= 3; ++value) ASSERT_TRUE(tx.try_broadcast(counted(value)));
    tx.set_capacity(1);
    EXPECT_EQ(counted::live, 1);
    EXPECT_EQ(counted::destroyed, 2);
}

TEST_F(lifetimes, evicted_message_is_handed_to_the_sender_alive) { // R-MSG-1, R-OVF-1
    auto [tx, rx] = channel<counted>(1);
    tx.set_overflow(true);
    ASSERT_TRUE(tx.try_broadcast(counted(1)));
    auto sent = tx.try_broadcast(counted(2));
    ASSERT_TRUE(sent.has_value() && sent->has_value());
    EXPECT_EQ((*sent)->value, 1);
    EXPECT_EQ(counted::live, 2); // the evicted one and the queued one
}

TEST_F(lifetimes, destroying_every_handle_destroys_every_queued_message_once) { // R-MSG-2
    {
        auto [tx, rx] = channel<counted>(4);
        receiver<counted> copy = rx;
        for (int value = 1; value <= 4; ++value) ASSERT_TRUE(tx.try_broadcast(counted(value)));
        EXPECT_EQ(counted::destroyed, 0);
    }
    EXPECT_EQ(counted::destroyed, 4);
}

TEST_F(lifetimes, growing_the_ring_keeps_every_message_and_order) { // R-MSG-2, R-IMPL-3
    auto [tx, rx] = channel<counted>(2);
    ASSERT_TRUE(tx.try_broadcast(counted(1)));
    ASSERT_TRUE(tx.try_broadcast(counted(2)));
    EXPECT_EQ(rx.try_recv()->value, 1);
    ASSERT_TRUE(tx.try_broadcast(counted(3))); // the ring now wraps around
    tx.set_capacity(5);
    ASSERT_TRUE(tx.try_broadcast(counted(4)));
    for (int expected = 2; expected <= 4; ++expected) EXPECT_EQ(rx.try_recv()->value, expected);
    EXPECT_EQ(counted::live, 0);
}

// Copying is needed only to receive (R-MSG-4): a move-only message is sent,
// evicted back to its sender and destroyed with the channel without a copy.
// Receiving one does not compile (impl/tests/compile_fail/receive_move_only.cpp).
TEST(move_only_messages, are_sent_evicted_and_destroyed_without_a_copy) { // R-MSG-4, R-OVF-1, R-MSG-2
    auto [tx, rx] = channel<std::unique_ptr<int>>(1);
    tx.set_overflow(true);
    ASSERT_TRUE(tx.try_broadcast(std::make_unique<int>(1)));
    const auto sent = tx.broadcast(std::make_unique<int>(2)); // full: 1 is evicted, and comes back
    ASSERT_TRUE(sent);
    ASSERT_TRUE(sent->has_value());
    EXPECT_EQ(***sent, 1);
    EXPECT_EQ(tx.len(), 1u);
    EXPECT_EQ(rx.receiver_count(), 1u); // 2 stays queued for rx, and dies with the channel
}

} // namespace
} // namespace bcast::impl_tests
