// SPDX-License-Identifier: MIT OR Apache-2.0
// The implementation families bcast checks against the spec model. A family
// names one channel type per message type (spec/conformance.hpp,
// `implementation_family`). The registry is families.def, one line per
// family; every check that runs "each implementation" iterates it: the
// per-rule examples (spec/tests/channel_types.hpp), the lockstep properties
// (property_tests/src/properties.cpp), bcast_replay and the fuzzer, the
// real-thread stress tests (model_tests/stress/stress_tests.cpp), the recorded
// histories (one ctest per line, spec/traces/CMakeLists.txt) and
// `bcast-trace record --channel`. A new family is its adapter (a Handles type,
// channel_adapter.hpp), its family struct and one line in families.def.
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

// A family's channel type: `Adapter` (channel_adapter, fast_channel_adapter)
// on the family's primitives, one per message type. Each family adds its
// `name` and the `implementation` its recorded histories name.
template <template <class, class> class Adapter, class Primitives>
struct adapter_family {
    template <class T>
    using channel = Adapter<T, Primitives>;
};

// The default: plain integer positions (bcast::std_primitives).
struct std_plain_family : adapter_family<channel_adapter, std_primitives> {
    static constexpr std::string_view name = "std_primitives", implementation = "bcast";
};

// The atomic-position policy, sequentially consistent.
struct std_atomic_seq_cst_family : adapter_family<channel_adapter, std_atomic_seq_cst_primitives> {
    static constexpr std::string_view name = "std_atomic_seq_cst_primitives", implementation = "bcast std_atomic_seq_cst_primitives";
};

// The atomic-position policy, relaxed. On one thread it runs the same code as
// the seq_cst one; it is registered for bcast_replay's sake only (a failure
// replayed under every position policy), not in the lockstep suites.
struct std_atomic_relaxed_family : adapter_family<channel_adapter, std_atomic_relaxed_primitives> {
    static constexpr std::string_view name = "std_atomic_relaxed_primitives", implementation = "bcast std_atomic_relaxed_primitives";
};

// The second channel family, bcast::fast (docs/fast-design.md), under its
// profile P-FAST (spec/rules.md): every result compared with the model; the
// lifetimes and exception-safety properties are skipped by entry P-FAST-1.
struct fast_family : adapter_family<fast_channel_adapter, fast::std_primitives> {
    static constexpr std::string_view name = "fast", implementation = "bcast::fast";
};

// The reference channel on the standard library's std::mutex and
// std::condition_variable (bcast::std_lock) instead of bcast's futex lock
// (on a platform without futexes that is the default, and this family is
// std_plain_family again). The family the registry's promise was measured on:
// this struct and its line in families.def are all it took to put it through
// every check above.
struct std_lock_family : adapter_family<channel_adapter, basic_std_primitives<plain_position, std_lock>> {
    static constexpr std::string_view name = "std_lock", implementation = "bcast std_lock";
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
    // The families as the arguments of a template (::testing::Types for a typed test suite).
    template <template <class...> class Template>
    using apply = Template<Families...>;
    static_assert((implementation_family<Families> && ...), "each family meets spec/conformance.hpp");
};

namespace detail {
// The families after a leading placeholder, so that every line of
// families.def can expand to ", type".
template <class Placeholder, class... Families>
struct registry_after {
    using type = family_list<Families...>;
};
template <class... Families>
struct append_family;
template <class... Families, class Extra>
struct append_family<family_list<Families...>, Extra> {
    using type = family_list<Families..., Extra>;
};
} // namespace detail

// The registry (families.def), in its order: every check above runs these.
#define BCAST_FAMILY(name_, type_) , type_
using registered_families = detail::registry_after<void
#include "families.def"
                                                   >::type;
#undef BCAST_FAMILY
// The first column of families.def is each family's name.
#define BCAST_FAMILY(name_, type_) \
    static_assert(type_::name == #name_, "families.def: the first column of a line is its family's name");
#include "families.def"
#undef BCAST_FAMILY

// bcast_replay also replays under the relaxed position policy.
using replayed_families = detail::append_family<registered_families, std_atomic_relaxed_family>::type;

} // namespace bcast::spec
