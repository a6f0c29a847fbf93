// SPDX-License-Identifier: MIT OR Apache-2.0
// What every stress test shares: its time budget, its seed, and a watchdog
// that turns a hang into a failure that names the stuck calls.
//
// Environment (read once per process; see docs/verification.md, "Stress tests"):
//   BCAST_STRESS_SECONDS           time budget of each test, in seconds (default
//                                  BCAST_STRESS_DEFAULT_SECONDS, set by CMake's
//                                  BCAST_STRESS_SECONDS, 2): a test runs rounds
//                                  until it is spent, and always at least one
//   BCAST_STRESS_ROUNDS            at most this many rounds per test (default 0: no limit)
//   BCAST_STRESS_SEED              the first round's seed (default: random, printed)
//   BCAST_STRESS_WATCHDOG_SECONDS  a round that makes no progress this long fails (default 10)
//
// The watchdog cannot rely on ctest's timeout: that kills the process without
// saying where it hung. Each thread of a round owns a call_slot and publishes
// in it, before each call, what it is about to call; the watchdog polls the
// slots' progress counters and, when none has moved for the limit, prints every
// slot, the channel's state, the round, and exits the process (threads stuck in
// a call cannot be joined, so there is no orderly way out).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include <unistd.h>

#include <gtest/gtest.h>

#ifndef BCAST_STRESS_DEFAULT_SECONDS
#define BCAST_STRESS_DEFAULT_SECONDS 2
#endif

namespace bcast::stress {

// The exit status of a process that the watchdog ended.
inline constexpr int watchdog_exit_code = 3;

// The environment's settings, read once; a malformed value ends the process
// with a message, so a typo in a soak command does not silently run the default.
struct settings {
    double seconds = BCAST_STRESS_DEFAULT_SECONDS;
    std::uint64_t max_rounds = 0;
    std::uint64_t seed = 0;
    bool seed_given = false;
    double watchdog_seconds = 10;

    static const settings& get() {
        static const settings read = from_environment();
        return read;
    }

private:
    [[noreturn]] static void malformed(const char* name, const char* value) {
        std::fprintf(stderr, "bcast stress: %s=%s is not a valid value\n", name, value);
        std::exit(2);
    }
    static double seconds_of(const char* name, double fallback) {
        const char* text = std::getenv(name);
        if (text == nullptr || *text == '\0') return fallback;
        char* end = nullptr;
        const double value = std::strtod(text, &end);
        if (*end != '\0' || !(value >= 0)) malformed(name, text);
        return value;
    }
    static std::uint64_t integer_of(const char* name, std::uint64_t fallback, bool* given = nullptr) {
        const char* text = std::getenv(name);
        if (text == nullptr || *text == '\0') return fallback;
        char* end = nullptr;
        const unsigned long long value = std::strtoull(text, &end, 0); // 0x... or decimal
        if (*end != '\0' || *text == '-') malformed(name, text);
        if (given != nullptr) *given = true;
        return value;
    }
    static settings from_environment() {
        settings s;
        s.seconds = seconds_of("BCAST_STRESS_SECONDS", s.seconds);
        s.max_rounds = integer_of("BCAST_STRESS_ROUNDS", 0);
        s.seed = integer_of("BCAST_STRESS_SEED", 0, &s.seed_given);
        if (!s.seed_given) s.seed = (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
        s.watchdog_seconds = seconds_of("BCAST_STRESS_WATCHDOG_SECONDS", s.watchdog_seconds);
        if (s.watchdog_seconds <= 0) malformed("BCAST_STRESS_WATCHDOG_SECONDS", "0");
        return s;
    }
};

inline std::string hex(std::uint64_t value) {
    std::ostringstream text;
    text << "0x" << std::hex << value;
    return text.str();
}

// The running gtest test, as --gtest_filter takes it.
inline std::string current_test_name() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return info == nullptr ? std::string("*") : std::string(info->test_suite_name()) + "." + info->name();
}

// This binary's path, for the reproduce line.
inline std::string this_binary() {
    char path[4096];
    const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
    return length > 0 ? std::string(path, static_cast<std::size_t>(length)) : std::string("<this test binary>");
}

// The one command that reruns this test starting at the round seeded `seed`.
inline std::string reproduce_command(std::uint64_t seed) {
    return "BCAST_STRESS_SEED=" + hex(seed) + " BCAST_STRESS_ROUNDS=1 " + this_binary() +
           " --gtest_filter=" + current_test_name();
}

// A test's rounds: as many as its time budget allows, at least one.
//   for (stress::budget rounds; rounds.another();) { ...one round... }
class budget {
public:
    budget() : start_(std::chrono::steady_clock::now()) {}

