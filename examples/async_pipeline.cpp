// SPDX-License-Identifier: MIT OR Apache-2.0
// Coroutines instead of threads: `co_await tx.async_broadcast(...)` and
// `co_await rx.async_recv()` suspend the coroutine, not the thread, where the
// blocking calls would wait, and give the same answers (R-ASYNC-1,
// docs/async.md). bcast ships the awaitables, not a runtime: the coroutine type
// and the thread pool here are tiny helpers from impl/tests/support.
//
// Part 1: a pipeline on a thread pool. One producer coroutine, three consumer
//         coroutines; the producer suspends whenever the channel is full and
//         closes it when done; each consumer drains what is left, then stops.
// Part 2: overflow mode: a producer that never waits, and a consumer that
//         handles lag reports; the books balance.
// Part 3: cancelling a waiting consumer with a std::stop_source: its receive
//         ends with `cancelled` and consumed nothing.
//
// Coroutines do not print: they return what they saw, and main prints after
// waiting for them, so the transcript is the same on every run.
#include <bcast/bcast.hpp>
#include <bcast_support/task.hpp>
#include <bcast_support/thread_pool.hpp>

#include <cstdint>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "transcript.hpp"

namespace {

using bcast_support::task;
using bcast_support::thread_pool;

struct totals {
    std::uint64_t jobs = 0;
    std::uint64_t sum = 0;
    bool in_order = true; // got 1, 2, 3, ... with no gap
};

// A consumer. `while (auto job = co_await ...)` reads until the first error:
// here `closed`, once everything sent has been read (R-CLOSE-5). Passing
// `pool` makes the coroutine resume on a pool thread after each wait
// (R-ASYNC-3). The receiver is a parameter, so it lives in the coroutine frame
// and outlives its pending receive, as it must (R-ASYNC-5).
task<totals> consume(bcast::receiver<std::uint64_t> rx, thread_pool& pool) {
    co_await bcast_support::resume_on(pool); // leave the caller's thread: run on the pool from here on
    totals seen;
    while (auto job = co_await rx.async_recv(pool)) {
        seen.in_order = seen.in_order && *job == seen.jobs + 1;
        ++seen.jobs;
        seen.sum += *job;
    }
    co_return seen;
}

// The producer. While the channel is full, async_broadcast() suspends it
// (R-SEND-3) until a consumer has made room; no thread blocks. Closing when
// done lets the consumers drain and stop; a failed send would hand the job
// back in the error (R-SEND-5).
task<std::string> produce(bcast::sender<std::uint64_t> tx, thread_pool& pool, std::uint64_t jobs) {
    co_await bcast_support::resume_on(pool);
    for (std::uint64_t job = 1; job <= jobs; ++job) {
        auto sent = co_await tx.async_broadcast(pool, job);
        if (!sent) co_return examples::describe(sent);
    }
    tx.close();
    co_return "sent " + std::to_string(jobs) + " jobs, then closed the channel";
}

struct lag_books {
    std::uint64_t delivered = 0;
    std::uint64_t missed = 0;
    bool every_gap_reported = true; // each message is the one the reports say comes next
};

// A consumer that tolerates lag: overflowed(n) is news to account for, not a
// reason to stop; the receiver has already moved on to the oldest message
// still queued (R-OVF-2).
task<lag_books> consume_with_lag(bcast::receiver<std::uint64_t> rx, thread_pool& pool) {
    co_await bcast_support::resume_on(pool);
    lag_books books;
    std::uint64_t expected = 0; // what the books say comes next
    for (;;) {
        auto next = co_await rx.async_recv(pool);
        if (next) {
            books.every_gap_reported = books.every_gap_reported && *next == expected;
            expected = *next + 1;
            ++books.delivered;
        } else if (next.error().code == bcast::recv_errc::overflowed) {
            books.missed += next.error().missed;
            expected += next.error().missed;
        } else {
            co_return books; // closed, and everything drained
        }
    }
}

// In overflow mode a full channel evicts its oldest message (R-OVF-1), so
// this producer never waits: each co_await completes at once, without
// suspending (R-ASYNC-1).
task<std::uint64_t> produce_without_waiting(bcast::sender<std::uint64_t> tx, thread_pool& pool,
                                            std::uint64_t messages) {
    co_await bcast_support::resume_on(pool);
    std::uint64_t evicted = 0;
    for (std::uint64_t i = 0; i < messages; ++i) {
        auto sent = co_await tx.async_broadcast(pool, i);
        if (sent && sent->has_value()) ++evicted; // the oldest message, handed back
    }
    tx.close();
    co_return evicted;
}

// Waits for one message, giving up when `stop` is requested; then, to show
// that the cancelled receive consumed nothing, receives once more.
task<std::string> monitor(bcast::receiver<std::uint64_t> rx, thread_pool& pool, std::stop_token stop) {
    auto first = co_await rx.async_recv(pool, std::move(stop));
    auto second = co_await rx.async_recv(pool);
    co_return examples::describe(first) + ", then received " + examples::describe(second);
}

} // namespace

