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

// Thrown by result::value() when the result holds an error.
class bad_result_access : public std::exception {
public:
    const char* what() const noexcept override { return "bcast: value() called on a result holding an error"; }
};

// Tag to construct a result holding an error, like std::unexpect.
struct error_tag_t {
    explicit error_tag_t() = default;
};
inline constexpr error_tag_t error_tag{};

template <class V, class E>
class result {
public:
    using value_type = V;
    using error_type = E;

    result(V value) noexcept(std::is_nothrow_move_constructible_v<V>)
        : storage_(std::in_place_index<0>, std::move(value)) {}
    result(error_tag_t, E error) noexcept(std::is_nothrow_move_constructible_v<E>)
        : storage_(std::in_place_index<1>, std::move(error)) {}

    bool has_value() const noexcept { return storage_.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }

    V& value() & { check(); return *std::get_if<0>(&storage_); }
    const V& value() const& { check(); return *std::get_if<0>(&storage_); }
    V&& value() && { check(); return std::move(*std::get_if<0>(&storage_)); }

    // Precondition: has_value(). Like std::expected, unchecked.
    V& operator*() & noexcept { return *std::get_if<0>(&storage_); }
    const V& operator*() const& noexcept { return *std::get_if<0>(&storage_); }
    V&& operator*() && noexcept { return std::move(*std::get_if<0>(&storage_)); }
    V* operator->() noexcept { return std::get_if<0>(&storage_); }
    const V* operator->() const noexcept { return std::get_if<0>(&storage_); }

    // Precondition: !has_value().
    E& error() & noexcept { return *std::get_if<1>(&storage_); }
    const E& error() const& noexcept { return *std::get_if<1>(&storage_); }
    E&& error() && noexcept { return std::move(*std::get_if<1>(&storage_)); }

    friend bool operator==(const result&, const result&) = default;

private:
    void check() const {
        if (!has_value()) throw bad_result_access();
    }

    std::variant<V, E> storage_;
};

// Success: empty, or the oldest message evicted in overflow mode (R-OVF-1).
template <class T>
using send_result = result<std::optional<T>, send_error<T>>;

template <class T>
using recv_result = result<T, recv_error>;

} // namespace bcast
