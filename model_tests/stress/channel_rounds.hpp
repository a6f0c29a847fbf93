// SPDX-License-Identifier: MIT OR Apache-2.0
// The rounds of the real-thread stress tests, written once for every channel
// family with bcast's handle API: stress_tests.cpp runs each round on every
// registered family (bcast/spec/families.def). A round opens the family's real
// channel through its adapter's handles (`open(capacity)`, the (sender,
// receiver) pair) and names it by the family's `implementation` in the
// watchdog's report.
//
// A round: several senders, readers that read to the end, optionally overflow,
// a reader that lags, and a chaos thread that copies, creates, deactivates,
// reactivates and drops receivers while changing the capacity and flipping
// overflow. What must hold, whatever the interleaving:
// - order (R-RECV-2): each reader sees each sender's messages in order, and
//   any two readers agree on the order of the messages both received;
// - complete-or-counted (R-OVF-2): a reader that existed from the start
//   received every message or counted it in an overflowed(n); with overflow
//   off and no shrink, nothing is lost;
// - no torn or invented message: every value is one some sender sent, and so
//   is every message an evicting send hands back (R-OVF-1);
// - no hang (R-WAKE-1): the watchdog (stress_harness.hpp) fails a round that
//   stops making progress and names each thread's call.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "stress_harness.hpp"

