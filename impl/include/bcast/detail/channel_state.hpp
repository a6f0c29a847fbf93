// SPDX-License-Identifier: MIT OR Apache-2.0
// The shared state of one channel and the whole algorithm (see docs/design.md).
//
// One mutex guards everything below; there is no lock-free path. Positions:
// every message gets a sequence number when it is pushed; `head_pos` is the
// sequence number of the oldest queued message and the tail is
// head_pos + len. A receiver's position is the sequence number of the next
// message it wants; a position below head_pos means the receiver lost
// head_pos - pos messages (R-OVF-2).
//
// Each queued message records how many active receivers still have to read it
// (`pending_readers`). It equals the number of active receivers whose position
// is at or before the message, so it never decreases from the front to the
// back, and a message whose count reaches zero is always the front one; it is
// then removed at once (R-MSG-1).
//
// Wakeups (R-WAKE-1): receivers wait on `receivers_cv` for a new message or
// close; senders wait on `senders_cv` for room, for an active receiver, or for
// anything that changes their answer (capacity growth, overflow on,
// await_active off, close). Every change that can end a wait notifies while
// holding the lock, and only when someone waits (`waiting_*`), so the
// uncontended path makes no notify call at all.
//
// Async waiters (R-ASYNC-1..5, docs/async.md): a suspended async_recv() or
// async_broadcast() is a node in `recv_waiters_` / `send_waiters_`. Instead of
// being woken to retry, it is served by whoever changes the state: the same
// wake sites that notify the condition variables mark the list as changed, and
// every critical section ends by retrying the marked lists' waiters in FIFO
// order under the lock (settle_async_waiters), moving each finished one into
// `completed_waiters_`, which is resumed after the lock is released. An async
// operation checks the state and queues itself in one critical section, so a
// change made after that check always finds it in the list (no lost wakeup).
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable> // std::cv_status, the Primitives's wait_until result
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <utility>

#include "../errors.hpp"
#include "../result.hpp"
#include "assert.hpp"
#include "handle_counts.hpp"
#include "inspector_fwd.hpp"
#include "slot_ring.hpp"
#include "waiter.hpp"

namespace bcast::detail {

// Deadline of an untimed wait.
struct no_deadline {};

inline void check_capacity(std::size_t capacity) {
    // R-CAP-1, R-CAP-2: upstream accepts 0 and then hangs or grows without bound.
    if (capacity == 0) throw std::invalid_argument("bcast: channel capacity must be at least 1");
}

template <class T, class Primitives>
class channel_state : public handle_counts<channel_state<T, Primitives>> {
    friend class handle_counts<channel_state>; // the counters, the lock and close_* below
public:
    using position = typename Primitives::position;
    using lock_type = typename Primitives::unique_lock;
    using recv_waiter_type = recv_waiter<T, Primitives>;
    using send_waiter_type = send_waiter<T, Primitives>;

    // A new channel has one sender and one receiver (R-CAP-1).
    explicit channel_state(std::size_t capacity) : ring_((check_capacity(capacity), capacity)) {
        capacity_.set(capacity);
        sender_count_.set(1);
        receiver_count_.set(1);
        await_active_.set(true);
    }

    channel_state(const channel_state&) = delete;
    channel_state& operator=(const channel_state&) = delete;

    // ---- sending ---------------------------------------------------------

    // R-SEND-1: closed, then inactive, then full (overflow evicts instead).
    send_result<T> try_broadcast(T message) {
        critical_section section(*this);
        std::optional<T> evicted;
        const send_outcome outcome = attempt_send(message, evicted);
        check_invariants();
        if (outcome == send_outcome::sent) return send_result<T>(std::move(evicted));
        return send_result<T>(error_tag, send_error<T>{to_errc(outcome), std::move(message)});
    }

