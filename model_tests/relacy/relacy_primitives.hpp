// SPDX-License-Identifier: MIT OR Apache-2.0
// relacy_primitives: the channel's Primitives (impl/include/bcast/primitives.hpp) mapped onto
// the Relacy Race Detector, so the unmodified impl/ code runs under Relacy's
// deterministic scheduler and every lock, wait, notify and shared-variable
// access becomes a scheduling point Relacy can permute and race-check.
//
// impl/ never includes this file: it lives in model_tests/ and is passed to the
// channel as its Primitives template argument, exactly like `std_primitives`.
//
// Notes:
//  * <relacy/relacy.hpp> defines macros (new, delete, assert, memory_order_*,
//    ...) that break standard headers included later, so every standard header
//    the channel and the tests need is included first and the macros are
//    undefined right after Relacy.
//  * Relacy wants a trailing `rl::debug_info` (`$`) on every primitive. Each
//    operation below takes a defaulted std::source_location, evaluated at the
//    direct caller (a line of channel_state.hpp), so traces point at the
//    channel's own lines and no `$` appears anywhere.
//  * BCAST_ASSERT is mapped onto RL_ASSERT: a broken channel invariant becomes a
//    Relacy counterexample with its history, not an abort.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <ostream>
#include <set>
#include <source_location>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <relacy/relacy.hpp>

#undef new
#undef delete
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef assert
#undef errno
#undef memory_order_relaxed
#undef memory_order_consume
#undef memory_order_acquire
#undef memory_order_release
#undef memory_order_acq_rel
#undef memory_order_seq_cst

#define BCAST_ASSERT(condition) RL_ASSERT(condition)

#include <bcast/bcast.hpp>

#include "model_clock.hpp"

