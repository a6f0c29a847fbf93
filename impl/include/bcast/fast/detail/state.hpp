// SPDX-License-Identifier: MIT OR Apache-2.0
// The shared state of one bcast::fast channel and the whole algorithm
// (docs/fast-design.md; the labels [S1], [R4], ... are that page's, section 7).
//
// Senders and the rare operations take `mutex_`. A receive takes no lock and
// makes no read-modify-write when it finds a message: it reads the slot's
// stamp and words (a seqlock, ring.hpp), then publishes its position with one
// store to its own cache line. (The one exception: a receive that finds its
// message half written by an evicting send waits for that send's lock, since
// the message is already sent; docs/fast-design.md, section 2.) Senders gate
// on the slowest receiver through `cached_min_`, refreshed by a scan of the
// positions only when the ring looks full. Sleepers sleep on futex words,
// after a short back-off, in asymmetric Dekker handshakes (docs/fast-design.md,
// section 5): whoever is about to sleep passes the heavy fence (membarrier),
// whoever runs the common path (a send, a receive) only a compiler barrier.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../detail/assert.hpp"
#include "../../detail/handle_counts.hpp"
#include "../../detail/inspector_fwd.hpp"
#include "../../errors.hpp"
#include "../../result.hpp"
#include "ring.hpp"

namespace bcast::fast::detail {

// Deadline of an untimed wait.
struct no_deadline {};

inline std::size_t checked_capacity(std::size_t capacity) {
    // R-CAP-1, R-CAP-2: as the reference.
    if (capacity == 0) throw std::invalid_argument("bcast: channel capacity must be at least 1");
    return capacity;
}

template <class T, class Primitives>
class channel_state : public bcast::detail::handle_counts<channel_state<T, Primitives>> {
    friend class bcast::detail::handle_counts<channel_state>; // the counters, the lock and close_* below
public:
    using ring_type = ring<T, Primitives>;

    // A receiver's position, on a cache line of its own. The cell's address
    // is the receiver's identity: a moved receiver handle moves a pointer.
    struct alignas(cache_line_bytes) position_cell {
        explicit position_cell(std::uint64_t initial) : position(initial) {}
        // Written only by its receiver ([R8]); read by senders and rare
        // operations under the lock ([S0], [W9]). Only grows (F5).
        typename Primitives::position position;
        position_cell* prev = nullptr; // the list of active receivers: under the lock
        position_cell* next = nullptr;
    };

    // A new channel: one sender, no receiver yet (channel() attaches the first
    // at position 0 through attach_at_tail), overflow off, await_active on (R-CAP-1).
    explicit channel_state(std::size_t capacity) {
        capacity_.set(checked_capacity(capacity));
        rings_.push_back(std::make_unique<ring_type>(ring_type::slots_for(capacity)));
        // Relaxed: no other thread can see the state before a handle is handed over.
        ring_.store(rings_.back().get(), std::memory_order_relaxed);
        sender_count_.set(1);
        await_active_.set(true);
    }

    channel_state(const channel_state&) = delete;
    channel_state& operator=(const channel_state&) = delete;
    ~channel_state() = default; // the cells are gone with their receivers; rings_ owns every ring

    // ---- sending (under the lock) ----------------------------------------------

    // R-SEND-1: closed, then inactive, then full (overflow evicts instead).
    send_result<T> try_broadcast(const T& message) {
        std::optional<T> evicted;
        send_outcome outcome{};
        {
            lock_type lock(mutex_);
            outcome = attempt_send(message, evicted);
            check_invariants();
        }
        if (outcome != send_outcome::sent) return send_result<T>(error_tag, send_error<T>{to_errc(outcome), message});
        wake_receivers_after_send();
        return send_result<T>(std::move(evicted));
    }

