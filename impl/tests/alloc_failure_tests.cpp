// SPDX-License-Identifier: MIT OR Apache-2.0
// R-EXC-1: an allocation that fails inside an operation leaves the channel
// exactly as it was, tested the way SQLite tests out-of-memory handling.
//
// This binary replaces the global operator new (bcast_support/
// failing_allocator.hpp), which is why it is an executable of its own.
//
// Each test is one operation on one starting state (a "world": a channel, its
// handles, the spec model driven by the same steps, and the waiters). For
// every N = 0, 1, 2, ... a fresh world is built, the operation runs with the
// Nth allocation of the test thread refused (first only that one, then every
// one from the Nth on), and then everything is compared with the model, to
// which the operation was applied only if it did not throw:
//   - every query of every handle (R-QUERY-1), and every receiver's unread()
//     and missed(), its position seen without receiving (R-QUERY-2);
//   - every waiter: an async receive or send, or a thread blocked in
//     broadcast, is still waiting exactly when the model says it must, and
//     otherwise got the model's answer; a message copy that failed inside
//     another caller's critical section reached its receiver as bad_alloc at
//     the co_await and consumed nothing (R-MSG-3);
//   - every queued message, drained by every receiver in order with the
//     model's overflow reports, then close and the rest (R-RECV-2, R-OVF-2);
//   - a failed operation freed every block it allocated and left no message
//     object behind, and at the end every message object was destroyed
//     exactly once (R-MSG-2).
// The loop ends at the first N that refuses nothing: N is then the number of
// allocations the operation makes, and each test states it, so the tests are
// also the list of what allocates (R-IMPL-3, R-ASYNC-2).
//
// The message type's copy allocates (a std::string payload on the heap), as
// real messages' copies do; its moves never do (R-MSG-4).
#include <bcast_support/failing_allocator.hpp> // replaces operator new and delete for this whole binary

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdio>
#include <deque>
#include <functional>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

#include <bcast/bcast.hpp>
#include <bcast/spec/model.hpp>
#include <bcast_support/instrumented_message.hpp>
#include <bcast_support/manual_scheduler.hpp>
#include <bcast_support/task.hpp>

#include "position_policies.hpp"

namespace bcast::alloc_tests {
namespace {

using namespace std::chrono_literals;
using bcast_support::allocation_log;
using bcast_support::failing_allocations;
using bcast_support::failure_mode;
using bcast_support::instrumented_message;
using bcast_support::manual_scheduler;
using bcast_support::task;
using spec::handle_id;

// ---- the message: its copy allocates ----------------------------------------

// Longer than any small-string buffer, so every copy allocates.
std::string text_for(int value) { return "message " + std::to_string(value) + ", long enough to live on the heap"; }

struct heavy {
    std::string payload;      // first: if its copy fails, no tag was made, so the counts stay exact
    instrumented_message tag; // counts the live objects and catches double destruction (R-MSG-2)

    explicit heavy(int value) : payload(text_for(value)), tag(value) {}
    int value() const noexcept { return tag.read(); }
    bool intact() const { return payload == text_for(tag.read()); }
};
static_assert(message_type<heavy>); // moves never allocate (R-MSG-4)

// ---- running one operation with the hook armed ----------------------------

// When the operation under test runs: which allocation to refuse (never: count only).
struct plan {
    long fail_at = failing_allocations::never;
    failure_mode mode = failure_mode::once;
};

// What happened while it ran.
struct attempt {
    bool threw = false; // std::bad_alloc reached the caller
    allocation_log log;
};

// Only `action` runs armed: no assertion, no bookkeeping of the test's.
template <class Action>
attempt run_armed(const plan& when, Action&& action) {
    attempt outcome;
    failing_allocations armed(when.fail_at, when.mode);
    try {
        action();
    } catch (const std::bad_alloc&) {
        outcome.threw = true;
    }
    outcome.log = armed.log();
    return outcome;
}

// ---- coroutines: parked at a gate, so the frame is allocated unarmed ----------

// The test creates the coroutine (allocating its frame) before arming, then
// runs the operation by resuming it through the gate inside the armed window.
struct start_gate {
    std::coroutine_handle<>* parked;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> caller) const noexcept { *parked = caller; }
    void await_resume() const noexcept {}
};

struct recv_outcome {
    std::optional<recv_result<heavy>> result;
    bool bad_alloc = false; // the message copy failed; rethrown at the co_await (R-MSG-3)
};

template <class P>
task<recv_outcome> receive(std::coroutine_handle<>& gate, manual_scheduler& scheduler, receiver<heavy, P>& rx,
                           std::stop_token stop) {
    co_await start_gate{&gate};
    recv_outcome outcome;
    try {
        outcome.result.emplace(co_await rx.async_recv(scheduler, std::move(stop)));
    } catch (const std::bad_alloc&) {
        outcome.bad_alloc = true;
    }
    co_return std::move(outcome); // moved: a copy would copy the message (and allocate, armed)
}

template <class P>
task<send_result<heavy>> send(std::coroutine_handle<>& gate, manual_scheduler& scheduler, const sender<heavy, P>& tx,
                              heavy message, std::stop_token stop) {
    co_await start_gate{&gate};
    co_return co_await tx.async_broadcast(scheduler, std::move(message), std::move(stop));
}

// ---- a call on a thread of its own ----------------------------------------------

// Unlike std::async's future, whose shared state (and the call's copy of its
// arguments) may outlive get() on the other thread, joining this one means
// every object the call made is destroyed, so the message counts can be read
// right after. Joined at the latest by the destructor.
template <class R>
class thread_call {
public:
    template <class Call>
    explicit thread_call(Call call)
        : thread_([this, call = std::move(call)]() mutable {
              result_.emplace(call());
              returned_.store(true);
          }) {}
    thread_call(const thread_call&) = delete;
    thread_call& operator=(const thread_call&) = delete;
    ~thread_call() {
        if (thread_.joinable()) thread_.join();
    }

