// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::fast's handle base: what its three handle types share (ownership of
// the channel state, their lifetime, the channel-wide settings and queries:
// R-QUERY-1, R-HANDLE-1..3) is the reference's counted_handle over this
// family's channel_state; and the deadline conversion its timed calls use.
#pragma once

#include <chrono>
#include <type_traits>

#include "../../detail/state_handle.hpp"
#include "state.hpp"

namespace bcast::fast::detail {

// A deadline on any clock as a steady_clock deadline (the futex's clock):
// exact for steady_clock, the remaining time added to now for another clock.
template <class Clock, class Duration>
std::chrono::steady_clock::time_point steady_deadline(const std::chrono::time_point<Clock, Duration>& deadline) {
    if constexpr (std::is_same_v<Clock, std::chrono::steady_clock>) {
        return std::chrono::time_point_cast<std::chrono::steady_clock::duration>(deadline);
    } else {
        const auto left = std::chrono::duration_cast<std::chrono::steady_clock::duration>(deadline - Clock::now());
        return std::chrono::steady_clock::now() + left;
    }
}

// A timed call with a deadline on any clock: `attempt(d)` makes the call with
// the steady_clock deadline d. For another clock the time left is converted
// once per attempt, and an attempt that timed out is made again while the
// caller's own clock has not reached the deadline: the call gives up only once
// its own clock says so (R-SEND-4, R-RECV-5), as the reference's condition
// variable does (a clock that jumps forward ends the wait at the next look,
// one that jumps back prolongs it). Each attempt re-checks once after its own
// deadline, so no wake-up racing a deadline is lost.
template <class Clock, class Duration, class Attempt, class TimedOut>
auto until_on_its_clock(const std::chrono::time_point<Clock, Duration>& deadline, Attempt attempt, TimedOut timed_out) {
    if constexpr (std::is_same_v<Clock, std::chrono::steady_clock>) {
        return attempt(steady_deadline(deadline));
    } else {
        for (;;) {
            auto answer = attempt(steady_deadline(deadline));
            if (!timed_out(answer) || Clock::now() >= deadline) return answer;
        }
    }
}

// What the handles share is the reference's code (bcast/detail/state_handle.hpp:
// state_handle, counted_handle and the seats) over this family's channel_state;
// handle_access is the same friend.
using bcast::detail::handle_access;

} // namespace bcast::fast::detail
