// SPDX-License-Identifier: MIT OR Apache-2.0
// Async vocabulary: where a completed async_recv() / async_broadcast() resumes
// its coroutine (R-ASYNC-3). The operations themselves are members of
// bcast::receiver and bcast::sender; docs/async.md explains the design.
#pragma once

#include <coroutine>

namespace bcast {

/// Something that can resume a coroutine later, on its own terms (a thread
/// pool, an event loop): `s.schedule(handle)` queues `handle` and returns at
/// once; the scheduler calls `handle.resume()` once, on a thread of its choice.
/// schedule() must not throw (it is called where an exception cannot go).
///
/// cppcoro-style executors whose `schedule()` returns an awaitable adapt with a
/// one-line wrapper that posts the handle.
///
/// The scheduler overloads of receiver::async_recv() and
/// sender::async_broadcast() are constrained on it, so passing anything else
/// is one error naming this concept and the missing `s.schedule(handle)`.
/// It does not check that schedule() is noexcept: inline_scheduler's is not
/// marked so (a coroutine's resume() is not), and requiring it would reject
/// such schedulers; a throwing schedule() ends the program instead.
template <class S>
concept scheduler = requires(S& s, std::coroutine_handle<> handle) { s.schedule(handle); };

/// The default: a completed operation resumes its coroutine inline, on the
/// thread that completed it (the sender, closer or canceller), right after that
/// thread has released the channel lock. Cheapest; see docs/async.md for what
/// this means for reentrancy.
struct inline_scheduler {
    /// Resumes `handle` at once, on the calling thread.
    /// @param handle The coroutine to resume.
    void schedule(std::coroutine_handle<> handle) const { handle.resume(); }
};

static_assert(scheduler<inline_scheduler>);

} // namespace bcast