int main() {
    examples::transcript out;
    thread_pool pool(2); // declared first: destroyed last, after every coroutine is done

    { // Part 1: one producer, three consumers, capacity 8: the producer often has to wait.
        constexpr std::uint64_t jobs = 2000;
        auto [tx, rx] = bcast::channel<std::uint64_t>(8);
        std::vector<task<totals>> consumers;
        consumers.push_back(consume(rx, pool)); // copies: each gets every job (R-LIFE-1)
        consumers.push_back(consume(rx, pool));
        consumers.push_back(consume(std::move(rx), pool));
        task<std::string> producer = produce(std::move(tx), pool, jobs);

        producer.wait();
        out.line("producer: ", producer.result());
        for (std::size_t k = 0; k < consumers.size(); ++k) {
            consumers[k].wait();
            const totals& seen = consumers[k].result();
            out.line("consumer ", k + 1, ": ", seen.jobs, " jobs", seen.in_order ? " in order" : " OUT OF ORDER",
                     ", sum ", seen.sum);
        }
    }

    { // Part 2: overflow on, capacity 4; how much the consumer misses varies from run to run, the books do not.
        constexpr std::uint64_t messages = 5000;
        auto [tx, rx] = bcast::channel<std::uint64_t>(4);
        tx.set_overflow(true);
        task<lag_books> consumer = consume_with_lag(std::move(rx), pool);
        task<std::uint64_t> producer = produce_without_waiting(std::move(tx), pool, messages);

        producer.wait();
        consumer.wait();
        const lag_books& books = consumer.result();
        out.line("lagging consumer: delivered + missed = ", books.delivered + books.missed,
                 books.every_gap_reported ? ", every gap reported exactly" : ", A GAP WENT UNREPORTED");
        // With one receiver, a message it read is freed at once, so whatever
        // was evicted is exactly what it missed.
        out.line("evicted by the producer == missed by the consumer: ",
                 producer.result() == books.missed ? "yes" : "NO");
    }

    { // Part 3: cancel a consumer that waits on an empty channel.
        auto [tx, rx] = bcast::channel<std::uint64_t>(4);
        std::stop_source stop;
        // A task runs on this thread until its first suspension: when monitor()
        // returns, its receive is waiting in the channel (nothing was sent).
        task<std::string> waiting = monitor(std::move(rx), pool, stop.get_token());
        stop.request_stop(); // ends the wait with `cancelled` (R-ASYNC-4); the monitor resumes on the pool
        static_cast<void>(tx.try_broadcast(42)); // for its second receive, whether or not it waits yet
        waiting.wait();
        out.line("monitor: ", waiting.result());
    }

    return out.finish("producer: sent 2000 jobs, then closed the channel\n"
                      "consumer 1: 2000 jobs in order, sum 2001000\n"
                      "consumer 2: 2000 jobs in order, sum 2001000\n"
                      "consumer 3: 2000 jobs in order, sum 2001000\n"
                      "lagging consumer: delivered + missed = 5000, every gap reported exactly\n"
                      "evicted by the producer == missed by the consumer: yes\n"
                      "monitor: receiving was cancelled, then received 42\n");
}
