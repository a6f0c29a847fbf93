// What the runner needs to drive the async API (R-ASYNC-1..5) from the
// command language: whether an implementation has it, the coroutines that
// await one operation, and a scheduler that only stores what it is given.
//
// The runner is single-threaded, so an async command is only ever one of:
//   - an operation that needs no wait: it must finish without suspending, with
//     the model's answer;
//   - an operation that would wait: it must suspend, and a stop request must
//     end it with `cancelled`, consuming or queueing nothing (R-ASYNC-4).
// Nothing else can complete a wait here; cross-thread completion is the
// stress tests' business.
#pragma once

#include <coroutine>
#include <cstddef>
#include <stop_token>
#include <utility>
#include <vector>

#include <bcast/bcast.hpp>
#include <bcast/spec/conformance.hpp>
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

// Stores the coroutines a completed operation hands it; the runner resumes
// them itself, so it can check that the scheduler was (or was not) used.
struct manual_scheduler {
    std::vector<std::coroutine_handle<>> queued;
    std::size_t scheduled = 0;

    manual_scheduler() { queued.reserve(4); } // one operation at a time: schedule() never allocates
    void schedule(std::coroutine_handle<> handle) noexcept {
        queued.push_back(handle);
        ++scheduled;
    }
    void resume_all() {
        std::vector<std::coroutine_handle<>> ready = std::exchange(queued, {});
        for (std::coroutine_handle<> handle : ready) handle.resume();
    }
};

// co_await rx.async_recv(...), inline or through `via`.
template <class T, class Primitives>
bcast_support::task<recv_result<T>> await_recv(receiver<T, Primitives>& rx, std::stop_token stop, manual_scheduler* via) {
    if (via != nullptr) co_return co_await rx.async_recv(*via, std::move(stop));
    co_return co_await rx.async_recv(std::move(stop));
}

// co_await tx.async_broadcast(message, ...), inline or through `via`.
template <class T, class Primitives>
bcast_support::task<send_result<T>> await_broadcast(const sender<T, Primitives>& tx, T message, std::stop_token stop,
                                                    manual_scheduler* via) {
    if (via != nullptr) co_return co_await tx.async_broadcast(*via, std::move(message), std::move(stop));
    co_return co_await tx.async_broadcast(std::move(message), std::move(stop));
}

} // namespace bcast::prop
