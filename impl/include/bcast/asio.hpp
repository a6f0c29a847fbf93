// SPDX-License-Identifier: MIT OR Apache-2.0
// Optional Asio adapter: bcast's async calls as Asio asynchronous operations,
// so completion tokens work: asio::use_awaitable, callbacks, asio::use_future,
// asio::deferred... Needs standalone Asio (Debian: libasio-dev, >= 1.22);
// nothing else in bcast includes this header.
//
//   auto got = co_await bcast::asio_recv(rx, asio::use_awaitable);
//   bcast::asio_broadcast(tx, msg, [](bcast::send_result<T> sent) { ... });
//
// Each operation runs bcast's own awaitable inside a small self-destroying
// coroutine (one allocation per operation, unlike co_await rx.async_recv()),
// and delivers the answer by asio::post to the handler's associated executor,
// as Asio requires (never inline from the initiating call). Outstanding work
// is tracked on that executor until then, so io_context::run() does not
// return while an operation waits. Asio's per-operation cancellation slots are
// not connected: pass a std::stop_token to cancel (R-ASYNC-4).
#pragma once

#include <coroutine>
#include <exception>
#include <optional>
#include <stop_token>
#include <utility>

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/post.hpp>

#include "bcast.hpp"

namespace bcast {

/// @cond detail
namespace detail {

// The coroutine that runs one operation for a handler; it starts at once and
// frees itself at its end. Nothing awaits it.
struct asio_bridge {
    struct promise_type {
        asio_bridge get_return_object() noexcept { return {}; }
        std::suspend_never initial_suspend() noexcept { return {}; }
        std::suspend_never final_suspend() noexcept { return {}; }
        void return_void() noexcept {}
        void unhandled_exception() noexcept { std::terminate(); } // the body catches what the channel throws
    };
};

// Runs the awaitable that `start()` returns (created in this frame: bcast
// awaitables cannot move), then posts `deliver(handler, failure, answer)` to
// the handler's associated executor.
template <class Answer, class Start, class Deliver, class Handler>
asio_bridge run_for_asio(Start start, Deliver deliver, Handler handler) {
    auto executor = ::asio::get_associated_executor(handler);
    auto work = ::asio::make_work_guard(executor); // keeps run() going while this waits
    std::exception_ptr failure;
    std::optional<Answer> answer;
    try {
        answer.emplace(co_await start());
    } catch (...) {
        failure = std::current_exception(); // a throwing message copy; the message stays queued (R-MSG-3)
    }
    ::asio::post(executor, [deliver, handler = std::move(handler), failure, answer = std::move(answer)]() mutable {
        deliver(handler, failure, std::move(answer));
    });
}

} // namespace detail
/// @endcond

/// async_recv() as an Asio asynchronous operation (optional header
/// bcast/asio.hpp). Completion signature `void(std::exception_ptr,
/// recv_result<T>)`: with asio::use_awaitable a throwing message copy is
/// rethrown at the co_await and the answer is returned otherwise.
/// @contract As receiver::async_recv(stop) (R-ASYNC-1, R-ASYNC-4); the
/// handler runs on its associated executor, never inside this call. If the
/// copy threw, the exception_ptr is set, the recv_result holds `empty`, and
/// the message is still queued (R-MSG-3).
/// @complexity One allocation (the bridging coroutine) plus the post.
/// @blocking Never.
/// @threadsafety As receiver::async_recv(): `rx` must outlive the operation (R-ASYNC-5).
/// @param rx The receiver. @param token An Asio completion token.
/// @param stop Cancels a pending wait.
/// @return Whatever `token` makes of the operation.
template <class T, class Primitives, class CompletionToken>
auto asio_recv(receiver<T, Primitives>& rx, CompletionToken&& token, std::stop_token stop = {}) {
    using answer_type = recv_result<T>;
    auto initiation = [&rx, stop = std::move(stop)](auto handler) mutable {
        detail::run_for_asio<answer_type>(
            [&rx, stop] { return rx.async_recv(stop); },
            [](auto& h, std::exception_ptr failure, std::optional<answer_type> answer) {
                std::move(h)(failure, answer ? std::move(*answer) : answer_type(error_tag, recv_error{recv_errc::empty, 0}));
            },
            std::move(handler));
    };
    return ::asio::async_initiate<CompletionToken, void(std::exception_ptr, answer_type)>(std::move(initiation), token);
}

/// async_broadcast() as an Asio asynchronous operation (optional header
/// bcast/asio.hpp). Completion signature `void(send_result<T>)`.
/// @contract As sender::async_broadcast(message, stop) (R-ASYNC-1,
/// R-ASYNC-4); the handler runs on its associated executor, never inside this
/// call.
/// @complexity One allocation (the bridging coroutine) plus the post.
/// @blocking Never.
/// @threadsafety As sender::async_broadcast(): `tx` must outlive the operation (R-ASYNC-5).
/// @param tx The sender. @param message The message; moved in.
/// @param token An Asio completion token. @param stop Cancels a pending wait.
/// @return Whatever `token` makes of the operation.
template <class T, class Primitives, class CompletionToken>
auto asio_broadcast(const sender<T, Primitives>& tx, T message, CompletionToken&& token, std::stop_token stop = {}) {
    using answer_type = send_result<T>;
    auto initiation = [&tx, stop = std::move(stop)](auto handler, T&& payload) mutable {
        detail::run_for_asio<answer_type>(
            [&tx, stop, payload = std::move(payload)]() mutable { return tx.async_broadcast(std::move(payload), stop); },
            [](auto& h, std::exception_ptr failure, std::optional<answer_type> answer) {
                if (failure) std::rethrow_exception(failure); // unreachable: sending copies nothing
                std::move(h)(std::move(*answer));
            },
            std::move(handler));
    };
    return ::asio::async_initiate<CompletionToken, void(answer_type)>(std::move(initiation), token, std::move(message));
}

} // namespace bcast
