// SPDX-License-Identifier: MIT OR Apache-2.0
// The results of a send and a receive in a form the runner can compare and
// print: the spec model answers with send_result<int> / recv_result<int>, an
// implementation with its own message type, and message_traits reads both as
// the int the runner numbered the message with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include <bcast/errors.hpp>
#include <bcast/result.hpp>

#include "messages.hpp"

namespace bcast::prop {

struct send_outcome {
    bool ok = false;
    std::optional<int> evicted; // ok: the evicted message, if any
    send_errc code{};           // !ok
    int returned = 0;           // !ok: the message handed back

    friend bool operator==(const send_outcome&, const send_outcome&) = default;
};

struct recv_outcome {
    bool ok = false;
    int value = 0;    // ok
    recv_errc code{}; // !ok
    std::uint64_t missed = 0;

    friend bool operator==(const recv_outcome&, const recv_outcome&) = default;
};

inline std::ostream& operator<<(std::ostream& out, const send_outcome& s) {
    if (s.ok) return s.evicted ? out << "ok, evicted " << *s.evicted : out << "ok";
    return out << "error '" << s.code << "', message " << s.returned << " handed back";
}

inline std::ostream& operator<<(std::ostream& out, const recv_outcome& r) {
    if (r.ok) return out << "message " << r.value;
    if (r.code == recv_errc::overflowed) return out << "overflowed(" << r.missed << ")";
    return out << "error '" << r.code << "'";
}

template <class Msg>
send_outcome to_outcome(const send_result<Msg>& r) {
    using traits = message_traits<Msg>;
    if (r.has_value()) {
        std::optional<int> evicted;
        if (*r) evicted = traits::value(**r);
        return send_outcome{true, evicted, {}, 0};
    }
    return send_outcome{false, std::nullopt, r.error().code, traits::value(r.error().message)};
}

template <class Msg>
recv_outcome to_outcome(const recv_result<Msg>& r) {
    if (r.has_value()) return recv_outcome{true, message_traits<Msg>::value(*r), {}, 0};
    return recv_outcome{false, 0, r.error().code, r.error().missed};
}

// The items a receiver's range yielded (R-RECV-6), in order.
template <class Msg>
std::vector<recv_outcome> to_outcomes(const std::vector<recv_result<Msg>>& items) {
    std::vector<recv_outcome> outcomes;
    for (const recv_result<Msg>& item : items) outcomes.push_back(to_outcome(item));
    return outcomes;
}

inline std::ostream& operator<<(std::ostream& out, const std::vector<recv_outcome>& items) {
    out << '[';
    for (std::size_t i = 0; i < items.size(); ++i) out << (i == 0 ? "" : ", ") << items[i];
    return out << ']';
}

} // namespace bcast::prop