namespace bcast_rl {

using loc_t = std::source_location;

inline rl::debug_info info(const loc_t& loc) { return rl::debug_info(loc.function_name(), loc.file_name(), loc.line()); }

constexpr rl::memory_order to_rl(std::memory_order order) {
    switch (order) {
    case std::memory_order_relaxed: return rl::mo_relaxed;
    case std::memory_order_consume: return rl::mo_consume;
    case std::memory_order_acquire: return rl::mo_acquire;
    case std::memory_order_release: return rl::mo_release;
    case std::memory_order_acq_rel: return rl::mo_acq_rel;
    default: return rl::mo_seq_cst;
    }
}

// `held()` is test instrumentation for invariant(): the channel's global
// invariants hold whenever its mutex is free.
class mutex {
public:
    void lock(loc_t loc = loc_t::current()) { lock(info(loc)); }
    void unlock(loc_t loc = loc_t::current()) { unlock(info(loc)); }
    void lock(rl::debug_info_param i) {
        m_.lock(i);
        held_ = true;
    }
    void unlock(rl::debug_info_param i) {
        held_ = false;
        m_.unlock(i);
    }
    bool held() const noexcept { return held_; }

private:
    rl::mutex m_;
    bool held_ = false;
};

// std::unique_lock's shape; lock(debug_info)/unlock(debug_info) are what
// rl::condition_variable calls around a wait.
class unique_lock {
public:
    explicit unique_lock(mutex& m, loc_t loc = loc_t::current()) : m_(&m), owns_(true), loc_(loc) { m.lock(info(loc)); }
    unique_lock(unique_lock&& other) noexcept
        : m_(std::exchange(other.m_, nullptr)), owns_(std::exchange(other.owns_, false)), loc_(other.loc_) {}
    unique_lock(const unique_lock&) = delete;
    unique_lock& operator=(const unique_lock&) = delete;
    ~unique_lock() {
        if (owns_) m_->unlock(info(loc_));
    }
    void lock(rl::debug_info_param i) {
        m_->lock(i);
        owns_ = true;
    }
    void unlock(rl::debug_info_param i) {
        m_->unlock(i);
        owns_ = false;
    }
    void unlock(loc_t loc = loc_t::current()) { unlock(info(loc)); } // std::unique_lock's spelling
    void lock(loc_t loc = loc_t::current()) { lock(info(loc)); }     // likewise (bcast::fast's sender re-locks after polling)
    bool owns_lock() const noexcept { return owns_; }

private:
    mutex* m_;
    bool owns_;
    loc_t loc_;
};

// A timed wait runs against model time (model_clock.hpp): it sleeps until a
// notify, a spurious return (Relacy's random scheduler injects them into both
// kinds of wait), or its deadline, a moment Relacy picks like any other; it
// answers `timeout` exactly when the deadline has passed at its return, as
// std::condition_variable::wait_until does.
//
// `threads_waiting` counts the fibers currently inside any wait of this model.
// It is test instrumentation only (the channel never reads it): reachability
// twins use it to prove a thread really was blocked in the critical window.
inline int threads_waiting = 0;

class condition_variable {
public:
    void wait(unique_lock& lock, loc_t loc = loc_t::current()) {
        ++threads_waiting;
        queue_.sleep(lock, false, info(loc));
        --threads_waiting;
    }
    // The model's deadlines are steady_clock time points (model_clock.hpp);
    // the reference hands a steady deadline to its condition variable as it is.
    template <class Duration>
    std::cv_status wait_until(unique_lock& lock, const std::chrono::time_point<std::chrono::steady_clock, Duration>& deadline,
                              loc_t loc = loc_t::current()) {
        ++threads_waiting;
        const bool passed =
            sleep_until(queue_, lock, std::chrono::time_point_cast<model_clock::time_point::duration>(deadline), info(loc));
        --threads_waiting;
        return passed ? std::cv_status::timeout : std::cv_status::no_timeout;
    }
    void notify_one(loc_t loc = loc_t::current()) { queue_.notify_one(info(loc)); }
    void notify_all(loc_t loc = loc_t::current()) { queue_.notify_all(info(loc)); }

private:
    wait_queue queue_;
};

template <class U>
class atomic {
public:
    atomic() : a_(U()) {}
    atomic(U initial) : a_(initial) {}
    U load(std::memory_order order = std::memory_order_seq_cst, loc_t loc = loc_t::current()) const {
        return a_.load(to_rl(order), info(loc));
    }
    void store(U value, std::memory_order order = std::memory_order_seq_cst, loc_t loc = loc_t::current()) {
        a_.store(value, to_rl(order), info(loc));
    }
    U fetch_add(U value, std::memory_order order = std::memory_order_seq_cst, loc_t loc = loc_t::current()) {
        return a_.fetch_add(value, to_rl(order), info(loc));
    }
    // The rest of std::atomic's interface that bcast's own lock uses (futex_scenarios.hpp).
    U fetch_sub(U value, std::memory_order order = std::memory_order_seq_cst, loc_t loc = loc_t::current()) {
        return a_.fetch_sub(value, to_rl(order), info(loc));
    }
    U exchange(U value, std::memory_order order = std::memory_order_seq_cst, loc_t loc = loc_t::current()) {
        return a_.exchange(value, to_rl(order), info(loc));
    }
    bool compare_exchange_strong(U& expected, U desired, std::memory_order success, std::memory_order failure,
                                 loc_t loc = loc_t::current()) {
        return a_.compare_exchange_strong(expected, desired, to_rl(success), info(loc), to_rl(failure), info(loc));
    }
    bool compare_exchange_weak(U& expected, U desired, std::memory_order success, std::memory_order failure,
                               loc_t loc = loc_t::current()) {
        return a_.compare_exchange_weak(expected, desired, to_rl(success), info(loc), to_rl(failure), info(loc));
    }

private:
    rl::atomic<U> a_;
};

// A plain shared variable: Relacy reports a data race on any two accesses (one
// a write) that are not ordered by happens-before, e.g. one made outside the
// channel lock.
template <class U>
class var {
public:
    var() : v_(U()) {}
    explicit var(U initial) : v_(initial) {}
    U get(loc_t loc = loc_t::current()) const { return v_(info(loc)).load(); }
    void set(U value, loc_t loc = loc_t::current()) { v_(info(loc)).store(value); }

private:
    rl::var<U> v_;
};

// What the reference's primitive set (below) and bcast::fast's
// (fast_relacy_primitives, fast_primitives.hpp) share: Relacy's mutex, the
// atomic and var above, and the position policy's position built on them.
template <class PositionPolicy>
struct relacy_shared_primitives {
    using mutex = bcast_rl::mutex;
    using unique_lock = bcast_rl::unique_lock;
    template <class U>
    using atomic = bcast_rl::atomic<U>;
    template <class U>
    using var = bcast_rl::var<U>;
    using position = typename PositionPolicy::template type<relacy_shared_primitives>;
};

template <class PositionPolicy = bcast::plain_position>
struct relacy_primitives : relacy_shared_primitives<PositionPolicy> {
    using condition_variable = bcast_rl::condition_variable;
};

using plain_primitives = relacy_primitives<bcast::plain_position>;
using atomic_relaxed_primitives = relacy_primitives<bcast::atomic_position<std::memory_order_relaxed>>;
using atomic_acq_rel_primitives = relacy_primitives<bcast::atomic_position<std::memory_order_acq_rel>>;
using atomic_seq_cst_primitives = relacy_primitives<bcast::atomic_position<std::memory_order_seq_cst>>;

static_assert(bcast::channel_primitives<plain_primitives>);
static_assert(bcast::channel_primitives<atomic_acq_rel_primitives>);

// Lets test code switch off Relacy's allocation tracking while it runs host
// code (the linearizability checker's std containers) inside after(): a free()
// under Relacy is a scheduling choice (deferred or not), which would multiply
// the search by the checker's own allocations. `disable_alloc_` is a protected
// counter of rl::context; the accessor below is never instantiated.
struct alloc_access : rl::context {
    static int& counter() { return rl::ctx().*(&alloc_access::disable_alloc_); }
};
struct alloc_guard {
    alloc_guard() { alloc_access::counter() += 1; }
    ~alloc_guard() { alloc_access::counter() -= 1; }
    alloc_guard(const alloc_guard&) = delete;
    alloc_guard& operator=(const alloc_guard&) = delete;
};

} // namespace bcast_rl
