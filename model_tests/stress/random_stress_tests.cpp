// SPDX-License-Identifier: MIT OR Apache-2.0
// Random-configuration stress rounds, run until the time budget is spent
// (stress_harness.hpp), and the watchdog's own tests.
//
// Each round draws a stress_config from its seed, half of them from the
// scenario generator (generated_config.hpp), half from stress_config.hpp: capacity,
// overflow, await_active, 1-3 sender threads, 1-4 receiver threads (steady or
// churning their receiver), how each call is made (blocking, try, timed,
// async resumed inline or through a pool), and a chaos thread that churns
// spare receivers and changes capacity / overflow / await_active mid-run. Then
// real threads send and receive instrumented messages until every sender is
// done and the channel closes. What must hold, whatever the configuration and
// the interleaving:
// - order (R-RECV-2): each receiver sees each sender's messages in increasing
//   order, whichever receiver handle it holds at the time;
// - lossless rounds (overflow never on, capacity never shrunk): every steady
//   receiver gets every message, and all of them in the same order;
// - complete-or-counted (R-OVF-2): a steady receiver received or counted in an
//   overflowed(n) every message; steady receivers agree on the relative order
//   of the messages they both received;
// - each answer is one the call may give (`full` only from try, `timed_out`
//   only from timed calls, `inactive` only from try or while await_active may
//   be off), and a failed send hands its message back (R-SEND-5);
// - len() <= capacity() (R-CAP-3);
// - every message object is destroyed exactly once (R-MSG-2): instance counts;
// - no hang: the watchdog fails the round and names each thread's call.
// Each round prints its configuration and the command that reruns it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <future>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <bcast/bcast.hpp>
#include <bcast_support/instrumented_message.hpp>
#include <bcast_support/task.hpp>
#include <bcast_support/thread_pool.hpp>

#include "generated_config.hpp"
#include "stress_config.hpp"
#include "stress_harness.hpp"

namespace bcast::stress {
namespace {

using message = bcast_support::instrumented_message;
using bcast_support::task;
using bcast_support::thread_pool;

// A message's value: its sender and its sequence number among that sender's.
constexpr int sender_stride = 1'000'000;

// One async call, awaited by the calling thread: the coroutine suspends when
// the call must wait and is resumed by the thread that completes it, or by a
// pool worker, while the calling thread blocks in task::wait().
task<send_result<message>> send_inline(const sender<message>& tx, message value) {
    co_return co_await tx.async_broadcast(std::move(value));
}
task<send_result<message>> send_through(const sender<message>& tx, thread_pool& pool, message value) {
    co_return co_await tx.async_broadcast(pool, std::move(value));
}
task<recv_result<message>> recv_inline(receiver<message>& rx) { co_return co_await rx.async_recv(); }
task<recv_result<message>> recv_through(receiver<message>& rx, thread_pool& pool) {
    co_return co_await rx.async_recv(pool);
}
template <class T>
T awaited(task<T> call) {
    call.wait();
    return std::move(call.result());
}

const char* send_call_name(call_kind kind) {
    switch (kind) {
    case call_kind::blocking: return "broadcast()";
    case call_kind::try_call: return "try_broadcast()";
    case call_kind::timed: return "broadcast_for()";
    case call_kind::async_inline: return "co_await async_broadcast()";
    case call_kind::async_pool: return "co_await async_broadcast(pool)";
    }
    return "?";
}
const char* recv_call_name(call_kind kind) {
    switch (kind) {
    case call_kind::blocking: return "recv()";
    case call_kind::try_call: return "try_recv()";
    case call_kind::timed: return "recv_for()";
    case call_kind::async_inline: return "co_await async_recv()";
    case call_kind::async_pool: return "co_await async_recv(pool)";
    }
    return "?";
}

struct sender_log {
    std::uint64_t sent = 0;    // messages whose send succeeded (each sequence number once)
    std::uint64_t evicted = 0; // messages handed back by overflow (R-OVF-1)
    std::string problem;       // the first unexpected answer
};

struct receiver_log {
    explicit receiver_log(std::size_t senders = 0) : last(senders, -1) {}
    std::vector<int> last;   // per sender, the last sequence number received
    std::vector<int> values; // arrival order (steady receivers only)
    std::uint64_t received = 0, missed = 0, churns = 0;
    std::string problem;

