// The implementation families the conformance suite is instantiated with.
//
// A family names one channel type per message type (spec/conformance.hpp).
// To check another implementation against the reference, write an adapter
// with the interface of bcast::spec::channel_adapter, a family like the ones
// below, and add it to `implementations` in src/properties.cpp (one line; see
// docs/conformance.md for a worked example).
#pragma once

#include <string_view>

#include <bcast/bcast.hpp>
#include <bcast/spec/channel_adapter.hpp>
#include <bcast/spec/conformance.hpp>

namespace bcast::prop {

// The default: plain integer positions (bcast::std_primitives).
struct std_plain_family {
    static constexpr std::string_view name = "std_primitives";
    template <class T>
    using channel = spec::channel_adapter<T, std_primitives>;
};

// The atomic-position policy, sequentially consistent.
struct std_atomic_seq_cst_family {
    static constexpr std::string_view name = "std_atomic_seq_cst_primitives";
    template <class T>
    using channel = spec::channel_adapter<T, std_atomic_seq_cst_primitives>;
};

// The atomic-position policy, relaxed.
struct std_atomic_relaxed_family {
    static constexpr std::string_view name = "std_atomic_relaxed_primitives";
    template <class T>
    using channel = spec::channel_adapter<T, std_atomic_relaxed_primitives>;
};

static_assert(spec::implementation_family<std_plain_family>);
static_assert(spec::blocking_broadcast_channel<std_plain_family::channel<int>, int>);
static_assert(spec::implementation_family<std_atomic_seq_cst_family>);
static_assert(spec::implementation_family<std_atomic_relaxed_family>);

} // namespace bcast::prop
