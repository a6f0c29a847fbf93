// The differential interpreter: runs a program (commands.hpp) on an
// implementation and on bcast::spec::model<int>, command by command, and
// compares every result. On the first difference it throws `mismatch` with the
// whole executed trace (handles resolved to ids) and the two results.
//
// Besides comparing with the model it checks the named properties directly on
// the implementation ("ghost" checks, independent of the model):
//   overflow  - an evicted message is the oldest queued one;
//   lag       - a receiver behind the head gets overflowed(n) with n exact,
//               once, before anything newer; each receiver gets every message
//               sent since it started, in order, except those it was told it
//               missed (received + missed == sent since it started);
//   close     - once closed, nothing reopens: sends fail with `closed` and
//               hand the message back; a receiver drains exactly its pending
//               messages, then gets `closed` forever;
//   lifetimes - (counted message types) after every command the live
//               instances are exactly the queued messages; none is used or
//               destroyed after its end; all are gone with the channel;
//   exception safety - (throwing message types) a copy that throws inside
//               try_recv changes nothing: every query, the live instances, and
//               the retried try_recv all agree with the model, which did not
//               run the throwing call at all.
// Async commands (R-ASYNC-1..5) are checked where one thread can finish them:
// an operation that needs no wait must not suspend and must answer what the
// model answers; one that would wait must suspend, and a stop request must end
// it with `cancelled`, handing a send's message back, while the model does
// nothing at all: every later comparison then checks that nothing was consumed
// or queued (a waiter left behind in the channel would be answered by a later
// command, inside a destroyed coroutine frame: the sanitizer trees see that).
// The ghost checks use only the implementation's own answers: the queue is a
// FIFO of accepted messages, so its content is the last len() accepted ones.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include <bcast/errors.hpp>
#include <bcast/result.hpp>
#include <bcast/spec/conformance.hpp>
#include <bcast/spec/model.hpp>

#include "async.hpp"
#include "commands.hpp"
#include "messages.hpp"

namespace bcast::prop {

using spec::handle_id;

// The implementation disagrees with the model, or breaks a named property.
struct mismatch : std::logic_error {
    using std::logic_error::logic_error;
};

struct check_options {
    bool compare = true;  // compare each result with the model's (off: the named properties alone judge)
    bool ghost = true;    // the named-property checks above
    bool snapshot = true; // compare all ten queries after every command
    bool finish = true;   // at the end: close, drain every receiver, send on every sender, drop every handle
};

// What happened, summed over runs (to see that generators reach the cases).
struct run_stats {
    std::uint64_t programs = 0;
    std::uint64_t commands = 0;
    std::uint64_t sent = 0;
    std::uint64_t evicted = 0;
    std::uint64_t received = 0;
    std::uint64_t overflowed = 0;
    std::uint64_t shrinks_below_len = 0;
    std::uint64_t closed_recvs = 0;
    std::uint64_t copy_throws = 0;
    std::uint64_t zero_capacity_rejected = 0;
    std::uint64_t async_answered = 0;  // async operations that finished without suspending
    std::uint64_t async_cancelled = 0; // async operations that waited and were cancelled

    run_stats& operator+=(const run_stats& o) {
        programs += o.programs, commands += o.commands, sent += o.sent, evicted += o.evicted;
        received += o.received, overflowed += o.overflowed, shrinks_below_len += o.shrinks_below_len;
        closed_recvs += o.closed_recvs, copy_throws += o.copy_throws;
        zero_capacity_rejected += o.zero_capacity_rejected;
        async_answered += o.async_answered, async_cancelled += o.async_cancelled;
        return *this;
    }
};

inline std::ostream& operator<<(std::ostream& out, const run_stats& s) {
    return out << "programs=" << s.programs << " commands=" << s.commands << " sent=" << s.sent
               << " evicted=" << s.evicted << " received=" << s.received << " overflowed=" << s.overflowed
               << " shrinks_below_len=" << s.shrinks_below_len << " closed_recvs=" << s.closed_recvs
               << " copy_throws=" << s.copy_throws << " zero_capacity_rejected=" << s.zero_capacity_rejected
               << " async_answered=" << s.async_answered << " async_cancelled=" << s.async_cancelled;
}

// Comparable, printable outcomes of a send and a receive.
struct send_outcome {
    bool ok = false;
    std::optional<int> evicted; // ok: the evicted message, if any
    send_errc code{};           // !ok
    int returned = 0;           // !ok: the message handed back