    // Order (R-RECV-2): true if `value` comes after everything from its sender.
    bool in_order(int value, const std::vector<int>& after, std::string& problem_out) const {
        const auto from = static_cast<std::size_t>(value / sender_stride);
        if (from >= after.size()) {
            problem_out = "message " + std::to_string(value) + " from no sender";
            return false;
        }
        if (value % sender_stride <= after[from]) {
            problem_out = "sender " + std::to_string(from) + "'s message " + std::to_string(value % sender_stride) +
                          " after its message " + std::to_string(after[from]);
            return false;
        }
        return true;
    }
};

// Everything one round shares.
class round_runner {
public:
    explicit round_runner(const stress_config& config)
        : config_(config), ends_(channel<message>(config.capacity)), observer_(ends_.first.new_receiver().deactivate()) {
        ends_.first.set_overflow(config.overflow);
        ends_.first.set_await_active(config.await_active);
        if (config.uses(call_kind::async_pool)) pool_.emplace(2);
    }

    void run() {
        sender<message>& tx = ends_.first;
        receiver<message>& rx = ends_.second;
        // Every receiver thread's first receiver exists before the first send.
        std::vector<receiver<message>> first_receivers(config_.receivers, rx);
        std::optional<receiver<message>> spare;
        if (config_.has_chaos_thread()) spare.emplace(rx.new_receiver());
        { receiver<message> dropped = std::move(rx); } // only the threads' receivers remain
        std::vector<sender<message>> own_senders(config_.senders, tx);
        { sender<message> dropped = std::move(tx); } // the last sender thread to finish closes (R-CLOSE-2)

        for (std::size_t k = 0; k < config_.senders; ++k) {
            slots_.emplace_back("sender thread " + std::to_string(k), "messages sent");
        }
        for (std::size_t k = 0; k < config_.receivers; ++k) {
            slots_.emplace_back("receiver thread " + std::to_string(k) + (k >= config_.steady() ? " (churning)" : ""),
                                "messages received or counted missed");
        }
        call_slot* chaos_slot = nullptr;
        if (spare) chaos_slot = &slots_.emplace_back("chaos thread", "changes (not progress: never counted)");
        call_slot& main_slot = slots_.emplace_back("main thread", "threads joined");
        sender_logs_.resize(config_.senders);
        receiver_logs_.assign(config_.receivers, receiver_log(config_.senders));

        // Declared after the handles it queries (observer_) and the slots, so it stops before they go.
        watchdog dog(
            slots_, [this] { return channel_state_of(observer_); },
            to_string(config_) + "\nrerun this configuration: " + reproduce_command(config_.seed));
        std::vector<std::thread> senders, receivers;
        for (std::size_t k = 0; k < config_.senders; ++k) {
            senders.emplace_back([this, k, own = std::move(own_senders[k])]() mutable {
                send_all(own, k);
                { sender<message> dropped = std::move(own); } // before finish(): closing is part of the work
                slots_[k].finish();
            });
        }
        for (std::size_t k = 0; k < config_.receivers; ++k) {
            receivers.emplace_back([this, k, own = std::move(first_receivers[k])]() mutable {
                receive_all(own, k);
                slots_[config_.senders + k].finish();
            });
        }
        std::thread chaos;
        if (spare) {
            chaos = std::thread([this, chaos_slot, own = std::move(*spare)]() mutable {
                churn(own, *chaos_slot);
                chaos_slot->finish();
            });
        }
        main_slot.enter("join() of the sender threads");
        for (auto& thread : senders) thread.join();
        sending_done_.store(true, std::memory_order_release);
        main_slot.progress(senders.size());
        if (chaos.joinable()) {
            main_slot.enter("join() of the chaos thread");
            chaos.join();
            main_slot.progress();
        }
        main_slot.enter("join() of the receiver threads");
        for (auto& thread : receivers) {
            thread.join();
            main_slot.progress();
        }
        main_slot.finish();
    }