    // R-SEND-3, R-SEND-4: waits while full (overflow off) or, with
    // await_active, while there is no active receiver.
    template <class Deadline>
    send_result<T> broadcast(const T& message, const Deadline& deadline) {
        lock_type lock(mutex_);
        bool timed_out = false;
        unsigned round = 0;
        for (;;) {
            std::optional<T> evicted;
            const send_outcome outcome = attempt_send(message, evicted);
            check_invariants();
            if (outcome == send_outcome::sent) {
                lock.unlock();
                wake_receivers_after_send();
                return send_result<T>(std::move(evicted));
            }
            if (!must_wait(outcome)) return send_result<T>(error_tag, send_error<T>{to_errc(outcome), message});
            // A timed-out wait still re-checks once (above): a wakeup that raced the
            // deadline is never lost (R-SEND-4).
            if (timed_out) return send_result<T>(error_tag, send_error<T>{send_errc::timed_out, message});
            if (round < Primitives::back_off_rounds && !passed(deadline)) { // poll a little before the handshake and the sleep
                lock.unlock();
                Primitives::pause(round++);
                lock.lock();
                continue;
            }
            timed_out = sleep_as_sender(lock, outcome, deadline);
        }
    }

    // ---- receiving (no lock) ---------------------------------------------------

    // R-RECV-1: overflowed, then the next message, then closed, then empty.
    recv_result<T> try_recv(position_cell& cell) noexcept { return attempt_recv(cell); }

    // R-RECV-4, R-RECV-5: waits while this receiver has nothing and the channel is open.
    template <class Deadline>
    recv_result<T> recv(position_cell& cell, const Deadline& deadline) noexcept {
        bool timed_out = false;
        unsigned round = 0;
        for (;;) {
            recv_result<T> received = attempt_recv(cell);
            if (!is_empty(received)) return received;
            if (timed_out) return recv_result<T>(error_tag, recv_error{recv_errc::timed_out, 0});
            if (round < Primitives::back_off_rounds && !passed(deadline)) { // poll a little before the handshake and the sleep
                Primitives::pause(round++);
                continue;
            }
            // [W1] acquire; partner [S7] and every other increment (release): a
            // sleeper whose value already includes one sees its change in [W4].
            const std::uint32_t seen = recv_wake_.load(std::memory_order_acquire);
            // [W2] relaxed (a count several receivers change); ordered before
            // [W4] by the heavy fence.
            receivers_sleeping_.fetch_add(1, std::memory_order_relaxed);
            // [W3] heavy; partner every sender's light fence [S5]: either the
            // re-check [W4] sees the sender's message, or the sender sees [W2].
            fences_.heavy(fence_word_);
            received = attempt_recv(cell); // [W4]
            if (!is_empty(received)) {
                receivers_sleeping_.fetch_sub(1, std::memory_order_relaxed); // a count only, ordered by nothing
                return received;
            }
            timed_out = sleep_on(recv_wake_, seen, deadline); // [W5]
            receivers_sleeping_.fetch_sub(1, std::memory_order_relaxed);
        }
    }

    // ---- handles (under the lock) ----------------------------------------------
    // Senders and inactive receivers: add_* / release_* (bcast/detail/handle_counts.hpp).

    // A new active receiver at the tail: channel(), new_receiver(),
    // activate_cloned(), and with `consume_inactive` activate() (R-LIFE-2,
    // R-LIFE-5). The cell is allocated before anything changes (P-FAST-4:
    // std::bad_alloc leaves the channel as it was).
    position_cell* attach_at_tail(bool consume_inactive) {
        auto cell = std::make_unique<position_cell>(0);
        lock_type lock(mutex_);
        // The tail is at least every position: F1 holds for the new cell.
        cell->position.store(tail_.get());
        if (consume_inactive) inactive_receiver_count_.set(inactive_receiver_count_.get() - 1);
        link(*cell);
        check_invariants();
        return cell.release();
    }

    // A copy of a receiver: same position, same pending messages, a pending
    // overflowed(n) included (R-LIFE-1).
    position_cell* attach_copy(const position_cell& original) {
        auto cell = std::make_unique<position_cell>(0);
        lock_type lock(mutex_);
        // Acquire (policy); partner the original's [R8]: its owner may be receiving
        // right now, and either value is a position it had. Positions only grow,
        // and cached_min_ was at most the original's when last refreshed: F1 holds.
        cell->position.store(original.position.load());
        link(*cell);
        check_invariants();
        return cell.release();
    }