    // R-SEND-3, R-SEND-4: waits while full (overflow off) or, with
    // await_active, while there is no active receiver.
    template <class Deadline>
    send_result<T> broadcast(T message, const Deadline& deadline) {
        critical_section section(*this);
        bool timed_out = false;
        for (;;) {
            std::optional<T> evicted;
            const send_outcome outcome = attempt_send(message, evicted);
            check_invariants();
            if (outcome == send_outcome::sent) return send_result<T>(std::move(evicted));
            if (!must_wait(outcome)) return send_result<T>(error_tag, send_error<T>{to_errc(outcome), std::move(message)});
            // A timed-out wait still re-checks once (above), so a notification
            // that raced with the timeout is never lost (R-WAKE-1).
            if (timed_out) return send_result<T>(error_tag, send_error<T>{send_errc::timed_out, std::move(message)});
            timed_out = wait(section.lock(), senders_cv_, waiting_senders_, deadline);
        }
    }

    // ---- receiving -------------------------------------------------------

    // R-RECV-1: overflowed, then the next message, then closed, then empty.
    recv_result<T> try_recv(position& pos) {
        critical_section section(*this);
        recv_result<T> received = attempt_recv(pos);
        check_invariants();
        return received;
    }

    // R-RECV-4, R-RECV-5: waits while this receiver has nothing and the
    // channel is open.
    template <class Deadline>
    recv_result<T> recv(position& pos, const Deadline& deadline) {
        critical_section section(*this);
        bool timed_out = false;
        for (;;) {
            recv_result<T> received = attempt_recv(pos);
            check_invariants();
            if (received.has_value() || received.error().code != recv_errc::empty) return received;
            if (timed_out) return recv_result<T>(error_tag, recv_error{recv_errc::timed_out, 0});
            timed_out = wait(section.lock(), receivers_cv_, waiting_receivers_, deadline);
        }
    }

    // ---- async operations (R-ASYNC-1..5) -----------------------------------

    // Starts an async receive. Returns false when it finished at once (the
    // answer is in `waiter.result`; a throwing copy propagates and changes
    // nothing), true when the waiter was queued: then exactly one later call of
    // waiter.on_complete reports its answer.
    bool start_recv(recv_waiter_type& waiter) {
        critical_section section(*this);
        recv_result<T> received = attempt_recv(*waiter.pos);
        check_invariants();
        if (received.has_value() || received.error().code != recv_errc::empty) {
            waiter.result.emplace(std::move(received));
            return false;
        }
        if (waiter.cancel_requested.get()) { // cancelled before it could wait (R-ASYNC-4)
            waiter.result.emplace(error_tag, recv_error{recv_errc::cancelled, 0});
            return false;
        }
        // Queued in the same critical section as the check above: a message or
        // close that comes later runs settle_async_waiters and finds it.
        queue(recv_waiters_, waiter);
        return true;
    }

    // Starts an async send of *waiter.message; returns as start_recv() does.
    bool start_send(send_waiter_type& waiter) {
        critical_section section(*this);
        std::optional<T> evicted;
        const send_outcome outcome = attempt_send(*waiter.message, evicted);
        check_invariants();
        if (outcome == send_outcome::sent) {
            waiter.result.emplace(std::move(evicted));
            return false;
        }
        if (!must_wait(outcome) || waiter.cancel_requested.get()) {
            const send_errc code = must_wait(outcome) ? send_errc::cancelled : to_errc(outcome);
            waiter.result.emplace(error_tag, send_error<T>{code, std::move(*waiter.message)});
            return false;
        }
        queue(send_waiters_, waiter); // same critical section as the check: no lost wakeup
        return true;
    }

    // R-ASYNC-4: cancels a pending async operation. A queued waiter leaves its
    // list with a `cancelled` answer (nothing consumed, the message handed back)
    // and is completed after the lock is released. One that is not queued yet
    // is marked, so start_*() answers `cancelled` instead of queueing; one that
    // already completed keeps its answer (a message is never lost to a late
    // cancel). Returns true if this call cancelled a queued wait.
    bool cancel(recv_waiter_type& waiter) noexcept {
        return cancel_in(recv_waiters_, waiter, [] { return recv_error{recv_errc::cancelled, 0}; });
    }
    bool cancel(send_waiter_type& waiter) noexcept {
        return cancel_in(send_waiters_, waiter,
                         [&waiter] { return send_error<T>{send_errc::cancelled, std::move(*waiter.message)}; });
    }

