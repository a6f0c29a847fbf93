// SPDX-License-Identifier: MIT OR Apache-2.0
// The watchdog of the runner's blocking calls (docs/property-tests.md, "Blocking calls").
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace bcast::prop {

// A blocking call is made only where the model says it cannot block. If the
// implementation blocks anyway, the watchdog (one thread for the process)
// ends the wait by running `on_timeout` (the runner closes the channel, so the
// difference is reported and shrunk like any other); if even that does not
// end it, the process aborts with a message.
class watchdog {
public:
    static watchdog& instance() {
        static watchdog dog;
        return dog;
    }

    void arm(std::chrono::milliseconds after, std::function<void()> on_timeout) {
        std::lock_guard<std::mutex> lock(mutex_);
        deadline_ = std::chrono::steady_clock::now() + after;
        action_ = std::move(on_timeout);
        armed_ = true;
        fired_ = false;
        cv_.notify_all();
    }

    // Returns whether the watchdog fired; waits for a running on_timeout to end.
    bool disarm() {
        std::unique_lock<std::mutex> lock(mutex_);
        armed_ = false;
        action_ = nullptr;
        cv_.notify_all();
        cv_.wait(lock, [this] { return !running_; });
        return fired_;
    }

    ~watchdog() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
            cv_.notify_all();
        }
        thread_.join();
    }

private:
    watchdog() : thread_([this] { loop(); }) {}

    void loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stop_) {
            if (!armed_) {
                cv_.wait(lock);
                continue;
            }
            if (cv_.wait_until(lock, deadline_) != std::cv_status::timeout || !armed_) continue;
            if (std::chrono::steady_clock::now() < deadline_) continue;
            fired_ = true;
            std::function<void()> action = std::move(action_);
            action_ = nullptr;
            deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            running_ = true;
            lock.unlock();
            if (action) action();
            lock.lock();
            running_ = false;
            cv_.notify_all();
            if (armed_ && !cv_.wait_until(lock, deadline_, [this] { return !armed_ || stop_; })) {
                std::fputs("bcast property tests: a blocking call that the spec model says cannot block did not "
                           "return, even after the channel was closed; aborting\n",
                           stderr);
                std::abort();
            }
        }
    }

    std::mutex mutex_;
    std::condition_variable cv_;
    bool armed_ = false;
    bool fired_ = false;
    bool running_ = false; // on_timeout is running (unlocked)
    bool stop_ = false;
    std::chrono::steady_clock::time_point deadline_;
    std::function<void()> action_;
    std::thread thread_; // last: starts after the fields above exist
};

} // namespace bcast::prop
