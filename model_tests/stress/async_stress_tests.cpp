// SPDX-License-Identifier: MIT OR Apache-2.0
// Real-thread stress tests of the async API (R-ASYNC-1..5), built for TSan
// (gcc and clang) and ASan+UBSan in the sanitizer trees.
//
// Coroutines (bcast_support::task) send and receive with async_broadcast() /
// async_recv(), resumed through a bcast_support::thread_pool or inline, next to
// plain threads that use the blocking calls on the same channel, while stop
// requests from another thread cancel pending operations at arbitrary points.
// What must hold, whatever the interleaving:
// - order (R-RECV-2): each receiver sees each sender's messages in increasing
//   order;
// - completeness: every receiver that was active from the start gets every
//   message that was sent, and a cancelled send hands its message back unsent
//   (R-ASYNC-4, R-SEND-5), so the receivers get exactly the messages whose send
//   succeeded; a cancelled receive consumes nothing, so a receiver that was
//   cancelled still gets every message (R-ASYNC-4);
// - in overflow mode, every message is received or counted in an
//   overflowed(n) by each receiver, and each eviction hands back exactly one
//   message (R-OVF-1, R-OVF-2);
// - no data race on the waiter lists, the answers or the coroutine frames
//   (TSan), no leak or use after free (ASan), no deadlock: a watchdog fails a
//   round that makes no progress and names what each plain thread and the
//   main thread are in (the coroutines are not named one by one).
//
// No sleeps: the tests wait on observable state (task::wait(), counters with
// std::atomic::wait, latches), so they check the same thing on any machine.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <latch>
#include <memory>
#include <mutex>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <bcast/bcast.hpp>
#include <bcast_support/task.hpp>
#include <bcast_support/thread_pool.hpp>

#include "stress_harness.hpp"

namespace bcast::async_stress {
namespace {

using message = std::uint64_t;
using bcast_support::task;
using bcast_support::thread_pool;
using stress::call_slot;
using stress::call_slots;
using stress::channel_state_of;
using stress::watchdog;

// A message carries its sender and its sequence number among that sender's.
constexpr message sender_stride = 1'000'000;
message make_message(std::size_t sender_id, std::uint64_t sequence) { return sender_id * sender_stride + sequence; }

// What one receiver saw.
struct receiver_log {
    explicit receiver_log(std::size_t senders = 0) : per_sender(senders) {}
    std::vector<std::vector<std::uint64_t>> per_sender; // sequence numbers, in arrival order
    std::uint64_t received = 0;
    std::uint64_t missed = 0;    // sum of overflowed(n)
    std::uint64_t cancelled = 0; // receives that answered `cancelled`
    std::string problem;         // the first unexpected answer, if any

    void add(message value) {
        per_sender.at(static_cast<std::size_t>(value / sender_stride)).push_back(value % sender_stride);
        ++received;
    }
};

// What one sender did.
struct sender_log {
    std::vector<std::uint64_t> delivered; // sequence numbers whose send succeeded, in order
    std::vector<message> evicted;         // messages handed back by overflow (R-OVF-1)
    std::uint64_t handed_back = 0;        // cancelled sends whose message came back unchanged
    std::string problem;
};

// A stop_source that another thread may trip at any moment, and that its
// owner renews after each cancellation (a stop_source cannot be reset). The
// owner counts its cancellations here, where the test can wait for them.
class cancel_point {
public:
    std::stop_token token() {
        std::lock_guard<std::mutex> lock(mutex_);
        return source_.get_token();
    }

    // Requests stop on the current source, outside the lock: the stop callback
    // may resume the cancelled coroutine inline, and it calls renewed().
    void trip() {
        std::stop_source current;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            current = source_;
        }
        current.request_stop();
    }

    // The owner saw `cancelled`: the next operation gets a fresh source.
    void renewed_after_cancel() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            source_ = std::stop_source();
        }
        cancellations_.fetch_add(1, std::memory_order_release);
        cancellations_.notify_all(); // partner: wait_for_cancellation()
    }

    std::uint64_t cancellations() const { return cancellations_.load(std::memory_order_acquire); }

    // Blocks until the owner has been cancelled more than `seen` times.
    void wait_for_cancellation(std::uint64_t seen) const {
        for (std::uint64_t now = cancellations(); now <= seen; now = cancellations()) cancellations_.wait(now);
    }

