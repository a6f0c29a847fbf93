# SPDX-License-Identifier: MIT OR Apache-2.0
"""The seeded bugs (mutants) of impl/ and the checks that must kill them: the
one place to register a mutant. run_mutants.py applies them at run time.

Each entry has a name, what it breaks, the checkers that must kill it
(RELACY: the model-checked suites in model_tests/relacy fail; PROPERTY: a
property of property_tests/src/properties.cpp fails; GENERATED: the generated
Relacy scenarios fail; HISTORIES: the recorded histories on real threads fail
with the verdict given as history_verdict=, docs/traces.md), and its edits. A
control is the correct twin of a mutant: it must fail exactly the Relacy
suites it lists, which shows what its mutant dies of.

An edit is replace(file, code, replacement). `code` is the code it replaces;
it is matched on tokens, comments and whitespace ignored, and must occur
exactly once in the file, so rewording a comment in impl/ breaks nothing and a
changed line of code is reported by name (`run_mutants.py --check-anchors`,
the ctest mutants.anchors). Quote only as much code as makes the match
unique. The replacement is inserted as written (write it at the indentation
of the code it replaces); it takes the place of the matched lines whole, so
a comment that ends the last matched line goes with them. Every edit of an
entry is matched against the unmodified file. Mark each change `MUTANT:` so a
Relacy history that points at it reads as the bug.

A RELACY mutant also names the suite that kills it (suite="..."): ctest's
relacy.mutants builds each mutant with that suite alone (run_mutants.py
--targeted), so the claim "this suite catches this bug" is what CI checks.

Adding a mutant: add an entry below, then
    python3 model_tests/mutants/run_mutants.py --check-anchors
    python3 model_tests/mutants/run_mutants.py NAME      # must say KILLED, and by which suite
    (add suite="that suite" to the entry)
    python3 model_tests/mutants/run_mutants.py --targeted NAME
"""
from dataclasses import dataclass

RELACY = "relacy"
PROPERTY = "property"
# The generated Relacy scenarios (model_tests/generator/, bcast_relacy_generated),
# without the hand-written suites: run_mutants.py --checker generated runs EVERY
# mutant against them; a mutant listing only GENERATED is one the hand-written
# suites are not required to kill.
GENERATED = "generated"
# The recorded histories (bcast-trace record on real threads, checked against the
# model: docs/traces.md): run_mutants.py --checker histories --must runs the mutants
# listing it, each of which must fail with its history_verdict ("not_linearizable",
# or "lost_wakeup" for a missed wake-up). The histories catch what only real time
# shows: a timed call that gives up before its deadline (history version 2).
HISTORIES = "histories"
DEADLINE = "impl/include/bcast/detail/deadline.hpp"

CHANNEL_STATE = "impl/include/bcast/detail/channel_state.hpp"
SLOT_RING = "impl/include/bcast/detail/slot_ring.hpp"
WAITER = "impl/include/bcast/detail/waiter.hpp"
FUTEX_MUTEX = "impl/include/bcast/detail/futex_mutex.hpp"
FUTEX_CV = "impl/include/bcast/detail/futex_condition_variable.hpp"
# The lock's own files: only the futex_lock suites (model_tests/relacy/futex_scenarios.hpp) run
# that code; the channel's scenarios, hand-written and generated, run on Relacy's mutex.
LOCK_FILES = (FUTEX_MUTEX, FUTEX_CV)
# bcast::fast, the lock-free-receive family (docs/fast-design.md): only the fast_* suites
# (model_tests/relacy/fast_scenarios.hpp) run it; the reference channel's checks cannot reach it.
FAST_STATE = "impl/include/bcast/fast/detail/state.hpp"
FAST_RING = "impl/include/bcast/fast/detail/ring.hpp"
FAST_PRIMITIVES = "impl/include/bcast/fast/primitives.hpp"
FAST_LOCK = "impl/include/bcast/fast/detail/lock.hpp"
FAST_FILES = (FAST_STATE, FAST_RING, FAST_PRIMITIVES, FAST_LOCK, "impl/include/bcast/fast/detail/platform.hpp")


@dataclass(frozen=True)
class Edit:
    file: str  # relative to the repository root; always under impl/
    code: str  # the code replaced (comments and whitespace do not matter)
    replacement: str


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str
    killers: tuple  # RELACY and/or PROPERTY; empty for a control
    edits: tuple
    expected_failures: tuple = ()  # controls only: the Relacy suites it must fail, no others
    # RELACY mutants: the Relacy suite that kills it, or one line of a suite (SUITE/SUFFIX, the run name
    # the table prints); run_mutants.py --targeted builds only that (registry.hpp, suite_built).
    # Controls: the suite that kills its mutant, which the control must pass (with --targeted, that
    # and its expected failures are all that is built).
    suite: str = None
    # HISTORIES mutants: the verdict the recorded histories must give ("not_linearizable", "lost_wakeup").
    history_verdict: str = None

    @property
    def kind(self):
        return "control" if self.is_control else "mutant"

    @property
    def is_control(self):
        return not self.killers

    @property
    def dedicated_runs(self):
        """'lock' when every edit is in bcast's own lock, 'fast' when every edit is in bcast::fast:
        code the reference channel's scenarios (hand-written, generated, traces, histories) never run,
        so only the LOCK or the FAST lines of scenarios.def can kill it (registry.hpp builds just
        those with -DBCAST_RELACY_DEDICATED_LOCK / _FAST); None otherwise."""
        for name, files in (("lock", LOCK_FILES), ("fast", FAST_FILES)):
            if all(edit.file in files for edit in self.edits):
                return name
        return None



