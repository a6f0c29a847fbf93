// SPDX-License-Identifier: MIT OR Apache-2.0
// Overflow mode and lag handling: a sender that must never wait turns
// overflow on; a full channel then evicts its oldest message and hands it back
// to the sender (R-OVF-1), and every receiver that had not read it learns
// exactly how many messages it lost, once, before the next one it can still
// read (R-OVF-2).
//
// Part 1 walks through it step by step, in one thread.
// Part 2 runs a never-blocking producer against a slower consumer thread and
// checks the books balance: every message was either delivered or counted as
// missed, and the sender got back exactly the messages the consumer missed.
//
// Both read through a receiver's ranges (R-RECV-6), whose items are the lag
// reports as well as the messages: try_messages() takes what is there now,
// messages() waits for more until the channel is closed and drained.
#include <bcast/bcast.hpp>

#include <cstdint>
#include <string>
#include <thread>

#include "transcript.hpp"

namespace {

// Everything a receiver can read right now, in words: a try_messages() pass
// ends at `empty` (or `closed`), and a lag report is one of its items.
std::string drain(bcast::receiver<int>& rx) {
    std::string seen;
    for (auto&& item : rx.try_messages()) {
        seen += (item ? std::to_string(*item) : "[missed " + std::to_string(item.error().missed) + "]") + ' ';
    }
    return seen;
}

struct consumer_books {
    std::uint64_t delivered = 0;
    std::uint64_t missed = 0;
    bool every_gap_reported = true; // each message is the one the reports say comes next
};

// The lag-handling loop: overflowed(n) is not an error to stop on but news
// to account for; the receiver has already moved to the oldest kept message.
// The loop ends when the channel is closed and drained (R-CLOSE-5).
consumer_books consume(bcast::receiver<std::uint64_t> rx) {
    consumer_books books;
    std::uint64_t expected = 0; // the sequence number the books say comes next
    for (auto&& item : rx.messages()) {
        if (item) {
            books.every_gap_reported = books.every_gap_reported && *item == expected;
            expected = *item + 1;
            ++books.delivered;
        } else { // the one error an item can hold: overflowed(n)
            books.missed += item.error().missed;
            expected += item.error().missed;
        }
    }
    return books;
}

} // namespace

int main() {
    examples::transcript out;

    { // Part 1: evictions, a shrink, and what each receiver is told.
        auto [tx, slow] = bcast::channel<int>(3);
        tx.set_overflow(true); // R-OVF-3: any handle may set it
        auto live = slow;      // a copy at the same position (R-LIFE-1) that keeps up

        for (int i = 1; i <= 6; ++i) {
            const auto sent = tx.try_broadcast(i); // never fails for want of room now
            out.line("send ", i, ": ", examples::describe(sent), "; live reads ", examples::describe(live.try_recv()));
        }
        // slow read nothing: 1, 2, 3 were evicted before it got to them. Its
        // own counts say so before it reads (R-QUERY-2); len() is the channel's.
        out.line("slow: unread ", slow.unread(), ", missed ", slow.missed(), ", len ", tx.len());
        out.line("slow: ", drain(slow));

        for (int i = 7; i <= 10; ++i) out.line("send ", i, ": ", examples::describe(tx.try_broadcast(i)));
        tx.set_capacity(1); // R-CAP-3: keeps only the newest message, 10
        // One eviction (7) and a shrink (8, 9) add up to one report (R-OVF-2).
        out.line("after set_capacity(1), slow: ", drain(slow));
        out.line("after set_capacity(1), live: ", drain(live));
    }

    { // Part 2: a producer that never waits, a consumer that cannot keep up.
        constexpr std::uint64_t messages = 20000;
        auto [tx, rx] = bcast::channel<std::uint64_t>(4);
        tx.set_overflow(true);

        consumer_books books;
        std::thread consumer([&books](bcast::receiver<std::uint64_t> r) { books = consume(std::move(r)); },
                             std::move(rx));

        std::uint64_t evicted = 0, failed = 0;
        for (std::uint64_t i = 0; i < messages; ++i) {
            const auto sent = tx.broadcast(i); // with overflow on, never waits on a full channel
            if (!sent) ++failed;
            else if (sent->has_value()) ++evicted;
        }
        tx.close();
        consumer.join();

        out.line("producer: ", failed, " failed");
        out.line("consumer: delivered + missed = ", books.delivered + books.missed,
                 books.every_gap_reported ? ", every gap reported exactly" : ", A GAP WENT UNREPORTED");
        // With one receiver, a message it read is freed at once, so whatever
        // was evicted is exactly what it missed.
        out.line("evicted by the producer == missed by the consumer: ", evicted == books.missed ? "yes" : "NO");
    }

    return out.finish(
        "send 1: sent; live reads 1\n"
        "send 2: sent; live reads 2\n"
        "send 3: sent; live reads 3\n"
        "send 4: sent, evicted 1; live reads 4\n"
        "send 5: sent, evicted 2; live reads 5\n"
        "send 6: sent, evicted 3; live reads 6\n"
        "slow: unread 3, missed 3, len 3\n"
        "slow: [missed 3] 4 5 6 \n"
        "send 7: sent\n"
        "send 8: sent\n"
        "send 9: sent\n"
        "send 10: sent, evicted 7\n"
        "after set_capacity(1), slow: [missed 3] 10 \n"
        "after set_capacity(1), live: [missed 3] 10 \n"
        "producer: 0 failed\n"
        "consumer: delivered + missed = 20000, every gap reported exactly\n"
        "evicted by the producer == missed by the consumer: yes\n");
}