    bool returned() const { return returned_.load(); }
    // Whether it returned within `limit`.
    bool wait_for(std::chrono::steady_clock::duration limit) const {
        const auto give_up = std::chrono::steady_clock::now() + limit;
        while (!returned() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
        return returned();
    }
    // Joins, then hands over the result. Once.
    R get() {
        thread_.join();
        return std::move(*result_);
    }

private:
    std::optional<R> result_;
    std::atomic<bool> returned_{false};
    std::thread thread_; // last: it starts once the rest exists
};

// ---- comparisons with the model -----------------------------------------------

void expect_message(const heavy& got, int want) {
    EXPECT_EQ(got.value(), want);
    EXPECT_TRUE(got.intact()) << "the payload of message " << want << " was damaged";
}

void expect_same(const recv_result<heavy>& got, const recv_result<int>& want) {
    ASSERT_EQ(got.has_value(), want.has_value())
        << (want.has_value() ? "the model receives " + std::to_string(*want)
                             : std::string("the model answers ") + to_string(want.error().code));
    if (want.has_value()) {
        expect_message(*got, *want);
    } else {
        EXPECT_EQ(got.error().code, want.error().code);
        EXPECT_EQ(got.error().missed, want.error().missed);
    }
}

void expect_same(const send_result<heavy>& got, const send_result<int>& want) {
    ASSERT_EQ(got.has_value(), want.has_value()) << "sent or not";
    if (want.has_value()) {
        ASSERT_EQ(got->has_value(), want->has_value()) << "evicted a message or not";
        if (want->has_value()) expect_message(**got, **want);
    } else {
        EXPECT_EQ(got.error().code, want.error().code);
        expect_message(got.error().message, want.error().message); // handed back (R-SEND-5)
    }
}

enum class send_kind {
    try_copy,  // try_broadcast(m): the argument's copy is the caller's, made before the call
    try_move,  // try_broadcast(std::move(m))
    blocking,  // broadcast(), where it need not wait
    expired,   // broadcast_for(m, 0ms)
    async_now, // co_await async_broadcast(), where it need not wait
};
enum class recv_kind {
    try_now,   // try_recv()
    blocking,  // recv(), where it need not wait
    expired,   // recv_for(0ms)
    async_now, // co_await async_recv(), where it need not wait
};

// ---- the world: a channel, its handles, its waiters, and the model -------------
//
// Every step does the same thing to the channel and to the model and compares
// the answers; the `plan` arms the hook around the channel's part only, and
// the model's part is skipped when that threw std::bad_alloc. Handles live in
// deques (a waiter points into its receiver, which must not move) and keep
// their slot when destroyed, so indices stay valid.

template <class P>
class world {
public:
    using tx_type = sender<heavy, P>;
    using rx_type = receiver<heavy, P>;
    using inactive_type = inactive_receiver<heavy, P>;
    using handle_type = detail::state_handle<detail::channel_state<heavy, P>>;

    world() = default;
    world(const world&) = delete;
    world& operator=(const world&) = delete;
    ~world() {
        if (blocked_ && any_handle()) { // a failed test: release the thread before its sender goes
            static_cast<void>(via().second.close());
            blocked_->call.reset(); // joins
        }
    }

    // -- steps: each returns what happened to its channel part ------------------

    attempt create(std::size_t capacity, plan when = {}) {
        std::optional<std::pair<tx_type, rx_type>> ends;
        const attempt outcome = run_armed(when, [&] { ends.emplace(channel<heavy, P>(capacity)); });
        if (outcome.threw) return outcome;
        model_.emplace(capacity);
        senders_.push_back({spec::model<int>::first_sender, std::move(ends->first)});
        receivers_.push_back({spec::model<int>::first_receiver, std::move(ends->second), {}});
        return outcome;
    }

    attempt send(std::size_t s, int value, send_kind kind = send_kind::try_move, plan when = {}) {
        const tx_type& tx = *senders_.at(s).handle;
        const handle_id id = senders_.at(s).id;
        if ((kind == send_kind::blocking || kind == send_kind::async_now) && model_->broadcast_would_block()) {
            ADD_FAILURE() << "this send would wait: use start_send_waiter or start_blocked_send";
            return {};
        }
        std::optional<send_result<heavy>> got;
        attempt outcome;
        heavy message(value);
        switch (kind) {
        case send_kind::try_copy: outcome = run_armed(when, [&] { got.emplace(tx.try_broadcast(message)); }); break;
        case send_kind::try_move: outcome = run_armed(when, [&] { got.emplace(tx.try_broadcast(std::move(message))); }); break;
        case send_kind::blocking: outcome = run_armed(when, [&] { got.emplace(tx.broadcast(std::move(message))); }); break;
        case send_kind::expired: outcome = run_armed(when, [&] { got.emplace(tx.broadcast_for(std::move(message), 0ms)); }); break;
        case send_kind::async_now: {
            std::stop_source stop;
            task<send_result<heavy>> sending = alloc_tests::send<P>(gate_, scheduler_, tx, std::move(message), stop.get_token());
            outcome = run_armed(when, [&] { std::exchange(gate_, {}).resume(); });
            EXPECT_TRUE(sending.done()) << "an async send that need not wait suspended";
            if (sending.done()) got.emplace(std::move(sending.result()));
            break;
        }
        }
        if (!outcome.threw) {
            const send_result<int> want = kind == send_kind::expired ? model_->broadcast_expired(id, value)
                                                                     : model_->try_broadcast(id, value);
            if (got) expect_same(*got, want);
        }
        settle();
        return outcome;
    }

    attempt recv(std::size_t r, recv_kind kind = recv_kind::try_now, plan when = {}) {
        last_answer_.reset();
        rx_slot& slot = receivers_.at(r);
        EXPECT_FALSE(slot.waiting.has_value()) << "a receiver is not used while its async receive waits (R-ASYNC-5)";
        rx_type& rx = *slot.handle;
        if ((kind == recv_kind::blocking || kind == recv_kind::async_now) && model_->recv_would_block(slot.id)) {
            ADD_FAILURE() << "this receive would wait: use start_recv_waiter";
            return {};
        }
        std::optional<recv_result<heavy>> got;
        attempt outcome;
        switch (kind) {
        case recv_kind::try_now: outcome = run_armed(when, [&] { got.emplace(rx.try_recv()); }); break;
        case recv_kind::blocking: outcome = run_armed(when, [&] { got.emplace(rx.recv()); }); break;
        case recv_kind::expired: outcome = run_armed(when, [&] { got.emplace(rx.recv_for(0ms)); }); break;
        case recv_kind::async_now: {
            std::stop_source stop; // a stop token too: registering its callback allocates nothing
            task<recv_outcome> receiving = receive<P>(gate_, scheduler_, rx, stop.get_token());
            outcome = run_armed(when, [&] { std::exchange(gate_, {}).resume(); });
            EXPECT_TRUE(receiving.done()) << "an async receive that need not wait suspended";
            if (receiving.done()) {
                recv_outcome& answer = receiving.result();
                if (answer.bad_alloc) outcome.threw = true;                     // thrown at the co_await: the caller's failure
                else if (answer.result) got.emplace(std::move(*answer.result)); // emplace: a result is not assignable
            }
            break;
        }
        }
        if (!outcome.threw) {
            const recv_result<int> want = kind == recv_kind::expired ? model_->recv_expired(slot.id) : model_->try_recv(slot.id);
            if (got) expect_same(*got, want);
            last_answer_.emplace(want);
        }
        settle();
        return outcome;
    }