    friend bool operator==(const send_outcome&, const send_outcome&) = default;
};

struct recv_outcome {
    bool ok = false;
    int value = 0;          // ok
    recv_errc code{};       // !ok
    std::uint64_t missed = 0;

    friend bool operator==(const recv_outcome&, const recv_outcome&) = default;
};

inline std::ostream& operator<<(std::ostream& out, const send_outcome& s) {
    if (s.ok) return s.evicted ? out << "ok, evicted " << *s.evicted : out << "ok";
    return out << "error '" << s.code << "', message " << s.returned << " handed back";
}

inline std::ostream& operator<<(std::ostream& out, const recv_outcome& r) {
    if (r.ok) return out << "message " << r.value;
    if (r.code == recv_errc::overflowed) return out << "overflowed(" << r.missed << ")";
    return out << "error '" << r.code << "'";
}

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

    // Returns whether the watchdog fired.
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

template <class Impl, class Msg = int>
class runner {
    static_assert(spec::broadcast_channel<Impl, Msg>, "not a broadcast channel implementation (spec/conformance.hpp)");
    using spec_type = spec::model<int>;
    using traits = message_traits<Msg>;

public:
    explicit runner(check_options options = {}) : options_(options) {}

    const run_stats& stats() const { return stats_; }

    // What the last run executed, handle ids resolved (bcast_replay --trace).
    const std::vector<std::string>& trace() const { return trace_; }

    // Runs one program from a fresh channel; throws mismatch on a difference.
    void run(const program& p) {
        trace_.clear();
        baseline_live_ = live();
        ++stats_.programs;
        try {
            open(p.capacity == 0 ? 1 : p.capacity);
            for (const command& c : p.commands) step(c);
            if (options_.finish) finish();
            close_channel();
        } catch (...) {
            tracked::arm_copy_throw = false;
            impl_.reset();
            spec_.reset();
            throw;
        }
    }

private:
    // ---- handles -----------------------------------------------------------

    std::vector<handle_id> candidates(target t) const {
        std::vector<handle_id> ids;
        auto add = [&](const std::vector<handle_id>& from) { ids.insert(ids.end(), from.begin(), from.end()); };
        switch (t) {
        case target::none: break;
        case target::sender: add(senders_); break;
        case target::receiver: add(receivers_); break;
        case target::inactive: add(inactives_); break;
        case target::sender_or_receiver: add(senders_), add(receivers_); break;
        case target::any: add(senders_), add(receivers_), add(inactives_); break;
        }
        std::sort(ids.begin(), ids.end());
        return ids;
    }

    bool has_handles() const { return !senders_.empty() || !receivers_.empty() || !inactives_.empty(); }
    handle_id any_handle() const { return candidates(target::any).front(); }

    static void erase_id(std::vector<handle_id>& ids, handle_id id) { ids.erase(std::find(ids.begin(), ids.end(), id)); }

    // ---- failure -----------------------------------------------------------

    [[noreturn]] void fail(const std::string& what) const {
        std::ostringstream out;
        out << what << "\n  executed (handle ids resolved; the spec model is the reference):\n";
        for (std::size_t i = 0; i < trace_.size(); ++i) {
            out << "    " << i << ". " << trace_[i] << "\n";
        }
        throw mismatch(out.str());
    }

    template <class Expected, class Actual>
    void expect_equal(const char* what, const Expected& expected, const Actual& actual) const {
        if (expected == actual) return;
        // Without comparison, the model still drives the run: the ids of new handles must agree.
        if (!options_.compare && std::string_view(what) != "id of the new handle") return;
        std::ostringstream out;
        out << what << ": spec model says " << expected << ", implementation says " << actual;
        fail(out.str());
    }

    template <class T>
    static std::string show(const T& value) {
        std::ostringstream out;
        out << std::boolalpha << value;
        return out.str();
    }

    // ---- running a command ----------------------------------------------------

    void step(const command& c) {
        ++stats_.commands;
        const target t = target_of(c.what);
        std::optional<handle_id> id;
        if (t != target::none) {
            if (!has_handles()) {
                trace_.push_back(show(c) + "  (skipped: no channel)");
                return;
            }
            const std::vector<handle_id> ids = candidates(t);
            if (ids.empty()) {
                trace_.push_back(show(c) + "  (skipped: no such handle)");
                return;
            }
            id = ids[c.a % ids.size()];
        }
        trace_.push_back(show(c) + (id ? "  on id " + std::to_string(*id) : std::string()));
        exec(c.what, id.value_or(0), c.b);
    }