    // A receiver goes away and gives up its unread messages (R-LIFE-3); with
    // `becomes_inactive` it turns into an inactive receiver (R-LIFE-4). Its
    // owner is the caller, so no receive runs on the cell. Deletes the cell.
    bool detach(position_cell* cell, bool becomes_inactive) noexcept {
        bool last = false;
        {
            lock_type lock(mutex_);
            if (becomes_inactive) inactive_receiver_count_.set(inactive_receiver_count_.get() + 1);
            unlink(*cell);
            // It may have been the slowest receiver, or the last active one: every
            // waiting sender's answer may have changed (R-WAKE-1). Removing a cell
            // only raises the minimum, so cached_min_ stays a lower bound (F1).
            wake_senders_locked();
            close_if_no_receivers(); // R-CLOSE-3
            check_invariants();
            last = this->no_handles_left();
        }
        delete cell; // unlinked: no sender scans it any more
        return last;
    }

    // ---- channel-wide settings and queries (R-QUERY-1), under the lock -----------

    std::size_t capacity() const { return this->read(capacity_); }
    bool overflow() const { return this->read(overflow_); }
    bool await_active() const { return this->read(await_active_); }
    bool is_closed() const { return this->read(closed_flag_); }

    // The spec's len(): tail minus the queue's front (F2), a scan of the positions.
    std::size_t len() const {
        lock_type lock(mutex_);
        return queued();
    }
    bool is_empty() const { return len() == 0; }
    bool is_full() const { // R-CAP-5
        lock_type lock(mutex_);
        return queued() == capacity_.get();
    }

    // R-QUERY-2: a receiver's own counts; the position is read under the lock,
    // so these may be asked from any thread while the receiver's owner receives.
    std::size_t unread(const position_cell& cell) const {
        lock_type lock(mutex_);
        const std::uint64_t from = std::max(cell.position.load(), evict_head_value_.get());
        return static_cast<std::size_t>(tail_.get() - from); // the lost ones are not queued
    }
    std::uint64_t missed(const position_cell& cell) const {
        lock_type lock(mutex_);
        const std::uint64_t pos = cell.position.load();
        const std::uint64_t head = evict_head_value_.get();
        return pos < head ? head - pos : 0; // what the next receive reports (R-OVF-2, F4)
    }

    // Threads asleep in a receive or a send right now, for tests that must wait
    // until a thread really sleeps before acting (no sleeps in tests).
    std::size_t sleeping_receivers() const noexcept {
        return receivers_sleeping_.load(std::memory_order_relaxed); // a diagnostic, ordered by nothing
    }
    std::size_t sleeping_senders() const { return this->read(senders_sleeping_); }

    // R-CAP-2, R-CAP-3, R-CAP-4.
    void set_capacity(std::size_t new_capacity) {
        checked_capacity(new_capacity);
        lock_type lock(mutex_);
        const std::uint64_t tail = tail_.get();
        const std::uint64_t head = refreshed_head();
        if (new_capacity >= current_ring().slot_count()) grow_ring({.keep_from = head, .new_capacity = new_capacity}); // may throw: nothing changed yet
        const std::size_t old_capacity = capacity_.get();
        capacity_.set(new_capacity);
        if (tail - head > new_capacity) evict_to(tail - new_capacity); // R-CAP-3: laggers see overflowed
        if (new_capacity > old_capacity) wake_senders_locked();        // R-CAP-4: room for waiters, maybe
        check_invariants();
    }

    // R-OVF-3, R-OVF-4.
    void set_overflow(bool enabled) {
        lock_type lock(mutex_);
        const bool turned_on = enabled && !overflow_.get();
        overflow_.set(enabled);
        if (turned_on) wake_senders_locked(); // every sender waiting on full can now evict
    }

    // R-ACT-2, R-ACT-3.
    void set_await_active(bool enabled) {
        lock_type lock(mutex_);
        const bool turned_off = !enabled && await_active_.get();
        await_active_.set(enabled);
        if (turned_off) wake_senders_locked(); // those waiting for a receiver now fail with inactive
    }

    // R-CLOSE-1: true if this call closed the channel.
    bool close() {
        lock_type lock(mutex_);
        return close_locked();
    }

private:
    // model_tests/relacy/inspector.hpp reads tail_, evict_head_value_, cached_min_, rings_, capacity_,
    // closed_flag_ and mutex_ for the Relacy invariants (fast_harness.hpp).
    friend struct bcast::detail::state_inspector;

    using lock_type = typename Primitives::unique_lock;
    // What a handle release holds (bcast/detail/handle_counts.hpp): the lock
    // alone, as there is no async waiter to complete after it (P-FAST-5).
    struct release_section {
        explicit release_section(channel_state& state) : lock(state.mutex_) {}
        lock_type lock;
    };
    template <class U>
    using var = typename Primitives::template var<U>;
    template <class U>
    using atomic = typename Primitives::template atomic<U>;