    // The model's answer to the last recv() that did not throw.
    const std::optional<recv_result<int>>& last_answer() const { return last_answer_; }

    attempt copy_receiver(std::size_t r, plan when = {}) { // R-LIFE-1
        const rx_slot& from = receivers_.at(r);
        EXPECT_FALSE(from.waiting.has_value()) << "R-ASYNC-5";
        return made_from(receivers_, from, when, std::identity{}, &spec::model<int>::clone_receiver);
    }

    attempt assign_receiver(std::size_t to, std::size_t from, plan when = {}) { // R-HANDLE-2
        rx_slot& target = receivers_.at(to);
        const rx_slot& source = receivers_.at(from);
        const attempt outcome = run_armed(when, [&] { *target.handle = *source.handle; });
        if (!outcome.threw) {
            const handle_id copy = model_->clone_receiver(source.id); // the copy is made, then the old one released
            model_->drop_receiver(target.id);
            target.id = copy;
        }
        settle();
        return outcome;
    }

    attempt new_receiver_of_sender(std::size_t s, plan when = {}) { // R-LIFE-2
        return made_from(receivers_, senders_.at(s), when, new_receiver_of, &spec::model<int>::new_receiver);
    }

    attempt new_receiver_of_receiver(std::size_t r, plan when = {}) { // R-LIFE-2
        return made_from(receivers_, receivers_.at(r), when, new_receiver_of, &spec::model<int>::new_receiver);
    }

    attempt new_sender_of_receiver(std::size_t r, plan when = {}) {
        return made_from(senders_, receivers_.at(r), when, new_sender_of, &spec::model<int>::new_sender);
    }

    attempt copy_sender(std::size_t s, plan when = {}) {
        return made_from(senders_, senders_.at(s), when, std::identity{}, &spec::model<int>::clone_sender);
    }

    attempt copy_inactive(std::size_t i, plan when = {}) {
        return made_from(inactives_, inactives_.at(i), when, std::identity{}, &spec::model<int>::clone_inactive);
    }

    attempt deactivate(std::size_t r, plan when = {}) { // R-LIFE-4
        return made_from<source::moved_from>(inactives_, receivers_.at(r), when, deactivated, &spec::model<int>::deactivate);
    }

    attempt activate(std::size_t i, plan when = {}) { // R-LIFE-5
        return made_from<source::moved_from>(receivers_, inactives_.at(i), when, activated, &spec::model<int>::activate);
    }

    attempt activate_cloned(std::size_t i, plan when = {}) {
        return made_from(receivers_, inactives_.at(i), when, activated_clone_of, &spec::model<int>::activate_cloned);
    }

    attempt drop_receiver(std::size_t r, plan when = {}) { // R-LIFE-3
        rx_slot& slot = receivers_.at(r);
        EXPECT_FALSE(slot.waiting.has_value()) << "R-ASYNC-5";
        const attempt outcome = run_armed(when, [&] { slot.handle.reset(); });
        if (!outcome.threw) model_->drop_receiver(slot.id);
        settle();
        return outcome;
    }

    attempt set_capacity(std::size_t capacity, plan when = {}) {
        bool refused = false; // std::invalid_argument for 0 (R-CAP-2)
        const auto [id, handle] = via();
        const attempt outcome = run_armed(when, [&, &handle = handle] {
            try {
                handle.set_capacity(capacity);
            } catch (const std::invalid_argument&) {
                refused = true;
            }
        });
        if (!outcome.threw) {
            if (refused) EXPECT_THROW(model_->set_capacity(id, capacity), std::invalid_argument);
            else model_->set_capacity(id, capacity);
        }
        settle();
        return outcome;
    }

    attempt set_overflow(bool enabled, plan when = {}) {
        const auto [id, handle] = via();
        const attempt outcome = run_armed(when, [&, &handle = handle] { handle.set_overflow(enabled); });
        if (!outcome.threw) model_->set_overflow(id, enabled);
        settle();
        return outcome;
    }

    attempt close(plan when = {}) {
        const auto [id, handle] = via();
        bool closed_now = false;
        const attempt outcome = run_armed(when, [&, &handle = handle] { closed_now = handle.close(); });
        if (!outcome.threw) {
            EXPECT_EQ(closed_now, model_->close(id));
        }
        settle();
        return outcome;
    }

    // An async receive that must wait (the model says so); it stays pending.
    attempt start_recv_waiter(std::size_t r, plan when = {}) {
        rx_slot& slot = receivers_.at(r);
        if (!model_->recv_would_block(slot.id)) {
            ADD_FAILURE() << "this receive would not wait: use recv(r, recv_kind::async_now)";
            return {};
        }
        slot.waiting.emplace(); // its stop_source allocates here, unarmed
        slot.waiting->coroutine.emplace(receive<P>(gate_, scheduler_, *slot.handle, slot.waiting->stop.get_token()));
        attempt outcome = run_armed(when, [&] { std::exchange(gate_, {}).resume(); });
        if (slot.waiting->coroutine->done() && slot.waiting->coroutine->result().bad_alloc) {
            outcome.threw = true; // cannot happen (no message to copy), but would be the caller's failure
            slot.waiting.reset();
        }
        settle();
        return outcome;
    }

    // An async send that must wait; it stays pending.
    attempt start_send_waiter(std::size_t s, int value, plan when = {}) {
        if (!model_->broadcast_would_block()) {
            ADD_FAILURE() << "this send would not wait: use send(s, v, send_kind::async_now)";
            return {};
        }
        send_wait& waiting = send_waits_.emplace_back();
        waiting.sender = s;
        waiting.value = value;
        waiting.coroutine.emplace(alloc_tests::send<P>(gate_, scheduler_, *senders_.at(s).handle, heavy(value), waiting.stop.get_token()));
        const attempt outcome = run_armed(when, [&] { std::exchange(gate_, {}).resume(); });
        settle();
        return outcome;
    }

    // Cancels the pending async receive of receiver r (R-ASYNC-4): nothing consumed.
    attempt cancel_recv_waiter(std::size_t r, plan when = {}) {
        rx_slot& slot = receivers_.at(r);
        const attempt outcome = run_armed(when, [&] { slot.waiting->stop.request_stop(); });
        scheduler_.resume_all();
        EXPECT_TRUE(slot.waiting->coroutine->done());
        if (slot.waiting->coroutine->done()) {
            expect_same(*slot.waiting->coroutine->result().result, recv_result<int>(error_tag, recv_error{recv_errc::cancelled, 0}));
            slot.waiting.reset();
        }
        settle();
        return outcome;
    }