    // The owner of a queued waiter is going away without waiting for it (its
    // coroutine was destroyed while suspended): unlink it without completing
    // it. Returns false if it had already been completed, i.e. its
    // on_complete() call is pending or running: destroying it then is the
    // caller's bug.
    bool forget(waiter& node) noexcept {
        lock_type lock(mutex_);
        if (!node.queued) return false;
        (is_queued_in(recv_waiters_, node) ? recv_waiters_ : send_waiters_).remove(node);
        node.queued = false;
        return true;
    }

    // ---- handles ---------------------------------------------------------
    // Senders and inactive receivers: add_* / release_* (handle_counts.hpp).

    // A new active receiver at the tail: new_receiver() and activate_cloned()
    // (R-LIFE-2, R-LIFE-5). With `consume_inactive`, an inactive receiver turns
    // into it (activate()).
    std::uint64_t attach_receiver_at_tail(bool consume_inactive) {
        critical_section section(*this);
        if (consume_inactive) inactive_receiver_count_.set(inactive_receiver_count_.get() - 1);
        add_active_receiver();
        check_invariants();
        return tail_pos();
    }

    // A copy of a receiver: same position, same pending messages (R-LIFE-1).
    std::uint64_t attach_receiver_copy(const position& original) {
        critical_section section(*this);
        const std::uint64_t pos = original.load();
        for (std::size_t index = first_unread_index(pos); index < ring_.size(); ++index) {
            ring_.set_pending_readers(index, ring_.pending_readers(index) + 1);
        }
        add_active_receiver();
        check_invariants();
        return pos;
    }

    // A receiver goes away and gives up its unread messages (R-LIFE-3); with
    // `becomes_inactive` it turns into an inactive receiver (R-LIFE-4).
    bool detach_receiver(const position& pos, bool becomes_inactive) noexcept {
        critical_section section(*this);
        BCAST_ASSERT(!has_recv_waiter_for(pos)); // a receiver outlives its pending async_recv() (R-ASYNC-5)
        if (becomes_inactive) inactive_receiver_count_.set(inactive_receiver_count_.get() + 1);
        for (std::size_t index = first_unread_index(pos.load()); index < ring_.size(); ++index) {
            ring_.set_pending_readers(index, ring_.pending_readers(index) - 1);
        }
        std::size_t freed = 0;
        while (ring_.size() != 0 && ring_.pending_readers(0) == 0) { // zeros form a prefix (see top)
            ring_.drop_front();
            head_pos_.set(head_pos_.get() + 1);
            ++freed;
        }
        receiver_count_.set(receiver_count_.get() - 1);
        if (freed > 1 || receiver_count_.get() == 0) {
            // Room for several senders, or the last active receiver left: then
            // every waiting sender's answer changed (full -> inactive or wait for
            // a receiver), not just one's (R-WAKE-1).
            wake_all_senders();
        } else if (freed == 1) {
            wake_one_sender(); // one freed slot serves one sender
        }
        close_if_no_receivers(); // R-CLOSE-3
        check_invariants();
        return this->no_handles_left();
    }

    // ---- channel-wide settings and queries (R-QUERY-1) ----------------------

    std::size_t capacity() const { return this->read(capacity_); }
    bool overflow() const { return this->read(overflow_); }
    bool await_active() const { return this->read(await_active_); }
    bool is_closed() const { return this->read(closed_); }

    // Threads inside a wait right now. For tests that must wait until a
    // thread really blocks before acting (no sleeps), and for diagnostics.
    std::size_t waiting_senders() const { return this->read(waiting_senders_); }
    std::size_t waiting_receivers() const { return this->read(waiting_receivers_); }

    std::size_t len() const {
        lock_type lock(mutex_);
        return ring_.size();
    }
    bool is_empty() const { return len() == 0; }
    bool is_full() const { // R-CAP-5
        lock_type lock(mutex_);
        return ring_.size() == capacity_.get();
    }