    enum class send_outcome { sent,
                              full,
                              inactive,
                              closed };

    static send_errc to_errc(send_outcome outcome) noexcept {
        switch (outcome) {
        case send_outcome::full: return send_errc::full;
        case send_outcome::inactive: return send_errc::inactive;
        default: return send_errc::closed;
        }
    }

    static bool is_empty(const recv_result<T>& received) noexcept {
        return !received.has_value() && received.error().code == recv_errc::empty;
    }

    // Whether a blocking send waits on this outcome (R-SEND-3, R-ACT-2).
    bool must_wait(send_outcome outcome) const noexcept {
        return outcome == send_outcome::full || (outcome == send_outcome::inactive && await_active_.get());
    }

    ring_type& current_ring() const noexcept { return *rings_.back(); }

    // ---- the send step (docs/fast-design.md, section 2) ------------------------

    send_outcome attempt_send(const T& message, std::optional<T>& evicted) noexcept {
        if (closed_flag_.get()) return send_outcome::closed;           // R-CLOSE-5, first (R-SEND-1)
        if (receiver_count_.get() == 0) return send_outcome::inactive; // R-ACT-1
        const std::uint64_t tail = tail_.get();
        const std::size_t capacity = capacity_.get();
        // Gate on the slowest receiver without scanning: by F1 the queue's front
        // is at least this guess, so "room" is certain; "full" is only a guess.
        std::uint64_t head = std::max(evict_head_value_.get(), cached_min_.get());
        if (tail - head >= capacity) head = refreshed_head();
        const bool evicting = tail - head >= capacity;
        if (evicting) {
            if (!overflow_.get()) return send_outcome::full;
            evicted.emplace(current_ring().read_stable(head)); // R-OVF-1: the oldest goes back to the sender
        }
        // F3: the slot's previous message is tail - slot_count, below the front
        // even after this eviction (capacity < slot_count), so every receiver
        // that wants it lags already, and saw so in an earlier critical section.
        BCAST_ASSERT(tail - head < current_ring().slot_count());
        if (!evicting) {
            current_ring().write(tail, message); // [S2]..[S4]
        } else {
            // An evicting send is one step for receivers, taken at [S1]: a
            // receiver that sees the eviction ([R3]) sees the slot marked as
            // being written by it ([S2] first) and waits for the message (the
            // lock, held until [S4]); a receiver that sees the message ([R4] of
            // [S4]) sees the eviction. With [S1] after [S4] (the first version,
            // found by the recorded histories), a receiver that still held the
            // evicted message could read it after another had read the new one;
            // with [S1] before [S2], a receiver could report the loss and then
            // find the new message not there.
            current_ring().begin_write(tail, write_kind::evicting); // [S2]
            evict_to(head + 1);                                     // [S1]
            current_ring().finish_write(tail, message);             // [S3], [S4]
        }
        tail_.set(tail + 1);
        return send_outcome::sent;
    }

    // The queue's front (F2) from a fresh scan of the positions; refreshes
    // cached_min_. Under the lock. With no active receiver the queue is empty.
    std::uint64_t refreshed_head() noexcept {
        if (receivers_ == nullptr) return tail_.get();
        std::uint64_t lowest = tail_.get();
        // [S0]/[W9] acquire (policy); partner each receiver's [R8]. A receiver
        // may advance during the scan: positions only grow, so the minimum
        // found is at most the true one (F1), and the queue was at least this
        // long when the scan began.
        for (const position_cell* cell = receivers_; cell != nullptr; cell = cell->next) {
            lowest = std::min(lowest, cell->position.load());
        }
        cached_min_.set(std::max(cached_min_.get(), lowest)); // positions grow: the cache never has to go back
        return std::max(evict_head_value_.get(), lowest);
    }

    std::size_t queued() const noexcept {
        if (receivers_ == nullptr) return 0; // no active receiver: nothing is queued (R-ACT-1)
        std::uint64_t lowest = tail_.get();
        for (const position_cell* cell = receivers_; cell != nullptr; cell = cell->next) {
            lowest = std::min(lowest, cell->position.load()); // acquire (policy), as in refreshed_head
        }
        return static_cast<std::size_t>(tail_.get() - std::max(evict_head_value_.get(), lowest));
    }

