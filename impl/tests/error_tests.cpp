// SPDX-License-Identifier: MIT OR Apache-2.0
// R-ERR-1, R-ERR-2, R-ERR-3: error codes, their display strings, std::error_code.
#include <gtest/gtest.h>

#include <sstream>
#include <system_error>

#include <bcast/bcast.hpp>

namespace bcast::impl_tests {
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
    EXPECT_THROW(static_cast<void>(got.value()), bad_result_access); // static_cast<void>: it throws instead of returning
    const auto sent = tx.try_broadcast(5);
    EXPECT_TRUE(sent);
    EXPECT_FALSE(sent.value().has_value());
}

TEST(errors, codes_convert_to_error_code_with_upstream_messages) { // R-ERR-3
    const std::error_code full = send_errc::full;
    EXPECT_EQ(full.message(), "sending into a full channel");
    EXPECT_STREQ(full.category().name(), "bcast.send");
    EXPECT_EQ(full, send_errc::full);
    const std::error_code closed = make_error_code(recv_errc::closed);
    EXPECT_EQ(closed.message(), "receiving from an empty and closed channel");
    EXPECT_STREQ(closed.category().name(), "bcast.recv");
    // Same value, different category: a send code is never a receive code.
    EXPECT_NE(std::error_code(send_errc::closed), std::error_code(recv_errc::empty));
    EXPECT_NE(full, recv_errc::empty);
    try {
        throw std::system_error(recv_errc::overflowed);
    } catch (const std::system_error& error) {
        EXPECT_EQ(error.code(), recv_errc::overflowed);
        EXPECT_EQ(error.code().message(), "receiving operation observed lost messages");
    }
}

TEST(errors, no_code_is_the_zero_error_code) { // R-ERR-3
    for (auto code : {send_errc::full, send_errc::closed, send_errc::inactive, send_errc::timed_out,
                      send_errc::cancelled}) {
        EXPECT_TRUE(std::error_code(code)) << to_string(code);
        EXPECT_EQ(std::error_code(code).message(), to_string(code));
    }
    for (auto code : {recv_errc::empty, recv_errc::closed, recv_errc::overflowed, recv_errc::timed_out,
                      recv_errc::cancelled}) {
        EXPECT_TRUE(std::error_code(code)) << to_string(code);
        EXPECT_EQ(std::error_code(code).message(), to_string(code));
    }
}

} // namespace
} // namespace bcast::impl_tests
