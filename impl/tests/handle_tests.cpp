// SPDX-License-Identifier: MIT OR Apache-2.0
// R-HANDLE-1, R-HANDLE-2: moved-from handles and copy assignment.
#include <gtest/gtest.h>

#include <bcast/bcast.hpp>

namespace bcast::impl_tests {
namespace {

TEST(handles, moved_from_receiver_throws_logic_error_and_changes_nothing) { // R-HANDLE-1
    auto [tx, rx] = channel<int>(1);
    receiver<int> moved = std::move(rx);
    EXPECT_FALSE(rx.valid()); // NOLINT(bugprone-use-after-move): that is the point
    // static_cast<void>: each call throws before it has a result to look at.
    EXPECT_THROW(static_cast<void>(rx.try_recv()), std::logic_error);
    EXPECT_THROW(static_cast<void>(rx.len()), std::logic_error);
    EXPECT_THROW(static_cast<void>(rx.new_sender()), std::logic_error);
    EXPECT_EQ(tx.receiver_count(), 1u);
    EXPECT_TRUE(tx.try_broadcast(1));
    EXPECT_EQ(*moved.try_recv(), 1);
}

TEST(handles, moved_from_sender_and_inactive_receiver_throw_logic_error) { // R-HANDLE-1
    auto [tx, rx] = channel<int>(1);
    sender<int> kept = std::move(tx);
    // static_cast<void>: each call below throws before it has a result to look at.
    EXPECT_THROW(static_cast<void>(tx.try_broadcast(1)), std::logic_error); // NOLINT(bugprone-use-after-move)
    inactive_receiver<int> parked = rx.new_receiver().deactivate();
    inactive_receiver<int> kept_parked = std::move(parked);
    EXPECT_THROW(static_cast<void>(parked.activate_cloned()), std::logic_error); // NOLINT(bugprone-use-after-move)
    EXPECT_THROW(static_cast<void>(std::move(parked).activate()), std::logic_error);
    EXPECT_EQ(kept.sender_count(), 1u);
    EXPECT_EQ(kept.inactive_receiver_count(), 1u);
}

TEST(handles, copying_a_moved_from_handle_gives_an_empty_handle) { // R-HANDLE-1
    auto [tx, rx] = channel<int>(1);
    receiver<int> moved = std::move(rx);
    receiver<int> copy = rx; // NOLINT(bugprone-use-after-move)
    EXPECT_FALSE(copy.valid());
    EXPECT_EQ(tx.receiver_count(), 1u);
}

TEST(handles, receiver_copy_assignment_releases_the_old_position_first) { // R-HANDLE-2, R-LIFE-3
    auto [tx, rx] = channel<int>(2);
    receiver<int> late = rx.new_receiver();
    ASSERT_TRUE(tx.try_broadcast(1));
    EXPECT_EQ(*rx.try_recv(), 1);
    EXPECT_EQ(tx.len(), 1u); // `late` has not read it
    late = rx;               // `late` gives up 1 and takes rx's position
    EXPECT_EQ(tx.len(), 0u);
    EXPECT_EQ(tx.receiver_count(), 2u);
}

TEST(handles, self_assignment_changes_nothing) { // R-HANDLE-2
    auto [tx, rx] = channel<int>(2);
    ASSERT_TRUE(tx.try_broadcast(1));
    receiver<int>& same = rx;
    rx = same;
    sender<int>& same_sender = tx;
    tx = same_sender;
    EXPECT_EQ(tx.receiver_count(), 1u);
    EXPECT_EQ(tx.sender_count(), 1u);
    EXPECT_EQ(*rx.try_recv(), 1);
}

TEST(handles, sender_assignment_from_another_channel_closes_the_old_one) { // R-HANDLE-2, R-CLOSE-2
    auto [tx, rx] = channel<int>(1);
    auto [other_tx, other_rx] = channel<int>(1);
    tx = other_tx;
    EXPECT_TRUE(rx.is_closed());
    EXPECT_EQ(other_rx.sender_count(), 2u);
}

TEST(handles, move_assignment_transfers_the_position) { // R-HANDLE-2
    auto [tx, rx] = channel<int>(2);
    ASSERT_TRUE(tx.try_broadcast(1));
    ASSERT_TRUE(tx.try_broadcast(2));
    EXPECT_EQ(*rx.try_recv(), 1);
    receiver<int> target = rx.new_receiver();
    target = std::move(rx);
    EXPECT_EQ(*target.try_recv(), 2);
    EXPECT_EQ(tx.receiver_count(), 1u);
}

TEST(handles, same_channel_across_kinds_is_true_within_a_channel_and_false_across) { // R-HANDLE-3
    auto [tx, rx] = channel<int>(1);
    auto [other_tx, other_rx] = channel<int>(1);
    const inactive_receiver<int> parked = rx.new_receiver().deactivate();
    const inactive_receiver<int> other_parked = other_rx.new_receiver().deactivate();
    EXPECT_TRUE(tx.same_channel(tx));
    EXPECT_TRUE(tx.same_channel(rx));
    EXPECT_TRUE(rx.same_channel(parked));
    EXPECT_TRUE(parked.same_channel(tx));
    EXPECT_FALSE(tx.same_channel(other_tx));
    EXPECT_FALSE(rx.same_channel(other_rx));
    EXPECT_FALSE(parked.same_channel(other_parked));
    EXPECT_FALSE(other_parked.same_channel(rx));
    EXPECT_FALSE(other_tx.same_channel(parked));
}

TEST(handles, same_channel_follows_moves_and_assignment) { // R-HANDLE-3, R-HANDLE-2
    auto [tx, rx] = channel<int>(1);
    auto [other_tx, other_rx] = channel<int>(1);
    receiver<int> moved = std::move(rx);
    EXPECT_TRUE(moved.same_channel(tx));
    receiver<int> reassigned = moved;
    EXPECT_TRUE(reassigned.same_channel(tx));
    reassigned = other_rx; // takes the other channel
    EXPECT_TRUE(reassigned.same_channel(other_tx));
    EXPECT_FALSE(reassigned.same_channel(tx));
}

TEST(handles, same_channel_with_a_moved_from_handle_throws_logic_error) { // R-HANDLE-3, R-HANDLE-1
    auto [tx, rx] = channel<int>(1);
    receiver<int> moved = std::move(rx);
    sender<int> empty_sender = tx;
    sender<int> kept = std::move(empty_sender);
    // NOLINTBEGIN(bugprone-use-after-move): that is the point
    EXPECT_THROW(static_cast<void>(rx.same_channel(tx)), std::logic_error);
    EXPECT_THROW(static_cast<void>(tx.same_channel(rx)), std::logic_error);
    EXPECT_THROW(static_cast<void>(rx.same_channel(empty_sender)), std::logic_error); // two empty handles are not "the same"
    // NOLINTEND(bugprone-use-after-move)
    EXPECT_TRUE(kept.same_channel(moved));
}

} // namespace
} // namespace bcast::impl_tests