    void exec(op what, handle_id id, std::uint8_t b) {
        try {
            exec_unchecked(what, id, b);
        } catch (const mismatch&) {
            throw;
        } catch (const std::exception& e) {
            fail(std::string("unexpected exception (") + typeid(e).name() + "): " + e.what());
        }
        after_command();
    }

    enum class mode { non_blocking, blocking, expired, throwing };

    void exec_unchecked(op what, handle_id id, std::uint8_t b) {
        spec_type* m = spec_ ? &*spec_ : nullptr;
        switch (what) {
        case op::create: create(static_cast<std::size_t>(b % (max_capacity + 1))); return;
        case op::try_broadcast: send(id, mode::non_blocking); return;
        case op::broadcast: send(id, mode::blocking); return;
        case op::broadcast_expired: send(id, mode::expired); return;
        case op::try_recv: recv(id, mode::non_blocking); return;
        case op::recv: recv(id, mode::blocking); return;
        case op::recv_expired: recv(id, mode::expired); return;
        case op::recv_throwing: recv(id, mode::throwing); return;
        case op::async_recv: async_recv(id, b, false); return;
        case op::async_recv_cancelled: async_recv(id, b, true); return;
        case op::async_broadcast: async_send(id, b, false); return;
        case op::async_broadcast_cancelled: async_send(id, b, true); return;
        case op::clone_receiver: {
            const handle_id made = same_id(m->clone_receiver(id), impl_->clone_receiver(id));
            receivers_.push_back(made);
            if (auto found = ghost_rx_.find(id); found != ghost_rx_.end()) ghost_rx_[made] = found->second;
            return;
        }
        case op::new_receiver: added_receiver(same_id(m->new_receiver(id), impl_->new_receiver(id))); return;
        case op::new_sender: senders_.push_back(same_id(m->new_sender(id), impl_->new_sender(id))); return;
        case op::clone_sender: senders_.push_back(same_id(m->clone_sender(id), impl_->clone_sender(id))); return;
        case op::drop_sender:
            m->drop_sender(id), impl_->drop_sender(id);
            erase_id(senders_, id);
            return;
        case op::drop_receiver:
            m->drop_receiver(id), impl_->drop_receiver(id);
            erase_id(receivers_, id);
            ghost_rx_.erase(id);
            return;
        case op::drop_inactive:
            m->drop_inactive(id), impl_->drop_inactive(id);
            erase_id(inactives_, id);
            return;
        case op::deactivate:
            inactives_.push_back(same_id(m->deactivate(id), impl_->deactivate(id)));
            erase_id(receivers_, id);
            ghost_rx_.erase(id);
            return;
        case op::activate:
            added_receiver(same_id(m->activate(id), impl_->activate(id)));
            erase_id(inactives_, id);
            return;
        case op::activate_cloned: added_receiver(same_id(m->activate_cloned(id), impl_->activate_cloned(id))); return;
        case op::clone_inactive:
            inactives_.push_back(same_id(m->clone_inactive(id), impl_->clone_inactive(id)));
            return;
        case op::set_capacity: {
            const std::size_t capacity = b % (max_capacity + 1);
            if (capacity != 0 && capacity < m->len(id)) ++stats_.shrinks_below_len;
            const std::string expected = outcome_of([&] { m->set_capacity(id, capacity); });
            const std::string actual = outcome_of([&] { impl_->set_capacity(id, capacity); });
            if (expected == "invalid_argument" && actual == expected) ++stats_.zero_capacity_rejected;
            expect_equal("set_capacity", expected, actual);
            return;
        }
        case op::set_overflow: m->set_overflow(id, b & 1), impl_->set_overflow(id, b & 1); return;
        case op::set_await_active: m->set_await_active(id, b & 1), impl_->set_await_active(id, b & 1); return;
        case op::close: {
            const bool was_seen_closed = closed_seen_;
            const bool actual = impl_->close(id);
            expect_equal("close() result", m->close(id), actual);
            if (options_.ghost && was_seen_closed && actual) fail("close: close() returned true on a closed channel");
            return;
        }
        case op::len: expect_equal("len()", m->len(id), impl_->len(id)); return;
        case op::is_empty: expect_equal("is_empty()", show(m->is_empty(id)), show(impl_->is_empty(id))); return;
        case op::is_full: expect_equal("is_full()", show(m->is_full(id)), show(impl_->is_full(id))); return;
        case op::capacity: expect_equal("capacity()", m->capacity(id), impl_->capacity(id)); return;
        case op::receiver_count: expect_equal("receiver_count()", m->receiver_count(id), impl_->receiver_count(id)); return;
        case op::inactive_receiver_count:
            expect_equal("inactive_receiver_count()", m->inactive_receiver_count(id), impl_->inactive_receiver_count(id));
            return;
        case op::sender_count: expect_equal("sender_count()", m->sender_count(id), impl_->sender_count(id)); return;
        case op::is_closed: expect_equal("is_closed()", show(m->is_closed(id)), show(impl_->is_closed(id))); return;
        case op::overflow: expect_equal("overflow()", show(m->overflow(id)), show(impl_->overflow(id))); return;
        case op::await_active:
            expect_equal("await_active()", show(m->await_active(id)), show(impl_->await_active(id)));
            return;
        }
        fail("unknown command");
    }