    // R-CAP-2, R-CAP-3, R-CAP-4.
    void set_capacity(std::size_t new_capacity) {
        check_capacity(new_capacity);
        critical_section section(*this);
        ring_.grow(new_capacity); // may throw bad_alloc: nothing changed yet (R-EXC-1)
        const std::size_t old_capacity = capacity_.get();
        capacity_.set(new_capacity);
        while (ring_.size() > new_capacity) { // drop the oldest; laggards see overflowed
            ring_.drop_front();
            head_pos_.set(head_pos_.get() + 1);
        }
        if (new_capacity > old_capacity) wake_all_senders(); // room for every waiter, maybe
        check_invariants();
    }

    // R-OVF-4: turning overflow on frees every sender waiting on a full channel.
    void set_overflow(bool enabled) { // R-OVF-3
        critical_section section(*this);
        if (enabled && !overflow_.get()) wake_all_senders();
        overflow_.set(enabled);
    }

    // R-ACT-3: turning await_active off ends every wait for an active receiver.
    void set_await_active(bool enabled) {
        critical_section section(*this);
        if (!enabled && await_active_.get()) wake_all_senders();
        await_active_.set(enabled);
    }

    // R-CLOSE-1.
    bool close() {
        critical_section section(*this);
        return close_locked();
    }

    ~channel_state() {
        // R-CLOSE-3 and R-MSG-1 together: with no receiver, no message is queued.
        BCAST_ASSERT(ring_.size() == 0);
        BCAST_ASSERT(recv_waiters_.empty() && send_waiters_.empty()); // every waiter borrows a live handle
    }

private:
    // The Relacy checker (model_tests/relacy/inspector.hpp) reads mutex_ (held?), ring_, head_pos_,
    // capacity_, receiver_count_, closed_, overflow_, await_active_, waiting_senders_,
    // waiting_receivers_, recv_waiters_, send_waiters_, async_marks_ and completed_waiters_
    // between critical sections, for its invariants; it writes nothing.
    friend struct state_inspector;

    // A locked region of every operation that can change what a waiter would
    // get. When it ends, marked async lists are settled under the lock, then
    // the mutex is released, then the waiters that finished are resumed
    // (R-ASYNC-3). With no async waiter involved (no mark set) its destructor
    // is one test of a word and the unlock: the synchronous paths pay nothing more,
    // so the out-of-line part stays out of them (measured in bench/async_rows).
    class critical_section {
    public:
        explicit critical_section(channel_state& state) : state_(state), lock_(state.mutex_) {}
        critical_section(const critical_section&) = delete;
        critical_section& operator=(const critical_section&) = delete;
        ~critical_section() {
            if (state_.async_marks_.get() != 0) state_.settle_unlock_and_resume(lock_);
        }

        lock_type& lock() noexcept { return lock_; }

        // Unlinks a queued waiter whose answer is set and schedules its resumption.
        template <class Waiter>
        void complete(waiter_list& list, Waiter& node) noexcept {
            state_.finish(list, node);
        }

    private:
        channel_state& state_;
        lock_type lock_;
    };

    // What a handle release holds (handle_counts.hpp): a critical section, so
    // that the async waiters a close finishes are completed after the unlock.
    using release_section = critical_section;

    enum class send_outcome { sent, full, inactive, closed };

    static send_errc to_errc(send_outcome outcome) noexcept {
        switch (outcome) {
        case send_outcome::full: return send_errc::full;
        case send_outcome::inactive: return send_errc::inactive;
        default: return send_errc::closed;
        }
    }

    // Whether a blocking send waits on this outcome (R-SEND-3, R-ACT-2).
    bool must_wait(send_outcome outcome) const noexcept {
        return outcome == send_outcome::full || (outcome == send_outcome::inactive && await_active_.get());
    }