def replace(file, code, replacement):
    return Edit(file, code, replacement.strip("\n"))


MUTANTS = []


def mutant(name, what, killers, *edits, suite=None, history_verdict=None):
    assert (HISTORIES in killers) == (history_verdict is not None), name + ": HISTORIES and history_verdict go together"
    MUTANTS.append(Mutant(name, what, tuple(killers), tuple(edits), suite=suite, history_verdict=history_verdict))


def control(name, what, expected_failures, *edits, suite=None):
    MUTANTS.append(Mutant(name, what, (), tuple(edits), tuple(sorted(expected_failures)), suite=suite))


# ---- lost wakeups: a condition-variable wait that nobody ends -------------------

mutant("notify-one-receivers", "a message wakes one blocked receiver, not all of them (each wants it)", [RELACY],
       replace(CHANNEL_STATE, "if (waiting_receivers_.get() != 0) receivers_cv_.notify_all();", """
        if (waiting_receivers_.get() != 0) receivers_cv_.notify_one(); // MUTANT: one instead of all
"""),
       suite="two_by_two")

mutant("no-wake-on-close", "close() does not wake blocked receivers (R-CLOSE-6)", [RELACY, HISTORIES],
       replace(CHANNEL_STATE, "wake_all_senders(); wake_all_receivers(); return true;", """
        wake_all_senders();
        // MUTANT: blocked receivers are not woken on close
        return true;
"""),
       suite="recv_blocked_vs_close", history_verdict="lost_wakeup")

mutant("no-wake-on-capacity-growth", "set_capacity() growing wakes no blocked sender (docs/mutant-walkthrough.md)",
       [RELACY],
       replace(CHANNEL_STATE, "if (new_capacity > old_capacity) wake_all_senders();", """
        static_cast<void>(old_capacity); // MUTANT: growth wakes nobody
"""),
       suite="grow_vs_blocked_send")

mutant("no-wake-on-overflow-on", "turning overflow on wakes no sender blocked on a full channel", [RELACY],
       replace(CHANNEL_STATE, "if (enabled && !overflow_.get()) wake_all_senders();", """
        // MUTANT: turning overflow on wakes nobody
"""),
       suite="overflow_on_vs_blocked_send")

mutant("no-wake-on-await-active-off", "turning await_active off wakes no sender waiting for a receiver", [RELACY],
       replace(CHANNEL_STATE, "if (!enabled && await_active_.get()) wake_all_senders();", """
        // MUTANT: turning await_active off wakes nobody
"""),
       suite="await_active_off_vs_sender")

mutant("recv-frees-slot-silently", "the last reader taking a message frees a slot and wakes no sender", [RELACY],
       replace(CHANNEL_STATE, "pos.store(current + 1); wake_one_sender();", """
            pos.store(current + 1);
            // MUTANT: the freed slot wakes no sender
"""),
       suite="full_send_vs_recv")

mutant("no-wake-on-activate", "the first active receiver wakes no sender waiting for one (R-LIFE-6)", [RELACY],
       replace(CHANNEL_STATE, "if (receiver_count_.get() == 1) wake_all_senders();", """
        // MUTANT: the first active receiver wakes no waiting sender
"""),
       suite="activate_vs_awaiting_sender")

mutant("wake-one-sender-off-by-one", "a freed slot wakes a sender only when two or more wait", [RELACY],
       replace(CHANNEL_STATE, "if (waiting_senders_.get() != 0) senders_cv_.notify_one();", """
        if (waiting_senders_.get() > 1) senders_cv_.notify_one(); // MUTANT: off by one, a lone waiter is missed
"""),
       suite="full_send_vs_recv")

mutant("drop-frees-slot-silently", "a dropped receiver that frees one slot wakes no sender", [RELACY],
       replace(CHANNEL_STATE, "} else if (freed == 1) { wake_one_sender(); }", """
        } else if (freed == 1) {
            // MUTANT: one freed slot wakes no sender
        }
"""),
       suite="receiver_drop_vs_blocked_send")

mutant("last-receiver-wakes-one", "the last active receiver leaving wakes one of the blocked senders (the bug "
       "fixed in 55aac32)", [RELACY, HISTORIES],
       replace(CHANNEL_STATE, "if (freed > 1 || receiver_count_.get() == 0) {", """
        if (freed > 1) { // MUTANT: the pre-55aac32 code: the last active receiver leaving wakes one sender
"""),
       suite="last_active_drop_vs_two_senders", history_verdict="lost_wakeup")

mutant("recv-if-instead-of-while", "a woken receiver trusts the wakeup: `if` instead of the re-check loop "
       "(only spurious wakeups, from the random scheduler, show it)", [RELACY],
       replace(CHANNEL_STATE, "timed_out = wait(section.lock(), receivers_cv_, waiting_receivers_, deadline);", """
            timed_out = wait(section.lock(), receivers_cv_, waiting_receivers_, deadline);
            if (!timed_out) { // MUTANT: `if` instead of `while`: trusts the wakeup, no re-check loop
                recv_result<T> again = attempt_recv(pos);
                return again;
            }
"""),
       suite="full_send_vs_recv")

# ---- shared state read outside the lock: data races -----------------------------