namespace bcast::stress {

// Sender k sends k * sender_stride + i, so a value says who sent it and when.
constexpr std::uint64_t sender_stride = 1'000'000'000;

// The family's own channel, not its adapter: the threads hold real handles.
template <class Family, class T>
auto open_channel(std::size_t capacity) {
    return Family::template channel<T>::handles::open(capacity);
}

struct reader_log {
    std::vector<std::uint64_t> values;
    std::uint64_t missed = 0;
};

// Reads until closed, checking per-sender order as it goes; every `pause_every`
// messages it yields, so that senders overtake it and it lags (overflow mode).
template <class Receiver>
reader_log drain(Receiver& rx, std::size_t senders, call_slot& slot, std::int64_t id, unsigned pause_every) {
    reader_log seen;
    std::vector<std::int64_t> last(senders, -1);
    for (unsigned k = 1;; ++k) {
        slot.enter("recv()", "on receiver #", id);
        auto got = rx.recv();
        slot.leave();
        slot.progress();
        if (!got) {
            if (got.error().code == recv_errc::closed) return seen;
            EXPECT_EQ(got.error().code, recv_errc::overflowed);
            EXPECT_GT(got.error().missed, 0u);
            seen.missed += got.error().missed;
            continue;
        }
        const std::uint64_t value = *got;
        const auto from = static_cast<std::size_t>(value / sender_stride);
        const auto sequence = static_cast<std::int64_t>(value % sender_stride);
        EXPECT_LT(from, senders) << "a value no sender sent: a torn copy";
        if (from >= senders) continue;
        EXPECT_GT(sequence, last[from]) << "sender " << from << "'s messages out of order";
        last[from] = sequence;
        seen.values.push_back(value);
        if (pause_every != 0 && k % pause_every == 0) std::this_thread::yield();
    }
}

// Every value both logs contain appears in the same relative order.
inline void expect_same_order(const reader_log& first, const reader_log& second) {
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

struct round_shape {
    std::size_t senders;
    std::size_t readers;
    std::size_t capacity;
    int per_sender;
    bool overflow;
    bool chaos;
    unsigned reader_pause_every; // 0: readers never yield on their own
};

// The largest capacity the chaos thread sets: it grows bcast::fast's ring past
// 1, 2, 4, 8 and 16 slots and shrinks it again.
constexpr std::size_t chaos_max_capacity = 16;

template <class Family>
void run_round(const round_shape& shape) {
    using ends_type = decltype(open_channel<Family, std::uint64_t>(1));
    using sender_type = typename ends_type::first_type;
    using receiver_type = typename ends_type::second_type;
    // Named, not structured bindings: clang 14 cannot capture those in lambdas.
    auto ends = open_channel<Family, std::uint64_t>(shape.capacity);
    sender_type& tx = ends.first;
    receiver_type& rx = ends.second;
    tx.set_overflow(shape.overflow);
    std::vector<receiver_type> readers;
    for (std::size_t k = 1; k < shape.readers; ++k) readers.push_back(rx);
    readers.push_back(std::move(rx));
    std::atomic<bool> sending_done{false};

    // Slots: senders 0..n-1, then the readers, the chaos thread, the main thread.
    call_slots slots;
    for (std::size_t k = 0; k < shape.senders; ++k) slots.emplace_back("sender thread " + std::to_string(k), "messages sent");
    for (std::size_t k = 0; k < shape.readers; ++k) slots.emplace_back("reader thread " + std::to_string(k), "answers received");
    call_slot& chaos_slot = slots.emplace_back("chaos thread", "changes (not progress: never counted)");
    call_slot& main_slot = slots.emplace_back("main thread", "threads joined");
    auto observer = readers.front().new_receiver().deactivate(); // for the watchdog's report; receives nothing
    watchdog dog(
        slots, [&observer] { return channel_state_of(observer); },
        std::string(Family::implementation) + " round(senders=" + std::to_string(shape.senders) +
            ", readers=" + std::to_string(shape.readers) + ", capacity=" + std::to_string(shape.capacity) +
            ", overflow=" + (shape.overflow ? "on" : "off") + ", chaos=" + (shape.chaos ? "on" : "off") + ")");

    std::vector<std::thread> threads;
    std::vector<sender_type> sender_handles(shape.senders, tx);
    { sender_type dropped = std::move(tx); } // the threads' copies keep it open
    for (std::size_t k = 0; k < shape.senders; ++k) {
        threads.emplace_back([&, k, own = std::move(sender_handles[k])]() mutable {
            call_slot& slot = slots[k];
            for (int i = 0; i < shape.per_sender; ++i) {
                slot.enter("broadcast()", "with message ", i);
                auto sent = own.broadcast(k * sender_stride + static_cast<std::uint64_t>(i));
                slot.leave();
                slot.progress();
                EXPECT_TRUE(sent.has_value()) << sent.error();
                if (sent && sent->has_value()) { // evicted: a whole message some sender sent (R-OVF-1)
                    EXPECT_LT(**sent / sender_stride, shape.senders);
                }
            }
            { sender_type dropped = std::move(own); } // the last sender to finish closes the channel (R-CLOSE-2)
            slot.finish();
        });
    }
    std::thread chaos_thread;
    if (shape.chaos) {
        chaos_thread = std::thread([&, spare = observer.activate_cloned()]() mutable {
            // Queries racing every other operation: TSan must see their reads (so
            // they go to a volatile, which the compiler cannot drop).
            volatile std::size_t queue_length_seen = 0;
            std::mt19937 random(12345);
            while (!sending_done.load(std::memory_order_relaxed)) {
                chaos_slot.enter("a change of receivers or settings");
                switch (random() % 7) {
                case 0: spare.set_overflow(random() % 2 == 0); break;
                case 1: spare.set_capacity(1 + random() % chaos_max_capacity); break;
                case 2: {
                    receiver_type copy = spare;
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
                case 6: static_cast<void>(spare.unread() + spare.missed()); break;
                }
            }
            EXPECT_LE(queue_length_seen, chaos_max_capacity); // len() <= capacity() (R-CAP-3)
            chaos_slot.enter("recv() until closed on the spare receiver");
            while (spare.recv() || !spare.is_closed()) {} // release what it holds so senders never wait on it
            chaos_slot.finish();
        });
    }

    std::vector<reader_log> logs(shape.readers);
    std::vector<std::thread> reader_threads;
    for (std::size_t k = 0; k < shape.readers; ++k) {
        reader_threads.emplace_back([&, k] {
            call_slot& slot = slots[shape.senders + k];
            logs[k] = drain(readers[k], shape.senders, slot, static_cast<std::int64_t>(k),
                            k == 0 ? shape.reader_pause_every : 0);
            slot.finish();
        });
    }
    main_slot.enter("join() of the sender threads");
    for (auto& thread : threads) thread.join();
    sending_done = true;
    main_slot.enter("join() of the chaos and reader threads");
    if (shape.chaos) chaos_thread.join();
    for (auto& thread : reader_threads) thread.join();
    main_slot.finish();

    const std::uint64_t sent = shape.senders * static_cast<std::uint64_t>(shape.per_sender);
    for (std::size_t k = 0; k < shape.readers; ++k) {
        EXPECT_EQ(logs[k].values.size() + logs[k].missed, sent) << "reader " << k;
        if (k > 0) expect_same_order(logs[0], logs[k]);
    }
    if (!shape.overflow && !shape.chaos) { // nothing can be lost without overflow or shrinks
        for (std::size_t k = 0; k < shape.readers; ++k) {
            EXPECT_EQ(logs[k].missed, 0u);
            EXPECT_EQ(logs[k].values, logs[0].values);
        }
    }
}

// Timed calls racing the events that end them, on a one-slot channel: a
// timed-out call hands its message back or consumed nothing, and nothing is
// lost (R-SEND-4, R-RECV-5, R-WAKE-1).
template <class Family>
void run_timed_calls_round() {
    using namespace std::chrono_literals;
    auto ends = open_channel<Family, int>(1);
    auto& tx = ends.first;
    auto& rx = ends.second;
    constexpr int count = 2000;
    call_slots slots;
    call_slot& producing = slots.emplace_back("producer thread", "messages sent");
    call_slot& consuming = slots.emplace_back("main thread (consumer)", "messages received");
    watchdog dog(
        slots, [&rx] { return channel_state_of(rx); }, std::string(Family::implementation) + " timed calls");
    std::thread producer([&tx, &producing] {
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

} // namespace bcast::stress