private:
    std::mutex mutex_;
    std::stop_source source_;
    std::atomic<std::uint64_t> cancellations_{0};
};

// The token for the next operation: none without cancel point. A named local
// before the co_await, not a conditional inside it: g++ 12 destroys a
// temporary created in one arm of ?: inside a co_await expression twice (the
// first version of this test released a stop state twice that way).
std::stop_token token_of(cancel_point* cancels) { return cancels != nullptr ? cancels->token() : std::stop_token(); }

// How the coroutines call the channel: resumed through a scheduler, or inline
// on the thread that completes the operation (R-ASYNC-3).
template <class Scheduler>
struct through {
    Scheduler* scheduler;
    auto start() const { return bcast_support::resume_on(*scheduler); } // run on the pool from the start
    auto recv(receiver<message>& rx, std::stop_token stop) const { return rx.async_recv(*scheduler, std::move(stop)); }
    auto send(const sender<message>& tx, message value, std::stop_token stop) const {
        return tx.async_broadcast(*scheduler, value, std::move(stop));
    }
};
struct inline_resume {
    std::suspend_never start() const { return {}; } // run on the caller's thread until the first wait
    auto recv(receiver<message>& rx, std::stop_token stop) const { return rx.async_recv(std::move(stop)); }
    auto send(const sender<message>& tx, message value, std::stop_token stop) const {
        return tx.async_broadcast(value, std::move(stop));
    }
};

// The pool behind a scheduler that counts what it forwards, under a mutex of
// its own. The count shows whether a coroutine was suspended at all (R-ASYNC-1:
// no suspension when no wait is needed). The mutex lets TSan check R-ASYNC-3's
// "resumed after the completing thread released the channel lock": a test
// also takes this mutex and then the channel's (lock_then_query), so a
// schedule() called under the channel lock would close a lock-order cycle,
// which TSan reports even when the two never actually deadlock.
struct observing_scheduler {
    explicit observing_scheduler(thread_pool& workers) : pool(&workers) {}
    thread_pool* pool;
    std::mutex mutex;
    std::uint64_t scheduled = 0; // guarded by mutex

    void schedule(std::coroutine_handle<> handle) noexcept {
        {
            std::lock_guard<std::mutex> lock(mutex);
            ++scheduled;
        }
        pool->schedule(handle);
    }
    std::uint64_t count() {
        std::lock_guard<std::mutex> lock(mutex);
        return scheduled;
    }
    // This mutex, then the channel's: the order schedule() must never see reversed.
    template <class Handle>
    void lock_then_query(const Handle& handle) {
        std::lock_guard<std::mutex> lock(mutex);
        static_cast<void>(handle.len());
    }
};
static_assert(bcast::scheduler<observing_scheduler> && bcast::scheduler<thread_pool>);

// Records one receive; false once the receiver is done (closed, or a problem).
bool record(receiver_log& log, const recv_result<message>& got, cancel_point* cancels) {
    if (got) {
        log.add(*got);
        return true;
    }
    switch (got.error().code) {
    case recv_errc::overflowed: log.missed += got.error().missed; return true;
    case recv_errc::closed: return false;
    case recv_errc::cancelled:
        if (cancels == nullptr) break;
        ++log.cancelled;
        cancels->renewed_after_cancel(); // and receive again: nothing was consumed (R-ASYNC-4)
        return true;
    default: break;
    }
    std::ostringstream text;
    text << "unexpected receive answer: " << got.error();
    log.problem = text.str();
    return false;
}

// An async receiver: reads until closed; `cancels` may cancel any receive.
// The receiver lives in the coroutine frame, so it outlives every pending
// receive (R-ASYNC-5).
template <class Calls>
task<receiver_log> receive_all(receiver<message> rx, Calls calls, std::size_t senders, cancel_point* cancels) {
    co_await calls.start();
    receiver_log log(senders);
    for (;;) {
        std::stop_token stop = token_of(cancels);
        auto got = co_await calls.recv(rx, std::move(stop));
        if (!record(log, got, cancels)) co_return log;
    }
}