mutant("len-read-outside-lock", "len() reads the ring's size without the lock", [RELACY],
       replace(CHANNEL_STATE, "std::size_t len() const { lock_type lock(mutex_); return ring_.size(); }", """
    std::size_t len() const {
        return ring_.size(); // MUTANT: counter read outside the lock
    }
"""),
       suite="shrink_vs_recv")

mutant("closed-flag-without-lock", "is_closed() reads the closed flag without the lock", [RELACY],
       replace(CHANNEL_STATE, "bool is_closed() const { return this->read(closed_); }", """
    bool is_closed() const { return closed_.get(); } // MUTANT: plain shared flag read without the lock
"""),
       suite="recv_blocked_vs_close")

mutant("copy-reads-position-outside-lock", "a receiver copy reads the original's position before locking "
       "(docs/position-question-relacy.md)", [RELACY],
       replace(CHANNEL_STATE, "critical_section section(*this); const std::uint64_t pos = original.load();", """
        const std::uint64_t pos = original.load(); // MUTANT: the original's position read before locking
        critical_section section(*this);
"""),
       suite="position/copy_while_receiving/plain")


# A lock-free "nothing new" fast path in try_recv, on hints published by the
# sender and by close. With relaxed atomics it is a mutant; its seq_cst twin
# (the control below) must pass all but the suites it lists, which shows the
# mutant dies of its memory order, not of the fast path's logic.
def empty_fastpath(order, mark):
    reason = "seq_cst: correct" if order == "seq_cst" else "seq_cst needed"
    return (
        replace(CHANNEL_STATE, "recv_result<T> try_recv(position& pos) { critical_section section(*this);", f"""
    recv_result<T> try_recv(position& pos) {{
        // {mark}: a lock-free "nothing new" fast path whose tail/closed hints
        // are published and read with memory_order_{order} ({reason}).
        if (pos.load() == published_tail_.load(std::memory_order_{order}) &&
            !published_closed_.load(std::memory_order_{order}))
            return recv_result<T>(error_tag, recv_error{{recv_errc::empty, 0}});
        critical_section section(*this);
"""),
        replace(CHANNEL_STATE, "ring_.push_back(std::move(message), readers);", f"""
        ring_.push_back(std::move(message), readers); // R-SEND-2: every active receiver reads it
        published_tail_.store(tail_pos(), std::memory_order_{order}); // {mark} (see try_recv)
"""),
        replace(CHANNEL_STATE, "closed_.set(true);", f"""
        closed_.set(true); // permanent (R-CLOSE-4)
        published_closed_.store(true, std::memory_order_{order}); // {mark} (see try_recv)
"""),
        replace(CHANNEL_STATE, "typename Primitives::template var<std::size_t> waiting_receivers_;", f"""
    typename Primitives::template var<std::size_t> waiting_receivers_;   // threads inside receivers_cv_.wait
    typename Primitives::template atomic<std::uint64_t> published_tail_{{0}}; // {mark}
    typename Primitives::template atomic<bool> published_closed_{{false}};    // {mark}
"""),
    )


mutant("empty-fastpath-relaxed", "try_recv's lock-free empty check reads hints published with "
       "memory_order_relaxed", [RELACY], *empty_fastpath("relaxed", "MUTANT"),
       suite="overflow_two_receivers")

# The listed failure is itself the answer to the position question: an
# unlocked read of a receiver's position is a data race under plain_position
# when one receiver object is shared by two threads (Relacy: DATA RACE in
# plain_position::load); the atomic position policies make it race-free.
control("empty-fastpath-seq-cst", "the seq_cst twin of empty-fastpath-relaxed: must pass every suite but "
        "the shared-receiver data race on a plain position", ["position/shared_unsync/plain"],
        *empty_fastpath("seq_cst", "CONTROL"),
        suite="overflow_two_receivers")  # where its mutant dies: --targeted builds this and the expected failure


# ---- the async waiter lists (R-ASYNC-2): the check and the registration in two
# critical sections, so an event in between finds no waiter to complete -----------
def two_critical_sections(direction, missed_event):
    """The two edits that split start_<direction>; `missed_event` is what, in between, finds no waiter."""
    return (
        replace(CHANNEL_STATE, f"bool start_{direction}({direction}_waiter_type& waiter) {{ "
                               "critical_section section(*this);", f"""
    bool start_{direction}({direction}_waiter_type& waiter) {{
        {{ // MUTANT: the check and the registration are two critical sections
        critical_section section(*this);
"""),
        replace(CHANNEL_STATE, f"queue({direction}_waiters_, waiter);", f"""
        }} // MUTANT: the lock is released here; {missed_event} finds no waiter
        critical_section section(*this);
        queue({direction}_waiters_, waiter);
"""),
    )


mutant("register-after-recheck", "start_recv checks and queues its waiter in two critical sections", [RELACY],
       *two_critical_sections("recv", "a message sent now"),
       suite="async_recv_vs_send")

mutant("send-register-after-recheck", "start_send checks and queues its waiter in two critical sections", [RELACY],
       *two_critical_sections("send", "a slot freed now"),
       suite="two_async_senders_vs_freed_slot")

mutant("async-no-settle", "a new message (or close) does not mark the async receive list", [RELACY],
       replace(CHANNEL_STATE, "if (!recv_waiters_.empty()) mark(receivers_changed);", """
        // MUTANT: a message (or close) does not mark the async receive list
"""),
       suite="async_recv_vs_send")