    handle_id same_id(handle_id expected, handle_id actual) const {
        expect_equal("id of the new handle", expected, actual);
        trace_.back() += " -> new id " + std::to_string(actual);
        return actual;
    }

    void added_receiver(handle_id id) {
        receivers_.push_back(id);
        ghost_rx_[id] = ghost_receiver{sent_total_, false}; // starts at the tail
    }

    template <class Fn>
    static std::string outcome_of(Fn fn) {
        try {
            fn();
            return "returned";
        } catch (const std::invalid_argument&) {
            return "invalid_argument";
        } catch (const std::exception& e) {
            return std::string("threw ") + typeid(e).name() + ": " + e.what();
        }
    }

    // ---- channel lifetime ---------------------------------------------------

    void open(std::size_t capacity) {
        spec_.emplace(capacity);
        impl_.emplace(capacity);
        senders_ = {spec_type::first_sender};
        receivers_ = {spec_type::first_receiver};
        inactives_.clear();
        ghost_rx_.clear();
        ghost_rx_[spec_type::first_receiver] = ghost_receiver{0, false};
        sent_total_ = 0;
        seq_of_.clear();
        closed_seen_ = false;
        trace_.push_back("(new channel, capacity " + std::to_string(capacity) + ": sender id 0, receiver id 1)");
    }

    void close_channel() {
        impl_.reset();
        spec_.reset();
        senders_.clear(), receivers_.clear(), inactives_.clear();
        check_lifetimes("after the channel object was destroyed");
    }

    void create(std::size_t capacity) {
        if (capacity == 0) { // R-CAP-1: both refuse, and nothing changes
            const std::string expected = outcome_of([] { spec_type refused(0); });
            const std::string actual = outcome_of([] { Impl refused(0); });
            expect_equal("creating a channel of capacity 0", expected, actual);
            ++stats_.zero_capacity_rejected;
            return;
        }
        close_channel();
        open(capacity);
    }

    // ---- sending -------------------------------------------------------------

    void send(handle_id id, mode how) {
        spec_type& m = *spec_;
        const int value = next_value_++;
        const std::size_t len_before = impl_->len(id);
        send_outcome expected;
        send_outcome actual;
        const bool would_block = m.broadcast_would_block();
        if (how == mode::non_blocking) {
            expected = outcome(m.try_broadcast(id, value));
            actual = outcome(impl_->try_broadcast(id, traits::make(value)));
        } else if (how == mode::blocking && !would_block && spec::blocking_broadcast_channel<Impl, Msg>) {
            expected = outcome(m.try_broadcast(id, value)); // what a broadcast that cannot block does
            if constexpr (spec::blocking_broadcast_channel<Impl, Msg>) {
                Msg message = traits::make(value);
                actual = guarded("broadcast", id, [&] { return outcome(impl_->broadcast(id, std::move(message))); });
            }
        } else { // a zero timeout: blocking calls are exercised where they would block
            expected = outcome(m.broadcast_expired(id, value));
            actual = outcome(impl_->broadcast_expired(id, traits::make(value)));
        }
        trace_.back() += " -> " + show(expected);
        expect_equal("send result", expected, actual);
        if (actual.ok) ++stats_.sent;
        if (actual.evicted) ++stats_.evicted;
        if (options_.ghost) ghost_send(value, actual, len_before);
    }

