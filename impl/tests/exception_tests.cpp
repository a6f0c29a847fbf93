// SPDX-License-Identifier: MIT OR Apache-2.0
// R-MSG-3: a throwing copy leaves the channel and the receiver as they were.
#include <gtest/gtest.h>

#include <string>

#include <bcast/bcast.hpp>

#include "counted.hpp"

namespace bcast::impl_tests {
namespace {

struct disarm {
    ~disarm() { throwing_copy::armed = false; }
};

TEST(exception_safety, throwing_copy_changes_nothing_and_retry_delivers_the_same_message) { // R-MSG-3
    disarm guard;
    auto [tx, rx] = channel<throwing_copy>(2);
    receiver<throwing_copy> other = rx; // two readers: the first receive copies
    ASSERT_TRUE(tx.try_broadcast(throwing_copy(1)));
    ASSERT_TRUE(tx.try_broadcast(throwing_copy(2)));
    throwing_copy::armed = true;
    // static_cast<void>: the copy throws, so there is no result to look at.
    EXPECT_THROW(static_cast<void>(rx.try_recv()), std::runtime_error);
    EXPECT_THROW(static_cast<void>(rx.recv()), std::runtime_error);
    EXPECT_EQ(tx.len(), 2u);
    throwing_copy::armed = false;
    EXPECT_EQ(rx.try_recv()->value, 1);
    EXPECT_EQ(other.try_recv()->value, 1);
    EXPECT_EQ(rx.try_recv()->value, 2);
    EXPECT_EQ(tx.len(), 1u);
}

TEST(exception_safety, last_reader_never_copies_so_cannot_throw) { // R-MSG-3, R-RECV-3
    disarm guard;
    auto [tx, rx] = channel<throwing_copy>(1);
    ASSERT_TRUE(tx.try_broadcast(throwing_copy(1)));
    throwing_copy::armed = true;
    EXPECT_EQ(rx.try_recv()->value, 1);
}

TEST(exception_safety, zero_capacity_is_rejected_before_anything_changes) { // R-CAP-1, R-CAP-2
    // static_cast<void>: it throws, so there are no handles to keep.
    EXPECT_THROW(static_cast<void>(channel<int>(0)), std::invalid_argument);
    auto [tx, rx] = channel<int>(2);
    ASSERT_TRUE(tx.try_broadcast(1));
    EXPECT_THROW(rx.set_capacity(0), std::invalid_argument);
    EXPECT_EQ(tx.capacity(), 2u);
    EXPECT_EQ(*rx.try_recv(), 1);
}


struct throwing_move {
    throwing_move(throwing_move&&) {} // not noexcept
};
struct throwing_destructor {
    ~throwing_destructor() noexcept(false) {}
};

// R-MSG-4: checked at compile time; the channel's static_assert uses this concept.
static_assert(message_type<int> && message_type<std::string> && message_type<throwing_copy>);
static_assert(!message_type<throwing_move>);
static_assert(!message_type<throwing_destructor>);

TEST(exception_safety, message_type_requires_nothrow_move_and_destruction) { // R-MSG-4
    EXPECT_TRUE(message_type<counted>);
    EXPECT_FALSE(message_type<throwing_move>);
}

} // namespace
} // namespace bcast::impl_tests