    // Whether to run one more round; counts it.
    bool another() {
        const settings& s = settings::get();
        if (rounds_ > 0 && (elapsed() >= s.seconds || (s.max_rounds != 0 && rounds_ >= s.max_rounds))) {
            report();
            return false;
        }
        ++rounds_;
        return true;
    }
    std::uint64_t round() const { return rounds_; } // 1 in the first round
    double elapsed() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

private:
    void report() const {
        std::printf("[stress] %s: %llu rounds in %.2f s (%.1f rounds/s; budget BCAST_STRESS_SECONDS=%g)\n",
                    current_test_name().c_str(), static_cast<unsigned long long>(rounds_), elapsed(),
                    static_cast<double>(rounds_) / elapsed(), settings::get().seconds);
        std::fflush(stdout);
    }

    std::chrono::steady_clock::time_point start_;
    std::uint64_t rounds_ = 0;
};

inline std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// What one thread (or coroutine) of a round is doing, published for the
// watchdog: the call it is in (a static string), what the call is on, since
// when, and how many units of progress it has made. Written by its owner only;
// read by the watchdog at any time, hence atomics (a report may mix two
// consecutive calls' fields: it is a diagnosis, not a check).
class call_slot {
public:
    // `name`: "receiver thread 2"; `unit`: what progress counts, "messages received".
    call_slot(std::string name, const char* unit) : name_(std::move(name)), unit_(unit) {}

    // Before a call: `call` is "recv()", `on` is "on receiver #", `target` 3.
    void enter(const char* call, const char* on = nullptr, std::int64_t target = 0) noexcept {
        on_.store(on, std::memory_order_relaxed);
        target_.store(target, std::memory_order_relaxed);
        since_.store(now_ns(), std::memory_order_relaxed);
        call_.store(call, std::memory_order_release);
    }
    void leave() noexcept {
        since_.store(now_ns(), std::memory_order_relaxed);
        call_.store(nullptr, std::memory_order_release);
    }
    void progress(std::uint64_t units = 1) noexcept { count_.fetch_add(units, std::memory_order_relaxed); }
    void finish() noexcept {
        leave();
        finished_.store(true, std::memory_order_release);
    }

    std::uint64_t count() const noexcept { return count_.load(std::memory_order_relaxed); }

    // "receiver thread 2: recv() on receiver #3, waiting since 10.2 s, 417 messages received"
    std::string describe(std::int64_t now) const {
        std::ostringstream text;
        text.setf(std::ios::fixed);
        text.precision(1);
        const char* call = call_.load(std::memory_order_acquire);
        const double seconds = static_cast<double>(std::max<std::int64_t>(0, now - since_.load(std::memory_order_relaxed))) / 1e9;
        text << name_ << ": ";
        if (finished_.load(std::memory_order_acquire)) {
            text << "finished";
        } else if (call == nullptr) {
            text << "between calls (last call returned " << seconds << " s ago)";
        } else {
            text << call;
            if (const char* on = on_.load(std::memory_order_relaxed)) text << ' ' << on << target_.load();
            text << ", waiting since " << seconds << " s";
        }
        text << ", " << count() << ' ' << unit_;
        return text.str();
    }

private:
    std::string name_;
    const char* unit_;
    std::atomic<const char*> call_{nullptr};
    std::atomic<const char*> on_{nullptr};
    std::atomic<std::int64_t> target_{0};
    std::atomic<std::int64_t> since_{now_ns()};
    std::atomic<std::uint64_t> count_{0};
    std::atomic<bool> finished_{false};
};

// The slots of one round. A deque: slots never move, so threads may hold
// references while more are added (all are added before the threads start).
using call_slots = std::deque<call_slot>;

// Watches one round. Progress is the sum of every slot's counter; when it has
// not changed for `limit_seconds`, prints the report to stderr and ends the
// process with watchdog_exit_code. `channel_state` describes the channel; it
// takes the channel's lock, which a stuck thread may hold, so it runs on a
// thread of its own and the report goes out without it after 2 s.
class watchdog {
public:
    watchdog(const call_slots& slots, std::function<std::string()> channel_state, std::string round,
             double limit_seconds = settings::get().watchdog_seconds)
        : slots_(slots), channel_state_(std::move(channel_state)), round_(std::move(round)), limit_(limit_seconds),
          thread_([this] { watch(); }) {}
    watchdog(const watchdog&) = delete;
    watchdog& operator=(const watchdog&) = delete;