// A blocking receiver, on a plain thread. Each message it gets adds one to
// `progress`, if given, which a canceller waits on.
receiver_log receive_all_blocking(receiver<message>& rx, std::size_t senders, call_slot& slot,
                                  std::atomic<std::uint64_t>* progress = nullptr) {
    receiver_log log(senders);
    for (;;) {
        slot.enter("recv()", "on the blocking receiver #", 0);
        auto got = rx.recv();
        slot.leave();
        slot.progress();
        if (!record(log, got, nullptr)) break;
        if (progress == nullptr) continue;
        progress->fetch_add(1, std::memory_order_release);
        progress->notify_all(); // partner: the canceller's wait
    }
    slot.finish();
    return log;
}

// Records one send of `sequence`; false on an unexpected answer.
bool record(sender_log& log, send_result<message>& sent, std::uint64_t sequence, message value,
            cancel_point* cancels) {
    if (sent) {
        log.delivered.push_back(sequence);
        if (sent->has_value()) log.evicted.push_back(**sent);
        return true;
    }
    if (sent.error().code == send_errc::cancelled && cancels != nullptr && sent.error().message == value) {
        ++log.handed_back; // not retried: the receivers must not see it (R-ASYNC-4, R-SEND-5)
        cancels->renewed_after_cancel();
        return true;
    }
    std::ostringstream text;
    text << "unexpected send answer for " << value << ": " << sent.error() << " (message " << sent.error().message
         << ')';
    log.problem = text.str();
    return false;
}

// An async sender of `count` messages; `cancels` may cancel any send. The
// sender lives in the frame: it outlives every pending send (R-ASYNC-5).
template <class Calls>
task<sender_log> send_all(sender<message> tx, Calls calls, std::size_t id, std::uint64_t count,
                          cancel_point* cancels) {
    co_await calls.start();
    sender_log log;
    for (std::uint64_t sequence = 0; sequence < count; ++sequence) {
        const message value = make_message(id, sequence);
        std::stop_token stop = token_of(cancels);
        auto sent = co_await calls.send(tx, value, std::move(stop));
        if (!record(log, sent, sequence, value, cancels)) co_return log;
    }
    co_return log;
}

// A blocking sender, on a plain thread.
sender_log send_all_blocking(const sender<message>& tx, std::size_t id, std::uint64_t count, call_slot& slot) {
    sender_log log;
    for (std::uint64_t sequence = 0; sequence < count; ++sequence) {
        const message value = make_message(id, sequence);
        slot.enter("broadcast()", "with message ", static_cast<std::int64_t>(value));
        auto sent = tx.broadcast(value);
        slot.leave();
        slot.progress();
        if (!record(log, sent, sequence, value, nullptr)) break;
    }
    slot.finish();
    return log;
}

// Order and completeness in one comparison: the receiver got, from each
// sender, exactly the messages whose send succeeded, in the order sent.
void expect_got_exactly(const receiver_log& got, const std::vector<sender_log>& senders, const std::string& who) {
    EXPECT_EQ(got.problem, "") << who;
    ASSERT_EQ(got.per_sender.size(), senders.size());
    for (std::size_t k = 0; k < senders.size(); ++k) {
        const std::vector<std::uint64_t>& want = senders[k].delivered;
        const std::vector<std::uint64_t>& have = got.per_sender[k];
        std::size_t first_difference = 0;
        while (first_difference < want.size() && first_difference < have.size() &&
               want[first_difference] == have[first_difference]) {
            ++first_difference;
        }
        EXPECT_TRUE(first_difference == want.size() && first_difference == have.size())
            << who << " from sender " << k << ": got " << have.size() << " messages, sender delivered " << want.size()
            << "; first difference at index " << first_difference << " (got "
            << (first_difference < have.size() ? std::to_string(have[first_difference]) : "nothing") << ", sent "
            << (first_difference < want.size() ? std::to_string(want[first_difference]) : "nothing") << ')';
    }
}

// Trips the given cancel points one after another, once per unit of
// `progress`, until `stop` is set: stop requests land at arbitrary points of
// the run without a sleep and without spinning a core away from the workers.
class canceller {
public:
    canceller(std::vector<cancel_point*> points, const std::atomic<std::uint64_t>& progress)
        : thread_([this, points, &progress] {
              std::uint64_t seen = 0;
              for (std::size_t next = 0; !stop_.load(std::memory_order_acquire); ++next) {
                  points[next % points.size()]->trip();
                  ++trips_;
                  progress.wait(seen, std::memory_order_acquire); // until someone made progress
                  seen = progress.load(std::memory_order_acquire);
              }
          }) {}

