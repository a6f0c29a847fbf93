// SPDX-License-Identifier: MIT OR Apache-2.0
// send_result<T> and recv_result<T>: std::expected's interface in C++20.
//
// `result<V, E>` holds either a value or an error (R-ERR-4). It offers what
// std::expected offers its callers (has_value, operator bool, value, operator*,
// operator->, error, value_or, error_or, and_then, transform, or_else,
// transform_error), so caller code reads the same in C++20 and C++23
// (impl/tests/result_tests.cpp compiles one caller against bcast::result in
// both modes and against std::expected in C++23). It stays bcast's own type
// in both modes, so a program's ABI does not depend on -std.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "errors.hpp"

namespace bcast {

/// Thrown by result::value() when the result holds an error (like
/// std::bad_expected_access).
class bad_result_access : public std::exception {
public:
    /// O(1), never blocks, callable from any thread. @return A fixed description.
    const char* what() const noexcept override { return "bcast: value() called on a result holding an error"; }
};

/// Type of error_tag.
struct error_tag_t {
    /// Explicit, so `{}` never means "an error".
    explicit error_tag_t() = default;
};
/// Selects the error constructor of result, like std::unexpect.
inline constexpr error_tag_t error_tag{};

/// A value or an error, with C++23 std::expected's interface for callers
/// (not `result<void, E>`: every bcast result holds a value type).
///
/// Plain data, independent of the channel once returned.
///
/// The type is `[[nodiscard]]`: a call that returns a result and whose result
/// is dropped is diagnosed (-Wunused-result), because the result is the only
/// place a failed send hands its message back (R-SEND-5) and a receive puts
/// its message or the reason it has none (R-RECV-1). The observers below are
/// `[[nodiscard]]` too, as queries with no other effect (the convention of
/// libc++ and the MSVC STL); the monadic members return a result, so they are
/// covered by the type. Write `(void)` before a call only where dropping the
/// outcome is what the code means, and say why next to it.
///
/// @complexity Every member is O(1), apart from the copy or move of the held
/// value or error in the constructors and the comparison.
/// @blocking Never; no member takes a lock.
/// @threadsafety Like any standard value type: const members may be called
/// concurrently, anything else needs exclusive use of the object.
/// @tparam V The value type.
/// @tparam E The error type.
template <class V, class E>
class [[nodiscard("the outcome: a received message, or a failed send's message (R-RECV-1, R-SEND-5)")]] result {
public:
    using value_type = V; ///< What a success holds.
    using error_type = E; ///< What a failure holds.

    /// A success holding `value`. @param value The value; moved in.
    result(V value) noexcept(std::is_nothrow_move_constructible_v<V>)
        : storage_(std::in_place_index<0>, std::move(value)) {}
    /// A failure holding `error`. @param error The error; moved in.
    result(error_tag_t, E error) noexcept(std::is_nothrow_move_constructible_v<E>)
        : storage_(std::in_place_index<1>, std::move(error)) {}

    /// @return Whether this holds a value.
    [[nodiscard]] bool has_value() const noexcept { return storage_.index() == 0; }
    /// @return has_value(), so `if (auto m = rx.try_recv())` reads naturally.
    [[nodiscard]] explicit operator bool() const noexcept { return has_value(); }

    /// The value, checked. @exception bad_result_access if this holds an error.
    /// @return The value.
    [[nodiscard]] V& value() & { check(); return *std::get_if<0>(&storage_); }
    /// The value, checked. @exception bad_result_access if this holds an error.
    /// @return The value.
    [[nodiscard]] const V& value() const& { check(); return *std::get_if<0>(&storage_); }
    /// The value, checked, to move from. @exception bad_result_access if this
    /// holds an error. @return The value.
    [[nodiscard]] V&& value() && { check(); return std::move(*std::get_if<0>(&storage_)); }

    // Precondition: has_value(). Like std::expected, unchecked.
    /// The value, unchecked: precondition has_value(). @return The value.
    [[nodiscard]] V& operator*() & noexcept { return *std::get_if<0>(&storage_); }
    /// The value, unchecked: precondition has_value(). @return The value.
    [[nodiscard]] const V& operator*() const& noexcept { return *std::get_if<0>(&storage_); }
    /// The value to move from, unchecked: precondition has_value(). @return The value.
    [[nodiscard]] V&& operator*() && noexcept { return std::move(*std::get_if<0>(&storage_)); }
    /// The value's members, unchecked: precondition has_value(). @return Its address.
    [[nodiscard]] V* operator->() noexcept { return std::get_if<0>(&storage_); }
    /// The value's members, unchecked: precondition has_value(). @return Its address.
    [[nodiscard]] const V* operator->() const noexcept { return std::get_if<0>(&storage_); }

    // Precondition: !has_value().
    /// The error, unchecked: precondition !has_value(). @return The error.
    [[nodiscard]] E& error() & noexcept { return *std::get_if<1>(&storage_); }
    /// The error, unchecked: precondition !has_value(). @return The error.
    [[nodiscard]] const E& error() const& noexcept { return *std::get_if<1>(&storage_); }
    /// The error to move from, unchecked: precondition !has_value(). @return The error.
    [[nodiscard]] E&& error() && noexcept { return std::move(*std::get_if<1>(&storage_)); }

