// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::fast (docs/fast-design.md) with real threads and real handles: what
// the per-rule examples of spec/tests (run on it through
// spec::fast_channel_adapter) and the conformance kit cannot show on one
// thread. Every blocking test first waits until the other thread is really
// asleep in its wait, past the handshake of docs/fast-design.md section 5
// (observable through the channel's sleeper counts), so the wakeup path is
// what is tested, never a lucky ordering; no sleeps. A missing wakeup hangs
// the test, and ctest's timeout turns that into a failure.
//
// The blocking tests run on four primitive sets: the default (membarrier where
// the kernel has it, release position stores), the fallback fences (a
// read-modify-write per receive), and relaxed and seq_cst position stores.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <bcast/fast.hpp>

#include "two_senders_checks.hpp"
#include "user_clock_checks.hpp"

namespace bcast::fast_tests {
namespace {

using namespace std::chrono_literals;
using bcast::fast::detail::handle_access;

template <class Handle>
void wait_until_senders_sleep(const Handle& handle, std::size_t count = 1) {
    while (handle_access::state_of(handle).sleeping_senders() < count) std::this_thread::yield();
}
template <class Handle>
void wait_until_receivers_sleep(const Handle& handle, std::size_t count = 1) {
    while (handle_access::state_of(handle).sleeping_receivers() < count) std::this_thread::yield();
}

// The answer of a thread broadcasting `message` on `tx`, once it is asleep in its wait.
template <class Sender>
auto broadcast_asleep(const Sender& tx, int message) {
    auto sent = std::async(std::launch::async, [&tx, message] { return tx.broadcast(message); });
    wait_until_senders_sleep(tx);
    return sent;
}

template <class Primitives>
class fast_blocking : public ::testing::Test {
protected:
    using sender_type = fast::sender<int, Primitives>;
    using receiver_type = fast::receiver<int, Primitives>;
    using inactive_type = fast::inactive_receiver<int, Primitives>;
    static auto make(std::size_t capacity) { return fast::channel<int, Primitives>(capacity); }
};
using primitive_sets = ::testing::Types<fast::std_primitives, fast::std_symmetric_fence_primitives,
                                        fast::std_relaxed_position_primitives, fast::std_seq_cst_position_primitives>;
struct primitive_name {
    template <class P>
    static std::string GetName(int) {
        if constexpr (std::is_same_v<P, fast::std_primitives>) return "release_position";
        else if constexpr (std::is_same_v<P, fast::std_symmetric_fence_primitives>) return "symmetric_fences";
        else if constexpr (std::is_same_v<P, fast::std_relaxed_position_primitives>) return "relaxed_position";
        else return "seq_cst_position";
    }
};
TYPED_TEST_SUITE(fast_blocking, primitive_sets, primitive_name);

// ---- senders waiting for room: the asymmetric handshake ------------------------

TYPED_TEST(fast_blocking, sender_asleep_on_full_wakes_when_the_receiver_frees_a_slot) { // R-SEND-3, R-WAKE-1
    auto [tx, rx] = this->make(1);
    ASSERT_TRUE(tx.try_broadcast(1));
    auto sent = broadcast_asleep(tx, 2);
    EXPECT_EQ(*rx.try_recv(), 1); // lock-free: the receiver carries the minimum across sender_need_
    EXPECT_TRUE(sent.get().has_value());
    EXPECT_EQ(*rx.try_recv(), 2);
}

TYPED_TEST(fast_blocking, sender_gated_on_the_slowest_receiver_wakes_only_when_the_slowest_moves) { // R-SEND-3, R-RECV-2
    auto [tx, slow] = this->make(1);
    auto fast_one = slow; // same position
    ASSERT_TRUE(tx.try_broadcast(1));
    auto sent = broadcast_asleep(tx, 2);
    EXPECT_EQ(*fast_one.try_recv(), 1);                            // not the slowest: no room yet
    EXPECT_EQ(fast_one.try_recv().error().code, recv_errc::empty); // message 2 not sent
    EXPECT_EQ(tx.len(), 1u);
    EXPECT_EQ(*slow.try_recv(), 1); // the slowest moves: room
    EXPECT_TRUE(sent.get().has_value());
    EXPECT_EQ(*slow.try_recv(), 2);
    EXPECT_EQ(*fast_one.try_recv(), 2);
}

TYPED_TEST(fast_blocking, a_lagging_receivers_jump_frees_the_slot_a_sender_waits_for) { // R-OVF-2, R-CAP-3
    auto [tx, rx] = this->make(2);
    ASSERT_TRUE(tx.try_broadcast(1));
    ASSERT_TRUE(tx.try_broadcast(2));
    tx.set_capacity(1); // drops 1: rx lags by one
    auto sent = broadcast_asleep(tx, 3);
    EXPECT_EQ(rx.try_recv().error(), (recv_error{recv_errc::overflowed, 1}));
    EXPECT_EQ(*rx.try_recv(), 2); // frees the slot
    EXPECT_TRUE(sent.get().has_value());
    EXPECT_EQ(*rx.try_recv(), 3);
}

TYPED_TEST(fast_blocking, capacity_growth_past_the_slots_wakes_a_sleeping_sender) { // R-CAP-4
    auto [tx, rx] = this->make(1);
    ASSERT_TRUE(tx.try_broadcast(1));
    auto sent = broadcast_asleep(tx, 2);
    tx.set_capacity(3); // a new ring of 4 slots; message 1 is copied over
    EXPECT_TRUE(sent.get().has_value());
    EXPECT_EQ(tx.len(), 2u);
    EXPECT_EQ(*rx.try_recv(), 1);
    EXPECT_EQ(*rx.try_recv(), 2);
}

TYPED_TEST(fast_blocking, overflow_on_wakes_a_sleeping_sender_which_evicts) { // R-OVF-4, R-OVF-1
    auto [tx, rx] = this->make(1);
    ASSERT_TRUE(tx.try_broadcast(1));
    auto sent = broadcast_asleep(tx, 2);
    tx.set_overflow(true);
    const auto result = sent.get();
    ASSERT_TRUE(result.has_value());
    EXPECT_EQ(*result, std::optional<int>(1));
    EXPECT_EQ(rx.try_recv().error(), (recv_error{recv_errc::overflowed, 1}));
    EXPECT_EQ(*rx.try_recv(), 2);
}

TYPED_TEST(fast_blocking, close_wakes_a_sleeping_sender_with_its_message) { // R-CLOSE-6, R-SEND-5
    auto [tx, rx] = this->make(1);
    ASSERT_TRUE(tx.try_broadcast(1));
    auto sent = broadcast_asleep(tx, 2);
    EXPECT_TRUE(rx.close());
    EXPECT_EQ(sent.get().error(), (send_error<int>{send_errc::closed, 2}));
    EXPECT_EQ(*rx.try_recv(), 1); // drains, then closed (R-CLOSE-5)
    EXPECT_EQ(rx.try_recv().error().code, recv_errc::closed);
}

TYPED_TEST(fast_blocking, the_slowest_receiver_leaving_wakes_a_sleeping_sender) { // R-LIFE-3, R-LIFE-4
    auto [tx, rx] = this->make(1);
    auto keeper = rx.new_receiver();
    ASSERT_TRUE(tx.try_broadcast(1));
    EXPECT_EQ(*keeper.try_recv(), 1);
    auto sent = broadcast_asleep(tx, 2);
    auto parked = std::move(rx).deactivate(); // gives up message 1
    EXPECT_TRUE(sent.get().has_value());
    EXPECT_EQ(*keeper.try_recv(), 2);
    EXPECT_EQ(parked.inactive_receiver_count(), 1u);
}

TYPED_TEST(fast_blocking, two_sleeping_senders_both_complete_as_slots_free) { // R-WAKE-1, R-RECV-2
    auto [tx, rx] = this->make(1);
    ASSERT_TRUE(tx.try_broadcast(0));
    auto first = std::async(std::launch::async, [&tx = tx] { return tx.broadcast(1); });
    auto second = std::async(std::launch::async, [&tx = tx] { return tx.broadcast(2); });
    wait_until_senders_sleep(tx, 2);
    two_senders_checks::expect_both_sends_complete_as_slots_free(rx, first, second);
}

// ---- senders waiting for an active receiver --------------------------------------

TYPED_TEST(fast_blocking, an_active_receiver_appearing_wakes_a_sender_waiting_for_one) { // R-LIFE-6, R-ACT-2
    auto [tx, rx] = this->make(1);
    auto parked = std::move(rx).deactivate();
    auto sent = broadcast_asleep(tx, 7);
    auto active = parked.activate_cloned();
    EXPECT_TRUE(sent.get().has_value());
    EXPECT_EQ(*active.try_recv(), 7);
}

TYPED_TEST(fast_blocking, await_active_off_wakes_a_waiting_sender_with_inactive) { // R-ACT-3
    auto [tx, rx] = this->make(1);
    auto parked = std::move(rx).deactivate();
    auto sent = broadcast_asleep(tx, 7);
    parked.set_await_active(false);
    EXPECT_EQ(sent.get().error(), (send_error<int>{send_errc::inactive, 7}));
}

// ---- receivers waiting for a message: the Dekker handshake ---------------------

TYPED_TEST(fast_blocking, receiver_asleep_on_empty_wakes_on_send) { // R-RECV-4, R-WAKE-1
    auto [tx, rx] = this->make(1);
    auto got = std::async(std::launch::async, [&rx = rx] { return rx.recv(); });
    wait_until_receivers_sleep(tx);
    ASSERT_TRUE(tx.try_broadcast(5));
    EXPECT_EQ(*got.get(), 5);
}

TYPED_TEST(fast_blocking, two_sleeping_receivers_both_get_the_message) { // R-RECV-2, R-WAKE-1
    auto [tx, rx] = this->make(1);
    auto other = rx;
    auto first = std::async(std::launch::async, [&rx = rx] { return rx.recv(); });
    auto second = std::async(std::launch::async, [&other] { return other.recv(); });
    wait_until_receivers_sleep(tx, 2);
    ASSERT_TRUE(tx.try_broadcast(9));
    EXPECT_EQ(*first.get(), 9);
    EXPECT_EQ(*second.get(), 9);
}

TYPED_TEST(fast_blocking, close_and_the_last_sender_leaving_wake_a_sleeping_receiver) { // R-CLOSE-6, R-CLOSE-2
    {
        auto [tx, rx] = this->make(1);
        auto got = std::async(std::launch::async, [&rx = rx] { return rx.recv(); });
        wait_until_receivers_sleep(tx);
        EXPECT_TRUE(tx.close());
        EXPECT_EQ(got.get().error().code, recv_errc::closed);
    }
    {
        auto [tx, rx] = this->make(1);
        auto got = std::async(std::launch::async, [&rx = rx] { return rx.recv(); });
        wait_until_receivers_sleep(rx);
        { auto gone = std::move(tx); }
        EXPECT_EQ(got.get().error().code, recv_errc::closed);
    }
}

// ---- timeouts (R-SEND-4, R-RECV-5) ---------------------------------------------------

// As the reference's test of the same name (blocking_tests.cpp): a deadline on a
// user clock is reached on that clock, however long the waiter slept on
// steady_clock.
TYPED_TEST(fast_blocking, a_deadline_on_a_user_clock_is_reached_on_that_clock) { // R-SEND-4, R-RECV-5
    auto [tx, rx] = this->make(1);
    user_clock_checks::expect_a_user_clock_deadline_reached_on_that_clock(tx, rx);
}

TYPED_TEST(fast_blocking, timed_calls_give_up_with_timed_out_and_hand_the_message_back) { // R-SEND-4, R-RECV-5
    auto [tx, rx] = this->make(1);
    EXPECT_EQ(rx.recv_for(1ms).error().code, recv_errc::timed_out);
    EXPECT_EQ(rx.recv_until(std::chrono::system_clock::now() + 1ms).error().code, recv_errc::timed_out);
    ASSERT_TRUE(tx.try_broadcast(1));
    EXPECT_EQ(tx.broadcast_for(2, 1ms).error(), (send_error<int>{send_errc::timed_out, 2}));
    EXPECT_EQ(tx.broadcast_until(3, std::chrono::steady_clock::now()).error(), (send_error<int>{send_errc::timed_out, 3}));
    EXPECT_EQ(*rx.recv_for(0ms), 1);                                         // nothing to wait for: a zero timeout still receives
    EXPECT_TRUE(tx.broadcast_for(4, std::chrono::hours::max()).has_value()); // beyond the clock: no deadline
}

// ---- one channel, many threads: order and completeness ----------------------------

TYPED_TEST(fast_blocking, receivers_on_threads_get_every_message_in_order_through_small_rings) { // R-RECV-2, R-SEND-3
    constexpr int messages = 20000;
    auto [tx, rx] = this->make(2);
    std::vector<typename TestFixture::receiver_type> receivers{rx, rx, std::move(rx)};
    std::vector<std::future<int>> counts;
    for (auto& receiver : receivers) {
        counts.push_back(std::async(std::launch::async, [&receiver] {
            int expected = 0;
            while (auto got = receiver.recv()) {
                if (*got != expected) return -1; // lost or out of order
                ++expected;
            }
            return expected;
        }));
    }
    for (int k = 0; k < messages; ++k) ASSERT_TRUE(tx.broadcast(k));
    tx.close();
    for (auto& count : counts) EXPECT_EQ(count.get(), messages);
}

// ---- handles --------------------------------------------------------------------

TEST(fast_handles, moved_from_handles_throw_logic_error_and_copy_to_empty_handles) { // R-HANDLE-1
    auto [tx, rx] = fast::channel<int>(1);
    auto tx2 = std::move(tx);
    auto rx2 = std::move(rx);
    auto parked = std::move(rx2.new_receiver()).deactivate();
    auto parked2 = std::move(parked);
    EXPECT_FALSE(tx.valid());
    EXPECT_THROW((void)tx.try_broadcast(1), std::logic_error);
    EXPECT_THROW((void)rx.try_recv(), std::logic_error);
    EXPECT_THROW((void)rx.unread(), std::logic_error);
    EXPECT_THROW((void)parked.activate_cloned(), std::logic_error);
    EXPECT_THROW((void)tx.same_channel(tx2), std::logic_error);
    const fast::receiver<int> empty_copy = rx;
    EXPECT_FALSE(empty_copy.valid());
    EXPECT_EQ(tx2.receiver_count(), 1u); // nothing above changed the channel
    EXPECT_EQ(tx2.inactive_receiver_count(), 1u);
    EXPECT_TRUE(tx2.same_channel(parked2));
}

TEST(fast_handles, handles_of_different_channels_are_not_on_one_channel) { // R-HANDLE-3
    auto [a_tx, a_rx] = fast::channel<int>(1);
    auto [b_tx, b_rx] = fast::channel<int>(1);
    EXPECT_TRUE(a_tx.same_channel(a_rx));
    EXPECT_FALSE(a_tx.same_channel(b_rx));
    a_rx.swap(b_rx);
    EXPECT_TRUE(a_tx.same_channel(b_rx));
}

TEST(fast_handles, assignment_releases_the_old_position_first) { // R-HANDLE-2, R-LIFE-3
    auto [tx, rx] = fast::channel<int>(2);
    auto behind = rx;
    ASSERT_TRUE(tx.try_broadcast(1));
    EXPECT_EQ(*rx.try_recv(), 1);
    EXPECT_EQ(tx.len(), 1u); // `behind` still holds message 1
    behind = rx;             // gives up message 1, takes rx's position
    EXPECT_EQ(tx.len(), 0u);
    EXPECT_EQ(tx.receiver_count(), 2u);
    fast::receiver<int>& same = behind;
    behind = same; // self-assignment changes nothing (R-HANDLE-2)
    EXPECT_EQ(tx.receiver_count(), 2u);
    EXPECT_EQ(behind.unread(), 0u);
}

TEST(fast_handles, unread_and_missed_may_be_asked_while_the_owner_receives) { // R-QUERY-2, R-THREAD-1
    auto [tx, rx] = fast::channel<int>(64);
    for (int k = 0; k < 64; ++k) ASSERT_TRUE(tx.try_broadcast(k));
    auto drained = std::async(std::launch::async, [&rx = rx] {
        int n = 0;
        while (rx.try_recv()) ++n;
        return n;
    });
    std::size_t last = 64;
    for (int k = 0; k < 1000; ++k) {
        const std::size_t now = rx.unread();
        EXPECT_LE(now, last); // only the owner's receives change it: it only shrinks
        last = now;
        EXPECT_EQ(rx.missed(), 0u);
    }
    EXPECT_EQ(drained.get(), 64);
    EXPECT_EQ(rx.unread(), 0u);
}

// ---- what the profile and the primitives are (P-FAST-1, P-FAST-6) -----------------

struct small_record {
    std::uint32_t id;
    double value;
    char tag[13];
};

TEST(fast_messages, trivially_copyable_messages_of_any_size_round_trip_through_the_words) { // P-FAST-1, R-RECV-2
    static_assert(fast::message_type<small_record>);
    static_assert(!fast::message_type<std::string>); // not trivially copyable: rejected (P-FAST-1)
    static_assert(!fast::message_type<const int>);   // R-MSG-4 still applies
    auto [tx, rx] = fast::channel<small_record>(2);
    ASSERT_TRUE(tx.try_broadcast(small_record{7, 2.5, "thirteen...."}));
    const auto got = rx.try_recv();
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->id, 7u);
    EXPECT_EQ(got->value, 2.5);
    EXPECT_EQ(std::string(got->tag), "thirteen....");
}

TEST(fast_messages, an_eviction_hands_back_the_oldest_message_whole) { // R-OVF-1
    auto [tx, rx] = fast::channel<small_record>(1);
    tx.set_overflow(true);
    ASSERT_TRUE(tx.try_broadcast(small_record{1, 1.0, "one"}));
    const auto evicting = tx.try_broadcast(small_record{2, 2.0, "two"});
    ASSERT_TRUE(evicting.has_value() && evicting->has_value());
    EXPECT_EQ((*evicting)->id, 1u);
    EXPECT_EQ(std::string((*evicting)->tag), "one");
    EXPECT_EQ(rx.try_recv().error(), (recv_error{recv_errc::overflowed, 1}));
    EXPECT_EQ(rx.try_recv()->id, 2u);
}

TEST(fast_primitives, the_std_sets_meet_the_concept_and_the_reference_sets_do_not) { // R-IMPL-1, P-FAST-6
    static_assert(fast::channel_primitives<fast::std_primitives>);
    static_assert(fast::channel_primitives<fast::std_relaxed_position_primitives>);
    static_assert(!fast::channel_primitives<bcast::std_primitives>); // no wait words, no fence pair
    const fast::std_primitives::fences fences;
    std::atomic<std::uint64_t> word{0};
    fences.light(word); // both callable on any platform (the read-modify-write where membarrier is missing)
    fences.heavy(word);
    EXPECT_EQ(word.load(), 0u); // the fallback's read-modify-write changes nothing
    EXPECT_FALSE(fast::std_symmetric_fence_primitives::fences().asymmetric());
    SUCCEED() << "membarrier " << (fences.asymmetric() ? "available" : "not available") << " here";
}

} // namespace
} // namespace bcast::fast_tests
