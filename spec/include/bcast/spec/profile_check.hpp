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
// P-TOKIO's entries that a history shows are a fixed state of the channel
// (capacity a power of two, overflow on, await_active off, a last receiver
// that does not close, sends that do not say what they evicted): the history
// is checked against the model started in that state (model_start), exactly.
// A history the spec model rejects is accepted only if such a reading passes
// (linearizable, or a deadlock the spec itself reaches). Everything else is
// checked exactly.
#pragma once

#include <bit>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
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

// A history as the model must see it under `profile`: the capacity rounded
// up, successful sends' evictions marked unreported, and calls appended that
// put the model in the profile's fixed state before anything else (ticks 0,
// thread -1, on handle numbers the history leaves free; they come last, so
// the report's indices of the history's own calls stay theirs). Unchanged for
// a profile without such a state.
struct model_start {
    std::vector<call> calls;
    std::size_t capacity;
    std::size_t recorded; // how many of `calls` are the history's own
};

inline model_start start_for(const conformance_profile& profile, std::span<const call> calls, std::size_t capacity,
                             int first_sender) {
    model_start s{{calls.begin(), calls.end()}, capacity, calls.size()};
    if (!profile.capacity_rounded_up_to_power_of_two.empty()) s.capacity = std::bit_ceil(capacity);
    if (!profile.sends_report_no_eviction.empty())
        for (call& c : s.calls)
            if (detail::lin::is_send(c.kind) && !c.is_pending() && c.result.code == 0) c.result.value = evicted_not_reported;
    auto before_all = [&](call_kind k, int handle, int arg, int out = -1) {
        call c;
        c.kind = k, c.thread = -1, c.handle = handle, c.arg = arg, c.out = out, c.invoked = 0, c.returned = 0;
        s.calls.push_back(c);
    };
    if (!profile.overflow_always_on.empty()) before_all(call_kind::set_overflow, first_sender, 1);
    if (!profile.await_active_always_off.empty()) before_all(call_kind::set_await_active, first_sender, 0);
    if (!profile.last_receiver_does_not_close.empty()) {
        std::vector<bool> used(max_logical_handles, false);
        used[std::size_t(first_sender)] = true;
        for (const call& c : calls) {
            used[std::size_t(c.handle)] = true;
            if (c.out >= 0) used[std::size_t(c.out)] = true;
        }
        std::vector<int> free;
        for (int h = max_logical_handles - 1; h >= 0 && free.size() < 2; --h)
            if (!used[std::size_t(h)]) free.push_back(h);
        if (free.size() < 2) throw std::invalid_argument("bcast::spec: a history under " + std::string(profile.name) + " needs two free handle numbers for its hidden inactive receiver");
        before_all(call_kind::new_receiver, first_sender, 0, free[0]);
        before_all(call_kind::deactivate, free[0], 0, free[1]);
    }
    return s;
}

// The model's report on the history started as `start` says, in the
// history's own terms: the appended calls are left out of its orders.
inline check_report without_start_calls(check_report r, const model_start& start) {
    auto outside = [&start](std::size_t i) { return i >= start.recorded; };
    std::erase_if(r.order, outside);
    std::erase_if(r.lost_calls, outside);
    if (r.wake_call && outside(*r.wake_call)) r.wake_call.reset();
    if (r.unplaceable && outside(*r.unplaceable)) r.unplaceable.reset();
    return r;
}

inline profile_verdict check_history_under(const conformance_profile& profile, std::span<const call> recorded_calls,
                                           std::size_t recorded_capacity, int first_sender, int first_receiver,
                                           check_options options = {}) {
    const model_start start = start_for(profile, recorded_calls, recorded_capacity, first_sender);
    if (start.calls.size() != recorded_calls.size() || start.capacity != recorded_capacity ||
        !profile.sends_report_no_eviction.empty())
        return {without_start_calls(check_history(start.calls, start.capacity, first_sender, first_receiver, options), start)};
    const std::span<const call> calls = recorded_calls;
    const std::size_t capacity = recorded_capacity;
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