    // Messages below `head` are gone (eviction R-OVF-1, shrink R-CAP-3).
    void evict_to(std::uint64_t head) noexcept {
        BCAST_ASSERT(head > evict_head_value_.get());
        evict_head_value_.set(head);
        // [S1] release; partner [R3]: a receiver below `head` reports
        // overflowed(head - position) (F4). A later critical section overwrites
        // these messages' slots, so a reader that sees such an overwrite
        // ([R4] of [S2], hb after this) also sees this.
        evict_head_.store(head, std::memory_order_release);
    }

    // R-CAP-2 growth past the slots: a new ring holding [keep_from, tail) with
    // their stamps. The old ring stays allocated until the channel goes: a
    // receiver may still be reading it, and it is frozen (no sender writes it).
    struct growth {
        std::uint64_t keep_from;  // the front: the oldest message kept
        std::size_t new_capacity; // the capacity the new ring must hold
    };
    void grow_ring(growth g) {
        auto grown = std::make_unique<ring_type>(ring_type::slots_for(g.new_capacity)); // may throw: nothing changed yet
        rings_.reserve(rings_.size() + 1);                                              // likewise
        for (std::uint64_t seq = g.keep_from; seq < tail_.get(); ++seq) grown->write(seq, current_ring().read_stable(seq));
        rings_.push_back(std::move(grown));
        // [G2] release; partner [R2]: a receiver that loads the new ring sees the copied slots.
        ring_.store(rings_.back().get(), std::memory_order_release);
    }

    // ---- the receive step (docs/fast-design.md, section 3) ---------------------

    recv_result<T> attempt_recv(position_cell& cell) noexcept {
        const std::uint64_t pos = cell.position.load(); // its own: only this thread writes it
        // [R1] acquire; partner [C1]: read before the slot, so `closed` and no
        // message at `pos` means every message sent before the close was read (R-CLOSE-5).
        const bool closed = closed_.load(std::memory_order_acquire);
        for (int round = 0;;) { // a round ends in a lag seen; waiting for a writer is not one
            // F3: a slot is overwritten only after an earlier critical section
            // evicted its message ([S1] happens before [S2]), so a receiver that
            // sees an overwrite sees that it lags within two more rounds (section 3).
            BCAST_ASSERT(round <= 2 && "bcast::fast: a slot was overwritten while a receiver that did not lag needed it");
            // [R2] acquire; partner [G2]: the slots a grow copied.
            const ring_type& current = *ring_.load(std::memory_order_acquire);
            // [R3] acquire; partner [S1].
            const std::uint64_t head = evict_head_.load(std::memory_order_acquire);
            if (pos < head) { // R-OVF-2: report the loss once, resume at the oldest kept (F4)
                advance(cell, pos, head);
                return recv_result<T>(error_tag, recv_error{recv_errc::overflowed, head - pos});
            }
            std::optional<T> message;
            switch (current.try_read(pos, message)) { // [R4]..[R7]
            case ring_type::found::message:
                advance(cell, pos, pos + 1); // R-RECV-2: the next in sequence order
                return recv_result<T>(std::move(*message));
            case ring_type::found::overwritten: // we lag now: the next round's [R3] says by how much
                ++round;
                continue;
            case ring_type::found::being_sent:
                // An evicting send has published its eviction ([S1]) and is still
                // writing this message, under the lock: the message is sent, so
                // `empty` would be wrong. Waiting for the lock waits for its [S4]
                // (the unlock releases it, this lock acquires it); the next look finds it.
                wait_for_writer();
                continue;
            case ring_type::found::not_yet: break;
            }
            return recv_result<T>(error_tag, recv_error{closed ? recv_errc::closed : recv_errc::empty, 0});
        }
    }

    // The slow path of a receive that found its message half written by an
    // evicting send: the writer holds the lock until the message is complete.
    void wait_for_writer() noexcept { lock_type writer_done(mutex_); }

    // A receiver moves from `from` to `to`, then checks whether a sleeping
    // sender waits for exactly this move (section 5).
    void advance(position_cell& cell, std::uint64_t from, std::uint64_t to) noexcept {
        cell.position.store(to);    // [R8] (policy: release); partners [S0], [W9]
        fences_.light(fence_word_); // [R9]; partner [W8]
        // [R10] relaxed; ordered after [R8] by the fence pair [R9]/[W8].
        const std::uint64_t need = sender_need_.load(std::memory_order_relaxed);
        if (need != 0 && from < need && need <= to) wake_senders_unlocked(); // [R11]
    }

