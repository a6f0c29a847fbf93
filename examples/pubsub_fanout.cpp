// SPDX-License-Identifier: MIT OR Apache-2.0
// Pub/sub fan-out: one publisher, several subscriber threads, each subscriber
// gets every message, in order (R-SEND-2, R-RECV-2), and the bounded channel
// paces the publisher to the slowest subscriber (R-SEND-3).
//
// Part 1 shows who sees what: a copy of a receiver starts where the original
// is (R-LIFE-1), new_receiver() starts at the tail (R-LIFE-2).
// Part 2 is the fan-out itself, with real threads.
#include <bcast/bcast.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "transcript.hpp"

namespace {

struct quote {
    std::uint64_t seq;
    std::string symbol;
    long price_cents;
};

std::ostream& operator<<(std::ostream& out, const quote& q) {
    return out << q.symbol << " #" << q.seq << " @ " << q.price_cents;
}

struct subscriber_report {
    std::uint64_t received = 0;
    bool in_order = true;
    long total_cents = 0;
    std::string ended_with;
};

// A subscriber: reads until the channel is closed and drained (R-CLOSE-5).
// With overflow off nothing is ever lost, so any overflowed report would end
// the loop early and show up as a wrong count.
subscriber_report subscribe(bcast::receiver<quote> rx) {
    subscriber_report report;
    for (;;) {
        auto next = rx.recv();
        if (!next) {
            report.ended_with = examples::describe(next);
            return report;
        }
        report.in_order = report.in_order && next->seq == report.received;
        ++report.received;
        report.total_cents += next->price_cents;
    }
}

} // namespace

int main() {
    examples::transcript out;

    { // Part 1: which receiver sees which message.
        auto [tx, rx] = bcast::channel<int>(4);
        if (!tx.broadcast(1)) return 1; // a send's result says whether it went out (R-SEND-5)
        auto copy = rx;                 // R-LIFE-1: same position, so 1 is pending for it too
        auto late = tx.new_receiver();  // R-LIFE-2: at the tail, sees only what comes next
        if (!tx.broadcast(2)) return 1;
        for (auto* r : {&rx, &copy, &late}) {
            std::string seen;
            for (auto next = r->try_recv(); next; next = r->try_recv()) seen += std::to_string(*next) + ' ';
            out.line(r == &rx ? "original" : r == &copy ? "copy" : "new_receiver", ": ", seen, "| then ",
                     examples::describe(r->try_recv()));
        }
        out.line("queued after everyone read: ", tx.len()); // R-MSG-1: read by all, so gone
    }

    { // Part 2: fan-out to four subscriber threads.
        constexpr int subscribers = 4;
        constexpr std::uint64_t quotes = 2000;
        auto [tx, rx] = bcast::channel<quote>(8); // the publisher may run at most 8 quotes ahead

        std::vector<subscriber_report> reports(subscribers);
        std::vector<std::thread> threads;
        for (int i = 0; i < subscribers; ++i) {
            // Every subscriber is a copy of rx made before the first send, so
            // each one gets every quote. The last one takes rx itself: a
            // receiver that is kept but never read would hold every quote
            // forever and, once 8 are queued, stall the publisher (R-SEND-3).
            auto subscriber = i + 1 < subscribers ? bcast::receiver<quote>(rx) : std::move(rx);
            threads.emplace_back([&reports, i](bcast::receiver<quote> r) { reports[i] = subscribe(std::move(r)); },
                                 std::move(subscriber));
        }

        std::uint64_t evicted = 0, failed = 0;
        for (std::uint64_t seq = 0; seq < quotes; ++seq) {
            auto sent = tx.broadcast(quote{seq, "ACME", 100 + static_cast<long>(seq % 50)}); // waits while 8 are unread
            if (!sent) ++failed;
            else if (sent->has_value()) ++evicted;
        }
        tx.close(); // subscribers drain what is queued, then see closed (R-CLOSE-5)
        for (auto& thread : threads) thread.join();

        out.line("publisher: ", quotes, " quotes, ", failed, " failed, ", evicted, " evicted");
        for (int i = 0; i < subscribers; ++i) {
            const auto& report = reports[i];
            out.line("subscriber ", i, ": ", report.received, " quotes, ", report.in_order ? "in order" : "OUT OF ORDER",
                     ", total ", report.total_cents, " cents, then ", report.ended_with);
        }
    }

    return out.finish(
        "original: 1 2 | then receiving from an empty channel\n"
        "copy: 1 2 | then receiving from an empty channel\n"
        "new_receiver: 2 | then receiving from an empty channel\n"
        "queued after everyone read: 0\n"
        "publisher: 2000 quotes, 0 failed, 0 evicted\n"
        "subscriber 0: 2000 quotes, in order, total 249000 cents, then receiving from an empty and closed channel\n"
        "subscriber 1: 2000 quotes, in order, total 249000 cents, then receiving from an empty and closed channel\n"
        "subscriber 2: 2000 quotes, in order, total 249000 cents, then receiving from an empty and closed channel\n"
        "subscriber 3: 2000 quotes, in order, total 249000 cents, then receiving from an empty and closed channel\n");
}
