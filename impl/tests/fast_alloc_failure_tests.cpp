// SPDX-License-Identifier: MIT OR Apache-2.0
// Profile P-FAST-4 (spec/rules.md): in bcast::fast, creating a receiver (a
// copy, new_receiver, activate, activate_cloned) allocates its position cell,
// and a set_capacity that grows past the slots allocates a new ring; when
// that allocation fails the operation throws std::bad_alloc and changes
// nothing. Tested the way alloc_failure_tests.cpp tests the reference: for
// every N the Nth allocation of the operation is refused (first only that
// one, then every one from the Nth on), and the channel is then compared with
// a twin on which the operation was not made (every query, and every message
// each receiver drains), and nothing leaked. The loop ends at the first N that
// refuses nothing: each test states how many allocations its operation makes.
//
// This binary replaces the global operator new (bcast_support/
// failing_allocator.hpp), which is why it is an executable of its own.
#include <bcast_support/failing_allocator.hpp> // replaces operator new and delete for this whole binary

#include <gtest/gtest.h>

#include <functional>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <bcast/fast.hpp>

namespace bcast::fast_alloc_tests {
namespace {

using bcast_support::failing_allocations;
using bcast_support::failure_mode;

// A channel of capacity 2 holding 1 and 2, with a second receiver that read 1.
struct world {
    std::pair<fast::sender<int>, fast::receiver<int>> ends = fast::channel<int>(2);
    fast::receiver<int> reader = ends.second;
    std::optional<fast::inactive_receiver<int>> parked;
    std::vector<fast::receiver<int>> made; // what a successful operation created

    world() {
        made.reserve(4); // the test's own bookkeeping allocates nothing while the hook is armed
        EXPECT_TRUE(ends.first.try_broadcast(1));
        EXPECT_TRUE(ends.first.try_broadcast(2));
        EXPECT_EQ(*reader.try_recv(), 1);
        parked.emplace(ends.second.new_receiver().deactivate());
    }

    // Everything a user can see, as text: the queries, then what each
    // receiver drains (which changes the world: call it last).
    std::string seen() {
        const auto& tx = ends.first;
        std::string out = "len " + std::to_string(tx.len()) + " capacity " + std::to_string(tx.capacity()) +
                          " receivers " + std::to_string(tx.receiver_count()) + " inactive " +
                          std::to_string(tx.inactive_receiver_count()) + " full " + std::to_string(tx.is_full());
        for (auto* rx : {&ends.second, &reader}) {
            out += " | unread " + std::to_string(rx->unread()) + " missed " + std::to_string(rx->missed()) + ":";
            for (auto got = rx->try_recv(); got || got.error().code == recv_errc::overflowed; got = rx->try_recv()) {
                out += got ? " " + std::to_string(*got) : " overflowed(" + std::to_string(got.error().missed) + ")";
            }
        }
        return out;
    }
};

// Runs `operation` on a fresh world for every N (both failure modes) until it
// refuses nothing; returns that N, the number of allocations it makes.
long check_every_failure(const std::function<void(world&)>& operation) {
    const std::string untouched = world().seen();
    for (long n = 0;; ++n) {
        for (failure_mode mode : {failure_mode::once, failure_mode::from_then_on}) {
            world w;
            bool threw = false;
            bcast_support::allocation_log log;
            {
                failing_allocations armed(n, mode);
                try {
                    operation(w);
                } catch (const std::bad_alloc&) {
                    threw = true;
                }
                log = armed.log();
            }
            if (!log.fired) {
                EXPECT_FALSE(threw);
                return n; // the operation made n allocations, and succeeded
            }
            EXPECT_TRUE(threw) << "allocation " << n << " was refused but the operation did not fail";
            EXPECT_EQ(log.allocations, log.deallocations) << "a failed operation leaked (allocation " << n << ")";
            w.made.clear();
            EXPECT_EQ(w.seen(), untouched) << "a failed operation changed the channel (allocation " << n << ")";
        }
    }
}

TEST(fast_alloc_failure, receiver_copy_allocates_its_cell_and_a_failure_changes_nothing) { // P-FAST-4, R-EXC-1
    EXPECT_EQ(check_every_failure([](world& w) { w.made.push_back(w.ends.second); }), 1);
}

TEST(fast_alloc_failure, new_receiver_and_activate_cloned_allocate_a_cell) { // P-FAST-4, R-LIFE-2, R-LIFE-5
    EXPECT_EQ(check_every_failure([](world& w) { w.made.push_back(w.ends.first.new_receiver()); }), 1);
    EXPECT_EQ(check_every_failure([](world& w) { w.made.push_back(w.parked->activate_cloned()); }), 1);
}

TEST(fast_alloc_failure, activate_allocates_a_cell_and_a_failure_keeps_the_inactive_receiver) { // P-FAST-4, R-LIFE-5
    EXPECT_EQ(check_every_failure([](world& w) { w.made.push_back(std::move(*w.parked).activate()); }), 1);
}

TEST(fast_alloc_failure, growing_past_the_slots_allocates_a_ring_and_a_failure_changes_nothing) { // P-FAST-4, R-CAP-2
    // Capacity 2 has 4 slots: growing to 4 needs a ring of 8 (the ring, its
    // slots, and room in the list of retired rings).
    EXPECT_EQ(check_every_failure([](world& w) { w.ends.first.set_capacity(4); }), 3);
    // Within the slots nothing is allocated.
    EXPECT_EQ(check_every_failure([](world& w) { w.ends.first.set_capacity(3); }), 0);
}

} // namespace
} // namespace bcast::fast_alloc_tests
