// SPDX-License-Identifier: MIT OR Apache-2.0
// R-ERR-4: bcast's results offer std::expected's caller interface. The same
// caller code (the templates below, written once) is compiled against
// bcast::result in C++20 and C++23 modes (two binaries from this file), and,
// in C++23 mode, also against std::expected itself: if bcast::result drifted
// from std::expected's interface, one of the three would stop compiling or fail.
// std::expected's monadic members (and_then, transform, or_else,
// transform_error, error_or: __cpp_lib_expected >= 202211L) arrived in
// libstdc++ 13; with Debian 12's libstdc++ 12 (202202L) only the basic caller
// runs on std::expected, and libc++ 14 has no <expected> at all.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include <bcast/bcast.hpp>

#if __cplusplus > 202002L && __has_include(<expected>)
#include <expected>
#if defined(__cpp_lib_expected)
#define BCAST_TEST_STD_EXPECTED 1
#if __cpp_lib_expected >= 202211L
#define BCAST_TEST_STD_EXPECTED_MONADIC 1
#endif
#endif
#endif

namespace bcast::result_tests {
namespace {

// How each flavour spells "make an error": the only line that differs.
struct bcast_flavour {
    template <class V, class E>
    using type = bcast::result<V, E>;
    template <class V, class E>
    static type<V, E> fail(E error) { return type<V, E>(bcast::error_tag, std::move(error)); }
};
#ifdef BCAST_TEST_STD_EXPECTED
struct std_flavour {
    template <class V, class E>
    using type = std::expected<V, E>;
    template <class V, class E>
    static type<V, E> fail(E error) { return std::unexpected<E>(std::move(error)); }
};
#endif

// ---- the caller code: written once, as a user of std::expected writes it -----
template <class R>
std::string describe(const typename R::template type<int, recv_errc>& got) {
    return got.transform([](int v) { return "got " + std::to_string(v); })
        .value_or("nothing (" + std::string(to_string(got.error_or(recv_errc::empty))) + ")");
}

template <class R>
typename R::template type<int, recv_errc> parse_positive(int v) {
    if (v > 0) return v;
    return R::template fail<int, recv_errc>(recv_errc::empty);
}

template <class R>
typename R::template type<int, recv_errc> retry_on_empty(recv_errc code) {
    if (code == recv_errc::empty) return -1;
    return R::template fail<int, recv_errc>(code);
}

// The part of the interface every std::expected has (C++23 as published).
template <class R>
void check_the_basic_caller_code() {
    using result = typename R::template type<int, recv_errc>;
    result five = 5;
    const result closed = R::template fail<int, recv_errc>(recv_errc::closed);
    EXPECT_TRUE(five.has_value());
    EXPECT_TRUE(static_cast<bool>(five));
    EXPECT_FALSE(closed);
    EXPECT_EQ(*five, 5);
    EXPECT_EQ(five.value(), 5);
    EXPECT_EQ(closed.error(), recv_errc::closed);
    EXPECT_EQ(five.value_or(0), 5);
    EXPECT_EQ(closed.value_or(0), 0);
    *five = 6;
    EXPECT_EQ(std::move(five).value(), 6);
}

// The monadic part (P2505, __cpp_lib_expected 202211L).
template <class R>
void check_the_caller_code() {
    using result = typename R::template type<int, recv_errc>;
    const result five = 5;
    const result closed = R::template fail<int, recv_errc>(recv_errc::closed);
    EXPECT_EQ(describe<R>(five), "got 5");
    EXPECT_EQ(describe<R>(closed), "nothing (receiving from an empty and closed channel)");

    EXPECT_EQ(five.value_or(0), 5);
    EXPECT_EQ(closed.value_or(0), 0);
    EXPECT_EQ(five.error_or(recv_errc::timed_out), recv_errc::timed_out);
    EXPECT_EQ(closed.error_or(recv_errc::timed_out), recv_errc::closed);

    EXPECT_EQ(five.and_then(parse_positive<R>).value(), 5);
    EXPECT_EQ(result(0).and_then(parse_positive<R>).error(), recv_errc::empty);
    EXPECT_EQ(closed.and_then(parse_positive<R>).error(), recv_errc::closed); // f not called

    const result empty = R::template fail<int, recv_errc>(recv_errc::empty);
    EXPECT_EQ(empty.or_else(retry_on_empty<R>).value(), -1);
    EXPECT_EQ(closed.or_else(retry_on_empty<R>).error(), recv_errc::closed);
    EXPECT_EQ(five.or_else(retry_on_empty<R>).value(), 5); // f not called

    const auto as_text = closed.transform_error([](recv_errc code) { return std::string(to_string(code)); });
    EXPECT_EQ(as_text.error(), "receiving from an empty and closed channel");

    // Rvalue chains move the value through.
    auto moved = result(7).transform([](int&& v) { return std::to_string(v); }).value_or("none");
    EXPECT_EQ(moved, "7");
}

TEST(result, caller_code_runs_on_bcast_result) {
    check_the_basic_caller_code<bcast_flavour>();
    check_the_caller_code<bcast_flavour>();
}

#ifdef BCAST_TEST_STD_EXPECTED
TEST(result, same_basic_caller_code_runs_on_std_expected) { check_the_basic_caller_code<std_flavour>(); }
#endif
#ifdef BCAST_TEST_STD_EXPECTED_MONADIC
TEST(result, same_monadic_caller_code_runs_on_std_expected) { check_the_caller_code<std_flavour>(); }
#endif

TEST(result, channel_results_chain_like_expected) { // R-ERR-4 on real channel calls
    auto [tx, rx] = channel<int>(2);
    EXPECT_EQ(rx.try_recv().value_or(-1), -1);
    EXPECT_FALSE(tx.try_broadcast(4).value_or(std::nullopt).has_value()); // no eviction
    EXPECT_EQ(rx.try_recv().transform([](int v) { return v * 10; }).value_or(0), 40);
    tx.close();
    EXPECT_EQ(rx.try_recv().error_or(recv_error{}).code, recv_errc::closed);
    // A failed send hands the message back through or_else.
    auto back = tx.try_broadcast(9).or_else([](send_error<int> e) { return send_result<int>(std::optional<int>(e.message)); });
    EXPECT_EQ(back.value(), std::optional<int>(9));
}

TEST(result, mode_under_test) {
    // Which standard this binary was compiled for (so the two binaries differ).
    RecordProperty("cplusplus", std::to_string(__cplusplus));
    EXPECT_GE(__cplusplus, 202002L);
}

} // namespace
} // namespace bcast::result_tests