    // Cancels the oldest pending async send: its message comes back (R-ASYNC-4, R-SEND-5).
    attempt cancel_send_waiter(plan when = {}) {
        send_wait& waiting = send_waits_.front();
        const attempt outcome = run_armed(when, [&] { waiting.stop.request_stop(); });
        scheduler_.resume_all();
        EXPECT_TRUE(waiting.coroutine->done());
        if (waiting.coroutine->done()) {
            expect_same(waiting.coroutine->result(), send_result<int>(error_tag, send_error<int>{send_errc::cancelled, waiting.value}));
            send_waits_.pop_front();
        }
        settle();
        return outcome;
    }

    // A thread blocked in broadcast (its allocations are not the test thread's).
    void start_blocked_send(std::size_t s, int value) {
        ASSERT_TRUE(model_->broadcast_would_block());
        const tx_type& tx = *senders_.at(s).handle;
        blocked_.emplace();
        blocked_->sender = s;
        blocked_->value = value;
        blocked_->call.emplace([&tx, message = heavy(value)]() mutable { return tx.broadcast(std::move(message)); });
        expect_still_blocked();
    }

    // -- checks ------------------------------------------------------------------

    // Every query of every handle equals the model's (R-QUERY-1).
    void check() const {
        if (!model_) {
            EXPECT_FALSE(any_handle());
            return;
        }
        auto same_queries = [this](const handle_type& handle, handle_id id) {
            EXPECT_EQ(handle.capacity(), model_->capacity(id));
            EXPECT_EQ(handle.len(), model_->len(id));
            EXPECT_EQ(handle.is_empty(), model_->is_empty(id));
            EXPECT_EQ(handle.is_full(), model_->is_full(id));
            EXPECT_EQ(handle.is_closed(), model_->is_closed(id));
            EXPECT_EQ(handle.overflow(), model_->overflow(id));
            EXPECT_EQ(handle.await_active(), model_->await_active(id));
            EXPECT_EQ(handle.receiver_count(), model_->receiver_count(id));
            EXPECT_EQ(handle.inactive_receiver_count(), model_->inactive_receiver_count(id));
            EXPECT_EQ(handle.sender_count(), model_->sender_count(id));
        };
        for (const tx_slot& slot : senders_) {
            if (slot.handle) same_queries(*slot.handle, slot.id);
        }
        for (const rx_slot& slot : receivers_) {
            if (!slot.handle || slot.waiting) continue; // R-ASYNC-5: a waiting one is left alone
            same_queries(*slot.handle, slot.id);
            // Its position, without receiving anything (R-QUERY-2).
            EXPECT_EQ(slot.handle->unread(), model_->unread(slot.id));
            EXPECT_EQ(slot.handle->missed(), model_->missed(slot.id));
        }
        for (const inactive_slot& slot : inactives_) {
            if (slot.handle) same_queries(*slot.handle, slot.id);
        }
        if (any_handle()) {
            EXPECT_EQ(state().waiting_receivers(), 0u); // no thread of this world receives
        }
    }

    // Everything every receiver still has, in order; then close, and the rest.
    // Pending waiters are answered on the way, as the model says.
    void drain() {
        if (!model_ || !any_handle()) return;
        check();
        const bool receive_waits = std::any_of(receivers_.begin(), receivers_.end(), [](const rx_slot& slot) { return slot.waiting.has_value(); });
        if (receive_waits && sender_index() && !model_->broadcast_would_block()) {
            send(*sender_index(), 900); // the waiting receives get a message, not only `closed`
        }
        for (std::size_t r = 0; r < receivers_.size(); ++r) drain_receiver(r);
        close(); // R-CLOSE-6: every waiter left is answered
        for (std::size_t r = 0; r < receivers_.size(); ++r) drain_receiver(r);
        check();
        EXPECT_TRUE(send_waits_.empty() && !blocked_);
        EXPECT_EQ(via().second.len(), 0u);
    }

    // -- access for the tests that drive threads themselves -----------------------

    rx_type& receiver_handle(std::size_t r) { return *receivers_.at(r).handle; }
    const tx_type& sender_handle(std::size_t s) const { return *senders_.at(s).handle; }
    handle_id receiver_id(std::size_t r) const { return receivers_.at(r).id; }
    spec::model<int>& model() { return *model_; }
    const detail::channel_state<heavy, P>& state() const { return detail::handle_access::state_of(via().second); }

private:
    struct tx_slot {
        handle_id id = 0;
        std::optional<tx_type> handle; // empty once destroyed
    };
    struct recv_wait {
        std::stop_source stop;
        std::optional<task<recv_outcome>> coroutine;
    };
    struct rx_slot {
        handle_id id = 0;
        std::optional<rx_type> handle;
        std::optional<recv_wait> waiting; // after `handle`: destroyed before it (R-ASYNC-5)
    };
    struct inactive_slot {
        handle_id id = 0;
        std::optional<inactive_type> handle;
    };
    struct send_wait {
        std::size_t sender = 0;
        int value = 0;
        std::stop_source stop;
        std::optional<task<send_result<heavy>>> coroutine;
    };
    struct blocked_send {
        std::size_t sender = 0;
        int value = 0;
        std::optional<thread_call<send_result<heavy>>> call;
    };

    // What making a new handle leaves in the slot it was made from.
    enum class source {
        kept,       // a copy, or a new handle of the same channel
        moved_from, // activate() and deactivate() consume it: the slot is emptied
    };
    // How new handles are made from others (std::identity: a copy).
    static constexpr auto new_receiver_of = [](const auto& handle) { return handle.new_receiver(); };
    static constexpr auto new_sender_of = [](const rx_type& rx) { return rx.new_sender(); };
    static constexpr auto deactivated = [](rx_type& rx) { return std::move(rx).deactivate(); };
    static constexpr auto activated = [](inactive_type& inactive) { return std::move(inactive).activate(); };
    static constexpr auto activated_clone_of = [](const inactive_type& inactive) { return inactive.activate_cloned(); };

    // A new handle, made from the one in slot `from` by `make`, armed, into a new
    // slot at the end of `slots`; the model makes its own with `model_step` from
    // `from`'s id. Nothing changes when `make` throws.
    template <source left = source::kept, class Slots, class From, class Make>
    attempt made_from(Slots& slots, From& from, plan when, Make make, handle_id (spec::model<int>::*model_step)(handle_id)) {
        auto& fresh = slots.emplace_back(); // the deque's own allocation is the test's, unarmed; `from` stays put
        const attempt outcome = run_armed(when, [&] { fresh.handle.emplace(make(*from.handle)); });
        if (outcome.threw) {
            EXPECT_FALSE(fresh.handle.has_value());
            slots.pop_back();
        } else {
            if constexpr (left == source::moved_from) from.handle.reset();
            fresh.id = ((*model_).*model_step)(from.id);
        }
        settle();
        return outcome;
    }

