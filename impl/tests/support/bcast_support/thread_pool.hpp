// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_support::thread_pool: a minimal bcast::scheduler for the examples and
// the TSan stress tests. schedule(handle) queues a coroutine; a fixed set of
// worker threads resume queued coroutines in FIFO order. Not part of bcast.
// co_await resume_on(pool) moves a coroutine onto one of its workers.
#pragma once

#include <condition_variable>
#include <coroutine>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace bcast_support {

class thread_pool {
public:
    explicit thread_pool(std::size_t threads) {
        workers_.reserve(threads);
        for (std::size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { run(); });
    }
    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;

    // Resumes what is still queued, then stops the workers.
    ~thread_pool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        ready_.notify_all(); // partner: the wait in run(); every worker must see stopping_
        for (std::thread& worker : workers_) worker.join();
    }

    // bcast::scheduler: queue `handle`; one worker resumes it.
    void schedule(std::coroutine_handle<> handle) noexcept {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            queue_.push_back(handle);
        }
        ready_.notify_one(); // partner: the wait in run(); one handle needs one worker
    }

    // Resumptions run so far, for tests that check the scheduler was used.
    std::size_t resumed() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return resumed_;
    }

    // Whether the calling thread is one of this pool's workers.
    bool on_worker_thread() const noexcept {
        for (const std::thread& worker : workers_) {
            if (worker.get_id() == std::this_thread::get_id()) return true;
        }
        return false;
    }

private:
    void run() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return; // stopping, and nothing left to resume
            std::coroutine_handle<> next = queue_.front();
            queue_.pop_front();
            ++resumed_;
            lock.unlock();
            next.resume();
            lock.lock();
        }
    }

    mutable std::mutex mutex_; // guards queue_, stopping_, resumed_
    std::condition_variable ready_;
    std::deque<std::coroutine_handle<>> queue_;
    bool stopping_ = false;
    std::size_t resumed_ = 0;
    std::vector<std::thread> workers_; // last: started after the fields above exist
};

// `co_await resume_on(scheduler)`: the coroutine suspends and continues on a
// thread of `scheduler` (any bcast::scheduler). An eager task starts on its
// caller's thread; this is how it moves to the pool, so that several
// coroutines really run at once. `scheduler` must outlive the suspension.
template <class Scheduler>
auto resume_on(Scheduler& scheduler) noexcept {
    struct awaiter {
        Scheduler& target;
        bool await_ready() const noexcept { return false; }
        // Touches nothing of `this` after schedule(): a worker may already be
        // running the coroutine, and this awaiter lives in its frame.
        void await_suspend(std::coroutine_handle<> caller) const noexcept { target.schedule(caller); }
        void await_resume() const noexcept {}
    };
    return awaiter{scheduler};
}

} // namespace bcast_support