    // Stops tripping; `progress` must be bumped and notified after this, so a
    // canceller waiting on it wakes up.
    std::uint64_t finish(std::atomic<std::uint64_t>& progress) {
        stop_.store(true, std::memory_order_release);
        progress.fetch_add(1, std::memory_order_release);
        progress.notify_all(); // partner: the wait in the loop
        thread_.join();
        return trips_;
    }

private:
    std::atomic<bool> stop_{false};
    std::uint64_t trips_ = 0; // read after the join
    std::thread thread_;      // last: started after the fields above exist
};

// R-ASYNC-1..4 with a scheduler: three sender coroutines, three receiver
// coroutines, all resumed through a 4-worker pool and all cancellable, plus a
// blocking sender thread and a blocking receiver thread on the same channel.
//
// Phase 1 holds the blocking receiver back, so the channel fills and stays
// full: every async sender must then wait, and every async receiver has read
// everything and waits too. Each is tripped once and must report `cancelled`
// (deterministically: its current or next wait is cancelled). Phase 2 lets the
// blocking receiver go and trips the coroutines at arbitrary points while
// messages flow, so cancellations race with completions. A cancelled send is
// not retried: the receivers must get exactly the messages whose send
// succeeded, each sender's in order; a cancelled receive is retried and must
// have consumed nothing.
void pool_coroutines_and_threads_get_every_message_in_order_through_cancellations_round() {
    constexpr std::size_t async_senders = 3, async_receivers = 3, senders = async_senders + 1;
    constexpr std::uint64_t per_sender = 1000;
    thread_pool pool(4);
    auto ends = channel<message>(4);
    sender<message>& tx = ends.first;
    receiver<message>& rx = ends.second;

    // Every receiver exists before the first send, so each must get everything.
    std::vector<receiver<message>> receivers(async_receivers, rx);
    std::vector<std::unique_ptr<cancel_point>> cancels;
    for (std::size_t k = 0; k < async_senders + async_receivers; ++k) {
        cancels.push_back(std::make_unique<cancel_point>());
    }
    const auto sender_cancels = [&](std::size_t k) { return cancels[k].get(); };
    const auto receiver_cancels = [&](std::size_t k) { return cancels[async_senders + k].get(); };

    call_slots slots;
    call_slot& receiving_slot = slots.emplace_back("blocking receiver thread", "answers received");
    call_slot& sending_slot = slots.emplace_back("blocking sender thread", "messages sent");
    call_slot& main_slot = slots.emplace_back("main thread", "steps done");
    watchdog dog(
        slots, [&tx] { return channel_state_of(tx); }, "pool_coroutines_and_threads_..._round");
    std::latch blocking_receiver_may_start(1);
    std::atomic<std::uint64_t> progress{0}; // messages the blocking receiver got
    receiver_log blocking_receiver_log;
    std::thread blocking_receiver([&, own = std::move(rx)]() mutable {
        receiving_slot.enter("wait for phase 2 (a latch)");
        blocking_receiver_may_start.wait();
        blocking_receiver_log = receive_all_blocking(own, senders, receiving_slot, &progress);
    });

    observing_scheduler scheduler(pool);
    scheduler.lock_then_query(tx); // TSan now checks that no schedule() runs under the channel lock
    const through<observing_scheduler> on_pool{&scheduler};
    std::vector<task<receiver_log>> receiving;
    for (std::size_t k = 0; k < async_receivers; ++k) {
        receiving.push_back(receive_all(std::move(receivers[k]), on_pool, senders, receiver_cancels(k)));
    }
    std::vector<task<sender_log>> sending;
    for (std::size_t k = 0; k < async_senders; ++k) {
        sending.push_back(send_all(tx, on_pool, k, per_sender, sender_cancels(k)));
    }
    sender_log blocking_sender_log;
    std::thread blocking_sender(
        [&] { blocking_sender_log = send_all_blocking(tx, async_senders, per_sender, sending_slot); });

    // Phase 1: the channel is full until the blocking receiver starts, so each
    // coroutine's current or next operation waits and is cancelled.
    for (std::size_t k = 0; k < cancels.size(); ++k) {
        main_slot.enter("phase 1: trip() and wait for the cancellation of coroutine", "#", static_cast<std::int64_t>(k));
        const std::uint64_t before = cancels[k]->cancellations();
        cancels[k]->trip();
        cancels[k]->wait_for_cancellation(before);
        main_slot.progress();
    }
    EXPECT_TRUE(tx.is_full()); // the premise of phase 1: nothing has left the channel yet

    // Phase 2: messages flow while stop requests land anywhere.
    blocking_receiver_may_start.count_down();
    std::vector<cancel_point*> points;
    for (auto& point : cancels) points.push_back(point.get());
    canceller random_stops(points, progress);
    main_slot.enter("phase 2: wait() for the sending coroutines");
    for (auto& each : sending) each.wait();
    main_slot.enter("phase 2: join() of the blocking sender thread");
    blocking_sender.join();
    const std::uint64_t trips = random_stops.finish(progress);

    tx.close(); // receivers drain, then see closed (R-CLOSE-5)
    main_slot.enter("wait() for the receiving coroutines, after close()");
    for (auto& each : receiving) each.wait();
    blocking_receiver.join();
    main_slot.finish();

    std::vector<sender_log> sent;
    std::uint64_t handed_back = 0, receives_cancelled = 0;
    for (auto& each : sending) {
        sent.push_back(each.result());
        EXPECT_EQ(sent.back().problem, "");
        EXPECT_EQ(sent.back().delivered.size() + sent.back().handed_back, per_sender);
        handed_back += sent.back().handed_back;
    }
    sent.push_back(blocking_sender_log);
    EXPECT_EQ(blocking_sender_log.delivered.size(), per_sender);
    for (std::size_t k = 0; k < async_receivers; ++k) {
        const receiver_log& got = receiving[k].result();
        expect_got_exactly(got, sent, "async receiver " + std::to_string(k));
        EXPECT_EQ(got.missed, 0u);
        receives_cancelled += got.cancelled;
    }
    expect_got_exactly(blocking_receiver_log, sent, "blocking receiver");
    EXPECT_GE(handed_back, async_senders);          // at least phase 1's
    EXPECT_GE(receives_cancelled, async_receivers); // at least phase 1's
    std::printf("random stop requests: %llu; sends cancelled: %llu; receives cancelled: %llu\n",
                static_cast<unsigned long long>(trips), static_cast<unsigned long long>(handed_back),
                static_cast<unsigned long long>(receives_cancelled));
}

