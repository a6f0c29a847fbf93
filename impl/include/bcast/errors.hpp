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
#include <utility>

namespace bcast {

enum class send_errc {
    full,      // overflow off and len() == capacity(); only try_broadcast reports it
    closed,    // the channel is closed (R-CLOSE-5)
    inactive,  // no active receiver (try_broadcast, or await_active off) (R-ACT-2)
    timed_out, // broadcast_for / broadcast_until ran out of time (R-SEND-4)
};

enum class recv_errc {
    empty,      // nothing new for this receiver; only try_recv reports it
    closed,     // closed and this receiver has drained everything (R-CLOSE-5)
    overflowed, // this receiver missed `missed` messages (R-OVF-2)
    timed_out,  // recv_for / recv_until ran out of time (R-RECV-5)
};

// A failed send: why, and the message, handed back unchanged.
template <class T>
struct send_error {
    send_errc code;
    T message;

    friend bool operator==(const send_error&, const send_error&) = default;
};

// A failed receive: why, and for `overflowed` how many messages were missed
// (0 for every other code).
struct recv_error {
    recv_errc code;
    std::uint64_t missed = 0;

    friend bool operator==(const recv_error&, const recv_error&) = default;
};

// Display strings: upstream's wording (async-broadcast 0.7.2, Display impls),
// so logs read the same in both languages. `timed_out` has no upstream
// counterpart. For overflowed, TryRecvError's wording is used (R-ERR-2).
inline const char* to_string(send_errc code) noexcept {
    switch (code) {
    case send_errc::full: return "sending into a full channel";
    case send_errc::closed: return "sending into a closed channel";
    case send_errc::inactive: return "sending into the void (no active receivers)";
    case send_errc::timed_out: return "sending timed out";
    }
    return "unknown send error";
}

inline const char* to_string(recv_errc code) noexcept {
    switch (code) {
    case recv_errc::empty: return "receiving from an empty channel";
    case recv_errc::closed: return "receiving from an empty and closed channel";
    case recv_errc::overflowed: return "receiving operation observed lost messages";
    case recv_errc::timed_out: return "receiving timed out";
    }
    return "unknown receive error";
}

inline std::string to_string(const recv_error& error) {
    if (error.code == recv_errc::overflowed) {
        return "receiving operation observed " + std::to_string(error.missed) + " lost messages";
    }
    return to_string(error.code);
}

template <class T>
std::string to_string(const send_error<T>& error) {
    return to_string(error.code);
}

inline std::ostream& operator<<(std::ostream& out, send_errc code) { return out << to_string(code); }
inline std::ostream& operator<<(std::ostream& out, recv_errc code) { return out << to_string(code); }
inline std::ostream& operator<<(std::ostream& out, const recv_error& error) {
    return out << to_string(error);
}
template <class T>
std::ostream& operator<<(std::ostream& out, const send_error<T>& error) {
    return out << to_string(error.code);
}

} // namespace bcast
