// SPDX-License-Identifier: MIT OR Apache-2.0
// Turning a timeout into a deadline without overflow (R-SEND-4, R-RECV-5).
#pragma once

#include <chrono>
#include <optional>

namespace bcast::detail {

// steady_clock::now() + timeout, or nothing when that is beyond the clock's
// range: `recv_for(std::chrono::hours::max())` is a common way to say "wait
// without limit", and the plain sum would overflow (undefined behaviour).
// The comparison is done in floating-point seconds, which cannot overflow.
template <class Rep, class Period>
std::optional<std::chrono::steady_clock::time_point> deadline_after(const std::chrono::duration<Rep, Period>& timeout) {
    using clock = std::chrono::steady_clock;
    const clock::time_point now = clock::now();
    const std::chrono::duration<double> room = clock::time_point::max() - now;
    if (std::chrono::duration<double>(timeout) >= room) return std::nullopt;
    return now + std::chrono::duration_cast<clock::duration>(timeout);
}

} // namespace bcast::detail
