// SPDX-License-Identifier: MIT OR Apache-2.0
// Real-thread stress tests, built for ThreadSanitizer in the sanitizer trees.
// Several senders, receivers that read to the end, and a chaos thread that
// copies, creates, deactivates, reactivates and drops receivers while flipping
// overflow and the capacity. What must hold, whatever the interleaving:
// - order (R-RECV-2): each receiver sees each sender's messages in order, and
//   any two receivers agree on the order of the messages both received;
// - complete-or-counted (R-OVF-2): a receiver that existed from the start
//   received every message or counted it in an overflowed(n);
// - no message object leaks or dies twice (R-MSG-2), no deadlock.
// Each test repeats its round until its time budget is spent (fresh
// interleavings each time), under a watchdog that fails a hung round and names
// each thread's call (stress_harness.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

#include <bcast/bcast.hpp>

#include "stress_harness.hpp"

namespace bcast::stress {
namespace {

constexpr std::uint64_t sender_stride = 1'000'000'000;

struct log {
    std::vector<std::uint64_t> values;
    std::uint64_t missed = 0;
};

// Reads until closed, checking per-sender order as it goes.
template <class Receiver>
log drain(Receiver& rx, std::size_t senders, call_slot& slot, std::int64_t id) {
    log seen;
    std::vector<std::int64_t> last(senders, -1);
    for (;;) {
        slot.enter("recv()", "on receiver #", id);
        auto got = rx.recv();
        slot.leave();
        slot.progress();
        if (!got) {
            if (got.error().code == recv_errc::closed) return seen;
            EXPECT_EQ(got.error().code, recv_errc::overflowed);
            seen.missed += got.error().missed;
            continue;
        }
        const std::uint64_t value = *got;
        const auto from = static_cast<std::size_t>(value / sender_stride);
        const auto sequence = static_cast<std::int64_t>(value % sender_stride);
        EXPECT_GT(sequence, last[from]) << "sender " << from << "'s messages out of order";
        last[from] = sequence;
        seen.values.push_back(value);
    }
}

// Every value both logs contain appears in the same relative order.
void expect_same_order(const log& first, const log& second) {
    std::unordered_map<std::uint64_t, std::size_t> index;
    for (std::size_t k = 0; k < first.values.size(); ++k) index[first.values[k]] = k;
    std::size_t previous = 0;
    bool any = false;
    for (std::uint64_t value : second.values) {
        auto found = index.find(value);
        if (found == index.end()) continue;
        if (any) {
            EXPECT_GT(found->second, previous) << "receivers disagree on the order of " << value;
        }
        previous = found->second;
        any = true;
    }
}

void run_stress(std::size_t senders, int per_sender, bool chaos) {
    // Named, not structured bindings: clang 14 cannot capture those in lambdas.
    auto ends = channel<std::uint64_t>(4);
    sender<std::uint64_t>& tx = ends.first;
    receiver<std::uint64_t>& rx = ends.second;
    receiver<std::uint64_t> second = rx;
    std::atomic<bool> sending_done{false};
    // Slots: senders 0..n-1, then the two readers, the chaos thread, the main thread.
    call_slots slots;
    for (std::size_t k = 0; k < senders; ++k) slots.emplace_back("sender thread " + std::to_string(k), "messages sent");
    call_slot& first_slot = slots.emplace_back("reader thread 0", "answers received");
    call_slot& second_slot = slots.emplace_back("reader thread 1", "answers received");
    call_slot& chaos_slot = slots.emplace_back("chaos thread", "changes (not progress: never counted)");
    call_slot& main_slot = slots.emplace_back("main thread", "threads joined");
    auto observer = rx.new_receiver().deactivate(); // for the watchdog's report; receives nothing
    watchdog dog(
        slots, [&observer] { return channel_state_of(observer); },
        "run_stress(senders=" + std::to_string(senders) + ", per_sender=" + std::to_string(per_sender) +
            ", chaos=" + (chaos ? "on" : "off") + ")");

    std::vector<std::thread> threads;
    std::vector<sender<std::uint64_t>> sender_handles(senders, tx);
    { sender<std::uint64_t> dropped = std::move(tx); } // the threads' copies keep it open
    for (std::size_t k = 0; k < senders; ++k) {
        threads.emplace_back([&, k, own = std::move(sender_handles[k])]() mutable {
            for (int i = 0; i < per_sender; ++i) {
                slots[k].enter("broadcast()", "with message ", i);
                auto sent = own.broadcast(k * sender_stride + static_cast<std::uint64_t>(i));
                slots[k].leave();
                slots[k].progress();
                EXPECT_TRUE(sent.has_value()) << sent.error();
            }
            // The last sender to finish closes the channel (R-CLOSE-2)
            { sender<std::uint64_t> dropped = std::move(own); }
            slots[k].finish();
        });
    }
    std::thread chaos_thread;
    if (chaos) {
        chaos_thread = std::thread([&, spare = rx.new_receiver()]() mutable {
            // Queries racing every other operation: TSan must see their reads (so
            // they go to a volatile, which the compiler cannot drop).
            volatile std::size_t queue_length_seen = 0;
            std::mt19937 random(12345);
            while (!sending_done.load(std::memory_order_relaxed)) {
                chaos_slot.enter("a change of receivers or settings");
                switch (random() % 6) {
                case 0: spare.set_overflow(random() % 2 == 0); break;
                case 1: spare.set_capacity(1 + random() % 8); break;
                case 2: {
                    receiver<std::uint64_t> copy = spare;
                    static_cast<void>(copy.try_recv());
                } break;
                case 3: spare = std::move(spare).deactivate().activate(); break;
                case 4:
                    static_cast<void>(spare.try_recv());
                    queue_length_seen = spare.len();
                    break;
                case 5: {
                    auto parked = spare.new_receiver().deactivate();
                    auto back = parked.activate_cloned();
                } break;
                }
            }
            EXPECT_LE(queue_length_seen, 8u); // len() <= capacity() <= 8 (R-CAP-3)
            chaos_slot.enter("recv() until closed on the spare receiver");
            while (spare.recv() || !spare.is_closed()) {} // release what it holds so senders never wait on it
            chaos_slot.finish();
        });
    }

    log first_log, second_log;
    std::thread first_reader([&] {
        first_log = drain(rx, senders, first_slot, 0);
        first_slot.finish();
    });
    std::thread second_reader([&] {
        second_log = drain(second, senders, second_slot, 1);
        second_slot.finish();
    });
    main_slot.enter("join() of the sender threads");
    for (auto& thread : threads) thread.join();
    sending_done = true;
    main_slot.enter("join() of the chaos and reader threads");
    if (chaos) chaos_thread.join();
    first_reader.join();
    second_reader.join();
    main_slot.finish();

    const std::uint64_t sent = senders * static_cast<std::uint64_t>(per_sender);
    EXPECT_EQ(first_log.values.size() + first_log.missed, sent);
    EXPECT_EQ(second_log.values.size() + second_log.missed, sent);
    expect_same_order(first_log, second_log);
    if (!chaos) { // nothing can be lost without overflow or shrinks
        EXPECT_EQ(first_log.missed, 0u);
        EXPECT_EQ(first_log.values, second_log.values);
    }
}

TEST(stress, many_senders_two_readers_lose_nothing_and_agree_on_order) {
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) run_stress(3, 20000, false);
}

TEST(stress, churn_of_receivers_overflow_and_capacity_keeps_order_and_counts) {
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) run_stress(3, 20000, true);
}

