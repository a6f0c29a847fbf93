// SPDX-License-Identifier: MIT OR Apache-2.0
// Error vocabulary of the channel (R-ERR-1, R-ERR-2).
//
// Mirrors async-broadcast's TrySendError / SendError / TryRecvError / RecvError
// in one send error and one receive error type. The message of a failed send is
// always handed back (R-SEND-5); a receive error carries the number of missed
// messages when it reports an overflow (R-OVF-2).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>

namespace bcast {

/// Why a send failed (R-ERR-1). The message always comes back with it (R-SEND-5).
/// The values start at 1: as a std::error_code, 0 means "no error" (R-ERR-3).
enum class send_errc {
    full = 1,  ///< Overflow off and len() == capacity(); only try_broadcast() reports it (R-SEND-1).
    closed,    ///< The channel is closed (R-CLOSE-5). Checked first, so a full closed channel says `closed`.
    inactive,  ///< No active receiver: from try_broadcast(), or broadcast() with await_active off (R-ACT-1, R-ACT-2).
    timed_out, ///< broadcast_for() / broadcast_until() ran out of time while they would still wait (R-SEND-4).
    cancelled, ///< A pending async_broadcast() was cancelled through its stop token; nothing was sent (R-ASYNC-4).
};

/// Why a receive returned no message (R-ERR-1).
/// The values start at 1: as a std::error_code, 0 means "no error" (R-ERR-3).
enum class recv_errc {
    empty = 1,  ///< Nothing new for this receiver and the channel is open; only try_recv() reports it (R-RECV-1).
    closed,     ///< Closed, and this receiver has drained everything (R-CLOSE-5). Permanent.
    overflowed, ///< This receiver lost recv_error::missed messages and now continues at the oldest kept one (R-OVF-2). Reported once.
    timed_out,  ///< recv_for() / recv_until() ran out of time while the channel was open and had nothing new (R-RECV-5).
    cancelled,  ///< A pending async_recv() was cancelled through its stop token; no message was consumed (R-ASYNC-4).
};

/// A failed send: why, and the message, handed back unchanged (R-SEND-5).
/// Upstream's TrySendError and SendError in one type; upstream drops the
/// message of a cancelled send, bcast never drops it. `[[nodiscard]]`: a
/// dropped send_error is a failure nobody handles, and its message is
/// destroyed with it.
/// @tparam T The message type.
template <class T>
struct [[nodiscard("bcast::send_error: a failed send, holding the unsent message (R-SEND-5)")]] send_error {
    send_errc code; ///< Why the send failed.
    T message;      ///< The message that was not sent, now the caller's again.

    /// Equal codes and equal messages (T must be equality comparable to use it).
    [[nodiscard]] friend bool operator==(const send_error&, const send_error&) = default;
};

/// A receive that returned no message: upstream's TryRecvError and RecvError
/// in one type (R-ERR-1). `[[nodiscard]]`: a dropped recv_error is a failure
/// nobody handles, such as an overflow report (R-OVF-2) that is given once.
struct [[nodiscard("bcast::recv_error: why a receive returned no message (R-ERR-1)")]] recv_error {
    recv_errc code;           ///< Why no message was returned.
    std::uint64_t missed = 0; ///< For `overflowed`, the exact number of messages lost (head_pos − position, R-OVF-2); 0 otherwise.