    send_outcome outcome(const send_result<int>& r) const {
        if (r.has_value()) return send_outcome{true, *r, {}, 0};
        return send_outcome{false, std::nullopt, r.error().code, r.error().message};
    }
    template <class M = Msg>
        requires(!std::is_same_v<M, int>)
    send_outcome outcome(const send_result<M>& r) const {
        if (r.has_value()) {
            std::optional<int> evicted;
            if (*r) evicted = traits::value(**r);
            return send_outcome{true, evicted, {}, 0};
        }
        return send_outcome{false, std::nullopt, r.error().code, traits::value(r.error().message)};
    }

    // ---- receiving -----------------------------------------------------------

    void recv(handle_id id, mode how) {
        spec_type& m = *spec_;
        const std::size_t len_before = impl_->len(id);
        recv_outcome expected;
        recv_outcome actual;
        const bool would_block = m.recv_would_block(id);
        if (how == mode::throwing && traits::can_throw) {
            bool threw = false;
            tracked::arm_copy_throw = true;
            try {
                actual = outcome(impl_->try_recv(id));
            } catch (const copy_error&) {
                threw = true;
            }
            tracked::arm_copy_throw = false;
            if (threw) { // nothing may have changed: compare with the untouched model, then retry
                ++stats_.copy_throws;
                trace_.back() += " -> copy threw; retried";
                compare_snapshots("after a throwing copy in try_recv");
                check_lifetimes("after a throwing copy in try_recv");
                actual = outcome(impl_->try_recv(id));
            }
            expected = outcome(m.try_recv(id));
        } else if (how == mode::non_blocking || how == mode::throwing) {
            expected = outcome(m.try_recv(id));
            actual = outcome(impl_->try_recv(id));
        } else if (how == mode::blocking && !would_block && spec::blocking_broadcast_channel<Impl, Msg>) {
            expected = outcome(m.try_recv(id)); // what a recv that cannot block does
            if constexpr (spec::blocking_broadcast_channel<Impl, Msg>) {
                actual = guarded("recv", id, [&] { return outcome(impl_->recv(id)); });
            }
        } else {
            expected = outcome(m.recv_expired(id));
            actual = outcome(impl_->recv_expired(id));
        }
        trace_.back() += " -> " + show(expected);
        expect_equal("receive result", expected, actual);
        if (actual.ok) ++stats_.received;
        if (!actual.ok && actual.code == recv_errc::overflowed) ++stats_.overflowed;
        if (!actual.ok && actual.code == recv_errc::closed) ++stats_.closed_recvs;
        last_recv_ = actual;
        if (options_.ghost) ghost_recv(id, actual, len_before);
    }

    recv_outcome outcome(const recv_result<int>& r) const {
        if (r.has_value()) return recv_outcome{true, *r, {}, 0};
        return recv_outcome{false, 0, r.error().code, r.error().missed};
    }
    template <class M = Msg>
        requires(!std::is_same_v<M, int>)
    recv_outcome outcome(const recv_result<M>& r) const {
        if (r.has_value()) return recv_outcome{true, traits::value(*r), {}, 0};
        return recv_outcome{false, 0, r.error().code, r.error().missed};
    }

    // Runs a blocking call that must not block (see watchdog).
    template <class Call>
    auto guarded(const char* what, handle_id id, Call call) {
        Impl& impl = *impl_;
        watchdog::instance().arm(std::chrono::milliseconds(1000), [&impl, id] { impl.close(id); });
        auto result = call();
        if (watchdog::instance().disarm()) {
            fail(std::string(what) + " on id " + std::to_string(id) +
                 " blocked although the spec model says it cannot block (after 1 s the watchdog closed the "
                 "channel, and it returned " + show(result) + ")");
        }
        return result;
    }

    // ---- async operations (R-ASYNC-1, R-ASYNC-3, R-ASYNC-4) -------------------------
    //
    // `b & 1` (the *_cancelled commands only): stop is requested before the
    // call, else after the operation started. `b & 2`: the scheduler overload.
    // Where the model says the call would wait, the plain command falls back to
    // the cancelled form, as `recv` falls back to `recv_for(0)`.

