// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_support::manual_scheduler: a scheduler (bcast::scheduler) that only
// stores the coroutines a completed async operation hands it. Whoever holds it
// decides when they resume (resume_all()) and can count how many went through
// it, so a single-threaded test can check that the scheduler overloads of
// async_recv / async_broadcast resume through the scheduler exactly when they
// should (R-ASYNC-3). Used by impl/tests/async_tests.cpp and the property
// tests' async commands (property_tests/include/bcast_prop/async.hpp).
#pragma once

#include <coroutine>
#include <cstddef>
#include <utility>
#include <vector>

#include <bcast/bcast.hpp>

namespace bcast_support {

struct manual_scheduler {
    // Room reserved up front: schedule() is noexcept, so it must not have to
    // grow the vector. 16 is more than any single-threaded test queues at once.
    static constexpr std::size_t room = 16;

    std::vector<std::coroutine_handle<>> queued;
    std::size_t scheduled = 0; // every handle ever given, resumed or not

    manual_scheduler() { queued.reserve(room); }
    void schedule(std::coroutine_handle<> handle) noexcept {
        queued.push_back(handle);
        ++scheduled;
    }
    // Resumes what is queued now; a resumed coroutine may schedule again, into
    // a fresh queue with the same room.
    void resume_all() {
        std::vector<std::coroutine_handle<>> ready = std::exchange(queued, {});
        queued.reserve(room);
        for (std::coroutine_handle<> handle : ready) handle.resume();
    }
};
static_assert(bcast::scheduler<manual_scheduler>);

} // namespace bcast_support