    void check() const {
        const std::uint64_t total = config_.senders * config_.messages_per_sender;
        std::uint64_t evicted = 0;
        for (std::size_t k = 0; k < sender_logs_.size(); ++k) {
            const sender_log& log = sender_logs_[k];
            EXPECT_EQ(log.problem, "") << "sender thread " << k;
            EXPECT_EQ(log.sent, config_.messages_per_sender) << "sender thread " << k;
            evicted += log.evicted;
        }
        if (config_.lossless()) {
            EXPECT_EQ(evicted, 0u) << "an eviction without overflow";
        }
        EXPECT_EQ(chaos_problem_, "");
        const receiver_log* first_steady = nullptr;
        for (std::size_t k = 0; k < receiver_logs_.size(); ++k) {
            const receiver_log& log = receiver_logs_[k];
            EXPECT_EQ(log.problem, "") << "receiver thread " << k;
            if (k >= config_.steady()) {
                EXPECT_LE(log.received, total) << "churning receiver thread " << k;
                continue;
            }
            EXPECT_EQ(log.received + log.missed, total) << "steady receiver thread " << k << " (R-OVF-2)";
            if (config_.lossless()) {
                EXPECT_EQ(log.missed, 0u) << "steady receiver thread " << k << " lost messages";
            }
            if (first_steady == nullptr) {
                first_steady = &log;
            } else if (config_.lossless()) {
                EXPECT_TRUE(log.values == first_steady->values) << "steady receiver threads 0 and " << k
                                                                << " got the messages in different orders";
            } else {
                expect_same_relative_order(*first_steady, log, k);
            }
        }
    }

private:
    // Sends messages 0..n-1 of sender `id`, each until it is sent: a call that
    // may fail (full, timed_out, inactive) hands the message back for a retry.
    void send_all(const sender<message>& tx, std::size_t id) {
        call_slot& slot = slots_[id];
        sender_log& log = sender_logs_[id];
        std::mt19937_64 random(config_.seed ^ (0x5e0d0000 + id));
        const auto timeout = std::chrono::microseconds(config_.timeout_us);
        for (std::uint64_t sequence = 0; sequence < config_.messages_per_sender; ++sequence) {
            const int value = static_cast<int>(id) * sender_stride + static_cast<int>(sequence);
            std::optional<message> next(std::in_place, value);
            for (;;) {
                const call_kind kind = config_.sends.pick(random());
                slot.enter(send_call_name(kind), "with message ", value);
                send_result<message> sent = [&] {
                    switch (kind) {
                    case call_kind::blocking: return tx.broadcast(std::move(*next));
                    case call_kind::try_call: return tx.try_broadcast(std::move(*next));
                    case call_kind::timed: return tx.broadcast_for(std::move(*next), timeout);
                    case call_kind::async_inline: return awaited(send_inline(tx, std::move(*next)));
                    case call_kind::async_pool: return awaited(send_through(tx, *pool_, std::move(*next)));
                    }
                    return tx.broadcast(std::move(*next));
                }();
                slot.leave();
                next.reset();
                if (sent) {
                    if (sent->has_value()) ++log.evicted; // the evicted message dies here, with `sent`
                    ++log.sent;
                    slot.progress();
                    break;
                }
                const send_errc code = sent.error().code;
                const bool expected = (code == send_errc::full && kind == call_kind::try_call) ||
                                      (code == send_errc::timed_out && kind == call_kind::timed) ||
                                      (code == send_errc::inactive &&
                                       (kind == call_kind::try_call || config_.await_active_may_be_off()));
                if (!expected || sent.error().message.read() != value) {
                    log.problem = std::string(send_call_name(kind)) + " answered " + to_string(code) +
                                  " with message " + std::to_string(sent.error().message.read()) + " for message " +
                                  std::to_string(value);
                    return;
                }
                next.emplace(std::move(sent.error().message));              // R-SEND-5: handed back, sent again
                if (kind == call_kind::try_call) std::this_thread::yield(); // let a receiver make room
            }
        }
    }