    void async_recv(handle_id id, std::uint8_t b, bool with_token) {
        if constexpr (!async_broadcast_channel<Impl, Msg>) { // no async API: the blocking or zero-timeout form
            recv(id, with_token ? mode::expired : mode::blocking);
        } else {
            spec_type& m = *spec_;
            const std::size_t len_before = impl_->len(id);
            const bool would_block = m.recv_would_block(id);
            // A waiting receive that is cancelled consumes nothing: the model does nothing.
            const recv_outcome expected =
                would_block ? recv_outcome{false, 0, recv_errc::cancelled, 0} : outcome(m.try_recv(id));
            const bool stop_first = with_token && (b & 1) != 0;
            std::stop_source stop = stop_source_for(with_token || would_block);
            if (stop_first) stop.request_stop();
            manual_scheduler scheduler;
            auto task = await_recv(impl_->receiver_at(id), stop.get_token(), (b & 2) != 0 ? &scheduler : nullptr);
            const std::string problem = drive(task, stop, scheduler, (b & 2) != 0, would_block, stop_first);
            if (!problem.empty()) {
                fail("async_recv on id " + std::to_string(id) + ": " + problem +
                     (task.done() ? ", and it answered " + show(outcome(task.result())) : std::string()));
            }
            const recv_outcome actual = outcome(task.result());
            trace_.back() += " -> " + show(expected) + async_note(would_block, stop_first);
            expect_equal("async receive result", expected, actual);
            count_async(would_block);
            if (actual.ok) ++stats_.received;
            if (!actual.ok && actual.code == recv_errc::overflowed) ++stats_.overflowed;
            if (!actual.ok && actual.code == recv_errc::closed) ++stats_.closed_recvs;
            last_recv_ = actual;
            if (options_.ghost) ghost_recv(id, actual, len_before);
        }
    }

    void async_send(handle_id id, std::uint8_t b, bool with_token) {
        if constexpr (!async_broadcast_channel<Impl, Msg>) {
            send(id, with_token ? mode::expired : mode::blocking);
        } else {
            spec_type& m = *spec_;
            const int value = next_value_++;
            const std::size_t len_before = impl_->len(id);
            const bool would_block = m.broadcast_would_block();
            // A waiting send that is cancelled queues nothing and hands its message back.
            const send_outcome expected = would_block ? send_outcome{false, std::nullopt, send_errc::cancelled, value}
                                                      : outcome(m.try_broadcast(id, value));
            const bool stop_first = with_token && (b & 1) != 0;
            std::stop_source stop = stop_source_for(with_token || would_block);
            if (stop_first) stop.request_stop();
            manual_scheduler scheduler;
            auto task = await_broadcast(impl_->sender_at(id), traits::make(value), stop.get_token(),
                                        (b & 2) != 0 ? &scheduler : nullptr);
            const std::string problem = drive(task, stop, scheduler, (b & 2) != 0, would_block, stop_first);
            if (!problem.empty()) {
                fail("async_broadcast on id " + std::to_string(id) + ": " + problem +
                     (task.done() ? ", and it answered " + show(outcome(task.result())) : std::string()));
            }
            const send_outcome actual = outcome(task.result());
            trace_.back() += " -> " + show(expected) + async_note(would_block, stop_first);
            expect_equal("async send result", expected, actual);
            count_async(would_block);
            if (actual.ok) ++stats_.sent;
            if (actual.evicted) ++stats_.evicted;
            if (options_.ghost) ghost_send(value, actual, len_before);
        }
    }

    // Takes a just-started async operation to its end the only ways one thread
    // can; returns what went wrong ("" if nothing). The task is done afterwards
    // unless something went wrong; nothing is left in the scheduler.
    template <class Task>
    static std::string drive(Task& task, std::stop_source& stop, manual_scheduler& scheduler, bool via_scheduler,
                             bool would_block, bool stop_first) {
        if (!would_block || stop_first) {
            // An answer at once, or a wait that a stop request before the call
            // turns into `cancelled`: no suspension, no scheduler (R-ASYNC-1, R-ASYNC-4).
            if (!task.done()) {
                return would_block ? "suspended although stop was requested before the call"
                                   : "suspended although the spec model says it need not wait";
            }
            if (scheduler.scheduled != 0) return "went through the scheduler although it did not wait";
            stop.request_stop(); // after completion: must change nothing (checked by the comparisons that follow)
            return {};
        }
        if (task.done()) return "did not wait although the spec model says it must";
        stop.request_stop(); // the canceller completes it, and resumes it inline or through the scheduler (R-ASYNC-3)
        const bool resumed_inline = task.done();
        const std::size_t scheduled = scheduler.scheduled;
        scheduler.resume_all(); // never leave a completed operation unresumed
        if (!task.done()) return "a stop request did not end the wait";
        if (via_scheduler && (resumed_inline || scheduled != 1)) {
            return "was resumed inline, or handed to the scheduler " + std::to_string(scheduled) +
                   " times, although a scheduler was given (once expected)";
        }
        return {};
    }

