// SPDX-License-Identifier: MIT OR Apache-2.0
// What the runner needs to drive the async API (R-ASYNC-1..5) from the
// command language: whether an implementation has it, the coroutines that
// await one operation (resumed inline or through a
// bcast_support::manual_scheduler, which only stores what it is given), and
// how one thread takes such an operation to its end.
//
// The runner is single-threaded, so an async command is only ever one of:
//   - an operation that needs no wait: it must finish without suspending, with
//     the model's answer;
//   - an operation that would wait: it must suspend, and a stop request must
//     end it with `cancelled`, consuming or queueing nothing (R-ASYNC-4).
// Nothing else can complete a wait here; cross-thread completion is the
// stress tests' business.
#pragma once

#include <cstddef>
#include <stop_token>
#include <string>
#include <utility>

#include <bcast/bcast.hpp>
#include <bcast/spec/conformance.hpp>
#include <bcast_support/manual_scheduler.hpp>
#include <bcast_support/task.hpp>

namespace bcast::prop {

// An implementation with co_await-able operations on the handles its adapter
// exposes (bcast::spec::channel_adapter's receiver_at / sender_at). Others are
// still checked; their async commands run as the blocking or zero-timeout ones.
template <class C, class T>
concept async_broadcast_channel =
    spec::broadcast_channel<C, T> && requires(C& c, spec::handle_id id, T message, std::stop_token stop) {
        c.receiver_at(id).async_recv(stop);
        c.sender_at(id).async_broadcast(std::move(message), stop);
    };

// co_await rx.async_recv(...), inline or through `via`.
template <class T, class Primitives>
bcast_support::task<recv_result<T>> await_recv(receiver<T, Primitives>& rx, std::stop_token stop,
                                               bcast_support::manual_scheduler* via) {
    if (via != nullptr) co_return co_await rx.async_recv(*via, std::move(stop));
    co_return co_await rx.async_recv(std::move(stop));
}

// co_await tx.async_broadcast(message, ...), inline or through `via`.
template <class T, class Primitives>
bcast_support::task<send_result<T>> await_broadcast(const sender<T, Primitives>& tx, T message, std::stop_token stop,
                                                    bcast_support::manual_scheduler* via) {
    if (via != nullptr) co_return co_await tx.async_broadcast(*via, std::move(message), std::move(stop));
    co_return co_await tx.async_broadcast(std::move(message), std::move(stop));
}

// Takes a just-started async operation to its end the only ways one thread
// can; returns what went wrong ("" if nothing). The task is done afterwards
// unless something went wrong; nothing is left in the scheduler.
template <class Task>
std::string drive(Task& task, std::stop_source& stop, bcast_support::manual_scheduler& scheduler, bool via_scheduler,
                  bool would_block, bool stop_first) {
    if (!would_block || stop_first) {
        // An answer at once, or a wait that a stop request before the call
        // turns into `cancelled`: no suspension, no scheduler (R-ASYNC-1, R-ASYNC-4).
        if (!task.done()) {
            return would_block ? "suspended although stop was requested before the call"
                               : "suspended although the spec model says it need not wait";
        }
        if (scheduler.scheduled != 0) return "went through the scheduler although it did not wait";
        stop.request_stop(); // after completion: must change nothing (checked by the comparisons that follow)
        return {};
    }
    if (task.done()) return "did not wait although the spec model says it must";
    stop.request_stop(); // the canceller completes it, and resumes it inline or through the scheduler (R-ASYNC-3)
    const bool resumed_inline = task.done();
    const std::size_t scheduled = scheduler.scheduled;
    scheduler.resume_all(); // never leave a completed operation unresumed
    if (!task.done()) return "a stop request did not end the wait";
    if (via_scheduler && (resumed_inline || scheduled != 1)) {
        return "was resumed inline, or handed to the scheduler " + std::to_string(scheduled) +
               " times, although a scheduler was given (once expected)";
    }
    return {};
}

// A stop source only where a token is used: a real one allocates its state.
inline std::stop_source stop_source_for(bool needed) {
    return needed ? std::stop_source() : std::stop_source(std::nostopstate);
}

} // namespace bcast::prop
