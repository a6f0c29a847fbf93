// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::spec history vocabulary: one recorded operation of a concurrent run
// (`call`), what it answered (`outcome`), and how an answer of the channel is
// written down (`encode_send`, `encode_recv`).
//
// A recorder (the Relacy harness, a stress test, a fuzzer) fills one `call` per
// channel operation, taking two ticks of one clock: at the invocation and at
// the response. Call A really happened before call B iff A.returned <
// B.invoked. A call still blocked when the run ended keeps `returned ==
// pending_tick`. Handles are named by small "logical" numbers (0..63) chosen by
// the recorder; a call that creates a handle names it in `out`.
// bcast/spec/linearizability.hpp checks such a history against the model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include <bcast/errors.hpp>
#include <bcast/result.hpp>

#include "operations.hpp"

namespace bcast::spec {

// The kind's name as written in histories and reports ("try_broadcast", ...);
// "?" for a value outside the enum (a corrupted recording).
inline const char* name(call_kind kind) {
    const operation* op = find_operation(kind);
    return op != nullptr ? op->name.data() : "?";
}

// The inverse of name(): lets tools read a history written as text.
inline std::optional<call_kind> call_kind_from_name(std::string_view text) {
    const operation* op = find_operation(text);
    return op != nullptr ? std::optional<call_kind>(op->kind) : std::nullopt;
}

// An observed (or replayed) answer in one comparable form.
// code: 0 success, else 1 + the errc value (send_errc / recv_errc).
// value: the received message, the evicted message (-1: none), the message
// handed back by a failed send, close()'s bool, or a query's answer.
// missed: overflowed(n)'s n.
struct outcome {
    int code = 0;
    int value = -1;
    std::uint64_t missed = 0;
    friend bool operator==(const outcome&, const outcome&) = default;
};

// A send's answer as an outcome: success with the evicted message (or -1), or
// the error code with the message handed back (R-SEND-5, R-OVF-1).
template <class V>
outcome encode_send(const bcast::send_result<V>& r) {
    if (r.has_value()) return {0, r->has_value() ? int(**r) : -1, 0};
    return {1 + int(r.error().code), int(r.error().message), 0};
}

// A receive's answer as an outcome: the message, or the error code with the
// overflowed count (R-RECV-1, R-OVF-2).
template <class V>
outcome encode_recv(const bcast::recv_result<V>& r) {
    if (r.has_value()) return {0, int(*r), 0};
    return {1 + int(r.error().code), -1, r.error().missed};
}

// outcome::value of a successful send whose implementation does not say what
// it evicted (a profile's sends_report_no_eviction): it matches the model's
// success whatever the model evicted.
inline constexpr int evicted_not_reported = -2;

// `call::returned` of a call that was still pending (blocked) when the run ended.
inline constexpr std::uint64_t pending_tick = ~std::uint64_t{0};

// One operation of a concurrent history. Trivially copyable, so a recorder can
// keep them in a fixed std::array without allocating.
struct call {
    call_kind kind{};
    int thread = 0;                        // who called it (any int; the Relacy harness uses -1 for setup, 99 for teardown)
    int handle = 0;                        // logical handle it is called on
    int out = -1;                          // logical handle it creates (clone_*, new_*, deactivate, activate*)
    int arg = 0;                           // message / capacity / flag
    std::uint64_t invoked = 0;             // tick of the invocation
    std::uint64_t returned = pending_tick; // tick of the response; pending_tick: still pending when the run ended
    // A timed call's deadline on the same clock: the first tick at or after it
    // (0: not recorded). A timed_out answer takes effect no earlier (R-SEND-4,
    // R-RECV-5), so every call that returned before the deadline precedes it.
    std::uint64_t deadline = 0;
    outcome result{};
    // Whether the call had not returned when the run ended.
    bool is_pending() const { return returned == pending_tick; }
};
static_assert(std::is_trivially_copyable_v<call>, "recorders keep calls in fixed arrays");

} // namespace bcast::spec