// R-ASYNC-1 with R-OVF-1 and R-OVF-2, through a scheduler: in overflow mode
// the async senders never wait, so they never suspend (their scheduler is
// never called), and the books balance exactly. The blocking receiver is held
// back until every send is done, so every message but the last `capacity` is
// evicted before it reads anything: the evictions handed back to the senders
// are then exactly those messages, once each, and that receiver's lag report
// counts them all. The async receivers race with the senders; each must have
// received or been told about every message, in order.
void overflow_evictions_and_lag_reports_account_for_every_message_round() {
    constexpr std::size_t async_senders = 3, async_receivers = 3, senders = async_senders + 1;
    constexpr std::uint64_t per_sender = 1500;
    constexpr std::size_t capacity = 2;
    constexpr std::uint64_t total = senders * per_sender;
    thread_pool pool(4);
    observing_scheduler sender_scheduler(pool);
    auto ends = channel<message>(capacity);
    sender<message>& tx = ends.first;
    receiver<message>& rx = ends.second;
    tx.set_overflow(true);

    std::vector<receiver<message>> receivers(async_receivers, rx);
    call_slots slots;
    call_slot& receiving_slot = slots.emplace_back("blocking receiver thread", "answers received");
    call_slot& main_slot = slots.emplace_back("main thread (the blocking sender)", "messages sent");
    watchdog dog(
        slots, [&tx] { return channel_state_of(tx); }, "overflow_evictions_..._round");
    std::latch blocking_receiver_may_start(1);
    receiver_log blocking_receiver_log;
    std::thread blocking_receiver([&, own = std::move(rx)]() mutable {
        receiving_slot.enter("wait for the senders to finish (a latch)");
        blocking_receiver_may_start.wait();
        blocking_receiver_log = receive_all_blocking(own, senders, receiving_slot);
    });

    std::vector<task<receiver_log>> receiving;
    for (std::size_t k = 0; k < async_receivers; ++k) {
        receiving.push_back(receive_all(std::move(receivers[k]), through<thread_pool>{&pool}, senders, nullptr));
    }
    std::vector<task<sender_log>> sending;
    for (std::size_t k = 0; k < async_senders; ++k) {
        // Started on the pool through `pool` itself; only the sends use the observing scheduler.
        sending.push_back([](sender<message> own, thread_pool& hop, observing_scheduler& sends, std::size_t id,
                             std::uint64_t count) -> task<sender_log> {
            co_await bcast_support::resume_on(hop);
            sender_log log;
            for (std::uint64_t sequence = 0; sequence < count; ++sequence) {
                auto sent = co_await own.async_broadcast(sends, make_message(id, sequence));
                if (!record(log, sent, sequence, make_message(id, sequence), nullptr)) break;
            }
            co_return log;
        }(tx, pool, sender_scheduler, k, per_sender));
    }
    sender_log blocking_sender_log = send_all_blocking(tx, async_senders, per_sender, main_slot);
    main_slot.enter("wait() for the sending coroutines");
    for (auto& each : sending) each.wait();
    blocking_receiver_may_start.count_down();
    tx.close();
    main_slot.enter("wait() for the receiving coroutines, after close()");
    for (auto& each : receiving) each.wait();
    blocking_receiver.join();
    main_slot.finish();

    EXPECT_EQ(sender_scheduler.count(), 0u); // R-ASYNC-1: no wait, no suspension
    std::vector<message> evicted_or_last;    // each message exactly once
    std::vector<sender_log> sent;
    for (auto& each : sending) sent.push_back(each.result());
    sent.push_back(blocking_sender_log);
    for (const sender_log& log : sent) {
        EXPECT_EQ(log.problem, "");
        EXPECT_EQ(log.delivered.size(), per_sender);
        evicted_or_last.insert(evicted_or_last.end(), log.evicted.begin(), log.evicted.end());
    }
    EXPECT_EQ(evicted_or_last.size(), total - capacity);

    EXPECT_EQ(blocking_receiver_log.problem, "");
    EXPECT_EQ(blocking_receiver_log.missed, total - capacity);
    EXPECT_EQ(blocking_receiver_log.received, capacity);
    for (std::size_t k = 0; k < senders; ++k) {
        for (std::uint64_t sequence : blocking_receiver_log.per_sender[k]) {
            evicted_or_last.push_back(make_message(k, sequence));
        }
    }
    std::vector<bool> seen(senders * per_sender, false);
    for (message value : evicted_or_last) {
        const std::size_t index = static_cast<std::size_t>(value / sender_stride * per_sender + value % sender_stride);
        ASSERT_LT(index, seen.size()) << value;
        EXPECT_FALSE(seen[index]) << value << " evicted or received twice";
        seen[index] = true;
    }

    for (std::size_t k = 0; k < async_receivers; ++k) {
        const receiver_log& got = receiving[k].result();
        EXPECT_EQ(got.problem, "") << "async receiver " << k;
        EXPECT_EQ(got.received + got.missed, total) << "async receiver " << k;
        for (std::size_t from = 0; from < senders; ++from) {
            const std::vector<std::uint64_t>& sequences = got.per_sender[from];
            for (std::size_t i = 1; i < sequences.size(); ++i) {
                EXPECT_LT(sequences[i - 1], sequences[i]) << "async receiver " << k << ", sender " << from;
            }
        }
    }
}