mutant("async-no-settle-on-free-slot", "a freed slot does not mark the async send list", [RELACY],
       replace(CHANNEL_STATE, "if (waiting_senders_.get() != 0) senders_cv_.notify_one(); "
                              "if (!send_waiters_.empty()) mark(senders_changed);", """
        if (waiting_senders_.get() != 0) senders_cv_.notify_one(); // one freed slot serves one sender
        // MUTANT: a freed slot does not mark the async send list
"""),
       suite="two_async_senders_vs_freed_slot")

mutant("waiters-lifo", "the waiter list pushes at the front: waiters served newest first", [RELACY],
       replace(WAITER, "node.prev = tail_; if (tail_ != nullptr) tail_->next = &node; else head_ = &node; "
                       "tail_ = &node;", """
        node.next = head_; // MUTANT: LIFO, the newest waiter goes in front
        if (head_ != nullptr) head_->prev = &node;
        else tail_ = &node;
        head_ = &node;
"""),
       suite="two_async_senders_vs_freed_slot")

mutant("cancel-checked-first", "start_recv answers `cancelled` to an early cancel even when a message is "
       "there (R-ASYNC-4)", [RELACY],
       replace(CHANNEL_STATE, "bool start_recv(recv_waiter_type& waiter) { critical_section section(*this);", """
    bool start_recv(recv_waiter_type& waiter) {
        critical_section section(*this);
        if (waiter.cancel_requested.get()) { // MUTANT: an early cancel wins even when a message is there
            waiter.result.emplace(error_tag, recv_error{recv_errc::cancelled, 0});
            return false;
        }
"""),
       suite="async_recv_vs_cancel")

# ---- wrong answers, visible single-threaded: the property tests kill these too ----

mutant("missed-count-off-by-one", "`overflowed(n)` reports one more than was missed", [RELACY, PROPERTY, HISTORIES],
       replace(CHANNEL_STATE, "return recv_result<T>(error_tag, recv_error{recv_errc::overflowed, head - current});", """
            return recv_result<T>(error_tag, recv_error{recv_errc::overflowed, head - current + 1}); // MUTANT: one too many
"""),
       suite="overflow_two_receivers", history_verdict="not_linearizable")

mutant("copy-starts-at-tail", "a receiver copy starts at the tail instead of at the original's position",
       [RELACY, PROPERTY, HISTORIES],
       replace(CHANNEL_STATE, "const std::uint64_t pos = original.load();", """
        static_cast<void>(original); // MUTANT: the copy starts at the tail
        const std::uint64_t pos = tail_pos();
"""),
       suite="receiver_copy_vs_send", history_verdict="not_linearizable")

mutant("drop-keeps-unread", "a dropped or deactivated receiver does not release its unread messages",
       [RELACY, PROPERTY],
       replace(CHANNEL_STATE, "for (std::size_t index = first_unread_index(pos.load()); index < ring_.size(); ++index) "
                              "{ ring_.set_pending_readers(index, ring_.pending_readers(index) - 1); }", """
        static_cast<void>(pos); // MUTANT: the receiver's unread messages are not released
"""),
       suite="receiver_drop_vs_blocked_send")

mutant("evict-newest", "overflow evicts (and hands back) the newest message instead of the oldest",
       [RELACY, PROPERTY, HISTORIES],
       replace(CHANNEL_STATE, "evicted.emplace(ring_.pop_front()); head_pos_.set(head_pos_.get() + 1);", """
            evicted.emplace(ring_.pop_back()); // MUTANT: the newest goes back to the sender
"""),
       replace(SLOT_RING, "advance_front(); return message; }", """
        advance_front();
        return message;
    }

    // MUTANT: removes the newest message and hands it to the caller.
    T pop_back() noexcept {
        BCAST_ASSERT(size() != 0);
        slot& back = at(size() - 1);
        T message(std::move(back.message()));
        back.message().~T();
        size_.set(size() - 1);
        return message;
    }
"""),
       suite="overflow_two_receivers", history_verdict="not_linearizable")


# ---- written for the generated scenarios (issue 12), before looking at what they cover -------------
# Slips in the waiter lists, ring growth and the wake sites, of the kinds an
# independent seeded-bug set found the hand-written suites blind to.

mutant("waiter-remove-keeps-tail", "removing the last waiter of a list leaves the list's tail pointing at it", [GENERATED],
       replace(WAITER, "if (node.next != nullptr) node.next->prev = node.prev; else tail_ = node.prev;", """
        if (node.next != nullptr) node.next->prev = node.prev; // MUTANT: tail_ not updated when the last one leaves
"""))

mutant("settle-senders-serves-one", "settling the async senders serves only the first, however many may go on",
       [GENERATED],
       replace(CHANNEL_STATE, "while (waiter* node = send_waiters_.front()) {", """
        if (waiter* node = send_waiters_.front()) { // MUTANT: one sender per settling
"""))

mutant("settle-receivers-loses-next", "settling the async receivers reads a completed node's next link after finish()",
       [GENERATED],
       replace(CHANNEL_STATE, "for (waiter* node = recv_waiters_.front(); node != nullptr;) {"
                              " auto& pending = static_cast<recv_waiter_type&>(*node); node = node->next;", """
        for (waiter* node = recv_waiters_.front(); node != nullptr; node = node->next) { // MUTANT: next read after finish()
            auto& pending = static_cast<recv_waiter_type&>(*node);
"""))

