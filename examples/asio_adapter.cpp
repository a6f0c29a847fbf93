// SPDX-License-Identifier: MIT OR Apache-2.0
// The optional Asio adapter (bcast/asio.hpp): bcast's async calls with Asio
// completion tokens (R-ASYNC-1). One io_context thread runs everything, so the
// transcript is deterministic:
//   - a consumer coroutine (asio::awaitable, co_spawn) reads with use_awaitable
//     until the channel closes;
//   - a producer sends with plain callbacks, each send started from the
//     previous one's handler: on a capacity-1 channel the second send waits
//     until the consumer has read the first (R-SEND-3);
//   - then main uses asio::use_future on a second channel (the handlers run on
//     Asio's system executor), and cancels a waiting receive through a
//     std::stop_token: it consumed nothing (R-ASYNC-4).
#include <bcast/asio.hpp>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>

#include <future>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "transcript.hpp"

namespace {

asio::awaitable<void> consumer(bcast::receiver<std::string>& rx, std::vector<std::string>& seen) {
    for (;;) {
        bcast::recv_result<std::string> got = co_await bcast::asio_recv(rx, asio::use_awaitable);
        seen.push_back(examples::describe(got));
        if (!got) co_return; // closed, after the two messages
    }
}

// Sends `lines[index]` and, from its handler, the next one; closes after the last.
void send_from(bcast::sender<std::string>& tx, const std::vector<std::string>& lines, std::size_t index,
               std::vector<std::string>& log) {
    if (index == lines.size()) {
        tx.close();
        return;
    }
    bcast::asio_broadcast(tx, lines[index], [&tx, &lines, index, &log](bcast::send_result<std::string> sent) {
        log.push_back(lines[index] + ": " + examples::describe(sent));
        send_from(tx, lines, index + 1, log);
    });
}

} // namespace

int main() {
    examples::transcript out;
    asio::io_context io;
    auto [tx, rx] = bcast::channel<std::string>(1);

    std::vector<std::string> seen;
    std::vector<std::string> send_log;
    asio::co_spawn(io, consumer(rx, seen), asio::detached);
    const std::vector<std::string> lines{"first", "second"};
    send_from(tx, lines, 0, send_log);
    io.run(); // returns when the consumer saw `closed` and nothing is pending

    for (const std::string& line : send_log) out.line("sent ", line);
    for (const std::string& line : seen) out.line("consumer: ", line);

    auto [tx2, rx2] = bcast::channel<std::string>(1);
    out.line("future send: ", examples::describe(bcast::asio_broadcast(tx2, std::string("hello"), asio::use_future).get()));
    out.line("future recv: ", examples::describe(bcast::asio_recv(rx2, asio::use_future).get()));

    std::stop_source stop;
    std::future<bcast::recv_result<std::string>> waiting = bcast::asio_recv(rx2, asio::use_future, stop.get_token());
    stop.request_stop(); // ends the wait; the future gets `cancelled`
    out.line("cancelled wait: ", examples::describe(waiting.get()));
    static_cast<void>(tx2.try_broadcast("after the cancel"));
    out.line("then: ", examples::describe(rx2.try_recv())); // nothing was consumed by the cancelled wait

    return out.finish("sent first: sent\n"
                      "sent second: sent\n"
                      "consumer: first\n"
                      "consumer: second\n"
                      "consumer: receiving from an empty and closed channel\n"
                      "future send: sent\n"
                      "future recv: hello\n"
                      "cancelled wait: receiving was cancelled\n"
                      "then: after the cancel\n");
}