    ~watchdog() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all(); // partner: the wait in watch()
        thread_.join();
    }

private:
    std::uint64_t total() const {
        std::uint64_t sum = 0;
        for (const call_slot& slot : slots_) sum += slot.count();
        return sum;
    }

    void watch() {
        using namespace std::chrono;
        // Polling, not a wait on the threads: the threads must not have to tell
        // the watchdog anything for it to notice that they stopped.
        const auto poll = duration_cast<steady_clock::duration>(duration<double>(std::min(0.1, limit_ / 10)));
        std::uint64_t last_total = total();
        auto last_change = steady_clock::now();
        std::unique_lock<std::mutex> lock(mutex_);
        while (!wake_.wait_for(lock, poll, [this] { return stop_; })) {
            const std::uint64_t now_total = total();
            const auto now = steady_clock::now();
            if (now_total != last_total) {
                last_total = now_total;
                last_change = now;
            } else if (duration<double>(now - last_change).count() >= limit_) {
                report(duration<double>(now - last_change).count()); // does not return
            }
        }
    }

    [[noreturn]] void report(double stalled) {
        const std::int64_t now = now_ns();
        std::ostringstream text;
        text.precision(3);
        text << "\nbcast stress watchdog: no progress for " << stalled << " s (BCAST_STRESS_WATCHDOG_SECONDS="
             << limit_ << ") in " << current_test_name() << "; where each thread is:\n";
        for (const call_slot& slot : slots_) text << "  " << slot.describe(now) << '\n';
        std::fputs(text.str().c_str(), stderr);
        std::fflush(stderr);
        std::fprintf(stderr, "channel: %s\nround: %s\n", query_channel().c_str(), round_.c_str());
        std::fflush(stderr);
        std::_Exit(watchdog_exit_code);
    }

    // The channel's state, or why it is missing: queried on a thread that may
    // block on the channel's lock forever (it is left behind; the process ends).
    std::string query_channel() {
        struct answer {
            std::mutex mutex;
            std::condition_variable done;
            bool ready = false;
            std::string text;
        };
        auto shared = std::make_shared<answer>();
        std::thread([shared, describe = channel_state_] {
            std::string text = describe ? describe() : std::string("(not described)");
            std::lock_guard<std::mutex> lock(shared->mutex);
            shared->text = std::move(text);
            shared->ready = true;
            shared->done.notify_all(); // partner: the wait below
        }).detach();
        std::unique_lock<std::mutex> lock(shared->mutex);
        if (!shared->done.wait_for(lock, std::chrono::seconds(2), [&] { return shared->ready; })) {
            return "(no answer within 2 s: a stuck thread holds the channel's lock?)";
        }
        return shared->text;
    }

    const call_slots& slots_;
    std::function<std::string()> channel_state_;
    std::string round_;
    double limit_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread thread_; // last: started after the fields above exist
};

// "len=4 capacity=4 closed=no receiver_count=3 ..." for any handle of the channel.
template <class Handle>
std::string channel_state_of(const Handle& handle) {
    std::ostringstream text;
    text << "len=" << handle.len() << " capacity=" << handle.capacity()
         << " closed=" << (handle.is_closed() ? "yes" : "no") << " receiver_count=" << handle.receiver_count()
         << " inactive_receiver_count=" << handle.inactive_receiver_count()
         << " sender_count=" << handle.sender_count() << " overflow=" << (handle.overflow() ? "on" : "off")
         << " await_active=" << (handle.await_active() ? "on" : "off");
    return text.str();
}

} // namespace bcast::stress