void timed_calls_round();

TEST(stress, timed_calls_racing_their_events_lose_nothing) { // R-SEND-4, R-RECV-5, R-WAKE-1
    for (budget rounds; rounds.another() && !::testing::Test::HasFailure();) timed_calls_round();
}

// One round of timed_calls_racing_their_events_lose_nothing.
void timed_calls_round() {
    using namespace std::chrono_literals;
    auto [tx, rx] = channel<int>(1);
    constexpr int count = 2000;
    call_slots slots;
    call_slot& producing = slots.emplace_back("producer thread", "messages sent");
    call_slot& consuming = slots.emplace_back("main thread (consumer)", "messages received");
    watchdog dog(
        slots, [&rx = rx] { return channel_state_of(rx); }, "timed_calls_round");
    std::thread producer([&tx = tx, &producing] {
        for (int i = 0; i < count;) {
            producing.enter("broadcast_for(50us)", "with message ", i);
            auto sent = tx.broadcast_for(i, 50us);
            producing.leave();
            if (sent) {
                ++i;
                producing.progress();
            } else {
                EXPECT_EQ(sent.error(), (send_error<int>{send_errc::timed_out, i})); // handed back: retry it
            }
        }
    });
    int expected = 0;
    while (expected < count) {
        consuming.enter("recv_for(50us)", "on receiver #", 0);
        auto got = rx.recv_for(50us);
        consuming.leave();
        if (!got) {
            EXPECT_EQ(got.error().code, recv_errc::timed_out);
            continue;
        }
        EXPECT_EQ(*got, expected);
        ++expected;
        consuming.progress();
    }
    consuming.enter("join() of the producer thread");
    producer.join();
    consuming.finish();
}

} // namespace
} // namespace bcast::stress
