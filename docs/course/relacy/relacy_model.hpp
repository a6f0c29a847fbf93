// SPDX-License-Identifier: MIT OR Apache-2.0
// relacy_model: the mailbox's Model mapped onto the Relacy race detector
// (https://github.com/dvyukov/relacy), so the unmodified mailbox.hpp runs under
// Relacy's scheduler: every lock, unlock, wait, notify and `var` access becomes
// a point where Relacy may switch threads, and a `var` access that no lock
// orders against another thread's write is reported as a DATA RACE
// (docs/course/03-first-scenario.md).
//
// Two pieces of plumbing, both copied from bcast's own
// model_tests/relacy/relacy_primitives.hpp:
//  * <relacy/relacy.hpp> #defines `new`, `delete`, `assert` and the memory
//    orders, which breaks standard headers included after it: include those
//    first, then Relacy, then undo its macros.
//  * Relacy wants a debug_info (its `$` macro) on every call; a defaulted
//    std::source_location argument gives it the caller's line, so each event
//    of a Relacy report names the line of mailbox.hpp that made it.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <ostream>
#include <source_location>
#include <streambuf>
#include <string>
#include <type_traits>
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

namespace course::relacy {

using where = std::source_location;

inline rl::debug_info at(const where& w) { return rl::debug_info(w.function_name(), w.file_name(), w.line()); }

// How many threads are inside a wait right now. Test instrumentation only (the
// mailbox never reads it): a reachability twin uses it to prove that the
// search reaches "a thread is blocked" (docs/course/03-first-scenario.md).
// Relacy runs every thread as a fiber of one OS thread, so a plain int is exact.
inline int threads_waiting = 0;

class mutex {
public:
    void lock(rl::debug_info_param info) { m_.lock(info); }
    void unlock(rl::debug_info_param info) { m_.unlock(info); }

private:
    rl::mutex m_;
};

// std::unique_lock's shape; rl::condition_variable calls lock(info) and
// unlock(info) on it around a wait.
class unique_lock {
public:
    explicit unique_lock(mutex& m, where w = where::current()) : m_(m), w_(w) { m_.lock(at(w_)); }
    ~unique_lock() { m_.unlock(at(w_)); }
    unique_lock(const unique_lock&) = delete;
    unique_lock& operator=(const unique_lock&) = delete;
    void lock(rl::debug_info_param info) { m_.lock(info); }
    void unlock(rl::debug_info_param info) { m_.unlock(info); }

private:
    mutex& m_;
    where w_;
};

// Relacy's random scheduler also makes waits return spuriously, which is
// what catches an `if` where a `while` belongs (docs/course/04-first-mutant.md).
class condition_variable {
public:
    void wait(unique_lock& lock, where w = where::current()) {
        ++threads_waiting;
        cv_.wait(lock, at(w));
        --threads_waiting;
    }
    void notify_one(where w = where::current()) { cv_.notify_one(at(w)); }
    void notify_all(where w = where::current()) { cv_.notify_all(at(w)); }

private:
    rl::condition_variable cv_;
};

// A plain shared variable: Relacy traces every access and reports two that no
// happens-before orders (one of them a write) as a DATA RACE.
template <class U>
class var {
public:
    explicit var(U initial) : v_(initial) {}
    U get(where w = where::current()) const { return v_(at(w)).load(); }
    void set(U value, where w = where::current()) { v_(at(w)).store(value); }

private:
    rl::var<U> v_;
};

struct relacy_model {
    using mutex = relacy::mutex;
    using unique_lock = relacy::unique_lock;
    using condition_variable = relacy::condition_variable;
    template <class U>
    using var = relacy::var<U>;
};

} // namespace course::relacy