mutant("grow-keeps-front-index", "growing a wrapped ring copies to slot 0.. but keeps the old front index",
       [GENERATED],
       replace(SLOT_RING, "slot_count_ = slot_count; front_index_.set(0);", """
        slot_count_ = slot_count; // MUTANT: front_index_ still points into the old layout
"""))

mutant("grow-only-when-full", "set_capacity() grows the ring only when it is full, so capacity can exceed the slots",
       [GENERATED],
       replace(CHANNEL_STATE, "ring_.grow(new_capacity);", """
        if (ring_.size() == ring_.slot_count()) ring_.grow(new_capacity); // MUTANT: grown only when full
"""))

mutant("capacity-growth-wakes-one", "growing the capacity by several slots wakes one blocked sender (R-CAP-4)",
       [GENERATED],
       replace(CHANNEL_STATE, "if (new_capacity > old_capacity) wake_all_senders();", """
        if (new_capacity > old_capacity) wake_one_sender(); // MUTANT: one sender for several new slots
"""))

mutant("drop-lagging-wakes-one", "a dropped receiver that frees several slots wakes one sender",
       [GENERATED],
       replace(CHANNEL_STATE, "if (freed > 1 || receiver_count_.get() == 0) {", """
        if (receiver_count_.get() == 0) { // MUTANT: several freed slots wake only one sender below
"""))

mutant("settle-clears-marks-first", "the end of a critical section clears the async marks before settling",
       [GENERATED],
       replace(CHANNEL_STATE, "settle_async_waiters(); completion_batch resume_after_unlock;", """
        async_marks_.set(0); // MUTANT: cleared first, so nothing is settled
        settle_async_waiters();
        completion_batch resume_after_unlock;
"""))

mutant("async-mark-needs-blocked-sender", "a freed slot marks the async senders only when a blocking sender also waits",
       [GENERATED],
       replace(CHANNEL_STATE, "if (waiting_senders_.get() != 0) senders_cv_.notify_one(); "
                              "if (!send_waiters_.empty()) mark(senders_changed);", """
        if (waiting_senders_.get() != 0) { // MUTANT: the async mark moved inside the blocking-waiter test
            senders_cv_.notify_one();
            if (!send_waiters_.empty()) mark(senders_changed);
        }
"""))

mutant("ring-wrap-off-by-one", "the ring wraps an index only past slot_count, so index slot_count is read",
       [GENERATED],
       replace(SLOT_RING, "if (physical >= slot_count_) physical -= slot_count_;", """
        if (physical > slot_count_) physical -= slot_count_; // MUTANT: off by one at the wrap
"""))


# ---- bcast's own lock (detail/futex_mutex.hpp, futex_condition_variable.hpp, issue 13) -----------
# Killed by the futex_lock suites (model_tests/relacy/futex_scenarios.hpp): the lock's word
# protocol on an emulated futex. Each is a way the lock itself could lose a wakeup or an order.

mutant("mutex-unlock-wakes-nobody", "unlock() never wakes a thread asleep on the lock word", [RELACY],
       replace(FUTEX_MUTEX, "if (previous == contended) Ops::wake_one(state_);", """
        static_cast<void>(previous); // MUTANT: sleepers on the lock are never woken
"""),
       suite="futex_lock/exclusion")

mutant("mutex-unlock-checks-after-clearing", "unlock() clears the word, then reads it to decide whether to wake",
       [RELACY],
       replace(FUTEX_MUTEX, "const std::uint32_t previous = state_.exchange(unlocked, std::memory_order_release); "
                            "BCAST_ASSERT(previous != unlocked); "
                            "if (previous == contended) Ops::wake_one(state_);", """
        // MUTANT: a store then a load: the sleeper's 2 was overwritten before it is read
        state_.store(unlocked, std::memory_order_release);
        if (state_.load(std::memory_order_relaxed) == contended) Ops::wake_one(state_);
"""),
       suite="futex_lock/exclusion")

mutant("mutex-lock-relaxed", "the inline lock CAS is relaxed: the previous critical section is not ordered before",
       [RELACY],
       replace(FUTEX_MUTEX, "if (!state_.compare_exchange_strong(expected, locked, std::memory_order_acquire, "
                            "std::memory_order_relaxed)) {", """
        // MUTANT: relaxed instead of acquire
        if (!state_.compare_exchange_strong(expected, locked, std::memory_order_relaxed, std::memory_order_relaxed)) {
"""),
       suite="futex_lock/exclusion")

mutant("cv-reads-sequence-after-unlock", "a wait reads the notification count after releasing the lock",
       [RELACY],
       replace(FUTEX_CV, "const std::uint32_t seen = sequence_.load(std::memory_order_relaxed); lock.unlock();", """
        lock.unlock();
        const std::uint32_t seen = sequence_.load(std::memory_order_relaxed); // MUTANT: read after the unlock
"""),
       suite="futex_lock/cv_one")

mutant("cv-counts-sleeper-after-sleeping", "a sleeper is counted in sleepers_ only after the kernel wait",
       [RELACY],
       replace(FUTEX_CV, "sleepers_.fetch_add(1, std::memory_order_seq_cst); in_time = kernel_wait(seen);", """
        in_time = kernel_wait(seen); // MUTANT: counted after sleeping, so a notifier skips the wake
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
"""),
       suite="futex_lock/cv_one")

