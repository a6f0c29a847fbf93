// SPDX-License-Identifier: MIT OR Apache-2.0
// The implementation families: the one registry of what bcast checks against
// the spec model. A family names one channel type per message type
// (spec/conformance.hpp, `implementation_family`). Every tool that runs "each
// implementation" iterates `registered_families`: the per-rule examples
// (spec/tests/channel_types.hpp), bcast_replay and the fuzzer
// (property_tests/), and the conformance suite's instantiations are checked
// against it (property_tests/src/properties.cpp). A new family is its adapter
// plus one line in the list at the end of this file.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#include <bcast/bcast.hpp>
#include <bcast/fast.hpp>

#include "channel_adapter.hpp"
#include "conformance.hpp"
#include "fast_channel_adapter.hpp"

namespace bcast::spec {

// The default: plain integer positions (bcast::std_primitives).
struct std_plain_family {
    static constexpr std::string_view name = "std_primitives";
    static constexpr std::string_view implementation = "bcast"; // what its recorded histories name
    template <class T>
    using channel = channel_adapter<T, std_primitives>;
};

// The atomic-position policy, sequentially consistent.
struct std_atomic_seq_cst_family {
    static constexpr std::string_view name = "std_atomic_seq_cst_primitives";
    static constexpr std::string_view implementation = "bcast std_atomic_seq_cst_primitives";
    template <class T>
    using channel = channel_adapter<T, std_atomic_seq_cst_primitives>;
};

// The atomic-position policy, relaxed. On one thread it runs the same code as
// the seq_cst one; it is registered for bcast_replay's sake only (a failure
// replayed under every position policy), not in the lockstep suites.
struct std_atomic_relaxed_family {
    static constexpr std::string_view name = "std_atomic_relaxed_primitives";
    static constexpr std::string_view implementation = "bcast std_atomic_relaxed_primitives";
    template <class T>
    using channel = channel_adapter<T, std_atomic_relaxed_primitives>;
};

// The second channel family, bcast::fast (docs/fast-design.md), under its
// profile P-FAST (spec/rules.md): every result compared with the model; the
// lifetimes and exception-safety properties are skipped by entry P-FAST-1.
struct fast_family {
    static constexpr std::string_view name = "fast";
    static constexpr std::string_view implementation = "bcast::fast";
    template <class T>
    using channel = fast_channel_adapter<T, fast::std_primitives>;
};

// A list of families, and a way to run something for each.
template <class... Families>
struct family_list {
    static constexpr std::size_t size = sizeof...(Families);
    // fn.template operator()<Family>() for each family, in order.
    template <class Fn>
    static void for_each(Fn&& fn) {
        (fn.template operator()<Families>(), ...);
    }
    template <class F>
    static constexpr bool contains = (std::is_same_v<F, Families> || ...);
    static_assert((implementation_family<Families> && ...), "each family meets spec/conformance.hpp");
};

// The registry: the families every sequential check runs (the per-rule
// examples, the lockstep properties, the fuzzer, bcast_replay).
using registered_families = family_list<std_plain_family, std_atomic_seq_cst_family, fast_family>;
// bcast_replay also replays under the relaxed position policy.
using replayed_families = family_list<std_plain_family, std_atomic_seq_cst_family, std_atomic_relaxed_family, fast_family>;

} // namespace bcast::spec
