// SPDX-License-Identifier: MIT OR Apache-2.0
// The implementation families the conformance suite is instantiated with: the
// one registry, bcast/spec/families.hpp, under the names the property tests
// have always used. To check another implementation against the spec model,
// write an adapter with the interface of bcast::spec::channel_adapter and a
// family like those, and either register the family in bcast's registry
// (bcast/spec/families.def: src/properties.cpp instantiates the suite for every
// line) or, outside bcast's tree, give it one BCAST_CONFORMANCE_SUITE(Name,
// Family) line in a GoogleTest source, as example/conformance_example.cpp,
// the worked example of docs/conformance.md, does.
#pragma once

#include <bcast/spec/families.hpp>

namespace bcast::prop {

using spec::fast_family;
using spec::registered_families;
using spec::replayed_families;
using spec::std_atomic_relaxed_family;
using spec::std_atomic_seq_cst_family;
using spec::std_plain_family;

// Whether the family's profile lets a check use counted, throwing-copy
// messages (instrumented_message); bcast::fast's P-FAST-1 does not.
template <class Family>
inline constexpr bool takes_counted_messages =
    spec::profile_of<typename Family::template channel<int>>().without_counted_messages.empty();

static_assert(spec::timed_broadcast_channel<fast_family::channel<int>, int>);
static_assert(spec::blocking_broadcast_channel<std_plain_family::channel<int>, int>);

} // namespace bcast::prop
