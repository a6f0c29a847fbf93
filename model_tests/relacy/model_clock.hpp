// SPDX-License-Identifier: MIT OR Apache-2.0
// Time in the Relacy model: a timed call's deadline is an event the scheduler
// orders against every other step (R-SEND-4, R-RECV-5).
//
// Model time is one counter, `model_clock::now`. A deadline is an instant on
// it, carried in a steady_clock::time_point whose count is that instant, so
// both families' timed calls pass it through unchanged (a steady deadline is
// never converted; other clocks are real-thread tests' job, manual_clock.hpp).
//
// When does time pass? Only where a thread can see it, which loses no
// behaviour: between two reads of the clock no thread can tell whether it
// moved.
//  (a) A timed sleep ends with a timeout: Relacy picks that moment, like any
//      other scheduling choice, while the thread sleeps. Its deadline passes
//      then.
//  (b) A thread reads the clock: after a wake-up (a notify, or a spurious
//      return) and when a waiter checks its deadline before it polls. If the
//      deadline is still ahead, the model chooses (rl::rand: the full search
//      tries both) whether it has passed by now.
// Time never goes back: once a deadline has passed, every earlier one has too.
// Each timed call gets a later deadline than the one before it (the same
// timeout, started later), so "B's deadline passed, A's not" never happens
// for two calls A, B started in that order, as in real time.
//
// What a timed wait may answer then is what std::condition_variable::wait_until
// answers: `timeout` exactly when the deadline has passed at its return
// (even if it was also notified: the caller must re-check, R-SEND-4), and
// `no_timeout` otherwise (notified, or spurious: the caller loops).
//
// The recorder (harness.hpp) listens: when time passes, every timed call in
// flight whose deadline is now behind gets the tick of that moment as its
// deadline in the history, and the checker then places a `timed_out` answer
// at or after it. So a call that gives up on a wake-up which came before its
// deadline (no re-check after the timeout) is not linearizable, and one that
// answers timed_out while its deadline is still ahead breaks R-SEND-4/R-RECV-5.
#pragma once

#include <chrono>
#include <cstdint>

#include <relacy/relacy.hpp> // included after the standard headers by relacy_primitives.hpp

namespace bcast_rl {

class model_clock {
public:
    using time_point = std::chrono::steady_clock::time_point;
    using listener = void (*)(void* context, std::int64_t now);

    // A new execution: time 0, no deadline handed out yet, `on_pass` told
    // whenever time moves (nullptr: nobody listens).
    static void start(void* context = nullptr, listener on_pass = nullptr) {
        now_ = 0, last_deadline_ = 0;
        context_ = context, on_pass_ = on_pass;
    }

    // The deadline of a timed call starting now: later than every deadline
    // handed out before (see the top of the file).
    static time_point next_deadline() {
        last_deadline_ = (last_deadline_ > now_ ? last_deadline_ : now_) + 1;
        return at(last_deadline_);
    }

    static std::int64_t instant(const time_point& deadline) { return deadline.time_since_epoch().count(); }
    static time_point at(std::int64_t instant) { return time_point(time_point::duration(instant)); }
    static bool has_passed(const time_point& deadline) { return instant(deadline) <= now_; }

    // (a): the deadline passes now (a timed sleep timed out).
    static void pass(const time_point& deadline) {
        if (has_passed(deadline)) return;
        now_ = instant(deadline);
        if (on_pass_ != nullptr) on_pass_(context_, now_);
    }
    // (b): a read of the clock. True when the deadline has passed, or the
    // model lets it pass now.
    static bool observe(const time_point& deadline) {
        if (has_passed(deadline)) return true;
        if (rl::rand(2) == 0) return false;
        pass(deadline);
        return true;
    }

private:
    // Plain globals: Relacy runs every fiber on one OS thread, and the clock is
    // the model's, not the program's (no data race to look for here).
    static inline std::int64_t now_ = 0;
    static inline std::int64_t last_deadline_ = 0;
    static inline void* context_ = nullptr;
    static inline listener on_pass_ = nullptr;
};

// Why a sleep on a wait queue ended.
enum class woke_by { notify,
                     spurious,
                     timeout };

// A wait queue whose sleep says why it ended: rl::condition_variable folds a
// timeout and a spurious return into one `false`, and a timed wait here must
// tell them apart (a spurious return before the deadline is no timeout).
class wait_queue : rl::condvar<rl::condvar_tag_std> {
    using base = rl::condvar<rl::condvar_tag_std>;

public:
    wait_queue() { base::init(true, RL_INFO); } // spurious wake-ups allowed (the random scheduler injects them)
    ~wait_queue() { base::deinit(RL_INFO); }
    wait_queue(const wait_queue&) = delete;
    wait_queue& operator=(const wait_queue&) = delete;

    // Releases `lock`, sleeps, re-acquires it. timed: Relacy may end the sleep
    // with a timeout at any moment (the caller makes that moment its deadline).
    template <class Lock>
    woke_by sleep(Lock& lock, bool timed, rl::debug_info_param info) {
        switch (base::wait(lock, timed, info)) {
        case rl::sema_wakeup_reason_success: return woke_by::notify;
        case rl::sema_wakeup_reason_timeout: return woke_by::timeout;
        default: return woke_by::spurious;
        }
    }
    void notify_one(rl::debug_info_param info) { base::notify_one(info); }
    void notify_all(rl::debug_info_param info) { base::notify_all(info); }
};

// One timed sleep against model time, for both families' primitives: sleeps
// on `queue` unless the deadline has passed already; true when the deadline
// has passed at the return (what the caller reports as a timeout).
template <class Lock>
bool sleep_until(wait_queue& queue, Lock& lock, const model_clock::time_point& deadline, rl::debug_info_param info) {
    if (model_clock::has_passed(deadline)) return true; // the OS answers a past deadline at once
    if (queue.sleep(lock, true, info) == woke_by::timeout) {
        model_clock::pass(deadline); // Relacy chose this moment for the deadline
        return true;
    }
    return model_clock::observe(deadline); // woken: the deadline may have passed meanwhile
}

} // namespace bcast_rl