    // Receives until closed. A churning thread now and then clones its receiver
    // and reads a little through the clone, replaces it by a deactivated and
    // reactivated one, or by a new_receiver() (R-LIFE-1, -2, -4, -5); the
    // per-sender order must hold across all of them.
    void receive_all(receiver<message>& first, std::size_t k) {
        call_slot& slot = slots_[config_.senders + k];
        receiver_log& log = receiver_logs_[k];
        const bool steady = k < config_.steady();
        std::mt19937_64 random(config_.seed ^ (0x7ec00000 + k));
        const auto timeout = std::chrono::microseconds(config_.timeout_us);
        receiver<message> rx = std::move(first);
        std::int64_t id = static_cast<std::int64_t>(k);
        for (;;) {
            if (!steady && random() % 16 == 0) {
                churn_own(rx, id, slot, log, random());
                continue;
            }
            const call_kind kind = config_.receives.pick(random());
            slot.enter(recv_call_name(kind), "on receiver #", id);
            recv_result<message> got = [&] {
                switch (kind) {
                case call_kind::blocking: return rx.recv();
                case call_kind::try_call: return rx.try_recv();
                case call_kind::timed: return rx.recv_for(timeout);
                case call_kind::async_inline: return awaited(recv_inline(rx));
                case call_kind::async_pool: return awaited(recv_through(rx, *pool_));
                }
                return rx.recv();
            }();
            slot.leave();
            if (got) {
                const int value = got->read();
                if (!log.in_order(value, log.last, log.problem)) return;
                log.last[static_cast<std::size_t>(value / sender_stride)] = value % sender_stride;
                if (steady) log.values.push_back(value);
                ++log.received;
                slot.progress();
                continue;
            }
            const recv_errc code = got.error().code;
            if (code == recv_errc::closed) return;
            if (code == recv_errc::overflowed) {
                log.missed += got.error().missed;
                slot.progress(got.error().missed);
                continue;
            }
            if (code == recv_errc::empty && kind == call_kind::try_call) {
                std::this_thread::yield(); // let a sender fill it
                continue;
            }
            if (code == recv_errc::timed_out && kind == call_kind::timed) continue;
            log.problem = std::string(recv_call_name(kind)) + " answered " + to_string(got.error());
            return;
        }
    }

    void churn_own(receiver<message>& rx, std::int64_t& id, call_slot& slot, receiver_log& log, std::uint64_t r) {
        ++log.churns;
        switch (r % 3) {
        case 0: { // a clone reads what rx would read next, so in order after rx's last (R-LIFE-1)
            slot.enter("copy + try_recv() on a copy of", "receiver #", id);
            receiver<message> copy = rx;
            std::vector<int> after = log.last;
            for (int n = 0; n < 4; ++n) {
                recv_result<message> got = copy.try_recv();
                if (!got) break;
                const int value = got->read();
                if (!log.in_order(value, after, log.problem)) break;
                after[static_cast<std::size_t>(value / sender_stride)] = value % sender_stride;
            }
            break;
        }
        case 1: // later messages only, so order continues (R-LIFE-4, -5)
            slot.enter("deactivate().activate() of", "receiver #", id);
            rx = std::move(rx).deactivate().activate();
            id = next_receiver_id_.fetch_add(1, std::memory_order_relaxed);
            break;
        default: // R-LIFE-2
            slot.enter("new_receiver() replacing", "receiver #", id);
            rx = rx.new_receiver();
            id = next_receiver_id_.fetch_add(1, std::memory_order_relaxed);
            break;
        }
        slot.leave();
    }