    static std::string async_note(bool would_block, bool stop_first) {
        if (!would_block) return {};
        return stop_first ? " (stop before the call: not suspended)" : " (suspended, then stop requested)";
    }

    // A stop source only where a token is used: a real one allocates its state.
    static std::stop_source stop_source_for(bool needed) {
        return needed ? std::stop_source() : std::stop_source(std::nostopstate);
    }

    void count_async(bool cancelled) { ++(cancelled ? stats_.async_cancelled : stats_.async_answered); }

    // ---- checks after every command --------------------------------------------

    struct snapshot {
        std::size_t len, capacity, receivers, inactives, senders;
        bool empty, full, closed, overflow, await_active;
        friend bool operator==(const snapshot&, const snapshot&) = default;
        friend std::ostream& operator<<(std::ostream& out, const snapshot& s) {
            return out << std::boolalpha << "{len " << s.len << ", capacity " << s.capacity << ", receivers "
                       << s.receivers << ", inactive " << s.inactives << ", senders " << s.senders << ", empty "
                       << s.empty << ", full " << s.full << ", closed " << s.closed << ", overflow " << s.overflow
                       << ", await_active " << s.await_active << "}";
        }
    };

    template <class C>
    static snapshot snapshot_of(const C& c, handle_id via) {
        return snapshot{c.len(via),           c.capacity(via),   c.receiver_count(via),
                        c.inactive_receiver_count(via), c.sender_count(via), c.is_empty(via),
                        c.is_full(via),       c.is_closed(via),  c.overflow(via),
                        c.await_active(via)};
    }

    void compare_snapshots(const char* when) const {
        if (!has_handles()) return;
        const handle_id via = any_handle();
        expect_equal(when, snapshot_of(*spec_, via), snapshot_of(*impl_, via));
    }

    long live() const { return traits::counted ? tracked::live : 0; }

    void check_lifetimes(const char* when) const {
        if constexpr (traits::counted) {
            const long expected = has_handles() && spec_ ? static_cast<long>(spec_->len(any_handle())) : 0;
            if (tracked::errors != 0) fail(std::string("lifetimes: a message was used or destroyed after its end, ") + when);
            if (tracked::live - baseline_live_ != expected) {
                fail(std::string("lifetimes: ") + std::to_string(tracked::live - baseline_live_) +
                     " live messages, but " + std::to_string(expected) + " are queued, " + when);
            }
        }
    }

    void after_command() {
        if (options_.snapshot) compare_snapshots("queries after the command");
        check_lifetimes("after the command");
        if (options_.ghost && has_handles()) {
            const bool closed = impl_->is_closed(any_handle());
            if (closed_seen_ && !closed) fail("close: the channel reopened");
            closed_seen_ = closed_seen_ || closed;
        }
    }

    // ---- ghost checks (the named properties, on the implementation alone) -------

    struct ghost_receiver {
        std::uint64_t next = 0;   // sequence number (among accepted messages) of the next one it should get
        bool saw_closed = false;
    };

    std::int64_t seq_of(int value) const {
        const auto index = static_cast<std::size_t>(value);
        return index < seq_of_.size() ? seq_of_[index] : -1;
    }