    // ---- sleeping and waking (section 5) ------------------------------------------

    // A sender that must wait, under the lock; returns true if the deadline
    // passed. For `full`, publishes what it needs, passes the heavy fence and
    // looks again before it sleeps.
    template <class Deadline>
    bool sleep_as_sender(lock_type& lock, send_outcome outcome, const Deadline& deadline) {
        // [W6] acquire; partner [R11] and the rare operations' increments (release).
        const std::uint32_t seen = send_wake_.load(std::memory_order_acquire);
        senders_sleeping_.set(senders_sleeping_.get() + 1);
        if (outcome == send_outcome::full) {
            // The position every active receiver must reach for a slot to free.
            // [W7] relaxed; ordered before [W9] by the heavy fence [W8].
            sender_need_.store(tail_.get() - capacity_.get() + 1, std::memory_order_relaxed);
            fences_.heavy(fence_word_);                  // [W8]; partner every receiver's [R9]
            const std::uint64_t head = refreshed_head(); // [W9]
            if (tail_.get() - head < capacity_.get()) {  // a receiver moved before its barrier point
                leave_sleep();
                return false;
            }
        }
        lock.unlock();
        const bool timed_out = sleep_on(send_wake_, seen, deadline); // [W10]
        lock.lock();
        leave_sleep();
        return timed_out;
    }

    void leave_sleep() noexcept {
        senders_sleeping_.set(senders_sleeping_.get() - 1);
        // Relaxed: a stale need only causes a spurious wakeup, and it is lower than
        // a newer sleeper's, never higher (section 5).
        if (senders_sleeping_.get() == 0) sender_need_.store(0, std::memory_order_relaxed);
    }

    // Whether a deadline has passed already: then a waiter skips the polling
    // (a zero timeout asks for one look, the sleep's re-check).
    template <class Deadline>
    static bool passed(const Deadline& deadline) noexcept {
        if constexpr (std::is_same_v<Deadline, no_deadline>) {
            return false;
        } else {
            return Primitives::deadline_passed(deadline);
        }
    }

    // Sleeps while `word` holds `seen`; true if the deadline passed.
    template <class Deadline>
    static bool sleep_on(typename Primitives::wait_word& word, std::uint32_t seen, const Deadline& deadline) noexcept {
        if constexpr (std::is_same_v<Deadline, no_deadline>) {
            Primitives::wait(word, seen); // may return spuriously: every caller loops
            return false;
        } else {
            return !Primitives::wait_until(word, seen, deadline);
        }
    }

    // After a send, without the lock: an asymmetric Dekker pair with a receiver
    // about to sleep (the receiver, which sleeps rarely, pays the heavy side).
    void wake_receivers_after_send() noexcept {
        fences_.light(fence_word_); // [S5]; partner [W3]: orders the publish [S4] before [S6]
        // [S6] relaxed; ordered after [S4] by the fence pair.
        if (receivers_sleeping_.load(std::memory_order_relaxed) != 0) wake_all(recv_wake_); // [S7]
    }

    // A receiver that carried the minimum across sender_need_ ([R11]).
    void wake_senders_unlocked() noexcept { wake_all(send_wake_); }

    // A change under the lock that may end every sender's wait (R-WAKE-1).
    // senders_sleeping_ is read under the lock, so it is exact here.
    void wake_senders_locked() noexcept {
        if (senders_sleeping_.get() != 0) wake_all(send_wake_);
    }

    static void wake_all(typename Primitives::wait_word& word) noexcept {
        // Release; partner [W1]/[W6]: a sleeper whose value includes this
        // increment sees the change made before it in its re-check.
        word.fetch_add(1, std::memory_order_release);
        Primitives::wake_all(word);
    }

    // ---- the rest, under the lock ------------------------------------------------

    bool close_locked() noexcept {
        if (closed_flag_.get()) return false;
        closed_flag_.set(true); // permanent (R-CLOSE-4)
        // [C1] release; partner [R1].
        closed_.store(true, std::memory_order_release);
        wake_senders_locked(); // R-CLOSE-6: their answer is now `closed`
        wake_all(recv_wake_);  // R-CLOSE-6: they drain, then see `closed` (rare: unconditional)
        return true;
    }