    // The chaos thread, until the senders are done. Its spare receiver reads
    // with try_recv() often, so it never holds the senders back for long.
    void churn(receiver<message>& spare, call_slot& slot) {
        std::mt19937_64 random(config_.seed ^ 0xc4a05000);
        std::vector<inactive_receiver<message>> parked;
        std::size_t capacity = config_.capacity; // only this thread sets it
        while (!sending_done_.load(std::memory_order_acquire)) {
            const std::uint64_t r = random();
            const bool settings_turn = config_.settings_churn && (!config_.handle_churn || r % 2 == 0);
            if (settings_turn) {
                switch ((r >> 1) % 3) {
                case 0:
                    capacity = static_cast<std::size_t>(1 + (r >> 8) % 8);
                    slot.enter("set_capacity()");
                    spare.set_capacity(capacity);
                    break;
                case 1:
                    slot.enter("set_overflow()");
                    spare.set_overflow((r >> 8) % 2 == 0);
                    break;
                default:
                    slot.enter("set_await_active()");
                    spare.set_await_active((r >> 8) % 2 == 0);
                    break;
                }
            } else {
                switch ((r >> 1) % 4) {
                case 0: {
                    slot.enter("copy of the spare receiver + try_recv()");
                    receiver<message> copy = spare;
                    static_cast<void>(copy.try_recv());
                    break;
                }
                case 1:
                    slot.enter("deactivate().activate() of the spare receiver");
                    spare = std::move(spare).deactivate().activate();
                    break;
                case 2:
                    slot.enter("new_receiver().deactivate()");
                    if (parked.size() < 3) parked.push_back(spare.new_receiver().deactivate());
                    break;
                default:
                    slot.enter("activate_cloned() of a parked receiver");
                    if (!parked.empty()) {
                        receiver<message> back = parked.back().activate_cloned();
                        static_cast<void>(back.try_recv());
                        parked.pop_back();
                    }
                    break;
                }
            }
            slot.enter("len() and capacity()");
            const std::size_t length = spare.len();
            if (length > capacity && chaos_problem_.empty()) {
                chaos_problem_ = "len() " + std::to_string(length) + " > capacity() " + std::to_string(capacity);
            }
            slot.enter("try_recv() on the spare receiver");
            for (int n = 0; n < 8; ++n) {
                if (!spare.try_recv() && spare.is_empty()) break;
            }
            slot.leave();
            std::this_thread::yield();
        }
    }

    // Every message both receivers got comes in the same relative order.
    static void expect_same_relative_order(const receiver_log& first, const receiver_log& other, std::size_t k) {
        std::unordered_map<int, std::size_t> index;
        for (std::size_t i = 0; i < first.values.size(); ++i) index[first.values[i]] = i;
        bool any = false;
        std::size_t previous = 0;
        for (int value : other.values) {
            auto found = index.find(value);
            if (found == index.end()) continue;
            if (any && found->second < previous) {
                ADD_FAILURE() << "steady receiver threads 0 and " << k << " disagree on the order of " << value;
                return;
            }
            previous = found->second;
            any = true;
        }
    }