mutant("cv-notify-relaxed", "notify_one's increment and sleeper check are relaxed: the Dekker handshake breaks",
       [RELACY],
       replace(FUTEX_CV, "sequence_.fetch_add(1, std::memory_order_seq_cst); "
                         "if (sleepers_.load(std::memory_order_seq_cst) != 0) Ops::wake_one(sequence_);", """
        // MUTANT: relaxed: the load may see no sleeper while the sleeper's kernel read misses the increment
        sequence_.fetch_add(1, std::memory_order_relaxed);
        if (sleepers_.load(std::memory_order_relaxed) != 0) Ops::wake_one(sequence_);
"""),
       suite="futex_lock/cv_one")

mutant("cv-notify-all-wakes-one", "notify_all() wakes one sleeper in the kernel", [RELACY],
       replace(FUTEX_CV, "if (sleepers_.load(std::memory_order_seq_cst) != 0) Ops::wake_all(sequence_);", """
        if (sleepers_.load(std::memory_order_seq_cst) != 0) Ops::wake_one(sequence_); // MUTANT: one, not all
"""),
       suite="futex_lock/cv_two_all")



# ---- bcast::fast, the lock-free receive path (docs/fast-design.md, issue 18) ----------------------
# Killed by the fast_* Relacy suites (model_tests/relacy/fast_scenarios.hpp), whose atomics Relacy
# explores under every order the memory model allows: a wrong order shows as a stale or torn value
# (a history the spec model cannot explain), a lost wakeup as DEADLOCK, a plain position as a DATA RACE.

mutant("fast-publish-relaxed", "a slot's stamp is published relaxed instead of release: a reader that sees the "
       "message may copy stale words", [RELACY],
       replace(FAST_RING, "target.stamp.store(written_stamp(seq), std::memory_order_release);", """
        target.stamp.store(written_stamp(seq), std::memory_order_relaxed); // MUTANT: relaxed publish
"""),
       suite="fast_one_slot")

mutant("fast-words-relaxed", "a slot's words are stored relaxed: a reader whose copy saw an overwrite need not "
       "see the overwrite's stamp, so the seqlock accepts a torn copy", [RELACY],
       replace(FAST_RING, "for (std::size_t i = 0; i < word_count; ++i) target.payload[i].store(bits[i], "
                          "std::memory_order_release);", """
        for (std::size_t i = 0; i < word_count; ++i) target.payload[i].store(bits[i], std::memory_order_relaxed); // MUTANT
"""),
       suite="fast_evict_vs_read")

mutant("fast-validate-before-copy", "the seqlock's re-check of the stamp is made before the copy, so an overwrite "
       "during the copy goes unseen", [RELACY],
       replace(FAST_RING, "for (std::size_t i = 0; i < word_count; ++i) bits[i] = source.payload[i].load("
                          "std::memory_order_acquire); if (source.stamp.load(std::memory_order_relaxed) != before) "
                          "return found::overwritten;", """
        if (source.stamp.load(std::memory_order_relaxed) != before) return found::overwritten; // MUTANT: checked first
        for (std::size_t i = 0; i < word_count; ++i) bits[i] = source.payload[i].load(std::memory_order_acquire);
"""),
       suite="fast_evict_vs_read")

mutant("fast-overwrite-without-writing-stamp", "an overwrite (an eviction's, or a wrap over a lagging reader) does "
       "not mark the slot as being written first, so it does not invalidate a reader's copy", [RELACY],
       replace(FAST_RING, "target.stamp.store(kind == write_kind::evicting ? evicting_stamp(seq) : writing_stamp(seq), "
                          "std::memory_order_release);", """
        // MUTANT: no writing stamp: a reader copying the old message is not invalidated
"""),
       suite="fast_evict_vs_read")

mutant("fast-gate-on-fastest", "the sender's refresh takes the fastest receiver's position, not the slowest's, as "
       "the queue's front", [RELACY],
       replace(FAST_STATE, "for (const position_cell* cell = receivers_; cell != nullptr; cell = cell->next) { "
                           "lowest = std::min(lowest, cell->position.load()); } "
                           "cached_min_.set(std::max(cached_min_.get(), lowest));", """
        std::uint64_t fastest = 0; // MUTANT: gates on the fastest receiver
        for (const position_cell* cell = receivers_; cell != nullptr; cell = cell->next) {
            fastest = std::max(fastest, cell->position.load());
        }
        lowest = fastest;
        cached_min_.set(std::max(cached_min_.get(), lowest));
"""),
       suite="fast_two_positions")

mutant("fast-stale-gating-minimum", "a sender trusts its cached minimum when the ring looks full and never refreshes "
       "it there", [RELACY],
       replace(FAST_STATE, "if (tail - head >= capacity) head = refreshed_head();", """
        // MUTANT: the cached minimum is not refreshed when the ring looks full
"""),
       suite="fast_one_slot")

mutant("fast-receiver-sleeps-without-heavy-fence", "a receiver counts itself as sleeping and re-checks without "
       "the heavy fence: the handshake with a sender that publishes meanwhile breaks", [RELACY],
       replace(FAST_STATE, "fences_.heavy(fence_word_); received = attempt_recv(cell);", """
            // MUTANT: no heavy fence before the re-check
            received = attempt_recv(cell); // [W4]
"""),
       suite="fast_blocked_send_vs_recv")