    // One non-blocking send step, under the lock. On `sent` the message has
    // been moved into the queue and `evicted` may hold the oldest message.
    send_outcome attempt_send(T& message, std::optional<T>& evicted) noexcept {
        if (closed_.get()) return send_outcome::closed; // R-CLOSE-5, checked first (R-SEND-1)
        const std::size_t readers = receiver_count_.get();
        if (readers == 0) return send_outcome::inactive; // R-ACT-1
        if (ring_.size() >= capacity_.get()) {
            if (!overflow_.get()) return send_outcome::full;
            evicted.emplace(ring_.pop_front()); // R-OVF-1: the oldest goes back to the sender
            head_pos_.set(head_pos_.get() + 1); // receivers that had not read it now lag (R-OVF-2)
        }
        ring_.push_back(std::move(message), readers); // R-SEND-2: every active receiver reads it
        wake_all_receivers();                           // every waiting receiver wants it
        return send_outcome::sent;
    }

    // One non-blocking receive step, under the lock.
    recv_result<T> attempt_recv(position& pos) {
        const std::uint64_t current = pos.load();
        const std::uint64_t head = head_pos_.get();
        if (current < head) { // R-OVF-2: report the loss once, then resume at the oldest kept
            pos.store(head);
            return recv_result<T>(error_tag, recv_error{recv_errc::overflowed, head - current});
        }
        const std::size_t index = static_cast<std::size_t>(current - head); // next in sequence order (R-RECV-2)
        if (index == ring_.size()) {
            return recv_result<T>(error_tag, recv_error{closed_.get() ? recv_errc::closed : recv_errc::empty, 0});
        }
        const std::size_t readers = ring_.pending_readers(index);
        if (readers == 1) { // the last reader takes the message itself (R-RECV-3)
            BCAST_ASSERT(index == 0);
            recv_result<T> taken(ring_.pop_front());
            head_pos_.set(head + 1);
            pos.store(current + 1);
            wake_one_sender(); // one slot freed: room for exactly one waiting sender
            return taken;
        }
        // Copy first: if the copy throws, nothing has changed (R-MSG-3).
        recv_result<T> copied(T(ring_.message(index)));
        ring_.set_pending_readers(index, readers - 1);
        pos.store(current + 1);
        return copied;
    }

    // Waits once; returns true if the deadline passed. The waiter count lets
    // notifiers skip the notify call when nobody waits.
    template <class Deadline>
    static bool wait(lock_type& lock, typename Primitives::condition_variable& cv,
                     typename Primitives::template var<std::size_t>& waiting, const Deadline& deadline) {
        waiting.set(waiting.get() + 1);
        bool timed_out = false;
        if constexpr (std::is_same_v<Deadline, no_deadline>) {
            cv.wait(lock); // may wake spuriously: every caller loops and re-checks
        } else {
            timed_out = cv.wait_until(lock, deadline) == std::cv_status::timeout;
        }
        waiting.set(waiting.get() - 1);
        return timed_out;
    }

    // Partner of each: the wait() of a sender in broadcast(). Under the lock, so
    // a sender that has counted itself in waiting_senders_ is already inside
    // cv.wait and cannot miss it.
    // Each also marks the async list, whose partner is the queue() in
    // start_send()/start_recv(): the critical section retries those waiters
    // before it unlocks (settle_async_waiters).
    void wake_one_sender() {
        if (waiting_senders_.get() != 0) senders_cv_.notify_one(); // one freed slot serves one sender
        if (!send_waiters_.empty()) mark(senders_changed);
    }
    void wake_all_senders() {
        if (waiting_senders_.get() != 0) senders_cv_.notify_all(); // a change every waiting sender must see
        if (!send_waiters_.empty()) mark(senders_changed);
    }
    // Partner: the wait() of a receiver in recv(); every receiver reads every message.
    void wake_all_receivers() {
        if (waiting_receivers_.get() != 0) receivers_cv_.notify_all();
        if (!recv_waiters_.empty()) mark(receivers_changed);
    }

    // ---- async waiters -------------------------------------------------------

    // cancel()'s one body: `cancelled_answer()` makes the answer a queued
    // waiter leaves its list with (a send's hands its message back).
    template <class Waiter, class CancelledAnswer>
    bool cancel_in(waiter_list& list, Waiter& waiter, CancelledAnswer cancelled_answer) noexcept {
        critical_section section(*this);
        if (!waiter.queued) {
            if (!waiter.completed.get()) waiter.cancel_requested.set(true);
            return false;
        }
        waiter.result.emplace(error_tag, cancelled_answer());
        section.complete(list, waiter);
        return true;
    }