    const stress_config config_;
    decltype(channel<message>(1)) ends_;  // std::pair<sender, receiver>
    inactive_receiver<message> observer_; // for the watchdog's channel report; receives nothing
    std::optional<thread_pool> pool_;
    call_slots slots_;
    std::vector<sender_log> sender_logs_;
    std::vector<receiver_log> receiver_logs_;
    std::string chaos_problem_; // written by the chaos thread, read after its join
    std::atomic<bool> sending_done_{false};
    std::atomic<std::int64_t> next_receiver_id_{1000}; // churned receivers: #1000 and up
};

// Runs one round of `config` and checks it, messages' lifetimes included.
void run_round(const stress_config& config) {
    message::reset();
    {
        round_runner round(config);
        round.run();
        round.check();
    } // the channel and every handle are gone here
    const long originals = static_cast<long>(config.senders * config.messages_per_sender);
    EXPECT_EQ(message::live.load(), 0) << "message objects leaked or destroyed twice (R-MSG-2)";
    EXPECT_EQ(message::errors.load(), 0) << "a dead message object was used or destroyed";
    EXPECT_EQ(message::destroyed.load(), originals + message::copies.load())
        << "each message and each copy must be destroyed exactly once (R-MSG-2)";
}

TEST(random_stress, random_configurations_keep_order_counts_and_message_lifetimes) {
    const settings& s = settings::get();
    std::printf("[stress] BCAST_STRESS_SEED=%s (%s) BCAST_STRESS_SECONDS=%g BCAST_STRESS_WATCHDOG_SECONDS=%g\n",
                hex(s.seed).c_str(), s.seed_given ? "from the environment" : "random: set it to rerun these rounds",
                s.seconds, s.watchdog_seconds);
    std::uint64_t seed = s.seed;
    for (budget rounds; rounds.another(); seed = next_seed(seed)) {
        gen::scenario scenario;
        const stress_config config = round_config(seed, &scenario);
        std::printf("[stress] round %llu: %s\n", static_cast<unsigned long long>(rounds.round()),
                    to_string(config).c_str());
        if (drawn_from_generator(seed)) std::printf("[stress]   from the generated scenario %s\n", gen::to_string(scenario).c_str());
        std::fflush(stdout); // before the round: a crash or a watchdog exit still shows it
        SCOPED_TRACE("round " + std::to_string(rounds.round()) + ": " + to_string(config) +
                     "\nrerun this configuration: " + reproduce_command(seed));
        run_round(config);
        if (::testing::Test::HasFailure()) break; // the first failing round is the one to look at
    }
}

// A round drawn from the generator keeps the scenario's shape: its capacity
// and flags, a thread per sending and per receiving thread of it, its calls.
TEST(generated_config, a_round_keeps_the_scenarios_capacity_flags_threads_and_calls) {
    const auto s = gen::parse_scenario("cap:2 | setup: set_await_active:0:0 clone_sender:0 clone_receiver:1 | "
                                       "t0{0}: broadcast:0 | t1{2}: async_broadcast:2 try_broadcast:2 | "
                                       "t2{1,3}: recv_expired:1 deactivate:3 | teardown:");
    ASSERT_TRUE(s.has_value());
    const stress_config config = config_from_scenario(*s, 7);
    EXPECT_EQ(config.capacity, 2u);
    EXPECT_FALSE(config.await_active);
    EXPECT_FALSE(config.overflow);
    EXPECT_EQ(config.senders, 2u);
    EXPECT_EQ(config.receivers, 1u);
    EXPECT_EQ(config.churning, 1u); // the receiving thread deactivates a receiver
    EXPECT_TRUE(config.handle_churn);
    EXPECT_FALSE(config.settings_churn);
    EXPECT_TRUE(config.sends.uses(call_kind::blocking));
    EXPECT_TRUE(config.sends.uses(call_kind::try_call));
    EXPECT_TRUE(config.sends.uses(call_kind::async_inline) || config.sends.uses(call_kind::async_pool));
    EXPECT_FALSE(config.sends.uses(call_kind::timed));
    EXPECT_TRUE(config.receives.uses(call_kind::timed));
    EXPECT_FALSE(config.receives.uses(call_kind::blocking));
    EXPECT_TRUE(drawn_from_generator(7));
    EXPECT_FALSE(drawn_from_generator(8));
    EXPECT_EQ(to_string(round_config(8)), to_string(draw_config(8)));
}

// ---- the watchdog's own tests ---------------------------------------------
// A thread blocks for good, and the watchdog must end the process with a
// report that names the call. Death tests: the hang runs in a child process
// (re-executed, "threadsafe" style, as threads are running), and the test
// checks the child's exit status and its report.

// A channel that a thread gets stuck on for good, and the call slots of the
// watchdog over it.
struct stuck_channel {
    explicit stuck_channel(std::size_t capacity) : ends(channel<int>(capacity)) {}
    std::pair<sender<int>, receiver<int>> ends;
    sender<int>& tx = ends.first;
    receiver<int>& rx = ends.second;
    call_slots slots;

