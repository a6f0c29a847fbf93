// SPDX-License-Identifier: MIT OR Apache-2.0
// Graceful shutdown with close: closing stops new messages at once but loses
// none that were accepted. Every receiver drains what it still has, then sees
// `closed` (R-CLOSE-5); every waiting sender and receiver wakes (R-CLOSE-6);
// a send that fails hands its message back (R-SEND-5), so the producer knows
// exactly which job was not accepted.
//
// Part 1: the producer finishes; destroying the last sender closes (R-CLOSE-2).
// Part 2: a consumer asks for shutdown mid-stream with close() (R-CLOSE-1),
//         while the producer may be blocked on a full channel.
#include <bcast/bcast.hpp>

#include <cstdint>
#include <string>
#include <thread>
#include <utility>

#include "transcript.hpp"

namespace {

struct worker_log {
    std::uint64_t jobs = 0;
    bool in_order = true; // got 1, 2, 3, ... with no gap
    bool closed_it = false;
    std::string ended_with;
};

// Processes jobs until the channel is closed and drained. With `stop_after`,
// this worker requests the shutdown itself after that many jobs and keeps
// draining: close() stops the producer, not the readers.
worker_log work(bcast::receiver<std::uint64_t> rx, std::uint64_t stop_after = 0) {
    worker_log log;
    for (;;) {
        auto job = rx.recv();
        if (!job) {
            log.ended_with = examples::describe(job);
            return log;
        }
        log.in_order = log.in_order && *job == log.jobs + 1;
        ++log.jobs;
        if (log.jobs == stop_after) log.closed_it = rx.close(); // true: this call closed it
    }
}

std::string summary(const worker_log& log, std::uint64_t accepted) {
    return std::string(log.jobs == accepted ? "every accepted job" : "WRONG JOB COUNT") +
           (log.in_order ? ", in order" : ", OUT OF ORDER") + ", then " + log.ended_with;
}

} // namespace

int main() {
    examples::transcript out;

    { // Part 1: the producer owns the only sender; when it is done, the channel closes.
        constexpr std::uint64_t jobs = 500;
        auto [tx, rx] = bcast::channel<std::uint64_t>(4);
        worker_log a, b;
        std::thread worker_a([&a](bcast::receiver<std::uint64_t> r) { a = work(std::move(r)); }, rx);
        std::thread worker_b([&b](bcast::receiver<std::uint64_t> r) { b = work(std::move(r)); }, std::move(rx));
        std::thread producer(
            [](bcast::sender<std::uint64_t> only_sender) {
                for (std::uint64_t job = 1; job <= jobs; ++job)
                    if (!only_sender.broadcast(job)) return; // closed: nobody would receive the rest
            }, // only_sender is destroyed here: the last sender, so the channel closes (R-CLOSE-2)
            std::move(tx));
        producer.join();
        worker_a.join();
        worker_b.join();
        out.line("part 1, worker a: ", summary(a, jobs));
        out.line("part 1, worker b: ", summary(b, jobs));
    }

    { // Part 2: a worker closes the channel after 100 jobs.
        auto [tx, rx] = bcast::channel<std::uint64_t>(4);
        std::uint64_t accepted = 0;
        bcast::send_errc refusal{};
        std::uint64_t handed_back = 0;
        std::thread producer(
            [&](bcast::sender<std::uint64_t> s) {
                for (std::uint64_t job = 1;; ++job) {
                    auto sent = s.broadcast(job); // may be waiting on a full channel when close comes
                    if (!sent) {
                        refusal = sent.error().code;
                        handed_back = sent.error().message;
                        return;
                    }
                    accepted = job;
                }
            },
            tx);
        worker_log a, b;
        std::thread worker_a([&a](bcast::receiver<std::uint64_t> r) { a = work(std::move(r), 100); }, rx);
        std::thread worker_b([&b](bcast::receiver<std::uint64_t> r) { b = work(std::move(r)); }, std::move(rx));
        producer.join();
        worker_a.join();
        worker_b.join();

        // How many jobs got in before the close depends on the schedule; that
        // every one of them reached both workers and the next one came back does not.
        out.line("part 2, producer stopped by: ", refusal, "; the job handed back is the first one not accepted: ",
                 handed_back == accepted + 1 ? "yes" : "NO");
        out.line("part 2, at least 100 accepted: ", accepted >= 100 ? "yes" : "NO");
        out.line("part 2, worker a: ", summary(a, accepted), a.closed_it ? "; its close() closed the channel" : "");
        out.line("part 2, worker b: ", summary(b, accepted));
        out.line("part 2, close() again: ", tx.close() ? "true" : "false"); // already closed (R-CLOSE-1)
        out.line("part 2, send after close: ", examples::describe(tx.try_broadcast(0))); // R-CLOSE-5
    }

    return out.finish(
        "part 1, worker a: every accepted job, in order, then receiving from an empty and closed channel\n"
        "part 1, worker b: every accepted job, in order, then receiving from an empty and closed channel\n"
        "part 2, producer stopped by: sending into a closed channel; the job handed back is the first one not accepted: yes\n"
        "part 2, at least 100 accepted: yes\n"
        "part 2, worker a: every accepted job, in order, then receiving from an empty and closed channel; its close() "
        "closed the channel\n"
        "part 2, worker b: every accepted job, in order, then receiving from an empty and closed channel\n"
        "part 2, close() again: false\n"
        "part 2, send after close: sending into a closed channel, message 0 handed back\n");
}