    void queue(waiter_list& list, waiter& node) noexcept {
        list.push_back(node);
        node.queued = true;
    }

    void mark(unsigned bit) noexcept { async_marks_.set(async_marks_.get() | bit); }
    bool take_mark(unsigned bit) noexcept {
        const unsigned marks = async_marks_.get();
        async_marks_.set(marks & ~bit);
        return (marks & bit) != 0;
    }

    template <class Waiter>
    void finish(waiter_list& list, Waiter& node) noexcept {
        list.remove(node);
        node.queued = false;
        node.completed.set(true); // read by the owner after on_complete (its partner) resumed it
        completed_waiters_.push_back(node);
        mark(waiters_completed);
    }

    // The end of a critical section that marked something. Out of line so that
    // the common, unmarked end of every critical section stays small.
    [[gnu::noinline]] void settle_unlock_and_resume(lock_type& lock) noexcept {
        settle_async_waiters();
        completion_batch resume_after_unlock; // destroyed after lock.unlock(): on_complete() runs unlocked
        while (waiter* node = completed_waiters_.pop_front()) resume_after_unlock.add(*node);
        async_marks_.set(0);
        lock.unlock();
    }

    // Under the lock. Serving a waiter can change the state again (a receive
    // frees a slot, a send adds a message), so it loops until neither list is
    // marked; it ends because each round that marks a list has completed at
    // least one waiter.
    void settle_async_waiters() noexcept {
        bool settling = true;
        while (settling) {
            settling = false;
            if (take_mark(receivers_changed)) {
                settle_receivers();
                settling = true;
            }
            if (take_mark(senders_changed)) {
                settle_senders();
                settling = true;
            }
        }
        check_invariants();
    }

    // Every pending receive whose receiver now has an answer gets it (every
    // receiver reads every message, so all of them are tried).
    void settle_receivers() noexcept requires std::is_copy_constructible_v<T> {
        for (waiter* node = recv_waiters_.front(); node != nullptr;) {
            auto& pending = static_cast<recv_waiter_type&>(*node);
            node = node->next; // `pending` may leave the list below
            try {
                recv_result<T> received = attempt_recv(*pending.pos);
                if (!received.has_value() && received.error().code == recv_errc::empty) continue;
                pending.result.emplace(std::move(received));
            } catch (...) {
                pending.failure = std::current_exception(); // the copy threw; nothing changed (R-MSG-3); this caller goes on (R-EXC-1)
            }
            finish(recv_waiters_, pending);
        }
    }
    // Without a copy constructor no receive can be pending (every receiving
    // member requires one), and sending must not need one (R-MSG-4).
    void settle_receivers() noexcept requires(!std::is_copy_constructible_v<T>) {}

    // Pending sends in FIFO order, until the first that still has to wait:
    // every later one would get the same answer (full, or no active receiver).
    void settle_senders() noexcept {
        while (waiter* node = send_waiters_.front()) {
            auto& pending = static_cast<send_waiter_type&>(*node);
            std::optional<T> evicted;
            const send_outcome outcome = attempt_send(*pending.message, evicted);
            if (outcome == send_outcome::sent) {
                pending.result.emplace(std::move(evicted));
            } else if (must_wait(outcome)) {
                return;
            } else {
                pending.result.emplace(error_tag, send_error<T>{to_errc(outcome), std::move(*pending.message)});
            }
            finish(send_waiters_, pending);
        }
    }

    static bool is_queued_in(const waiter_list& list, const waiter& node) noexcept {
        for (const waiter* each = list.front(); each != nullptr; each = each->next) {
            if (each == &node) return true;
        }
        return false;
    }

    bool has_recv_waiter_for(const position& pos) const noexcept {
        for (const waiter* each = recv_waiters_.front(); each != nullptr; each = each->next) {
            if (static_cast<const recv_waiter_type*>(each)->pos == &pos) return true;
        }
        return false;
    }

