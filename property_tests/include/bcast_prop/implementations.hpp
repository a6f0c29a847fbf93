// SPDX-License-Identifier: MIT OR Apache-2.0
// The implementation families the conformance suite is instantiated with.
//
// A family names one channel type per message type (spec/conformance.hpp).
// To check another implementation against the reference, write an adapter
// with the interface of bcast::spec::channel_adapter and a family like the
// ones below, and register the family with one BCAST_CONFORMANCE_SUITE(Name,
// Family) line in a GoogleTest source: src/properties.cpp for these,
// example/conformance_example.cpp for the worked example of docs/conformance.md.
// bcast_replay (src/replay.cpp) and the fuzzer (fuzz/fuzz_target.cpp) name the
// families they run in their own code; `replayed_by_bcast_replay` tells the
// suite that a failure's replay hint may name bcast_replay.
#pragma once

#include <string_view>

#include <bcast/bcast.hpp>
#include <bcast/spec/channel_adapter.hpp>
#include <bcast/spec/conformance.hpp>
#include <bcast/spec/fast_channel_adapter.hpp>

namespace bcast::prop {

// The default: plain integer positions (bcast::std_primitives).
struct std_plain_family {
    static constexpr std::string_view name = "std_primitives";
    static constexpr bool replayed_by_bcast_replay = true;
    template <class T>
    using channel = spec::channel_adapter<T, std_primitives>;
};

// The atomic-position policy, sequentially consistent.
struct std_atomic_seq_cst_family {
    static constexpr std::string_view name = "std_atomic_seq_cst_primitives";
    static constexpr bool replayed_by_bcast_replay = true;
    template <class T>
    using channel = spec::channel_adapter<T, std_atomic_seq_cst_primitives>;
};

// The atomic-position policy, relaxed.
struct std_atomic_relaxed_family {
    static constexpr std::string_view name = "std_atomic_relaxed_primitives";
    static constexpr bool replayed_by_bcast_replay = true;
    template <class T>
    using channel = spec::channel_adapter<T, std_atomic_relaxed_primitives>;
};

// The second channel family, bcast::fast (docs/fast-design.md), under its
// profile P-FAST (spec/rules.md): every result compared with the model; the
// lifetimes and exception-safety properties are skipped by entry P-FAST-1.
struct fast_family {
    static constexpr std::string_view name = "fast";
    static constexpr bool replayed_by_bcast_replay = true;
    template <class T>
    using channel = spec::fast_channel_adapter<T, fast::std_primitives>;
};

static_assert(spec::implementation_family<std_plain_family>);
static_assert(spec::implementation_family<fast_family>);
static_assert(spec::timed_broadcast_channel<fast_family::channel<int>, int>);
static_assert(spec::blocking_broadcast_channel<std_plain_family::channel<int>, int>);
static_assert(spec::implementation_family<std_atomic_seq_cst_family>);
static_assert(spec::implementation_family<std_atomic_relaxed_family>);

} // namespace bcast::prop