mutant("fast-no-heavy-fence", "a sender about to sleep does not pass the heavy fence between publishing what it "
       "needs and re-reading the positions: a lost wakeup", [RELACY],
       replace(FAST_STATE, "fences_.heavy(fence_word_); const std::uint64_t head = refreshed_head();", """
            // MUTANT: no heavy fence in the sleep/wake handshake
            const std::uint64_t head = refreshed_head(); // [W9]
"""),
       suite="fast_blocked_send_vs_recv")

mutant("fast-sleep-without-recheck", "a receiver counts itself as sleeping, then sleeps without looking again",
       [RELACY],
       replace(FAST_STATE, "received = attempt_recv(cell); if (!is_empty(received)) { "
                           "receivers_sleeping_.fetch_sub(1, std::memory_order_relaxed); return received; }", """
            // MUTANT: no re-check after counting itself and passing the fence
"""),
       suite="fast_blocked_send_vs_recv")

mutant("fast-wake-crossing-off-by-one", "a receiver wakes the senders only when it moves past their need, not when "
       "it reaches it", [RELACY],
       replace(FAST_STATE, "if (need != 0 && from < need && need <= to) wake_senders_unlocked();", """
        if (need != 0 && from < need && need < to) wake_senders_unlocked(); // MUTANT: off by one
"""),
       suite="fast_blocked_send_vs_recv")

mutant("fast-closed-read-after-slot", "a receiver reads the closed flag after the slot: a message sent just before "
       "a close is answered `closed`", [RELACY],
       replace(FAST_STATE, "const bool closed = closed_.load(std::memory_order_acquire);", """
        // MUTANT: the closed flag is read after the slot (below)
"""),
       replace(FAST_STATE, "return recv_result<T>(error_tag, recv_error{closed ? recv_errc::closed : recv_errc::empty, 0});", """
            const bool closed = closed_.load(std::memory_order_acquire); // MUTANT: read after the slot
            return recv_result<T>(error_tag, recv_error{closed ? recv_errc::closed : recv_errc::empty, 0});
"""),
       suite="fast_close_vs_read")

mutant("fast-eviction-unpublished", "an eviction moves the lock holder's copy of the front but does not publish it "
       "to receivers", [RELACY],
       replace(FAST_STATE, "evict_head_.store(head, std::memory_order_release);", """
        // MUTANT: receivers never see the eviction
"""),
       suite="fast_evict_vs_read")

mutant("fast-eviction-after-message", "an evicting send publishes its eviction after its new message (the first "
       "version's order, P-FAST-7 before it was withdrawn): a receiver still at the evicted message may read it "
       "after another receiver read the new one", [RELACY],
       replace(FAST_STATE, "current_ring().begin_write(tail, write_kind::evicting); evict_to(head + 1); "
                           "current_ring().finish_write(tail, message);", """
            current_ring().begin_write(tail, write_kind::evicting);
            current_ring().finish_write(tail, message);
            evict_to(head + 1); // MUTANT: the eviction after the message
"""),
       suite="fast_evict_vs_two_reads")

mutant("fast-eviction-before-mark", "an evicting send publishes its eviction before it marks the new message's slot: "
       "a receiver may report the loss and then find the new message not there", [RELACY],
       replace(FAST_STATE, "current_ring().begin_write(tail, write_kind::evicting); evict_to(head + 1);", """
            evict_to(head + 1); // MUTANT: the eviction before the slot is marked
            current_ring().begin_write(tail, write_kind::evicting);
"""),
       suite="fast_evict_vs_read")

mutant("fast-reader-ignores-evicting-write", "a receiver that finds its message half written by an evicting send "
       "answers `empty` instead of waiting for it, though the send's eviction is already visible", [RELACY],
       replace(FAST_RING, "return before == evicting_stamp(seq) ? found::being_sent : found::not_yet;", """
            return found::not_yet; // MUTANT: an evicting write in progress looks like nothing sent
"""),
       suite="fast_evict_vs_read")

mutant("fast-ring-published-relaxed", "a growing set_capacity publishes the new ring relaxed: a receiver may load "
       "it before the copied slots are visible", [RELACY],
       replace(FAST_STATE, "ring_.store(rings_.back().get(), std::memory_order_release);", """
        ring_.store(rings_.back().get(), std::memory_order_relaxed); // MUTANT: relaxed
"""),
       suite="fast_grow_vs_read")

mutant("fast-plain-position", "bcast::fast's receivers keep their position in a plain integer: senders read it "
       "while its receiver writes it (Relacy: DATA RACE)", [RELACY],
       replace(FAST_PRIMITIVES, "using default_position = atomic_position<std::memory_order_acq_rel>;", """
using default_position = plain_position; // MUTANT: a plain position
"""),
       suite="fast_one_slot")

# bcast::fast's lock (fast/detail/lock.hpp): the fast_lock suites run it on the emulated futex.
mutant("fast-lock-sleeper-counted-after-fence", "a thread about to sleep on the lock counts itself after the "
       "heavy fence: an unlock may read the old count and wake nobody (Relacy: DEADLOCK)", [RELACY],
       replace(FAST_LOCK, "sleepers_.fetch_add(1, std::memory_order_relaxed); fences_.heavy(fence_word_);", """
        fences_.heavy(fence_word_);
        sleepers_.fetch_add(1, std::memory_order_relaxed); // MUTANT: counted after the fence
"""),
       suite="fast_lock/exclusion")

