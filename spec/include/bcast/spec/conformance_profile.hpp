// SPDX-License-Identifier: MIT OR Apache-2.0
// Conformance profiles: the named divergences from spec/rules.md that an
// implementation declares, each with the rules it touches and the reason, so
// that the conformance kit checks everything else exactly and says, where it
// skips a check, which entry skips it (spec/rules.md, "Profiles").
//
// An adapter declares its profile as `static constexpr const
// conformance_profile& profile = ...;`; one without is checked against the
// reference profile, which diverges from nothing. The entries here are the
// ones spec/rules.md defines; an implementation outside bcast would add its
// own next to its adapter.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace bcast::spec {

// One divergence: its ID (spec/rules.md), the rules it touches, what differs.
struct profile_entry {
    std::string_view id;
    std::string_view rules;
    std::string_view what;
};

struct conformance_profile {
    std::string_view name;
    // What the property suite assumes of an implementation (docs/conformance.md),
    // and the entry that says it does not hold, empty when it holds:
    std::string_view without_counted_messages{}; // any nothrow-movable message type, instances counted (lifetimes, R-MSG-1, R-MSG-2)
    std::string_view without_throwing_copies{};  // a copy that throws changes nothing (exception_safety, R-MSG-3)
    std::span<const profile_entry> entries{};

    // The entry with this ID; throws std::logic_error for an ID the profile lacks.
    const profile_entry& entry(std::string_view id) const {
        for (const profile_entry& e : entries)
            if (e.id == id) return e;
        throw std::logic_error("bcast::spec: profile " + std::string(name) + " has no entry " + std::string(id));
    }
    // "profile P-FAST, P-FAST-1 (R-MSG-4, ...): what", for a skipped check's message.
    std::string describe(std::string_view id) const {
        const profile_entry& e = entry(id);
        return "profile " + std::string(name) + ", " + std::string(e.id) + " (" + std::string(e.rules) + "): " +
               std::string(e.what);
    }
};

// The reference: every rule as written.
inline constexpr conformance_profile reference_profile{"reference"};

// bcast::fast (docs/fast-design.md): the receive path takes no lock and makes
// no read-modify-write. The entries restate spec/rules.md, "Profile P-FAST".
inline constexpr profile_entry fast_profile_entries[] = {
    {"P-FAST-1", "R-MSG-4, R-MSG-1, R-MSG-2, R-MSG-3, R-EXC-1",
     "messages are trivially copyable (a compile-time error otherwise): a receiver's copy is validated after it is "
     "made (a seqlock), which only such a type allows; there is no destructor to run and no copy that can throw"},
    {"P-FAST-2", "R-RECV-3, R-MSG-1",
     "every reader copies the message (no move to the last reader), and its bytes stay in the slot until the slot "
     "is reused: knowing which reader is the last needs a read-modify-write per receive"},
    {"P-FAST-3", "R-OVF-1",
     "an evicting send may hand back a message that a receive overlapping it delivered to the one receiver that "
     "still held it; sequential histories are exact, and every receiver still gets each message at most once, in "
     "order, with exact overflowed(n) counts"},
    {"P-FAST-4", "R-EXC-1, R-IMPL-3",
     "creating a receiver (a copy, new_receiver, activate, activate_cloned) allocates its position cell and may "
     "throw std::bad_alloc, changing nothing; a growing set_capacity keeps the old ring until the channel is "
     "destroyed (at most twice the largest ring)"},
    {"P-FAST-5", "R-ASYNC-1, R-ASYNC-2, R-ASYNC-3, R-ASYNC-4, R-ASYNC-5", "no async calls"},
    {"P-FAST-6", "R-IMPL-1, R-IMPL-2",
     "its own primitive set (atomics, wait words and a fence pair, no condition variable), and the position is "
     "atomic: senders read it while its receiver writes it (a plain integer is a data race)"},
};
inline constexpr conformance_profile fast_profile{"P-FAST", "P-FAST-1", "P-FAST-1", fast_profile_entries};

// The profile an adapter declares, or the reference's.
template <class C>
constexpr const conformance_profile& profile_of() {
    if constexpr (requires { C::profile; }) return C::profile;
    else return reference_profile;
}

} // namespace bcast::spec