    /// The value, or `fallback` for an error (std::expected::value_or).
    /// @param fallback Converted to V. @return A copy of the value, or the fallback.
    template <class U>
    [[nodiscard]] V value_or(U&& fallback) const& {
        return has_value() ? **this : static_cast<V>(std::forward<U>(fallback));
    }
    /// The value moved out, or `fallback` for an error.
    /// @param fallback Converted to V. @return The value, or the fallback.
    template <class U>
    [[nodiscard]] V value_or(U&& fallback) && {
        return has_value() ? std::move(**this) : static_cast<V>(std::forward<U>(fallback));
    }
    /// The error, or `fallback` for a value (std::expected::error_or).
    /// @param fallback Converted to E. @return A copy of the error, or the fallback.
    template <class G>
    [[nodiscard]] E error_or(G&& fallback) const& {
        return has_value() ? static_cast<E>(std::forward<G>(fallback)) : error();
    }
    /// The error moved out, or `fallback` for a value.
    /// @param fallback Converted to E. @return The error, or the fallback.
    template <class G>
    [[nodiscard]] E error_or(G&& fallback) && {
        return has_value() ? static_cast<E>(std::forward<G>(fallback)) : std::move(error());
    }

    /// Chains a step that may fail: `f(value)` when this holds a value, else
    /// the error unchanged (std::expected::and_then).
    /// @param f Takes the value, returns a result<U, E>. @return f's result or the error.
    template <class F>
    auto and_then(F&& f) const& { return chain_value<false>(*this, std::forward<F>(f)); }
    /// and_then on an rvalue: the value is moved into `f`. @param f Takes the value.
    /// @return f's result or the error.
    template <class F>
    auto and_then(F&& f) && { return chain_value<false>(std::move(*this), std::forward<F>(f)); }
    /// Maps the value: a result holding `f(value)`, or the error unchanged
    /// (std::expected::transform). @param f Takes the value, returns a non-void U.
    /// @return result<U, E>.
    template <class F>
    auto transform(F&& f) const& { return chain_value<true>(*this, std::forward<F>(f)); }
    /// transform on an rvalue: the value is moved into `f`. @param f Takes the value.
    /// @return result<U, E>.
    template <class F>
    auto transform(F&& f) && { return chain_value<true>(std::move(*this), std::forward<F>(f)); }
    /// Handles an error: `f(error)` when this holds one, else the value unchanged
    /// (std::expected::or_else). @param f Takes the error, returns a result<V, G>.
    /// @return f's result or the value.
    template <class F>
    auto or_else(F&& f) const& { return chain_error<false>(*this, std::forward<F>(f)); }
    /// or_else on an rvalue: the error is moved into `f`. @param f Takes the error.
    /// @return f's result or the value.
    template <class F>
    auto or_else(F&& f) && { return chain_error<false>(std::move(*this), std::forward<F>(f)); }
    /// Maps the error: a result holding `f(error)`, or the value unchanged
    /// (std::expected::transform_error). @param f Takes the error, returns G.
    /// @return result<V, G>.
    template <class F>
    auto transform_error(F&& f) const& { return chain_error<true>(*this, std::forward<F>(f)); }
    /// transform_error on an rvalue: the error is moved into `f`. @param f Takes the error.
    /// @return result<V, G>.
    template <class F>
    auto transform_error(F&& f) && { return chain_error<true>(std::move(*this), std::forward<F>(f)); }

    /// Equal when both hold equal values or both hold equal errors.
    [[nodiscard]] friend bool operator==(const result&, const result&) = default;

private:
    // and_then (Wrap = false: f returns the next result) and transform (Wrap =
    // true: f returns the next value), written once for both value categories.
    template <bool Wrap, class Self, class F>
    static auto chain_value(Self&& self, F&& f) {
        using arg = decltype(*std::forward<Self>(self));
        using returned = std::remove_cvref_t<std::invoke_result_t<F, arg>>;
        if constexpr (Wrap) {
            static_assert(!std::is_void_v<returned>, "bcast::result::transform: f must return a value");
            using next = result<returned, E>;
            if (self.has_value()) return next(std::invoke(std::forward<F>(f), *std::forward<Self>(self)));
            return next(error_tag, std::forward<Self>(self).error());
        } else {
            static_assert(std::is_same_v<typename returned::error_type, E>,
                          "bcast::result::and_then: f must return a result with the same error type");
            if (self.has_value()) return std::invoke(std::forward<F>(f), *std::forward<Self>(self));
            return returned(error_tag, std::forward<Self>(self).error());
        }
    }
    // or_else (Wrap = false) and transform_error (Wrap = true), the mirror image.
    template <bool Wrap, class Self, class F>
    static auto chain_error(Self&& self, F&& f) {
        using arg = decltype(std::forward<Self>(self).error());
        using returned = std::remove_cvref_t<std::invoke_result_t<F, arg>>;
        if constexpr (Wrap) {
            using next = result<V, returned>;
            if (!self.has_value()) return next(error_tag, std::invoke(std::forward<F>(f), std::forward<Self>(self).error()));
            return next(*std::forward<Self>(self));
        } else {
            static_assert(std::is_same_v<typename returned::value_type, V>,
                          "bcast::result::or_else: f must return a result with the same value type");
            if (!self.has_value()) return std::invoke(std::forward<F>(f), std::forward<Self>(self).error());
            return returned(*std::forward<Self>(self));
        }
    }

    void check() const {
        if (!has_value()) throw bad_result_access();
    }

    std::variant<V, E> storage_;
};

/// What a send returns. Success holds an empty optional, or, in overflow
/// mode, the oldest message, evicted to make room and now the caller's
/// (R-OVF-1, R-SEND-2). Failure holds a send_error with the message (R-SEND-5).
/// @tparam T The message type.
template <class T>
using send_result = result<std::optional<T>, send_error<T>>;

/// What a receive returns: the message, or a recv_error (R-RECV-1).
/// @tparam T The message type.
template <class T>
using recv_result = result<T, recv_error>;

} // namespace bcast
