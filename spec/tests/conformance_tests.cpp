// SPDX-License-Identifier: MIT OR Apache-2.0
// Per-rule examples, each written once and run against the executable spec
// and against the implementation (plain and atomic position). Test names say
// the behaviour; the comment on each cites its rule in spec/rules.md.
#include "channel_types.hpp"

namespace bcast::spec_tests {
namespace {

template <class Channel>
class conformance : public ::testing::Test {
protected:
    // Sends 1..count through the first sender and checks each succeeded.
    static void send_sequence(Channel& ch, int from, int to) {
        for (int value = from; value <= to; ++value) ASSERT_TRUE(ch.try_broadcast(first_sender, value).has_value());
    }
    static int received(Channel& ch, handle_id receiver) {
        auto got = ch.try_recv(receiver);
        EXPECT_TRUE(got.has_value()) << "receiver " << receiver << ": " << got.error();
        return got.has_value() ? *got : -1;
    }
    // A send that failed with `code` and handed its message back (R-SEND-5).
    template <class Sent>
    static void expect_refused(const Sent& sent, send_errc code, int message) {
        ASSERT_FALSE(sent.has_value());
        EXPECT_EQ(sent.error().code, code);
        EXPECT_EQ(sent.error().message, message);
    }
    // A second receiver cloned from the first, 1..count sent, and 1 read by the
    // first receiver only: returns the second, one message behind.
    static handle_id second_receiver_one_behind(Channel& ch, int count) {
        const handle_id second = ch.clone_receiver(first_receiver);
        send_sequence(ch, 1, count);
        EXPECT_EQ(received(ch, first_receiver), 1);
        return second;
    }
    // The channel is open until `last_drop` and closed after it (R-CLOSE-2, R-CLOSE-3).
    template <class Drop>
    static void expect_closed_only_after(Channel& ch, handle_id asked, Drop last_drop) {
        EXPECT_FALSE(ch.is_closed(asked));
        last_drop();
        EXPECT_TRUE(ch.is_closed(asked));
    }
    // A handle from each call that makes one, besides the first sender and receiver.
    struct made_handles {
        handle_id receiver_copy, second_sender, sender_copy, inactive, inactive_copy, reactivated;
    };
    static made_handles make_every_kind_of_handle(Channel& ch) {
        const handle_id receiver_copy = ch.clone_receiver(first_receiver);
        const handle_id inactive = ch.deactivate(ch.new_receiver(first_sender));
        const handle_id inactive_copy = ch.clone_inactive(inactive);
        return {receiver_copy, ch.new_sender(receiver_copy), ch.clone_sender(first_sender), inactive, inactive_copy, ch.activate_cloned(inactive_copy)};
    }
};
TYPED_TEST_SUITE(conformance, all_channels, channel_name);

// ---- capacity ----------------------------------------------------------------

TYPED_TEST(conformance, zero_capacity_throws_invalid_argument) { // R-CAP-1
    EXPECT_THROW(TypeParam{0}, std::invalid_argument);
}

TYPED_TEST(conformance, new_channel_has_one_sender_one_receiver_and_defaults) { // R-CAP-1
    TypeParam ch(3);
    EXPECT_EQ(ch.capacity(first_sender), 3u);
    EXPECT_EQ(ch.sender_count(first_sender), 1u);
    EXPECT_EQ(ch.receiver_count(first_sender), 1u);
    EXPECT_EQ(ch.inactive_receiver_count(first_sender), 0u);
    EXPECT_FALSE(ch.overflow(first_sender));
    EXPECT_TRUE(ch.await_active(first_sender));
    EXPECT_FALSE(ch.is_closed(first_sender));
    EXPECT_TRUE(ch.is_empty(first_sender));
}

TYPED_TEST(conformance, set_capacity_zero_throws_and_changes_nothing) { // R-CAP-2
    TypeParam ch(2);
    this->send_sequence(ch, 1, 2);
    EXPECT_THROW(ch.set_capacity(first_receiver, 0), std::invalid_argument);
    EXPECT_EQ(ch.capacity(first_sender), 2u);
    EXPECT_EQ(ch.len(first_sender), 2u);
    EXPECT_EQ(this->received(ch, first_receiver), 1);
}

TYPED_TEST(conformance, shrink_below_len_drops_oldest_and_reports_overflow) { // R-CAP-3, R-OVF-2
    TypeParam ch(3);
    this->send_sequence(ch, 1, 3);
    ch.set_capacity(first_sender, 1);
    EXPECT_EQ(ch.len(first_sender), 1u);
    EXPECT_EQ(ch.try_recv(first_receiver).error(), overflowed(2));
    EXPECT_EQ(this->received(ch, first_receiver), 3);
}

TYPED_TEST(conformance, shrink_reports_to_each_receiver_what_it_had_not_read) { // R-CAP-3
    TypeParam ch(5);
    const handle_id second = ch.clone_receiver(first_receiver);
    const handle_id third = ch.clone_receiver(first_receiver);
    this->send_sequence(ch, 1, 5);
    EXPECT_EQ(this->received(ch, second), 1);
    for (int expected = 1; expected <= 4; ++expected) EXPECT_EQ(this->received(ch, third), expected);
    ch.set_capacity(first_sender, 2);
    EXPECT_EQ(ch.try_recv(first_receiver).error(), overflowed(3));
    EXPECT_EQ(ch.try_recv(second).error(), overflowed(2));
    EXPECT_EQ(this->received(ch, third), 5);
}

TYPED_TEST(conformance, growing_capacity_makes_room) { // R-CAP-2
    TypeParam ch(1);
    this->send_sequence(ch, 1, 1);
    EXPECT_EQ(ch.try_broadcast(first_sender, 2).error().code, send_errc::full);
    ch.set_capacity(first_sender, 2);
    EXPECT_TRUE(ch.try_broadcast(first_sender, 2).has_value());
    EXPECT_EQ(this->received(ch, first_receiver), 1);
    EXPECT_EQ(this->received(ch, first_receiver), 2);
}

TYPED_TEST(conformance, is_full_means_len_equals_capacity) { // R-CAP-5
    TypeParam ch(2);
    EXPECT_FALSE(ch.is_full(first_sender));
    this->send_sequence(ch, 1, 2);
    EXPECT_TRUE(ch.is_full(first_sender));
    EXPECT_FALSE(ch.is_empty(first_sender));
    ch.set_capacity(first_sender, 3);
    EXPECT_FALSE(ch.is_full(first_sender));
}

// ---- sending -------------------------------------------------------------------

TYPED_TEST(conformance, full_channel_refuses_try_broadcast_and_hands_message_back) { // R-SEND-1, R-SEND-5
    TypeParam ch(1);
    this->send_sequence(ch, 1, 1);
    this->expect_refused(ch.try_broadcast(first_sender, 7), send_errc::full, 7);
}

TYPED_TEST(conformance, closed_is_reported_before_full) { // R-SEND-1
    TypeParam ch(1);
    this->send_sequence(ch, 1, 1);
    ch.close(first_sender);
    EXPECT_EQ(ch.try_broadcast(first_sender, 2).error().code, send_errc::closed);
}

TYPED_TEST(conformance, successful_send_returns_no_evicted_message) { // R-SEND-2
    TypeParam ch(2);
    const auto sent = ch.try_broadcast(first_sender, 1);
    ASSERT_TRUE(sent.has_value());
    EXPECT_FALSE(sent->has_value());
}

TYPED_TEST(conformance, every_active_receiver_gets_every_message_in_order) { // R-SEND-2, R-RECV-2
    TypeParam ch(4);
    const handle_id second = ch.clone_receiver(first_receiver);
    this->send_sequence(ch, 1, 4);
    for (handle_id receiver : {first_receiver, second}) {
        for (int expected = 1; expected <= 4; ++expected) EXPECT_EQ(this->received(ch, receiver), expected);
        EXPECT_EQ(ch.try_recv(receiver).error(), recv_failure(recv_errc::empty));
    }
}

TYPED_TEST(conformance, expired_broadcast_on_full_channel_times_out_with_message) { // R-SEND-4, R-SEND-5
    TypeParam ch(1);
    this->send_sequence(ch, 1, 1);
    this->expect_refused(ch.broadcast_expired(first_sender, 9), send_errc::timed_out, 9);
    EXPECT_EQ(ch.len(first_sender), 1u);
}

TYPED_TEST(conformance, expired_broadcast_with_room_sends) { // R-SEND-3, R-SEND-4
    TypeParam ch(1);
    EXPECT_TRUE(ch.broadcast_expired(first_sender, 1).has_value());
    EXPECT_EQ(this->received(ch, first_receiver), 1);
}

TYPED_TEST(conformance, await_active_off_does_not_make_a_full_channel_fail) { // R-SEND-3
    TypeParam ch(1);
    ch.set_await_active(first_sender, false);
    this->send_sequence(ch, 1, 1);
    EXPECT_EQ(ch.broadcast_expired(first_sender, 2).error().code, send_errc::timed_out);
}

// ---- receiving -----------------------------------------------------------------

TYPED_TEST(conformance, try_recv_on_nothing_new_is_empty) { // R-RECV-1
    TypeParam ch(1);
    EXPECT_EQ(ch.try_recv(first_receiver).error(), recv_failure(recv_errc::empty));
}

TYPED_TEST(conformance, expired_recv_on_nothing_new_times_out) { // R-RECV-5
    TypeParam ch(1);
    EXPECT_EQ(ch.recv_expired(first_receiver).error(), recv_failure(recv_errc::timed_out));
}

TYPED_TEST(conformance, expired_recv_with_a_message_receives_it) { // R-RECV-4, R-RECV-5
    TypeParam ch(1);
    this->send_sequence(ch, 5, 5);
    const auto got = ch.recv_expired(first_receiver);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, 5);
}

TYPED_TEST(conformance, message_leaves_the_queue_when_the_last_receiver_reads_it) { // R-MSG-1, R-RECV-3
    TypeParam ch(2);
    const handle_id second = this->second_receiver_one_behind(ch, 1);
    EXPECT_EQ(ch.len(first_sender), 1u);
    EXPECT_EQ(this->received(ch, second), 1);
    EXPECT_EQ(ch.len(first_sender), 0u);
}

TYPED_TEST(conformance, try_messages_yields_the_lag_report_then_messages_and_ends_at_empty) { // R-RECV-6, R-OVF-2
    TypeParam ch(2);
    ch.set_overflow(first_sender, true);
    this->send_sequence(ch, 1, 3); // evicts 1
    const auto items = ch.try_messages(first_receiver, 10);
    ASSERT_EQ(items.size(), 3u);
    EXPECT_EQ(items[0].error(), overflowed(1)); // an item, not skipped
    EXPECT_EQ(*items[1], 2);
    EXPECT_EQ(*items[2], 3);
    EXPECT_TRUE(ch.try_messages(first_receiver, 10).empty()); // nothing there now: the range is empty
    this->send_sequence(ch, 4, 4);
    EXPECT_EQ(this->received(ch, first_receiver), 4); // ending at `empty` consumed nothing
}

TYPED_TEST(conformance, messages_drains_then_ends_at_close) { // R-RECV-6, R-CLOSE-5
    TypeParam ch(3);
    this->send_sequence(ch, 1, 2);
    ch.close(first_sender);
    const auto items = ch.messages(first_receiver, 10);
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(*items[0], 1);
    EXPECT_EQ(*items[1], 2);
    EXPECT_EQ(ch.try_recv(first_receiver).error(), recv_failure(recv_errc::closed));
    EXPECT_TRUE(ch.messages(first_receiver, 10).empty());
}

TYPED_TEST(conformance, taking_n_items_of_a_range_receives_exactly_n) { // R-RECV-6
    TypeParam ch(4);
    this->send_sequence(ch, 1, 4);
    const auto first_two = ch.try_messages(first_receiver, 2);
    ASSERT_EQ(first_two.size(), 2u);
    EXPECT_EQ(*first_two[1], 2);
    // Asserted before the blocking call: a range that receives in ++ took a
    // third here, and below it would wait for a fifth instead of failing.
    ASSERT_EQ(ch.unread(first_receiver), 2u);
    const auto third = ch.messages(first_receiver, 1); // open channel, one more there: must not wait
    ASSERT_EQ(third.size(), 1u);
    EXPECT_EQ(*third[0], 3);
    EXPECT_EQ(ch.unread(first_receiver), 1u);
    EXPECT_EQ(this->received(ch, first_receiver), 4);
}

// ---- overflow and lag ------------------------------------------------------------

TYPED_TEST(conformance, overflow_evicts_oldest_and_returns_it) { // R-OVF-1
    TypeParam ch(2);
    ch.set_overflow(first_sender, true);
    this->send_sequence(ch, 1, 2);
    const auto sent = ch.try_broadcast(first_sender, 3);
    ASSERT_TRUE(sent.has_value());
    EXPECT_EQ(evicted_by(sent), 1);
    EXPECT_EQ(ch.len(first_sender), 2u);
}

TYPED_TEST(conformance, overflow_reports_missed_count_once_then_oldest_kept) { // R-OVF-2
    TypeParam ch(2);
    ch.set_overflow(first_sender, true);
    this->send_sequence(ch, 1, 3);
    EXPECT_EQ(ch.try_recv(first_receiver).error(), overflowed(1));
    EXPECT_EQ(this->received(ch, first_receiver), 2);
    EXPECT_EQ(this->received(ch, first_receiver), 3);
}

TYPED_TEST(conformance, evictions_and_shrinks_accumulate_into_one_report) { // R-OVF-2
    TypeParam ch(3);
    ch.set_overflow(first_sender, true);
    this->send_sequence(ch, 1, 5); // evicts 1, 2
    ch.set_capacity(first_sender, 1); // drops 3, 4
    EXPECT_EQ(ch.try_recv(first_receiver).error(), overflowed(4));
    EXPECT_EQ(this->received(ch, first_receiver), 5);
}

TYPED_TEST(conformance, receiver_that_read_ahead_does_not_lag) { // R-OVF-2
    TypeParam ch(1);
    const handle_id second = ch.clone_receiver(first_receiver);
    ch.set_overflow(first_sender, true);
    this->send_sequence(ch, 1, 1);
    EXPECT_EQ(this->received(ch, second), 1);
    this->send_sequence(ch, 2, 2); // evicts 1, which only the first receiver missed
    EXPECT_EQ(ch.try_recv(first_receiver).error(), overflowed(1));
    EXPECT_EQ(this->received(ch, second), 2);
}

TYPED_TEST(conformance, overflow_mode_is_settable_on_any_handle) { // R-OVF-3
    TypeParam ch(1);
    const handle_id inactive = ch.deactivate(ch.clone_receiver(first_receiver));
    ch.set_overflow(inactive, true);
    EXPECT_TRUE(ch.overflow(first_receiver));
    ch.set_overflow(first_receiver, false);
    EXPECT_FALSE(ch.overflow(first_sender));
}

TYPED_TEST(conformance, overflow_does_not_bypass_missing_receivers) { // R-OVF-1, R-ACT-1
    TypeParam ch(1);
    ch.set_overflow(first_sender, true);
    ch.deactivate(first_receiver);
    EXPECT_EQ(ch.try_broadcast(first_sender, 1).error().code, send_errc::inactive);
}

// ---- receiver lifecycle -------------------------------------------------------------

TYPED_TEST(conformance, receiver_copy_keeps_position_and_pending_messages) { // R-LIFE-1
    TypeParam ch(3);
    this->send_sequence(ch, 1, 3);
    EXPECT_EQ(this->received(ch, first_receiver), 1);
    const handle_id copy = ch.clone_receiver(first_receiver);
    EXPECT_EQ(this->received(ch, copy), 2);
    EXPECT_EQ(this->received(ch, copy), 3);
    EXPECT_EQ(this->received(ch, first_receiver), 2);
}

TYPED_TEST(conformance, copy_of_lagging_receiver_reports_the_same_overflow) { // R-LIFE-1, R-OVF-2
    TypeParam ch(1);
    ch.set_overflow(first_sender, true);
    this->send_sequence(ch, 1, 3);
    const handle_id copy = ch.clone_receiver(first_receiver);
    EXPECT_EQ(ch.try_recv(copy).error(), overflowed(2));
    EXPECT_EQ(ch.try_recv(first_receiver).error(), overflowed(2));
    EXPECT_EQ(this->received(ch, copy), 3);
    EXPECT_EQ(this->received(ch, first_receiver), 3);
}

TYPED_TEST(conformance, new_receiver_starts_at_the_tail) { // R-LIFE-2
    TypeParam ch(3);
    this->send_sequence(ch, 1, 2);
    const handle_id from_sender = ch.new_receiver(first_sender);
    const handle_id from_receiver = ch.new_receiver(first_receiver);
    EXPECT_EQ(ch.try_recv(from_sender).error(), recv_failure(recv_errc::empty));
    this->send_sequence(ch, 3, 3);
    EXPECT_EQ(this->received(ch, from_sender), 3);
    EXPECT_EQ(this->received(ch, from_receiver), 3);
    EXPECT_EQ(this->received(ch, first_receiver), 1);
}

TYPED_TEST(conformance, dropping_a_receiver_releases_its_unread_messages) { // R-LIFE-3, R-MSG-1
    TypeParam ch(1);
    const handle_id second = this->second_receiver_one_behind(ch, 1);
    ch.drop_receiver(second);
    EXPECT_EQ(ch.len(first_sender), 0u);
    EXPECT_TRUE(ch.try_broadcast(first_sender, 2).has_value());
}

TYPED_TEST(conformance, deactivate_releases_unread_and_counts_an_inactive_receiver) { // R-LIFE-4
    TypeParam ch(2);
    this->send_sequence(ch, 1, 2);
    const handle_id inactive = ch.deactivate(first_receiver);
    EXPECT_TRUE(ch.is_inactive_receiver(inactive));
    EXPECT_EQ(ch.len(first_sender), 0u);
    EXPECT_EQ(ch.receiver_count(first_sender), 0u);
    EXPECT_EQ(ch.inactive_receiver_count(first_sender), 1u);
    EXPECT_FALSE(ch.is_closed(first_sender));
}

TYPED_TEST(conformance, activate_starts_at_the_tail_and_consumes_the_inactive_receiver) { // R-LIFE-5
    TypeParam ch(2);
    const handle_id keeper = ch.clone_receiver(first_receiver);
    this->send_sequence(ch, 1, 1);
    const handle_id inactive = ch.deactivate(first_receiver);
    const handle_id active = ch.activate(inactive);
    EXPECT_EQ(ch.inactive_receiver_count(first_sender), 0u);
    EXPECT_EQ(ch.receiver_count(first_sender), 2u);
    EXPECT_EQ(ch.try_recv(active).error(), recv_failure(recv_errc::empty));
    EXPECT_EQ(this->received(ch, keeper), 1);
}

TYPED_TEST(conformance, activate_cloned_keeps_the_inactive_receiver) { // R-LIFE-5
    TypeParam ch(2);
    const handle_id inactive = ch.deactivate(first_receiver);
    const handle_id active = ch.activate_cloned(inactive);
    EXPECT_EQ(ch.inactive_receiver_count(first_sender), 1u);
    EXPECT_EQ(ch.receiver_count(first_sender), 1u);
    this->send_sequence(ch, 1, 1);
    EXPECT_EQ(this->received(ch, active), 1);
}

// ---- inactive receivers ---------------------------------------------------------------

TYPED_TEST(conformance, only_inactive_receivers_make_try_broadcast_inactive) { // R-ACT-1, R-SEND-5
    TypeParam ch(1);
    ch.deactivate(first_receiver);
    this->expect_refused(ch.try_broadcast(first_sender, 4), send_errc::inactive, 4);
    EXPECT_FALSE(ch.is_closed(first_sender));
}

TYPED_TEST(conformance, await_active_makes_broadcast_wait_for_a_receiver) { // R-ACT-2
    TypeParam ch(1);
    ch.deactivate(first_receiver);
    EXPECT_EQ(ch.broadcast_expired(first_sender, 1).error().code, send_errc::timed_out);
    ch.set_await_active(first_sender, false);
    EXPECT_FALSE(ch.await_active(first_sender));
    EXPECT_EQ(ch.broadcast_expired(first_sender, 1).error().code, send_errc::inactive);
}

// ---- closing -------------------------------------------------------------------------

TYPED_TEST(conformance, close_returns_true_only_for_the_call_that_closed) { // R-CLOSE-1
    TypeParam ch(1);
    EXPECT_TRUE(ch.close(first_receiver));
    EXPECT_FALSE(ch.close(first_sender));
    EXPECT_TRUE(ch.is_closed(first_receiver));
}

TYPED_TEST(conformance, inactive_receiver_can_close_the_channel) { // R-CLOSE-1
    TypeParam ch(1);
    const handle_id inactive = ch.deactivate(ch.clone_receiver(first_receiver));
    EXPECT_TRUE(ch.close(inactive));
    EXPECT_TRUE(ch.is_closed(first_sender));
}

TYPED_TEST(conformance, dropping_the_last_sender_closes) { // R-CLOSE-2
    TypeParam ch(1);
    const handle_id second_sender = ch.new_sender(first_receiver);
    ch.drop_sender(first_sender);
    this->expect_closed_only_after(ch, first_receiver, [&] { ch.drop_sender(second_sender); });
}

TYPED_TEST(conformance, dropping_the_last_receiver_without_inactive_ones_closes) { // R-CLOSE-3
    TypeParam ch(1);
    ch.drop_receiver(first_receiver);
    EXPECT_TRUE(ch.is_closed(first_sender));
}

TYPED_TEST(conformance, dropping_the_last_inactive_receiver_without_active_ones_closes) { // R-CLOSE-3
    TypeParam ch(1);
    const handle_id inactive = ch.deactivate(first_receiver);
    this->expect_closed_only_after(ch, first_sender, [&] { ch.drop_inactive(inactive); });
}

TYPED_TEST(conformance, closing_is_permanent) { // R-CLOSE-4
    TypeParam ch(1);
    ch.close(first_sender);
    const handle_id new_sender = ch.new_sender(first_receiver);
    const handle_id new_receiver = ch.new_receiver(first_sender);
    const handle_id reactivated = ch.activate(ch.deactivate(ch.clone_receiver(first_receiver)));
    EXPECT_TRUE(ch.is_closed(first_sender));
    EXPECT_EQ(ch.sender_count(first_sender), 2u);
    EXPECT_EQ(ch.try_broadcast(new_sender, 1).error().code, send_errc::closed);
    EXPECT_EQ(ch.try_recv(new_receiver).error(), recv_failure(recv_errc::closed));
    EXPECT_EQ(ch.try_recv(reactivated).error(), recv_failure(recv_errc::closed));
}

TYPED_TEST(conformance, receivers_drain_after_close_then_see_closed_forever) { // R-CLOSE-5
    TypeParam ch(2);
    this->send_sequence(ch, 1, 2);
    ch.close(first_sender);
    EXPECT_EQ(this->received(ch, first_receiver), 1);
    EXPECT_EQ(this->received(ch, first_receiver), 2);
    EXPECT_EQ(ch.try_recv(first_receiver).error(), recv_failure(recv_errc::closed));
    EXPECT_EQ(ch.recv_expired(first_receiver).error(), recv_failure(recv_errc::closed));
}

TYPED_TEST(conformance, lagging_receiver_sees_overflowed_before_closed) { // R-CLOSE-5, R-OVF-2
    TypeParam ch(1);
    ch.set_overflow(first_sender, true);
    this->send_sequence(ch, 1, 2);
    ch.close(first_sender);
    EXPECT_EQ(ch.try_recv(first_receiver).error(), overflowed(1));
    EXPECT_EQ(this->received(ch, first_receiver), 2);
    EXPECT_EQ(ch.try_recv(first_receiver).error(), recv_failure(recv_errc::closed));
}

TYPED_TEST(conformance, send_after_close_hands_the_message_back) { // R-CLOSE-5, R-SEND-5
    TypeParam ch(1);
    ch.close(first_receiver);
    this->expect_refused(ch.broadcast_expired(first_sender, 3), send_errc::closed, 3);
}

// ---- queries -------------------------------------------------------------------------

TYPED_TEST(conformance, len_counts_the_queue_not_this_receivers_unread) { // R-QUERY-1
    TypeParam ch(2);
    const handle_id second = this->second_receiver_one_behind(ch, 1);
    EXPECT_EQ(ch.len(first_receiver), 1u);
    EXPECT_EQ(ch.len(second), 1u);
}

TYPED_TEST(conformance, unread_counts_what_this_receiver_has_yet_to_read) { // R-QUERY-2, R-QUERY-1
    TypeParam ch(3);
    const handle_id second = this->second_receiver_one_behind(ch, 3);
    EXPECT_EQ(ch.unread(first_receiver), 2u);
    EXPECT_EQ(ch.unread(second), 3u);
    EXPECT_EQ(ch.len(first_receiver), 3u); // the channel's, not the receiver's
    EXPECT_EQ(ch.missed(first_receiver), 0u);
    EXPECT_EQ(ch.unread(ch.new_receiver(first_sender)), 0u); // at the tail (R-LIFE-2)
    EXPECT_EQ(ch.unread(ch.clone_receiver(first_receiver)), 2u); // same position (R-LIFE-1)
}

TYPED_TEST(conformance, after_eviction_unread_counts_what_is_still_queued_and_missed_the_rest) { // R-QUERY-2, R-OVF-2
    TypeParam ch(2);
    ch.set_overflow(first_sender, true);
    this->send_sequence(ch, 1, 5); // evicts 1, 2, 3
    EXPECT_EQ(ch.unread(first_receiver), 2u);
    EXPECT_EQ(ch.missed(first_receiver), 3u);
    EXPECT_EQ(ch.missed(first_receiver), 3u); // asking does not report it
    EXPECT_EQ(ch.try_recv(first_receiver).error(), overflowed(3));
    EXPECT_EQ(ch.missed(first_receiver), 0u);
    EXPECT_EQ(ch.unread(first_receiver), 2u);
    EXPECT_EQ(this->received(ch, first_receiver), 4);
    EXPECT_EQ(ch.unread(first_receiver), 1u);
}

TYPED_TEST(conformance, pending_counts_survive_shrink_and_close_until_drained) { // R-QUERY-2, R-CAP-3, R-CLOSE-5
    TypeParam ch(3);
    this->send_sequence(ch, 1, 3);
    ch.set_capacity(first_sender, 1); // drops 1, 2
    ch.close(first_sender);
    EXPECT_EQ(ch.unread(first_receiver), 1u);
    EXPECT_EQ(ch.missed(first_receiver), 2u);
    EXPECT_EQ(ch.try_recv(first_receiver).error(), overflowed(2));
    EXPECT_EQ(this->received(ch, first_receiver), 3);
    EXPECT_EQ(ch.unread(first_receiver), 0u);
    EXPECT_EQ(ch.missed(first_receiver), 0u);
}

TYPED_TEST(conformance, every_handle_made_from_a_channel_is_on_that_channel) { // R-HANDLE-3
    TypeParam ch(2);
    const auto h = this->make_every_kind_of_handle(ch);
    const std::vector<handle_id> all = {first_sender, first_receiver, h.receiver_copy, h.second_sender, h.sender_copy, h.inactive, h.inactive_copy, h.reactivated};
    for (handle_id a : all) {
        for (handle_id b : all) EXPECT_TRUE(ch.same_channel(a, b)) << a << " and " << b;
    }
}

TYPED_TEST(conformance, counts_track_every_kind_of_handle) { // R-QUERY-1
    TypeParam ch(1);
    const auto h = this->make_every_kind_of_handle(ch);
    EXPECT_EQ(ch.sender_count(h.sender_copy), 3u);
    EXPECT_EQ(ch.receiver_count(h.inactive_copy), 3u); // the first, its copy and the reactivated one
    EXPECT_EQ(ch.inactive_receiver_count(first_receiver), 2u);
    ch.drop_inactive(h.inactive);
    ch.drop_sender(h.second_sender);
    ch.drop_receiver(h.reactivated);
    EXPECT_EQ(ch.sender_count(first_receiver), 2u);
    EXPECT_EQ(ch.receiver_count(h.sender_copy), 2u);
    EXPECT_EQ(ch.inactive_receiver_count(first_sender), 1u);
}

} // namespace
} // namespace bcast::spec_tests
