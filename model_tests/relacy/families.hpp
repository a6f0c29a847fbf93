// SPDX-License-Identifier: MIT OR Apache-2.0
// The families of families.def as types, on_NAME (on_reference: the default On of the wakeup table's templates).
#pragma once

#include "harness.hpp"
#include "fast_harness.hpp" // after harness.hpp: relacy_primitives.hpp comes first

namespace bcast_rl {

// The wakeup-table cells a family runs (families.def, CELLS).
enum class wake_cells {
    by_row,         // the reference's own lines of scenarios.def (wake_* and the one-waiter suites), async ones too
    at_fast_bounds, // the BCAST_RELACY_CELL lines at cfg.fast_* bounds (registry.hpp, cell_search_of)
};

#define BCAST_RELACY_FAMILY(NAME, CELLS, HARNESS, PRIMITIVES, WAITING, PROFILE, ASYNC, BOUND, TIMED_BOUND, RANDOM) \
    struct on_##NAME { \
        static constexpr const char* name = #NAME; \
        static constexpr wake_cells cells = wake_cells::CELLS; \
        template <class Derived, int Threads, rl::test_result_e Expected = rl::test_result_success> \
        using harness = HARNESS<Derived, PRIMITIVES, Threads, Expected>; \
        static int waiting() { return WAITING; } \
        static constexpr const char* profile = PROFILE; \
        static constexpr bool async = ASYNC; \
        static constexpr unsigned bound = BOUND, bound_with_a_timed_command = TIMED_BOUND; \
        static constexpr long random = RANDOM; \
    };
#include "families.def"
#undef BCAST_RELACY_FAMILY

// fn.operator()<on_NAME>() for each family, in families.def's order.
template <class Fn>
constexpr void for_each_family(Fn&& fn) {
#define BCAST_RELACY_FAMILY(NAME, ...) fn.template operator()<on_##NAME>();
#include "families.def"
#undef BCAST_RELACY_FAMILY
}

// by_row cells are the reference's own lines: a second by_row family would run no wakeup-table cell.
static_assert([] { int n = 0; for_each_family([&]<class F>() { n += F::cells == wake_cells::by_row; }); return n; }() <= 1,
              "families.def: only the reference's cells are written by row; another family runs the CELL lines");

} // namespace bcast_rl