    /// Equal codes and equal counts.
    [[nodiscard]] friend bool operator==(const recv_error&, const recv_error&) = default;
};

// Display strings: upstream's wording (async-broadcast 0.7.2, Display impls),
// so logs read the same in both languages. `timed_out` and `cancelled` have no
// upstream counterpart (upstream cancels by dropping the future). For overflowed, TryRecvError's wording is used (R-ERR-2).

/// Upstream's Display wording for a send error code, e.g. "sending into a full
/// channel" (R-ERR-2).
/// @complexity O(1); never allocates. @blocking Never. @threadsafety Any thread.
/// @param code The code to describe.
/// @return A static string.
[[nodiscard]] inline const char* to_string(send_errc code) noexcept {
    switch (code) {
    case send_errc::full: return "sending into a full channel";
    case send_errc::closed: return "sending into a closed channel";
    case send_errc::inactive: return "sending into the void (no active receivers)";
    case send_errc::timed_out: return "sending timed out";
    case send_errc::cancelled: return "sending was cancelled";
    }
    return "unknown send error";
}

/// Upstream's Display wording for a receive error code (R-ERR-2). For
/// `overflowed` the count is left out: use to_string(const recv_error&).
/// @complexity O(1); never allocates. @blocking Never. @threadsafety Any thread.
/// @param code The code to describe.
/// @return A static string.
[[nodiscard]] inline const char* to_string(recv_errc code) noexcept {
    switch (code) {
    case recv_errc::empty: return "receiving from an empty channel";
    case recv_errc::closed: return "receiving from an empty and closed channel";
    case recv_errc::overflowed: return "receiving operation observed lost messages";
    case recv_errc::timed_out: return "receiving timed out";
    case recv_errc::cancelled: return "receiving was cancelled";
    }
    return "unknown receive error";
}

/// Upstream's Display wording for a receive error, with the count for
/// `overflowed`: "receiving operation observed 3 lost messages" (R-ERR-2).
/// @complexity O(1); allocates the string. @blocking Never. @threadsafety Any thread.
/// @param error The error to describe.
/// @return The text.
[[nodiscard]] inline std::string to_string(const recv_error& error) {
    if (error.code == recv_errc::overflowed) {
        return "receiving operation observed " + std::to_string(error.missed) + " lost messages";
    }
    return to_string(error.code);
}

/// The wording of `error.code` (R-ERR-2); the message itself is not printed, so
/// T need not be printable.
/// @complexity O(1); allocates the string. @blocking Never. @threadsafety Any thread.
/// @tparam T The message type.
/// @param error The error to describe.
/// @return The text.
template <class T>
[[nodiscard]] std::string to_string(const send_error<T>& error) {
    return to_string(error.code);
}

/// Writes to_string(code); O(1), never blocks, as thread-safe as writing to `out`.
/// @param out The stream. @param code The code. @return `out`.
inline std::ostream& operator<<(std::ostream& out, send_errc code) { return out << to_string(code); }
/// Writes to_string(code); O(1), never blocks, as thread-safe as writing to `out`.
/// @param out The stream. @param code The code. @return `out`.
inline std::ostream& operator<<(std::ostream& out, recv_errc code) { return out << to_string(code); }
/// Writes to_string(error), with the count for `overflowed`; O(1), never blocks, as
/// thread-safe as writing to `out`. @param out The stream.
/// @param error The error. @return `out`.
inline std::ostream& operator<<(std::ostream& out, const recv_error& error) {
    return out << to_string(error);
}
/// Writes the wording of `error.code`, not the message; O(1), never blocks, as
/// thread-safe as writing to `out`. @tparam T The message type.
/// @param out The stream. @param error The error. @return `out`.
template <class T>
std::ostream& operator<<(std::ostream& out, const send_error<T>& error) {
    return out << to_string(error.code);
}

// ---- std::error_code support (R-ERR-3) -------------------------------------
// The codes are error-code enums, so code that already handles std::error_code
// (logging, std::system_error, an error-code based API) takes them as they are:
// `std::error_code ec = send_errc::full; ec.message()` is upstream's wording.

/// @cond BCAST_DETAIL
namespace detail {

// One category per enum: a send code and a receive code with the same value
// are different errors.
template <class Errc, const char* Name>
class errc_category final : public std::error_category {
public:
    const char* name() const noexcept override { return Name; }
    std::string message(int value) const override { return to_string(static_cast<Errc>(value)); }
};

inline constexpr char send_category_name[] = "bcast.send";
inline constexpr char recv_category_name[] = "bcast.recv";

} // namespace detail
/// @endcond

/// The error category of send_errc: name "bcast.send", messages as to_string() (R-ERR-3).
/// @complexity O(1). @blocking Never. @threadsafety Any thread.
/// @return The one category object.
[[nodiscard]] inline const std::error_category& send_category() noexcept {
    static const detail::errc_category<send_errc, detail::send_category_name> category;
    return category;
}

/// The error category of recv_errc: name "bcast.recv", messages as to_string() (R-ERR-3).
/// @complexity O(1). @blocking Never. @threadsafety Any thread.
/// @return The one category object.
[[nodiscard]] inline const std::error_category& recv_category() noexcept {
    static const detail::errc_category<recv_errc, detail::recv_category_name> category;
    return category;
}

/// `code` as a std::error_code in send_category(), found by argument-dependent
/// lookup (R-ERR-3). @param code The code. @return The error code; never 0.
[[nodiscard]] inline std::error_code make_error_code(send_errc code) noexcept {
    return {static_cast<int>(code), send_category()};
}

/// `code` as a std::error_code in recv_category(), found by argument-dependent
/// lookup (R-ERR-3). @param code The code. @return The error code; never 0.
[[nodiscard]] inline std::error_code make_error_code(recv_errc code) noexcept {
    return {static_cast<int>(code), recv_category()};
}

} // namespace bcast

/// @cond BCAST_STD_SPECIALIZATIONS
// send_errc converts to std::error_code (R-ERR-3).
template <>
struct std::is_error_code_enum<bcast::send_errc> : std::true_type {};
// recv_errc converts to std::error_code (R-ERR-3).
template <>
struct std::is_error_code_enum<bcast::recv_errc> : std::true_type {};
/// @endcond
