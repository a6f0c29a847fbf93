// SPDX-License-Identifier: MIT OR Apache-2.0
// The channel a waiting scenario runs on. The wakeup table's scenarios
// (blocking_scenarios.hpp's one-waiter rows, wake_matrix_scenarios.hpp's
// cells) are the rows every family that blocks must pass, so they are written
// once, over On: the harness, and how it counts the threads that wait (a
// scenario's event thread waits for its waiters with until<V>(On::waiting()
// >= N), and the +until twin asks that the count was reached). A family
// without async calls (bcast::fast, P-FAST-5) runs the blocking and timed
// cells only: an async one does not compile on its harness.
#pragma once

#include "fast_harness.hpp"
#include "harness.hpp"

namespace bcast_rl {

struct on_reference {
    template <class Derived, int Threads, rl::test_result_e Expected>
    using harness = scenario<Derived, plain_primitives, Threads, Expected>;
    static int waiting() { return threads_waiting; } // Relacy condition-variable waits (relacy_primitives.hpp)
};

template <class Primitives = fast_release_primitives>
struct on_fast {
    template <class Derived, int Threads, rl::test_result_e Expected>
    using harness = fast_scenario<Derived, Primitives, Threads, Expected>;
    static int waiting() { return threads_sleeping; } // futex sleeps (fast_primitives.hpp)
};

} // namespace bcast_rl
