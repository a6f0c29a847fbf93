// R-ERR-1, R-ERR-2: error codes and their display strings.
#include <gtest/gtest.h>

#include <sstream>

#include <bcast/bcast.hpp>

namespace bcast::spec_tests {
namespace {

TEST(errors, send_error_strings_match_upstream) { // R-ERR-2
    EXPECT_STREQ(to_string(send_errc::full), "sending into a full channel");
    EXPECT_STREQ(to_string(send_errc::closed), "sending into a closed channel");
    EXPECT_STREQ(to_string(send_errc::inactive), "sending into the void (no active receivers)");
    EXPECT_STREQ(to_string(send_errc::timed_out), "sending timed out");
    EXPECT_STREQ(to_string(send_errc::cancelled), "sending was cancelled"); // R-ASYNC-4: no upstream wording
}

TEST(errors, recv_error_strings_match_upstream_and_carry_the_count) { // R-ERR-2
    EXPECT_EQ(to_string(recv_error{recv_errc::empty}), "receiving from an empty channel");
    EXPECT_EQ(to_string(recv_error{recv_errc::closed}), "receiving from an empty and closed channel");
    EXPECT_EQ(to_string(recv_error{recv_errc::overflowed, 3}), "receiving operation observed 3 lost messages");
    EXPECT_EQ(to_string(recv_error{recv_errc::timed_out}), "receiving timed out");
    EXPECT_EQ(to_string(recv_error{recv_errc::cancelled}), "receiving was cancelled");
    std::ostringstream out;
    out << recv_error{recv_errc::overflowed, 7} << '|' << send_errc::closed;
    EXPECT_EQ(out.str(), "receiving operation observed 7 lost messages|sending into a closed channel");
}

TEST(errors, missed_is_zero_except_for_overflowed) { // R-ERR-1
    auto [tx, rx] = channel<int>(1);
    EXPECT_EQ(rx.try_recv().error(), (recv_error{recv_errc::empty, 0}));
    tx.set_overflow(true);
    ASSERT_TRUE(tx.try_broadcast(1));
    ASSERT_TRUE(tx.try_broadcast(2));
    EXPECT_EQ(rx.try_recv().error(), (recv_error{recv_errc::overflowed, 1}));
}

TEST(errors, value_of_an_error_result_throws_bad_result_access) { // R-ERR-1
    auto [tx, rx] = channel<int>(1);
    auto got = rx.try_recv();
    EXPECT_FALSE(got);
    EXPECT_THROW(got.value(), bad_result_access);
    const auto sent = tx.try_broadcast(5);
    EXPECT_TRUE(sent);
    EXPECT_FALSE(sent.value().has_value());
}

} // namespace
} // namespace bcast::spec_tests