    bool any_handle() const {
        auto live = [](const auto& slot) { return slot.handle.has_value(); };
        return std::any_of(senders_.begin(), senders_.end(), live) || std::any_of(inactives_.begin(), inactives_.end(), live) ||
               std::any_of(receivers_.begin(), receivers_.end(), live);
    }

    std::optional<std::size_t> sender_index() const {
        for (std::size_t s = 0; s < senders_.size(); ++s) {
            if (senders_[s].handle) return s;
        }
        return std::nullopt;
    }

    // Some live handle for the channel-wide calls: a sender if any, and never a
    // receiver whose async receive waits (R-ASYNC-5).
    std::pair<handle_id, const handle_type&> via() const {
        for (const tx_slot& slot : senders_) {
            if (slot.handle) return {slot.id, *slot.handle};
        }
        for (const inactive_slot& slot : inactives_) {
            if (slot.handle) return {slot.id, *slot.handle};
        }
        for (const rx_slot& slot : receivers_) {
            if (slot.handle && !slot.waiting) return {slot.id, *slot.handle};
        }
        for (const rx_slot& slot : receivers_) {
            if (slot.handle) return {slot.id, *slot.handle}; // only queries: they take the lock, never the position
        }
        throw std::logic_error("alloc_failure_tests: the world has no handle left");
    }

    void drain_receiver(std::size_t r) {
        for (int step = 0; step < 100; ++step) {
            if (!receivers_.at(r).handle || receivers_.at(r).waiting) return;
            recv(r);
            const auto& answer = last_answer_;
            if (!answer || (!answer->has_value() && (answer->error().code == recv_errc::empty || answer->error().code == recv_errc::closed))) return;
        }
        ADD_FAILURE() << "receiver " << r << " never ran dry";
    }

    // After every step: the waiters the model would complete now are complete,
    // with the model's answers; the others still wait.
    void settle() {
        if (!model_) return;
        scheduler_.resume_all(); // completed coroutines run to their end here, unarmed
        for (bool changed = true; changed;) {
            changed = false;
            while (!send_waits_.empty() && !model_->broadcast_would_block()) { // FIFO, as the channel serves them
                send_wait& waiting = send_waits_.front();
                const send_result<int> want = model_->try_broadcast(senders_.at(waiting.sender).id, waiting.value);
                if (waiting.coroutine->done()) expect_same(waiting.coroutine->result(), want);
                else ADD_FAILURE() << "an async send of " << waiting.value << " that the model completes still waits";
                send_waits_.pop_front();
                changed = true;
            }
            if (blocked_ && !model_->broadcast_would_block()) {
                const send_result<int> want = model_->try_broadcast(senders_.at(blocked_->sender).id, blocked_->value);
                if (blocked_->call->wait_for(10s)) {
                    expect_same(blocked_->call->get(), want);
                } else {
                    ADD_FAILURE() << "a blocked broadcast that the model completes still waits";
                    static_cast<void>(via().second.close()); // release it, so the test ends
                }
                blocked_.reset();
                changed = true;
            }
            for (rx_slot& slot : receivers_) {
                if (!slot.waiting || model_->recv_would_block(slot.id)) continue;
                task<recv_outcome>& coroutine = *slot.waiting->coroutine;
                if (!coroutine.done()) {
                    ADD_FAILURE() << "an async receive that the model answers still waits";
                } else if (coroutine.result().bad_alloc) {
                    // Its copy failed inside another caller's critical section:
                    // it got the bad_alloc, nothing was consumed (R-MSG-3), so
                    // the model receives nothing.
                } else {
                    expect_same(*coroutine.result().result, model_->try_recv(slot.id));
                }
                slot.waiting.reset();
                changed = true;
            }
        }
        for (const send_wait& waiting : send_waits_) {
            EXPECT_FALSE(waiting.coroutine->done()) << "an async send that the model makes wait completed";
        }
        for (const rx_slot& slot : receivers_) {
            if (slot.waiting) {
                EXPECT_FALSE(slot.waiting->coroutine->done()) << "an async receive that the model makes wait completed";
            }
        }
        if (blocked_) expect_still_blocked();
    }

