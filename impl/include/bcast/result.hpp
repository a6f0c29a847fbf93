// send_result<T> and recv_result<T>: std::expected's interface in C++20.
//
// `result<V, E>` holds either a value or an error. It offers the subset of
// std::expected that callers use (has_value, operator bool, value, operator*,
// operator->, error); on C++23 it could be replaced by std::expected without
// changing any caller.
#pragma once

#include <exception>
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

/// A value or an error: the subset of C++23's std::expected that bcast's
/// callers use, so that moving to std::expected changes no caller.
///
/// Plain data, independent of the channel once returned.
///
/// @complexity Every member is O(1), apart from the copy or move of the held
/// value or error in the constructors and the comparison.
/// @blocking Never; no member takes a lock.
/// @threadsafety Like any standard value type: const members may be called
/// concurrently, anything else needs exclusive use of the object.
/// @tparam V The value type.
/// @tparam E The error type.
template <class V, class E>
class result {
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
    bool has_value() const noexcept { return storage_.index() == 0; }
    /// @return has_value(), so `if (auto m = rx.try_recv())` reads naturally.
    explicit operator bool() const noexcept { return has_value(); }

    /// The value, checked. @exception bad_result_access if this holds an error.
    /// @return The value.
    V& value() & { check(); return *std::get_if<0>(&storage_); }
    /// The value, checked. @exception bad_result_access if this holds an error.
    /// @return The value.
    const V& value() const& { check(); return *std::get_if<0>(&storage_); }
    /// The value, checked, to move from. @exception bad_result_access if this
    /// holds an error. @return The value.
    V&& value() && { check(); return std::move(*std::get_if<0>(&storage_)); }

    // Precondition: has_value(). Like std::expected, unchecked.
    /// The value, unchecked: precondition has_value(). @return The value.
    V& operator*() & noexcept { return *std::get_if<0>(&storage_); }
    /// The value, unchecked: precondition has_value(). @return The value.
    const V& operator*() const& noexcept { return *std::get_if<0>(&storage_); }
    /// The value to move from, unchecked: precondition has_value(). @return The value.
    V&& operator*() && noexcept { return std::move(*std::get_if<0>(&storage_)); }
    /// The value's members, unchecked: precondition has_value(). @return Its address.
    V* operator->() noexcept { return std::get_if<0>(&storage_); }
    /// The value's members, unchecked: precondition has_value(). @return Its address.
    const V* operator->() const noexcept { return std::get_if<0>(&storage_); }

    // Precondition: !has_value().
    /// The error, unchecked: precondition !has_value(). @return The error.
    E& error() & noexcept { return *std::get_if<1>(&storage_); }
    /// The error, unchecked: precondition !has_value(). @return The error.
    const E& error() const& noexcept { return *std::get_if<1>(&storage_); }
    /// The error to move from, unchecked: precondition !has_value(). @return The error.
    E&& error() && noexcept { return std::move(*std::get_if<1>(&storage_)); }

    /// Equal when both hold equal values or both hold equal errors.
    friend bool operator==(const result&, const result&) = default;

private:
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
