// SPDX-License-Identifier: MIT OR Apache-2.0
// R-RECV-6 and R-QUERY-2 on the implementation alone: the ranges as C++20
// ranges (concepts, adaptors, range-for across threads, laziness, exceptions,
// moved-from receivers) and the pending counts read from another thread. The
// items and counts themselves are compared with the spec model by the
// conformance tests (spec/tests) and the property tests.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <bcast/bcast.hpp>

#include "channel_types.hpp"
#include "counted.hpp"

namespace bcast::impl_tests {
namespace {

using spec_tests::recv_failure;
using blocking_range = message_range<int, std_primitives, true>;
using polling_range = message_range<int, std_primitives, false>;

// R-RECV-6: what the types promise (message_range.hpp asserts the same on every include).
static_assert(std::ranges::input_range<blocking_range> && std::ranges::view<blocking_range>);
static_assert(std::ranges::input_range<polling_range> && std::ranges::view<polling_range>);
static_assert(!std::ranges::forward_range<blocking_range>); // single pass: an item is received once
static_assert(std::same_as<std::ranges::sentinel_t<blocking_range>, std::default_sentinel_t>);
static_assert(std::same_as<std::ranges::range_value_t<polling_range>, recv_result<int>>);
#if BCAST_SPEC_HAS_VIEW_ADAPTORS // channel_adapter.hpp: not with clang < 16 on libstdc++
static_assert(std::ranges::input_range<decltype(std::declval<blocking_range>() | std::views::take(3))>);
#endif
static_assert(std::same_as<decltype(std::declval<receiver<int>&>().messages()), blocking_range>);

// Only on an lvalue receiver: a temporary would be destroyed before the loop runs.
template <class R>
concept has_messages = requires(R&& rx) { std::forward<R>(rx).messages(); };
template <class R>
concept has_try_messages = requires(R&& rx) { std::forward<R>(rx).try_messages(); };
static_assert(has_messages<receiver<int>&> && !has_messages<receiver<int>> && !has_messages<const receiver<int>&>);
static_assert(has_try_messages<receiver<int>&> && !has_try_messages<receiver<int>&&>);

struct disarm {
    ~disarm() { throwing_copy::armed = false; }
};

// How a loop shows an item: the message, or the lag report.
std::string shown(const recv_result<int>& item) {
    return item ? std::to_string(*item) : "[missed " + std::to_string(item.error().missed) + "]";
}

TEST(ranges, range_for_reads_everything_another_thread_sends_then_ends_at_close) { // R-RECV-6, R-CLOSE-5
    auto [tx, rx] = channel<int>(4);
    std::thread producer([tx = std::move(tx)] {
        for (int i = 1; i <= 200; ++i) ASSERT_TRUE(tx.broadcast(i));
        tx.close();
    });
    int sum = 0, items = 0;
    // Blocks in recv() while the producer is behind; no overflow, so only messages.
    for (auto&& item : rx.messages()) {
        ASSERT_TRUE(item.has_value()) << item.error();
        sum += *item;
        ++items;
    }
    producer.join();
    EXPECT_EQ(items, 200);
    EXPECT_EQ(sum, 200 * 201 / 2);
    EXPECT_EQ(rx.try_recv().error(), recv_failure(recv_errc::closed));
}

TEST(ranges, lag_is_an_item_of_the_loop_not_skipped) { // R-RECV-6, R-OVF-2
    auto [tx, rx] = channel<int>(2);
    tx.set_overflow(true);
    for (int i = 1; i <= 5; ++i) ASSERT_TRUE(tx.try_broadcast(i)); // evicts 1, 2, 3
    tx.close();
    std::string seen;
    for (auto&& item : rx.messages()) seen += shown(item) + ' ';
    EXPECT_EQ(seen, "[missed 3] 4 5 ");
}

TEST(ranges, take_receives_exactly_n_and_does_not_wait_for_one_more) { // R-RECV-6
#if !BCAST_SPEC_HAS_VIEW_ADAPTORS
    GTEST_SKIP() << "this compiler cannot instantiate its standard library's range adaptors";
#else
    auto [tx, rx] = channel<int>(4);
    for (int i = 1; i <= 3; ++i) ASSERT_TRUE(tx.try_broadcast(i));
    std::vector<int> got;
    // The channel is open and has exactly 3: an eager ++ would block here for a 4th.
    for (auto&& item : rx.messages() | std::views::take(3)) got.push_back(*item);
    EXPECT_EQ(got, (std::vector<int>{1, 2, 3}));
    ASSERT_TRUE(tx.try_broadcast(4));
    ASSERT_TRUE(tx.try_broadcast(5));
    for (auto&& item : rx.try_messages() | std::views::take(1)) EXPECT_EQ(*item, 4);
    EXPECT_EQ(rx.unread(), 1u); // 5 was not received by the end of the take
    EXPECT_EQ(*rx.try_recv(), 5);
#endif
}

TEST(ranges, adaptors_compose_and_increment_without_a_look_skips_one_item) { // R-RECV-6
    auto [tx, rx] = channel<int>(6);
    tx.set_overflow(true);
#if BCAST_SPEC_HAS_VIEW_ADAPTORS
    for (int i = 1; i <= 8; ++i) ASSERT_TRUE(tx.try_broadcast(i)); // evicts 1, 2
    // drop(1) drops the lag report: it is received, then dropped.
    auto even = [](const recv_result<int>& item) { return *item % 2 == 0; };
    auto tenfold = [](const recv_result<int>& item) { return *item * 10; };
    auto values = rx.try_messages() | std::views::drop(1) | std::views::filter(even) | std::views::transform(tenfold);
    std::vector<int> tens;
    for (int ten : values) tens.push_back(ten);
    EXPECT_EQ(tens, (std::vector<int>{40, 60, 80}));
    EXPECT_EQ(rx.unread(), 0u);
#endif

    ASSERT_TRUE(tx.try_broadcast(9));
    ASSERT_TRUE(tx.try_broadcast(10));
    auto range = rx.try_messages();
    auto it = range.begin();
    ++it; // never looked at 9: received and dropped
    EXPECT_EQ(*(*it), 10);
}

TEST(ranges, an_item_can_be_moved_out_of_the_loop) { // R-RECV-6
    auto [tx, rx] = channel<std::string>(2);
    ASSERT_TRUE(tx.try_broadcast(std::string(40, 'a')));
    ASSERT_TRUE(tx.try_broadcast(std::string(40, 'b')));
    std::vector<std::string> kept;
    for (auto&& item : rx.try_messages()) kept.push_back(std::move(*item));
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_EQ(kept[1], std::string(40, 'b'));
}

TEST(ranges, a_throwing_copy_inside_a_loop_consumes_nothing) { // R-RECV-6, R-MSG-3
    disarm guard;
    auto [tx, rx] = channel<throwing_copy>(2);
    receiver<throwing_copy> other = rx; // two readers: rx's receive copies
    ASSERT_TRUE(tx.try_broadcast(throwing_copy(1)));
    throwing_copy::armed = true;
    auto loop = [&r = rx] { // an init-capture: clang 14 cannot capture a structured binding
        for (auto&& item : r.try_messages()) static_cast<void>(item);
    };
    EXPECT_THROW(loop(), std::runtime_error);
    throwing_copy::armed = false;
    EXPECT_EQ(rx.unread(), 1u);
    EXPECT_EQ(rx.try_recv()->value, 1); // the same message, retried
    EXPECT_EQ(other.try_recv()->value, 1);
}

TEST(ranges, an_ended_range_stays_ended_and_a_default_one_is_empty) { // R-RECV-6
    auto [tx, rx] = channel<int>(2);
    auto range = rx.try_messages();
    EXPECT_TRUE(range.begin() == range.end()); // empty now: ended
    ASSERT_TRUE(tx.try_broadcast(1));
    EXPECT_TRUE(range.begin() == range.end()); // still ended: a new pass needs a new range
    for (auto&& item : rx.try_messages()) EXPECT_EQ(*item, 1);
    polling_range none;
    EXPECT_TRUE(none.begin() == none.end());
}

TEST(ranges, moved_from_receiver_throws_logic_error_for_ranges_and_counts) { // R-HANDLE-1, R-RECV-6, R-QUERY-2
    auto [tx, rx] = channel<int>(1);
    receiver<int> kept = std::move(rx);
    // NOLINTBEGIN(bugprone-use-after-move): that is the point
    EXPECT_THROW(static_cast<void>(rx.messages()), std::logic_error);
    EXPECT_THROW(static_cast<void>(rx.try_messages()), std::logic_error);
    EXPECT_THROW(static_cast<void>(rx.unread()), std::logic_error);
    EXPECT_THROW(static_cast<void>(rx.missed()), std::logic_error);
    // NOLINTEND(bugprone-use-after-move)
    EXPECT_EQ(kept.unread(), 0u);
}

TEST(ranges, pending_counts_may_be_read_from_another_thread_while_receiving) { // R-QUERY-2, R-THREAD-1
    auto [tx, rx] = channel<int>(8);
    std::atomic<bool> done{false};
    std::thread watcher([&rx = rx, &done] {
        while (!done.load()) EXPECT_LE(rx.unread() + rx.missed(), 8u); // const: any thread, under the channel lock
    });
    int items = 0;
    std::thread producer([&tx = tx] {
        for (int i = 0; i < 2000; ++i) ASSERT_TRUE(tx.broadcast(i));
        tx.close();
    });
    for (auto&& item : rx.messages()) items += item.has_value() ? 1 : 0;
    producer.join();
    done.store(true);
    watcher.join();
    EXPECT_EQ(items, 2000);
    EXPECT_EQ(rx.unread(), 0u);
}

} // namespace
} // namespace bcast::impl_tests