mutant("fast-lock-no-heavy-fence", "a thread about to sleep on the lock passes no fence between counting itself "
       "and looking at the word: a store-buffering race with the unlock loses its wakeup", [RELACY],
       replace(FAST_LOCK, "sleepers_.fetch_add(1, std::memory_order_relaxed); fences_.heavy(fence_word_);", """
        sleepers_.fetch_add(1, std::memory_order_relaxed); // MUTANT: no heavy fence after it
"""),
       suite="fast_lock/exclusion")

mutant("fast-lock-release-relaxed", "the lock's unlock stores 0 relaxed: the next critical section is not ordered "
       "after this one (Relacy: DATA RACE on the protected variable)", [RELACY],
       replace(FAST_LOCK, "state_.store(unlocked, std::memory_order_release);", """
        state_.store(unlocked, std::memory_order_relaxed); // MUTANT: relaxed release
"""),
       suite="fast_lock/exclusion")


# ---- time: a timed call's deadline, an event of the model (model_tests/relacy/model_clock.hpp) ----
# Before model time (Relacy's timed waits could time out at any moment and its histories had no
# deadlines) every Relacy suite passed the first three: docs/verification.md, "Time in the model".

mutant("timed-send-gives-up-without-recheck", "a timed send whose wait timed out gives up at once, without the "
       "final re-check: a slot freed just before the deadline, whose wake-up the timeout overtook, is lost "
       "(R-SEND-4)", [RELACY],
       replace(CHANNEL_STATE, "if (timed_out) return send_result<T>(error_tag, send_error<T>{send_errc::timed_out, "
                              "std::move(message)}); timed_out = wait(section.lock(), senders_cv_, waiting_senders_, deadline);", """
            timed_out = wait(section.lock(), senders_cv_, waiting_senders_, deadline);
            // MUTANT: gives up without the final re-check
            if (timed_out) return send_result<T>(error_tag, send_error<T>{send_errc::timed_out, std::move(message)});
"""),
       suite="timed_send_vs_recv")

mutant("timed-recv-gives-up-without-recheck", "a timed receive whose wait timed out gives up at once, without the "
       "final re-check: a message sent just before the deadline is not received (R-RECV-5)", [RELACY],
       replace(CHANNEL_STATE, "if (timed_out) return recv_result<T>(error_tag, recv_error{recv_errc::timed_out, 0}); "
                              "timed_out = wait(section.lock(), receivers_cv_, waiting_receivers_, deadline);", """
            timed_out = wait(section.lock(), receivers_cv_, waiting_receivers_, deadline);
            // MUTANT: gives up without the final re-check
            if (timed_out) return recv_result<T>(error_tag, recv_error{recv_errc::timed_out, 0});
"""),
       suite="timed_recv_vs_send")

mutant("wakeup-taken-for-timeout", "any return from a timed wait counts as the deadline: a spurious wake-up, or one "
       "that another waiter answers first, ends a timed call before its deadline (R-SEND-4, R-RECV-5); the "
       "recorded histories' deadlines catch it too, within a few histories", [RELACY, HISTORIES],
       replace(CHANNEL_STATE, "timed_out = cv.wait_until(lock, deadline) == std::cv_status::timeout;", """
            (void)cv.wait_until(lock, deadline);
            timed_out = true; // MUTANT: every wake-up taken for the deadline
"""),
       suite="timed_send_vs_recv", history_verdict="not_linearizable")

mutant("fast-wakeup-taken-for-timeout", "bcast::fast: any return from a timed sleep counts as the deadline, so a "
       "spurious wake-up ends a timed call before its deadline (R-SEND-4, R-RECV-5)", [RELACY],
       replace(FAST_STATE, "return !Primitives::wait_until(word, seen, deadline);", """
            (void)Primitives::wait_until(word, seen, deadline);
            return true; // MUTANT: every wake-up taken for the deadline
"""),
       suite="fast_timed_calls")

mutant("fast-grow-wakes-no-sender", "bcast::fast: growing the capacity wakes no sender asleep on a full ring "
       "(R-CAP-4, R-WAKE-1): a row of the wakeup table the hand-written fast suites do not have", [RELACY],
       replace(FAST_STATE, "if (new_capacity > old_capacity) wake_senders_locked();", """
        // MUTANT: growth wakes no sleeping sender
"""),
       suite="fast_wake_senders")

mutant("fast-wakes-a-lone-sender-only", "bcast::fast: a change under the lock wakes the sleeping senders only when "
       "exactly one sleeps (R-WAKE-1): one waiter is woken, two are stranded, which only the wakeup table's "
       "two-waiter cells show", [RELACY],
       replace(FAST_STATE, "if (senders_sleeping_.get() != 0) wake_all(send_wake_);", """
        if (senders_sleeping_.get() == 1) wake_all(send_wake_); // MUTANT: two sleepers, nobody woken
"""),
       suite="fast_wake_senders")

mutant("timeout-truncated-to-ms", "a timeout is truncated to whole milliseconds, so a timed call gives up before its "
       "deadline (R-SEND-4, R-RECV-5); Relacy's deadlines are instants of model time, not durations (the scenarios "
       "call the _until forms), and the property tests have no clock, so only the recorded histories' deadlines "
       "(version 2) catch it", [HISTORIES],
       replace(DEADLINE, "return now + std::chrono::duration_cast<clock::duration>(timeout);", """
    return now + std::chrono::duration_cast<std::chrono::milliseconds>(timeout); // MUTANT: truncated to whole ms
"""),
       history_verdict="not_linearizable")