    // Runs `stuck_call` on a thread of its own, under a watchdog that names the
    // round and reports the channel through `other_end`, the end the stuck
    // thread does not use, and waits for that thread. Closing `other_end`, which
    // lets the thread go, is for a watchdog that never fires.
    template <class OtherEnd, class StuckCall>
    void run(OtherEnd& other_end, const char* round, double watchdog_seconds, StuckCall stuck_call) {
        std::promise<void> returned;
        std::future<void> thread_returned = returned.get_future();
        watchdog dog(
            slots, [&other_end] { return channel_state_of(other_end); }, round, watchdog_seconds);
        std::thread stuck([&] { stuck_call(); returned.set_value(); });
        // A bound, so that a watchdog that never fires fails the death test
        // ("returned") instead of hanging it.
        if (thread_returned.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
            std::fputs("the watchdog did not fire\n", stderr);
            other_end.close();
        }
        stuck.join();
    }
};

// A receiver thread in recv() on a channel that nobody sends to or closes:
// the main thread holds the sender and waits for the receiver thread.
void receiver_stuck_in_recv(double watchdog_seconds) {
    stuck_channel ch(2);
    call_slot& receiving = ch.slots.emplace_back("receiver thread 0", "messages received");
    ch.slots.emplace_back("main thread", "threads joined").enter("wait for receiver thread 0");
    ch.run(ch.tx, "receiver_stuck_in_recv", watchdog_seconds, [&] {
        receiving.enter("recv()", "on receiver #", 0);
        static_cast<void>(ch.rx.recv()); // blocks for good: the channel stays open and empty
        receiving.leave();
    });
}

// A sender thread in broadcast() on a full channel that nobody reads.
void sender_stuck_in_broadcast(double watchdog_seconds) {
    stuck_channel ch(1);
    call_slot& sending = ch.slots.emplace_back("sender thread 0", "messages sent");
    ch.run(ch.rx, "sender_stuck_in_broadcast", watchdog_seconds, [&] {
        for (int value = 0;; ++value) {
            sending.enter("broadcast()", "with message ", value);
            if (!ch.tx.broadcast(value)) break; // the second one blocks for good: full, nobody reads
            sending.leave();
            sending.progress();
        }
    });
}

TEST(watchdog, reports_a_receiver_stuck_in_recv_and_fails_the_process) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(receiver_stuck_in_recv(0.3), ::testing::ExitedWithCode(watchdog_exit_code),
                "no progress for [0-9.]+ s.*"
                "receiver thread 0: recv\\(\\) on receiver #0, waiting since [0-9.]+ s, 0 messages received.*"
                "main thread: wait for receiver thread 0, waiting since.*"
                "channel: len=0 capacity=2 closed=no receiver_count=1.*"
                "round: receiver_stuck_in_recv");
}

TEST(watchdog, reports_a_sender_stuck_in_broadcast_on_a_full_channel) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(sender_stuck_in_broadcast(0.3), ::testing::ExitedWithCode(watchdog_exit_code),
                "sender thread 0: broadcast\\(\\) with message 1, waiting since [0-9.]+ s, 1 messages sent.*"
                "channel: len=1 capacity=1 closed=no");
}

} // namespace
} // namespace bcast::stress