    void ghost_send(int value, const send_outcome& got, std::size_t len_before) {
        if (!got.ok) {
            if (got.returned != value) fail("close/send: a failed send did not hand back the same message");
            if (closed_seen_ && got.code != send_errc::closed) fail("close: a send after close did not fail with closed");
            return;
        }
        if (closed_seen_) fail("close: a send succeeded after the channel was closed");
        if (got.evicted) {
            const std::uint64_t oldest = sent_total_ - len_before;
            if (seq_of(*got.evicted) != static_cast<std::int64_t>(oldest)) {
                fail("overflow: the evicted message " + std::to_string(*got.evicted) + " is not the oldest queued one");
            }
        }
        if (seq_of_.size() <= static_cast<std::size_t>(value)) seq_of_.resize(static_cast<std::size_t>(value) + 1, -1);
        seq_of_[static_cast<std::size_t>(value)] = static_cast<std::int64_t>(sent_total_++);
    }

    void ghost_recv(handle_id id, const recv_outcome& got, std::size_t len_before) {
        ghost_receiver& g = ghost_rx_[id];
        const std::uint64_t head = sent_total_ - len_before; // the queue holds the last len() accepted messages
        if (g.saw_closed && (got.ok || got.code != recv_errc::closed)) {
            fail("close: a receiver that got closed got something else later");
        }
        if (g.next < head) {
            if (got.ok || got.code != recv_errc::overflowed || got.missed != head - g.next) {
                fail("lag: receiver " + std::to_string(id) + " is " + std::to_string(head - g.next) +
                     " messages behind the oldest queued one and must get overflowed(" +
                     std::to_string(head - g.next) + ") now, got " + show(got));
            }
            g.next = head;
            return;
        }
        if (g.next == sent_total_) {
            if (got.ok || got.code == recv_errc::overflowed) {
                fail("lag/overflow: receiver " + std::to_string(id) + " has read everything sent since it started, yet got " +
                     show(got));
            }
            if (got.code == recv_errc::closed) g.saw_closed = true;
            return;
        }
        if (!got.ok || seq_of(got.value) != static_cast<std::int64_t>(g.next)) {
            fail("overflow/lag: receiver " + std::to_string(id) + " must get the message with sequence number " +
                 std::to_string(g.next) + " (received + missed == sent since it started), got " + show(got));
        }
        ++g.next;
    }

    // ---- the end of every program ---------------------------------------------

    void finish() {
        if (!has_handles()) return;
        auto run = [&](op what, handle_id id) {
            trace_.push_back("(finish) " + std::string(name_of(what)) + " on id " + std::to_string(id));
            exec(what, id, 0);
        };
        run(op::close, any_handle());
        const std::vector<handle_id> receivers = receivers_;
        for (handle_id id : receivers) {
            // Drain: maybe overflowed, then each pending message, then closed, and closed again.
            const std::size_t bound = spec_->len(id) + 4;
            int closed_in_a_row = 0;
            for (std::size_t i = 0; i < bound && closed_in_a_row < 2; ++i) {
                run(op::try_recv, id);
                const bool closed = !last_recv_.ok && last_recv_.code == recv_errc::closed;
                closed_in_a_row = closed ? closed_in_a_row + 1 : 0;
            }
            if (closed_in_a_row < 2) fail("close: a receiver did not get closed (twice) after draining");
            if (options_.ghost && ghost_rx_[id].next != sent_total_) {
                fail("overflow: after draining, receiver " + std::to_string(id) +
                     " has received or been told it missed messages up to sequence number " +
                     std::to_string(ghost_rx_[id].next) + ", but " + std::to_string(sent_total_) +
                     " were accepted (received + missed != sent since it started)");
            }
        }
        for (handle_id id : std::vector<handle_id>(senders_)) run(op::try_broadcast, id);
        for (handle_id id : std::vector<handle_id>(inactives_)) run(op::drop_inactive, id);
        for (handle_id id : std::vector<handle_id>(senders_)) run(op::drop_sender, id);
        for (handle_id id : std::vector<handle_id>(receivers_)) run(op::drop_receiver, id);
    }

    check_options options_;
    run_stats stats_;
    std::optional<spec_type> spec_;
    std::optional<Impl> impl_;
    std::vector<handle_id> senders_, receivers_, inactives_;
    mutable std::vector<std::string> trace_;
    int next_value_ = 0;
    recv_outcome last_recv_;
    long baseline_live_ = 0;

    // ghost state
    std::map<handle_id, ghost_receiver> ghost_rx_;
    std::uint64_t sent_total_ = 0;   // accepted messages since the channel was created
    std::vector<std::int64_t> seq_of_; // message value -> sequence number among accepted ones
    bool closed_seen_ = false;
};

} // namespace bcast::prop