    // The blocked thread is inside its wait (a spurious or unneeded wakeup may
    // take it out for a moment, so this waits for it to be back) and has not returned.
    void expect_still_blocked() const {
        const auto give_up = std::chrono::steady_clock::now() + 10s;
        while (state().waiting_senders() != 1 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
        EXPECT_EQ(state().waiting_senders(), 1u) << "the blocked broadcast is not waiting";
        EXPECT_FALSE(blocked_->call->returned()) << "the blocked broadcast returned";
    }

    // Destroyed last to first: the waiters before the handles they borrow (R-ASYNC-5).
    manual_scheduler scheduler_; // outlives every coroutine it may hold
    std::optional<spec::model<int>> model_;
    std::deque<tx_slot> senders_;
    std::deque<rx_slot> receivers_;
    std::deque<inactive_slot> inactives_;
    std::deque<send_wait> send_waits_; // oldest first, as the channel serves them
    std::optional<blocked_send> blocked_;
    std::optional<recv_result<int>> last_answer_;
    std::coroutine_handle<> gate_; // the coroutine parked at its start_gate
};

// ---- the loop over N -------------------------------------------------------------

template <class P>
using setup_fn = std::function<void(world<P>&)>;
template <class P>
using operation_fn = std::function<attempt(world<P>&, plan)>;

// Runs `operation` on a fresh `setup` world once per N and mode, checking
// everything after each; returns the allocations it makes when none fails
// (-1 after a failure, which the test reports).
template <class P>
long allocations_failing_each(const setup_fn<P>& setup, const operation_fn<P>& operation) {
    long made = -1;
    for (const failure_mode mode : {failure_mode::once, failure_mode::from_then_on}) {
        for (long n = 0;; ++n) {
            SCOPED_TRACE(std::string(mode == failure_mode::once ? "only allocation " : "every allocation from ") +
                         std::to_string(n) + " refused");
            instrumented_message::reset();
            attempt outcome;
            {
                world<P> w;
                setup(w);
                if (::testing::Test::HasFailure()) return -1; // the setup itself disagrees with the model
                w.check();
                const long live_before = instrumented_message::live.load();
                outcome = operation(w, plan{n, mode});
                if (outcome.threw) {
                    EXPECT_TRUE(outcome.log.fired) << "std::bad_alloc although no allocation was refused";
                    EXPECT_EQ(outcome.log.allocations, outcome.log.deallocations) << "the failed operation leaked memory";
                    EXPECT_EQ(instrumented_message::live.load(), live_before) << "the failed operation created or destroyed a message";
                }
                w.check();
                w.drain();
            }
            EXPECT_EQ(instrumented_message::live.load(), 0) << "a message object was never destroyed (R-MSG-2)";
            EXPECT_EQ(instrumented_message::errors.load(), 0) << "a message object was destroyed twice or used when dead";
            if (::testing::Test::HasFailure()) return -1;
            if (!outcome.log.fired) {
                if (made >= 0) {
                    EXPECT_EQ(n, made) << "the two modes disagree on the number of allocations";
                }
                made = n;
                break;
            }
            if (n == 32) {
                ADD_FAILURE() << "the operation still allocates after 32 allocations";
                return -1;
            }
        }
    }
    return made;
}

template <class P>
class alloc_failure : public ::testing::Test {
protected:
    // `expected`: the allocations the operation makes when none fails; -1 where
    // it depends on the standard library (only reported).
    static void expect_allocations(long expected, const setup_fn<P>& setup, const operation_fn<P>& operation) {
        const long made = allocations_failing_each<P>(setup, operation);
        if (HasFailure()) return;
        if (expected >= 0) {
            EXPECT_EQ(made, expected) << "allocations the operation makes when none fails";
        }
        RecordProperty("allocations", static_cast<int>(made));
        std::printf("allocations made when none fails: %ld\n", made);
    }
};

TYPED_TEST_SUITE(alloc_failure, impl_tests::position_policies, impl_tests::position_policy_name);

// ---- starting states -------------------------------------------------------------

// Nothing yet: for channel().
template <class P>
void nothing(world<P>&) {}

// A new channel of capacity 2.
template <class P>
void fresh(world<P>& w) { w.create(2); }

// Every kind of handle and an overflowing queue that is rotated in its ring
// (its oldest message is not in slot 0, so growing must move the messages in
// order), partly read, and lagged behind: capacity 3, overflow on, queue
// [5 6 7]; receiver 0 wants 5, 6 and 7 (5 is a copy: others want it too);
// receiver 1, a copy made before any send, lost 4 and then wants all three;
// receiver 2, new at the tail when 5 was the last message sent, wants 6 and 7;
// receiver 3 became inactive receiver 0; senders 0 and 1.
template <class P>
void busy(world<P>& w) {
    w.create(3);
    w.copy_receiver(0);
    w.set_overflow(true);
    for (int v = 1; v <= 5; ++v) w.send(0, v); // 1 and 2 evicted
    w.recv(0);                                 // overflowed(2)
    w.recv(0);                                 // 3, a copy: receiver 1 still wants it
    w.new_receiver_of_sender(0);
    w.send(0, 6); // evicts 3
    w.send(0, 7); // evicts 4, which receiver 0 had not read: the oldest is now in slot 1
    w.recv(0);    // overflowed(1)
    w.copy_receiver(0);
    w.deactivate(3);
    w.copy_sender(0);
}

// A new channel of capacity 2 and two receivers: receiver 1 is a copy of receiver 0.
template <class P>
void two_receivers(world<P>& w) {
    fresh(w);
    w.copy_receiver(0);
}

// Two receivers, both waiting in an async receive on an empty channel.
template <class P>
void two_receives_wait(world<P>& w) {
    two_receivers(w);
    w.start_recv_waiter(0);
    w.start_recv_waiter(1);
}

// Two receivers, the channel full of 1 and 2; receiver 0 read 1.
template <class P>
void full_and_read_once(world<P>& w) {
    two_receivers(w);
    w.send(0, 1);
    w.send(0, 2);
    w.recv(0);
}

// Capacity 2, full of 1 and 2, which only receiver 1 has still to read:
// receiver 0 read both and waits in an async receive, and an async send of 3
// waits for room. Whatever frees a slot sends 3, and receiver 0's copy of it
// (receiver 1 wants it too) then allocates inside that caller's critical section.
template <class P>
void full_with_waiters(world<P>& w) {
    full_and_read_once(w);
    w.recv(0);
    w.start_recv_waiter(0);
    w.start_send_waiter(0, 3);
}

// Capacity 2, full of 1 and 2; receiver 0 read 1; a thread is blocked
// broadcasting 3.
template <class P>
void full_with_blocked_thread(world<P>& w) {
    full_and_read_once(w);
    w.start_blocked_send(0, 3);
}

// Only an inactive receiver; an async send of 1 waits for an active one (R-ACT-2).
template <class P>
void send_waits_for_a_receiver(world<P>& w) {
    w.create(2);
    w.deactivate(0);
    w.start_send_waiter(0, 1);
}

// One operation on one starting state, a test of its own: `allocations` is what
// the operation allocates when none fails (-1: the standard library's business,
// only reported), `setup` a starting state above, and `step` the world's step
// that runs armed, written on the world `w` and the plan `p`.
#define BCAST_ALLOC_TEST(name, allocations, setup, step) \
    TYPED_TEST(alloc_failure, name) { \
        this->expect_allocations(allocations, setup<TypeParam>, [](auto& w, plan p) { return step; }); \
    }

// ---- creating a channel: the state, then its slots ------------------------------

BCAST_ALLOC_TEST(channel_of_capacity_1, 2, nothing, w.create(1, p)) // R-EXC-1, R-CAP-1
BCAST_ALLOC_TEST(channel_of_capacity_3, 2, nothing, w.create(3, p)) // R-EXC-1, R-CAP-1, R-IMPL-3: all slots at once

// channel(0) fails either way; whichever exception, nothing is left behind.
TYPED_TEST(alloc_failure, channel_of_capacity_0_leaks_nothing_whatever_fails) { // R-EXC-1, R-CAP-1
    for (const failure_mode mode : {failure_mode::once, failure_mode::from_then_on}) {
        for (long n = 0;; ++n) {
            SCOPED_TRACE("allocation " + std::to_string(n) + " refused");
            bool invalid = false;
            const attempt outcome = run_armed(plan{n, mode}, [&] {
                try {
                    static_cast<void>(channel<heavy, TypeParam>(0));
                } catch (const std::invalid_argument&) {
                    invalid = true; // its what() string allocates too: refused, it is bad_alloc instead
                }
            });
            EXPECT_NE(invalid, outcome.threw);
            EXPECT_EQ(outcome.log.allocations, outcome.log.deallocations);
            if (!outcome.log.fired || this->HasFailure()) {
                EXPECT_TRUE(invalid);
                std::printf("allocations made when none fails: %ld\n", n);
                break;
            }
        }
    }
}

// ---- set_capacity: growth allocates the new ring, nothing else does ------------

BCAST_ALLOC_TEST(set_capacity_growing_a_new_channel, 1, fresh, w.set_capacity(5, p))          // R-EXC-1, R-CAP-2
BCAST_ALLOC_TEST(set_capacity_growing_a_rotated_lagging_queue, 1, busy, w.set_capacity(7, p)) // R-EXC-1, R-CAP-2, R-OVF-2
// The ring, then receiver 0's copy of 3 for its async receive, after the
// growth let the async send in; that copy's failure goes to the receive.
BCAST_ALLOC_TEST(set_capacity_growth_that_completes_waiters, 2, full_with_waiters, w.set_capacity(4, p))          // R-EXC-1, R-CAP-4, R-MSG-3
BCAST_ALLOC_TEST(set_capacity_growth_with_a_blocked_broadcast, 1, full_with_blocked_thread, w.set_capacity(3, p)) // R-EXC-1, R-CAP-4
BCAST_ALLOC_TEST(set_capacity_shrinking, 0, busy, w.set_capacity(1, p))                                           // R-EXC-1, R-CAP-3
TYPED_TEST(alloc_failure, set_capacity_growing_back_within_its_slots) {                                           // R-EXC-1, R-IMPL-3
    this->expect_allocations(
        0, [](auto& w) { busy(w); w.set_capacity(1); }, [](auto& w, plan p) { return w.set_capacity(3, p); });
}
// std::invalid_argument, or std::bad_alloc while making its message; either way nothing changes.
BCAST_ALLOC_TEST(set_capacity_zero, -1, busy, w.set_capacity(0, p)) // R-EXC-1, R-CAP-2

// A capacity no memory holds: std::bad_alloc (or its std::bad_array_new_length)
// without the hook, and again nothing changed.
TYPED_TEST(alloc_failure, capacity_beyond_memory) { // R-EXC-1
    constexpr std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
    instrumented_message::reset();
    {
        world<TypeParam> w;
        const attempt created = w.create(huge);
        EXPECT_TRUE(created.threw);
        EXPECT_EQ(created.log.allocations, created.log.deallocations) << "channel() leaked its state";
        busy(w);
        const attempt grown = w.set_capacity(huge);
        EXPECT_TRUE(grown.threw);
        EXPECT_EQ(grown.log.allocations, grown.log.deallocations);
        w.check();
        w.drain();
    }
    EXPECT_EQ(instrumented_message::live.load(), 0);
    EXPECT_EQ(instrumented_message::errors.load(), 0);
}

// ---- settings and close that complete waiters ------------------------------------

// Overflow lets the async send evict 1 and send 3; receiver 0's copy of 3 allocates.
BCAST_ALLOC_TEST(set_overflow_that_completes_waiters, 1, full_with_waiters, w.set_overflow(true, p)) // R-EXC-1, R-OVF-4, R-MSG-3
BCAST_ALLOC_TEST(close_with_waiters, 0, full_with_waiters, w.close(p))                               // R-EXC-1, R-CLOSE-6

// ---- receiving: a copy for every reader but the last ------------------------------

BCAST_ALLOC_TEST(try_recv_copy, 1, busy, w.recv(0, recv_kind::try_now, p))                                          // R-EXC-1, R-MSG-3, R-RECV-3
BCAST_ALLOC_TEST(recv_copy, 1, busy, w.recv(0, recv_kind::blocking, p))                                             // R-EXC-1, R-MSG-3
BCAST_ALLOC_TEST(recv_for_copy, 1, busy, w.recv(0, recv_kind::expired, p))                                          // R-EXC-1, R-MSG-3, R-RECV-5
BCAST_ALLOC_TEST(async_recv_copy_at_once, 1, busy, w.recv(0, recv_kind::async_now, p))                              // R-EXC-1, R-MSG-3, R-ASYNC-1
BCAST_ALLOC_TEST(try_recv_of_a_lagging_receiver_reports_without_copying, 0, busy, w.recv(1, recv_kind::try_now, p)) // R-EXC-1, R-OVF-2
TYPED_TEST(alloc_failure, try_recv_by_the_last_reader_moves) {                                                      // R-EXC-1, R-RECV-3, R-IMPL-3
    this->expect_allocations(
        0, [](auto& w) { fresh(w); w.send(0, 1); }, [](auto& w, plan p) { return w.recv(0, recv_kind::try_now, p); });
}
// Receiver 1 takes 1 (the last reader: a move), which lets the async send in;
// receiver 0's copy of 3 allocates inside this try_recv's critical section.
BCAST_ALLOC_TEST(try_recv_that_completes_waiters, 1, full_with_waiters, w.recv(1, recv_kind::try_now, p))                           // R-EXC-1, R-ASYNC-3, R-MSG-3
BCAST_ALLOC_TEST(try_recv_that_frees_a_slot_for_a_blocked_broadcast, 0, full_with_blocked_thread, w.recv(1, recv_kind::try_now, p)) // R-EXC-1, R-SEND-3
BCAST_ALLOC_TEST(try_recv_copy_with_a_blocked_broadcast, 1, full_with_blocked_thread, w.recv(0, recv_kind::try_now, p))             // R-EXC-1, R-MSG-3

// ---- handles: none allocates --------------------------------------------------------

BCAST_ALLOC_TEST(receiver_copy_of_a_lagging_receiver, 0, busy, w.copy_receiver(1, p))                   // R-EXC-1, R-LIFE-1
BCAST_ALLOC_TEST(receiver_copy_with_unread_messages, 0, busy, w.copy_receiver(0, p))                    // R-EXC-1, R-LIFE-1
BCAST_ALLOC_TEST(receiver_copy_assignment, 0, busy, w.assign_receiver(2, 1, p))                         // R-EXC-1, R-HANDLE-2
BCAST_ALLOC_TEST(sender_new_receiver, 0, busy, w.new_receiver_of_sender(1, p))                          // R-EXC-1, R-LIFE-2
BCAST_ALLOC_TEST(receiver_new_receiver, 0, busy, w.new_receiver_of_receiver(1, p))                      // R-EXC-1, R-LIFE-2
BCAST_ALLOC_TEST(receiver_new_sender, 0, busy, w.new_sender_of_receiver(0, p))                          // R-EXC-1
BCAST_ALLOC_TEST(sender_copy, 0, busy, w.copy_sender(1, p))                                             // R-EXC-1, R-HANDLE-2
BCAST_ALLOC_TEST(inactive_receiver_copy, 0, busy, w.copy_inactive(0, p))                                // R-EXC-1, R-HANDLE-2
BCAST_ALLOC_TEST(activate, 0, busy, w.activate(0, p))                                                   // R-EXC-1, R-LIFE-5
BCAST_ALLOC_TEST(activate_cloned, 0, busy, w.activate_cloned(0, p))                                     // R-EXC-1, R-LIFE-5
BCAST_ALLOC_TEST(activate_that_completes_an_async_send, 0, send_waits_for_a_receiver, w.activate(0, p)) // R-EXC-1, R-LIFE-6
BCAST_ALLOC_TEST(deactivate_a_lagging_receiver, 0, busy, w.deactivate(1, p))                            // R-EXC-1, R-LIFE-4
// Receiver 1 gives up 1 and 2; the async send of 3 goes in, and receiver 0,
// now its only reader, takes it by move.
BCAST_ALLOC_TEST(deactivate_that_completes_waiters, 0, full_with_waiters, w.deactivate(1, p)) // R-EXC-1, R-LIFE-3
BCAST_ALLOC_TEST(receiver_destruction, 0, busy, w.drop_receiver(2, p))                        // R-EXC-1, R-LIFE-3

// ---- sending: the copy into the argument is the caller's; the channel moves ----

BCAST_ALLOC_TEST(try_broadcast_of_a_copy, 1, busy, w.send(0, 7, send_kind::try_copy, p))       // R-EXC-1: the argument's copy fails before the channel is touched
BCAST_ALLOC_TEST(try_broadcast_moved_in, 0, busy, w.send(0, 7, send_kind::try_move, p))        // R-EXC-1, R-IMPL-3
BCAST_ALLOC_TEST(broadcast_that_need_not_wait, 0, fresh, w.send(0, 7, send_kind::blocking, p)) // R-EXC-1, R-IMPL-3
BCAST_ALLOC_TEST(broadcast_for_zero, 0, busy, w.send(0, 7, send_kind::expired, p))             // R-EXC-1, R-SEND-4
BCAST_ALLOC_TEST(async_broadcast_at_once, 0, fresh, w.send(0, 7, send_kind::async_now, p))     // R-EXC-1, R-ASYNC-2
// The first waiting receive gets a copy (allocated in this call's critical
// section), the second, the last reader, the message itself.
BCAST_ALLOC_TEST(try_broadcast_into_two_waiting_receives, 1, two_receives_wait, w.send(0, 7, send_kind::try_move, p))           // R-EXC-1, R-MSG-3, R-ASYNC-3
BCAST_ALLOC_TEST(try_broadcast_of_a_copy_into_two_waiting_receives, 2, two_receives_wait, w.send(0, 7, send_kind::try_copy, p)) // R-EXC-1, R-MSG-3

// ---- waiting: queueing a waiter allocates nothing (R-ASYNC-2) -------------------

BCAST_ALLOC_TEST(async_recv_that_waits, 0, fresh, w.start_recv_waiter(0, p)) // R-EXC-1, R-ASYNC-2
TYPED_TEST(alloc_failure, async_broadcast_that_waits) {                      // R-EXC-1, R-ASYNC-2
    this->expect_allocations(
        0, [](auto& w) { fresh(w); w.send(0, 1); w.send(0, 2); },
        [](auto& w, plan p) { return w.start_send_waiter(0, 3, p); });
}
BCAST_ALLOC_TEST(cancelling_an_async_recv, 0, full_with_waiters, w.cancel_recv_waiter(0, p))   // R-EXC-1, R-ASYNC-4
BCAST_ALLOC_TEST(cancelling_an_async_broadcast, 0, full_with_waiters, w.cancel_send_waiter(p)) // R-EXC-1, R-ASYNC-4

// A thread blocked in recv() (or recv_for) arms the hook itself: waiting
// allocates nothing, and when a message comes its copy is the only
// allocation; refused, recv() throws and the message stays (R-MSG-3).
TYPED_TEST(alloc_failure, blocked_recv_woken_by_a_message) { // R-EXC-1, R-MSG-3, R-RECV-4
    for (const bool timed : {false, true}) {
        for (const failure_mode mode : {failure_mode::once, failure_mode::from_then_on}) {
            for (long n = 0;; ++n) {
                SCOPED_TRACE(std::string(timed ? "recv_for" : "recv") + ", allocation " + std::to_string(n) + " refused");
                instrumented_message::reset();
                attempt outcome;
                {
                    world<TypeParam> w;
                    w.create(2);
                    w.copy_receiver(0); // receiver 1 wants the message too: receiver 0 copies it
                    auto& rx = w.receiver_handle(0);
                    using answer = std::pair<attempt, std::optional<recv_result<heavy>>>;
                    thread_call<answer> receiving([&rx, n, mode, timed] {
                        std::optional<recv_result<heavy>> got;
                        const attempt armed = run_armed(plan{n, mode}, [&] { got.emplace(timed ? rx.recv_for(1h) : rx.recv()); });
                        return answer(armed, std::move(got));
                    });
                    while (w.state().waiting_receivers() != 1) std::this_thread::yield();
                    w.send(0, 1);
                    auto [armed, got] = receiving.get();
                    outcome = armed;
                    if (!outcome.threw) {
                        ASSERT_TRUE(got.has_value());
                        expect_same(*got, w.model().try_recv(w.receiver_id(0)));
                    } else {
                        EXPECT_EQ(outcome.log.allocations, outcome.log.deallocations);
                    }
                    w.check();
                    w.drain();
                }
                EXPECT_EQ(instrumented_message::live.load(), 0);
                EXPECT_EQ(instrumented_message::errors.load(), 0);
                if (this->HasFailure()) return;
                if (!outcome.log.fired) {
                    EXPECT_EQ(n, 1) << "a blocked recv allocates only the copy";
                    break;
                }
            }
        }
    }
}

// A thread blocked in broadcast() allocates nothing, waiting or sending.
TYPED_TEST(alloc_failure, blocked_broadcast_allocates_nothing) { // R-EXC-1, R-SEND-3, R-IMPL-3
    for (const failure_mode mode : {failure_mode::once, failure_mode::from_then_on}) {
        instrumented_message::reset();
        {
            world<TypeParam> w;
            w.create(1);
            w.send(0, 1);
            const auto& tx = w.sender_handle(0);
            using answer = std::pair<attempt, std::optional<send_result<heavy>>>;
            thread_call<answer> sending([&tx, mode] {
                std::optional<send_result<heavy>> got;
                heavy message(2);
                const attempt armed = run_armed(plan{0, mode}, [&] { got.emplace(tx.broadcast(std::move(message))); });
                return answer(armed, std::move(got));
            });
            while (w.state().waiting_senders() != 1) std::this_thread::yield();
            w.recv(0); // frees the slot
            auto [armed, got] = sending.get();
            EXPECT_FALSE(armed.threw);
            EXPECT_FALSE(armed.log.fired) << "a blocked broadcast allocated";
            ASSERT_TRUE(got.has_value());
            expect_same(*got, w.model().try_broadcast(spec::model<int>::first_sender, 2));
            w.check();
            w.drain();
        }
        EXPECT_EQ(instrumented_message::live.load(), 0);
        EXPECT_EQ(instrumented_message::errors.load(), 0);
    }
}

#undef BCAST_ALLOC_TEST

} // namespace
} // namespace bcast::alloc_tests
