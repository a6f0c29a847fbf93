// SPDX-License-Identifier: MIT OR Apache-2.0
// A recorded history checked under a conformance profile (spec/rules.md,
// "Profiles"): the one place where a profile's concurrent divergence is
// allowed, for the Relacy harness of bcast::fast
// (model_tests/relacy/fast_harness.hpp) and for recorded histories
// (spec/traces/include/bcast/trace/history_check.hpp) alike.
//
// Of the profiles' entries one shows in a history: P-FAST-3, an evicting send
// may hand back a message that a receive overlapping it delivered to the one
// receiver that still held it. Tried by reading some such sends as sends that
// evicted nothing. (P-FAST-7, withdrawn: the first bcast::fast published an
// eviction after its message, and a re-timing here accepted what that did;
// the channel now makes the pair one step, and this check accepts it no more.)
// A history the spec model rejects is accepted only if such a reading passes
// (linearizable, or a deadlock the spec itself reaches). Everything else is
// checked exactly.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "conformance_profile.hpp"
#include "linearizability.hpp"

namespace bcast::spec {

struct profile_verdict {
    check_report report;               // the strict verdict (against the model as written)
    std::string_view accepted_under{}; // the entry that accepts a history the strict check rejects, or empty
    bool accepted() const { return report.result == verdict::linearizable || !accepted_under.empty(); }
};

// The most evicting sends tried as "evicted nothing": 2^8 re-checks at most.
inline constexpr int max_profile_candidates = 8;

// An evicting send (a success handing back a message) and a receive of that
// message overlapping it: the pair P-FAST-3 is about.
inline bool reads_what_it_evicts(const call& send, const call& recv) {
    return detail::lin::is_send(send.kind) && !send.is_pending() && send.result.code == 0 && send.result.value >= 0 &&
           detail::lin::is_recv(recv.kind) && !recv.is_pending() && recv.result.code == 0 &&
           recv.result.value == send.result.value && recv.invoked < send.returned && send.invoked < recv.returned;
}

inline profile_verdict check_history_under(const conformance_profile& profile, std::span<const call> calls,
                                           std::size_t capacity, int first_sender, int first_receiver,
                                           check_options options = {}) {
    profile_verdict v{check_history(calls, capacity, first_sender, first_receiver, options)};
    if (v.report.result != verdict::not_linearizable || profile.name != fast_profile.name) return v;
    // P-FAST-3: the evicting sends that a receive of their evicted message overlaps.
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < calls.size() && candidates.size() < max_profile_candidates; ++i) {
        for (const call& recv : calls) {
            if (reads_what_it_evicts(calls[i], recv)) {
                candidates.push_back(i);
                break;
            }
        }
    }
    // Accepted when a relaxed reading passes: linearizable, or (with a call
    // still pending) a deadlock the spec itself would reach.
    std::vector<call> relaxed(calls.begin(), calls.end());
    for (unsigned subset = 1; subset < (1U << candidates.size()); ++subset) {
        for (std::size_t k = 0; k < candidates.size(); ++k)
            relaxed[candidates[k]].result.value = (subset & (1U << k)) != 0 ? -1 : calls[candidates[k]].result.value;
        const verdict relaxed_verdict = check_history(relaxed, capacity, first_sender, first_receiver, options).result;
        if (relaxed_verdict == verdict::linearizable || relaxed_verdict == verdict::spec_deadlock) {
            v.accepted_under = "P-FAST-3";
            return v;
        }
    }
    return v;
}

} // namespace bcast::spec