    bool close_locked() {
        if (closed_.get()) return false;
        closed_.set(true); // permanent (R-CLOSE-4)
        wake_all_senders();   // R-CLOSE-6: their answer is now `closed`
        wake_all_receivers(); // R-CLOSE-6: they drain, then see `closed`
        return true;
    }

    void close_if_no_receivers() {
        if (receiver_count_.get() + inactive_receiver_count_.get() == 0) close_locked();
    }

    void add_active_receiver() {
        receiver_count_.set(receiver_count_.get() + 1);
        if (receiver_count_.get() == 1) wake_all_senders(); // R-LIFE-6: inactive waiters may go on
    }

    std::uint64_t tail_pos() const noexcept { return head_pos_.get() + ring_.size(); }

    // Index of the first message a receiver at `pos` has not read (a lagging
    // receiver has read none of the queued ones).
    std::size_t first_unread_index(std::uint64_t pos) const noexcept {
        const std::uint64_t head = head_pos_.get();
        return pos <= head ? 0 : static_cast<std::size_t>(pos - head);
    }

    // The invariants stated above, checked after every change in debug builds.
    void check_invariants() const noexcept {
#if BCAST_DEBUG_CHECKS
        const std::size_t len = ring_.size();
        BCAST_ASSERT(len <= capacity_.get() && capacity_.get() <= ring_.slot_count()); // I1 (docs/design.md)
        BCAST_ASSERT(receiver_count_.get() != 0 || len == 0);                             // I3
        std::size_t previous = 1;
        for (std::size_t index = 0; index < len; ++index) {
            const std::size_t readers = ring_.pending_readers(index);
            BCAST_ASSERT(previous <= readers && readers <= receiver_count_.get()); // I2 (with I4: no count is 0)
            previous = readers;
        }
#endif
    }

    mutable typename Primitives::mutex mutex_; // guards every field below
    typename Primitives::condition_variable senders_cv_;
    typename Primitives::condition_variable receivers_cv_;

    slot_ring<T, Primitives> ring_;                                      // the queue; size() <= capacity_
    typename Primitives::template var<std::uint64_t> head_pos_;          // sequence number of the oldest message; only grows
    typename Primitives::template var<std::size_t> capacity_;            // >= 1 (R-CAP-1)
    typename Primitives::template var<std::size_t> receiver_count_;      // active receivers; 0 implies an empty queue
    typename Primitives::template var<std::size_t> inactive_receiver_count_;
    typename Primitives::template var<std::size_t> sender_count_;
    typename Primitives::template var<bool> overflow_;
    typename Primitives::template var<bool> await_active_;
    typename Primitives::template var<bool> closed_;                     // once true, stays true (R-CLOSE-4)
    typename Primitives::template var<std::size_t> waiting_senders_;     // threads inside senders_cv_.wait
    typename Primitives::template var<std::size_t> waiting_receivers_;   // threads inside receivers_cv_.wait
    waiter_list recv_waiters_;                                      // queued async_recv()s, oldest first
    waiter_list send_waiters_;                                      // queued async_broadcast()s, oldest first
    // Bits of async_marks_. A list is marked when a change may have given its
    // waiters an answer; `waiters_completed` when completed_waiters_ is not empty.
    static constexpr unsigned senders_changed = 1, receivers_changed = 2, waiters_completed = 4;
    typename Primitives::template var<unsigned> async_marks_;            // 0 whenever the mutex is free: every critical section settles
    waiter_list completed_waiters_;                                 // answered, to be resumed after the unlock; empty whenever the mutex is free

public:
    // R-QUERY-2: a receiver's own counts, read under the lock like every read
    // of a position (its owner's receives write it under the lock). Last in
    // the class because docs/ quote Relacy traces by line number of this file.
    std::size_t unread(const position& pos) const {
        lock_type lock(mutex_);
        return ring_.size() - first_unread_index(pos.load()); // the lost ones are not queued
    }
    std::uint64_t missed(const position& pos) const {
        lock_type lock(mutex_);
        const std::uint64_t current = pos.load();
        const std::uint64_t head = head_pos_.get();
        return current < head ? head - current : 0; // what the next attempt_recv reports (R-OVF-2)
    }
};

} // namespace bcast::detail