    void close_if_no_receivers() noexcept {
        if (receiver_count_.get() + inactive_receiver_count_.get() == 0) close_locked();
    }

    void link(position_cell& cell) noexcept {
        cell.next = receivers_;
        if (receivers_ != nullptr) receivers_->prev = &cell;
        receivers_ = &cell;
        receiver_count_.set(receiver_count_.get() + 1);
        if (receiver_count_.get() == 1) wake_senders_locked(); // R-LIFE-6: inactive waiters may go on
    }

    void unlink(position_cell& cell) noexcept {
        if (cell.prev != nullptr) cell.prev->next = cell.next;
        else receivers_ = cell.next;
        if (cell.next != nullptr) cell.next->prev = cell.prev;
        receiver_count_.set(receiver_count_.get() - 1);
    }

    // F1, F2 (docs/fast-design.md, section 1), checked after every change
    // under the lock in debug builds.
    void check_invariants() const noexcept {
#if BCAST_DEBUG_CHECKS
        std::size_t count = 0;
        for (const position_cell* cell = receivers_; cell != nullptr; cell = cell->next) {
            BCAST_ASSERT(cached_min_.get() <= cell->position.load()); // F1
            BCAST_ASSERT(cell->position.load() <= tail_.get());
            ++count;
        }
        BCAST_ASSERT(count == receiver_count_.get());
        BCAST_ASSERT(queued() <= capacity_.get() && capacity_.get() < current_ring().slot_count()); // F2
#endif
    }

    // The fields are grouped by who writes them, each group on cache lines of
    // its own: a receive reads the second group on every call, and a write to
    // a line it reads (the lock word, the tail) would cost it a cache miss each
    // time (measured: the fan-out ran at 0.55-0.8x the reference's before).

    // Senders and rare operations, under the lock; receivers never touch these.
    alignas(cache_line_bytes) mutable typename Primitives::mutex mutex_; // guards every var below
    var<std::uint64_t> tail_;                                            // sequence number of the next message; only grows (F5)
    var<std::size_t> capacity_;                                          // >= 1 (R-CAP-1); < the current ring's slot_count (F2)
    var<std::uint64_t> cached_min_;                                      // <= every active receiver's position (F1)
    var<std::uint64_t> evict_head_value_;                                // evict_head_'s value, for the lock holder
    var<std::size_t> receiver_count_;                                    // active receivers: the cells in receivers_
    var<std::size_t> inactive_receiver_count_;
    var<std::size_t> sender_count_;
    var<bool> overflow_;
    var<bool> await_active_;
    var<bool> closed_flag_;                         // closed_'s value, for the lock holder; never goes back (F5)
    var<std::size_t> senders_sleeping_;             // senders between [W6] and leave_sleep()
    position_cell* receivers_ = nullptr;            // the active receivers' cells (intrusive list)
    std::vector<std::unique_ptr<ring_type>> rings_; // every ring this channel had; the last is current

    // Read by every receive, written rarely (an eviction, a close, a grow, a sender going to sleep).
    alignas(cache_line_bytes) const typename Primitives::fences fences_{};
    atomic<std::uint64_t> evict_head_{0};  // messages below it are gone (F4); only grows (F5)
    atomic<bool> closed_{false};           // R-CLOSE-4: never goes back
    atomic<ring_type*> ring_{nullptr};     // the current ring (rings_.back())
    atomic<std::uint64_t> sender_need_{0}; // 0, or the position receivers must reach to wake a sleeping sender

    // Read by every send, written by receivers going to sleep and waking.
    alignas(cache_line_bytes) atomic<std::uint32_t> receivers_sleeping_{0}; // receivers between [W2] and their wake
    // The futex words, each incremented by its wakers.
    alignas(cache_line_bytes) typename Primitives::wait_word recv_wake_{0}; // receivers sleep on it: sends and close
    alignas(cache_line_bytes) typename Primitives::wait_word send_wake_{0}; // senders sleep on it: whoever may end their wait
    // The fence pairs' word where there is no membarrier (platform.hpp): every send and receive writes it then.
    alignas(cache_line_bytes) atomic<std::uint64_t> fence_word_{0};
};

} // namespace bcast::fast::detail