// R-ASYNC-3 inline: no scheduler. Two plain threads send with the blocking
// broadcast(); three receiver coroutines and one sender coroutine are resumed
// inline by whichever thread completes them: the sender threads, the blocking
// receiver thread that frees a slot, each other, or the thread that requests
// stop (R-ASYNC-4). Each resumed coroutine uses the channel at once, so
// completions nest. Order and completeness as in the pool test.
void inline_resumed_coroutines_serve_plain_threads_in_order_round() {
    constexpr std::size_t blocking_senders = 2, async_receivers = 3, senders = blocking_senders + 1;
    constexpr std::uint64_t per_sender = 1000;
    auto ends = channel<message>(3);
    sender<message>& tx = ends.first;
    receiver<message>& rx = ends.second;

    std::vector<receiver<message>> receivers(async_receivers, rx);
    std::vector<std::unique_ptr<cancel_point>> cancels;
    for (std::size_t k = 0; k < async_receivers + 1; ++k) cancels.push_back(std::make_unique<cancel_point>());

    call_slots slots;
    call_slot& receiving_slot = slots.emplace_back("blocking receiver thread", "answers received");
    for (std::size_t k = 0; k < blocking_senders; ++k) {
        slots.emplace_back("blocking sender thread " + std::to_string(k), "messages sent");
    }
    call_slot& main_slot = slots.emplace_back("main thread", "steps done");
    watchdog dog(
        slots, [&tx] { return channel_state_of(tx); }, "inline_resumed_coroutines_..._round");
    std::atomic<std::uint64_t> progress{0};
    receiver_log blocking_receiver_log;
    std::thread blocking_receiver(
        [&, own = std::move(rx)]() mutable { blocking_receiver_log = receive_all_blocking(own, senders, receiving_slot, &progress); });

    // Started here: each runs on this thread until its first wait, and from
    // then on on the threads that complete it.
    std::vector<task<receiver_log>> receiving;
    for (std::size_t k = 0; k < async_receivers; ++k) {
        receiving.push_back(receive_all(std::move(receivers[k]), inline_resume{}, senders, cancels[k].get()));
    }
    std::vector<cancel_point*> points;
    for (auto& point : cancels) points.push_back(point.get());
    canceller random_stops(points, progress);
    std::vector<sender_log> blocking_sender_logs(blocking_senders);
    std::vector<std::thread> blocking_sender_threads;
    for (std::size_t k = 0; k < blocking_senders; ++k) {
        blocking_sender_threads.emplace_back(
            [&, k] { blocking_sender_logs[k] = send_all_blocking(tx, k, per_sender, slots[1 + k]); });
    }
    task<sender_log> async_sender =
        send_all(tx, inline_resume{}, blocking_senders, per_sender, cancels[async_receivers].get());

    main_slot.enter("join() of the blocking sender threads");
    for (auto& thread : blocking_sender_threads) thread.join();
    main_slot.enter("wait() for the sending coroutine");
    async_sender.wait();
    const std::uint64_t trips = random_stops.finish(progress);
    tx.close(); // resumes the waiting receiver coroutines on this thread
    main_slot.enter("wait() for the receiving coroutines, after close()");
    for (auto& each : receiving) each.wait();
    blocking_receiver.join();
    main_slot.finish();

    std::vector<sender_log> sent = blocking_sender_logs;
    sent.push_back(async_sender.result());
    for (const sender_log& log : sent) EXPECT_EQ(log.problem, "");
    EXPECT_EQ(sent.back().delivered.size() + sent.back().handed_back, per_sender);
    std::uint64_t receives_cancelled = 0;
    for (std::size_t k = 0; k < async_receivers; ++k) {
        const receiver_log& got = receiving[k].result();
        expect_got_exactly(got, sent, "async receiver " + std::to_string(k));
        receives_cancelled += got.cancelled;
    }
    expect_got_exactly(blocking_receiver_log, sent, "blocking receiver");
    std::printf("random stop requests: %llu; sends cancelled: %llu; receives cancelled: %llu\n",
                static_cast<unsigned long long>(trips), static_cast<unsigned long long>(sent.back().handed_back),
                static_cast<unsigned long long>(receives_cancelled));
}

// Each test repeats its round until its time budget is spent (fresh
// interleavings each time; stress_harness.hpp).
TEST(async_stress, pool_coroutines_and_threads_get_every_message_in_order_through_cancellations) {
    for (stress::budget rounds; rounds.another() && !::testing::Test::HasFailure();) pool_coroutines_and_threads_get_every_message_in_order_through_cancellations_round();
}

TEST(async_stress, overflow_evictions_and_lag_reports_account_for_every_message) {
    for (stress::budget rounds; rounds.another() && !::testing::Test::HasFailure();) overflow_evictions_and_lag_reports_account_for_every_message_round();
}

TEST(async_stress, inline_resumed_coroutines_serve_plain_threads_in_order) {
    for (stress::budget rounds; rounds.another() && !::testing::Test::HasFailure();) inline_resumed_coroutines_serve_plain_threads_in_order_round();
}

} // namespace
} // namespace bcast::async_stress
