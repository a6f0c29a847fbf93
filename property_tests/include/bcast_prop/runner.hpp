// SPDX-License-Identifier: MIT OR Apache-2.0
// The differential interpreter: runs a program (commands.hpp) on an
// implementation and on bcast::spec::model<int>, command by command, and
// compares every result (outcome.hpp) and, after every command, all ten
// queries (snapshot.hpp) and every receiver's own counts (R-QUERY-2). On the
// first difference it throws `mismatch` with the whole executed trace
// (handles resolved to ids) and the two results.
//
// bcast's extensions are optional parts of the conformance concept
// (spec/conformance.hpp): where an implementation lacks one, the pending
// counts and same_channel are not compared, and the range commands (R-RECV-6)
// run as the single receives they stand for.
//
// Besides comparing with the model it checks the named properties:
// overflow, lag and close on the implementation alone (ghost_checks.hpp);
//   lifetimes - (counted message types) after every command the live
//               instances are exactly the queued messages; none is used or
//               destroyed after its end; all are gone with the channel;
//   exception safety - (throwing message types) a copy that throws inside
//               try_recv changes nothing: every query, the live instances, and
//               the retried try_recv all agree with the model, which did not
//               run the throwing call at all.
// Blocking calls run only where the model says they cannot block, under a
// watchdog (watchdog.hpp). Async commands (R-ASYNC-1..5) are checked where one
// thread can finish them (async.hpp): an operation that needs no wait must not
// suspend and must answer what the model answers; one that would wait must
// suspend, and a stop request must end it with `cancelled`, handing a send's
// message back, while the model does nothing at all: every later comparison
// then checks that nothing was consumed or queued (a waiter left behind in the
// channel would be answered by a later command, inside a destroyed coroutine
// frame: the sanitizer trees see that).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
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
#include "ghost_checks.hpp"
#include "messages.hpp"
#include "outcome.hpp"
#include "run_stats.hpp"
#include "snapshot.hpp"
#include "watchdog.hpp"

namespace bcast::prop {

using spec::handle_id;

// The implementation disagrees with the model, or breaks a named property.
struct mismatch : std::logic_error {
    using std::logic_error::logic_error;
};

struct check_options {
    bool compare = true;  // compare each result with the model's (off: the named properties alone judge)
    bool ghost = true;    // the named-property checks on the implementation alone (ghost_checks.hpp)
    bool snapshot = true; // compare all ten queries, and each receiver's counts, after every command
    bool finish = true;   // at the end: close, drain every receiver, send on every sender, drop every handle
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
            instrumented_message::armed = false;
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

    // A problem reported by a ghost check ("" when there is none).
    void check(const std::string& problem) const {
        if (!problem.empty()) fail(problem);
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
            ghost_.receiver_copied(id, made);
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
            ghost_.receiver_gone(id);
            return;
        case op::drop_inactive:
            m->drop_inactive(id), impl_->drop_inactive(id);
            erase_id(inactives_, id);
            return;
        case op::deactivate:
            inactives_.push_back(same_id(m->deactivate(id), impl_->deactivate(id)));
            erase_id(receivers_, id);
            ghost_.receiver_gone(id);
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
            const bool actual = impl_->close(id);
            expect_equal("close() result", m->close(id), actual);
            if (options_.ghost) check(ghost_.close_returned(actual));
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
        case op::unread:
        case op::missed: // R-QUERY-2, optional in the conformance kit
            if constexpr (spec::pending_count_channel<Impl, Msg>) {
                const bool unread = what == op::unread;
                const auto expected = unread ? std::uint64_t{m->unread(id)} : m->missed(id);
                trace_.back() += " -> " + std::to_string(expected);
                expect_equal(unread ? "unread()" : "missed()", expected,
                             unread ? std::uint64_t{impl_->unread(id)} : impl_->missed(id));
            } else {
                trace_.back() += "  (not offered: optional)";
            }
            return;
        case op::same_channel: {
            const std::vector<handle_id> ids = candidates(target::any);
            const handle_id other = ids[b % ids.size()];
            trace_.back() += " and id " + std::to_string(other);
            if constexpr (spec::handle_identity_channel<Impl, Msg>) {
                trace_.back() += " -> " + show(m->same_channel(id, other));
                expect_equal("same_channel()", show(m->same_channel(id, other)), show(impl_->same_channel(id, other)));
            } else {
                trace_.back() += "  (not offered: optional)";
            }
            return;
        }
        case op::try_messages: take_messages(id, b % 8, false); return;
        case op::messages: take_messages(id, b % 8, true); return;
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
        ghost_.receiver_added(id);
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
        ghost_.open(spec_type::first_receiver);
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
            expected = to_outcome(m.try_broadcast(id, value));
            actual = to_outcome(impl_->try_broadcast(id, traits::make(value)));
        } else if (how == mode::blocking && !would_block && spec::blocking_broadcast_channel<Impl, Msg>) {
            expected = to_outcome(m.try_broadcast(id, value)); // what a broadcast that cannot block does
            if constexpr (spec::blocking_broadcast_channel<Impl, Msg>) {
                Msg message = traits::make(value);
                actual = guarded("broadcast", id, [&] { return to_outcome(impl_->broadcast(id, std::move(message))); });
            }
        } else { // a zero timeout: blocking calls are exercised where they would block
            expected = to_outcome(m.broadcast_expired(id, value));
            actual = to_outcome(impl_->broadcast_expired(id, traits::make(value)));
        }
        expect_answer("send result", expected, actual);
        after_send(value, actual, len_before);
    }

    // The end of every send and receive (and range): the trace shows the
    // model's answer (and `note`), and the implementation must give the same.
    template <class Outcome>
    void expect_answer(const char* what, const Outcome& expected, const Outcome& actual, const std::string& note = {}) {
        trace_.back() += " -> " + show(expected) + note;
        expect_equal(what, expected, actual);
    }

    // After every send (send, async_send) of message `value`: its answer is
    // counted and checked against the ghost state.
    void after_send(int value, const send_outcome& actual, std::size_t len_before) {
        if (actual.ok) ++stats_.sent;
        if (actual.evicted) ++stats_.evicted;
        if (options_.ghost) check(ghost_.sent(value, actual, len_before));
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
            instrumented_message::armed = true;
            try {
                actual = to_outcome(impl_->try_recv(id));
            } catch (const copy_error&) {
                threw = true;
            }
            instrumented_message::armed = false;
            if (threw) { // nothing may have changed: compare with the untouched model, then retry
                ++stats_.copy_throws;
                trace_.back() += " -> copy threw; retried";
                compare_snapshots("after a throwing copy in try_recv");
                check_lifetimes("after a throwing copy in try_recv");
                actual = to_outcome(impl_->try_recv(id));
            }
            expected = to_outcome(m.try_recv(id));
        } else if (how == mode::non_blocking || how == mode::throwing) {
            expected = to_outcome(m.try_recv(id));
            actual = to_outcome(impl_->try_recv(id));
        } else if (how == mode::blocking && !would_block && spec::blocking_broadcast_channel<Impl, Msg>) {
            expected = to_outcome(m.try_recv(id)); // what a recv that cannot block does
            if constexpr (spec::blocking_broadcast_channel<Impl, Msg>) {
                actual = guarded("recv", id, [&] { return to_outcome(impl_->recv(id)); });
            }
        } else {
            expected = to_outcome(m.recv_expired(id));
            actual = to_outcome(impl_->recv_expired(id));
        }
        expect_answer("receive result", expected, actual);
        after_receive(id, actual, len_before);
    }

    // After every receive (recv, async_recv) on receiver `id`: as after_send.
    void after_receive(handle_id id, const recv_outcome& actual, std::size_t len_before) {
        if (actual.ok) ++stats_.received;
        if (!actual.ok && actual.code == recv_errc::overflowed) ++stats_.overflowed;
        if (!actual.ok && actual.code == recv_errc::closed) ++stats_.closed_recvs;
        last_recv_ = actual;
        if (options_.ghost) check(ghost_.received(id, actual, len_before));
    }

    // ---- a receiver's ranges (R-RECV-6) ----------------------------------------
    //
    // The first `limit` items of try_messages() or messages(). messages() may
    // only be taken as far as it cannot wait: where the model says it would,
    // the runner takes exactly what the receiver has (its messages, and a lag
    // report as one item), which also checks that taking the last of them does
    // not wait for one more.

    void take_messages(handle_id id, std::size_t limit, bool blocking) {
        spec_type& m = *spec_;
        const std::size_t len_before = impl_->len(id);
        if (blocking && m.messages_would_block(id, limit)) limit = m.unread(id) + (m.missed(id) != 0 ? 1 : 0);
        trace_.back() += " (take " + std::to_string(limit) + ")";
        const std::vector<recv_outcome> expected = to_outcomes(blocking ? m.messages(id, limit) : m.try_messages(id, limit));
        std::vector<recv_outcome> actual;
        if constexpr (spec::message_range_channel<Impl, Msg>) {
            if (blocking) {
                actual = guarded("messages", id, [&] { return to_outcomes(impl_->messages(id, limit)); });
            } else {
                actual = to_outcomes(impl_->try_messages(id, limit));
            }
        } else {
            actual = receive_one_by_one(id, limit, blocking);
        }
        expect_answer(blocking ? "messages() items" : "try_messages() items", expected, actual);
        for (const recv_outcome& item : actual) {
            ++stats_.range_items;
            if (item.ok) ++stats_.received;
            if (!item.ok && item.code == recv_errc::overflowed) ++stats_.overflowed;
            // len_before is the queue at the start: the head it implies is at
            // most the real one, which only this receiver's reads move, and
            // never past its position; so it judges every item correctly.
            if (options_.ghost) check(ghost_.received(id, item, len_before));
        }
    }

    // Without the ranges: the receives they stand for, up to the answer that would end the range.
    std::vector<recv_outcome> receive_one_by_one(handle_id id, std::size_t limit, bool blocking) {
        std::vector<recv_outcome> items;
        while (items.size() < limit) {
            recv_outcome got;
            if constexpr (spec::blocking_broadcast_channel<Impl, Msg>) {
                got = blocking ? guarded("recv", id, [&] { return to_outcome(impl_->recv(id)); })
                               : to_outcome(impl_->try_recv(id));
            } else {
                got = to_outcome(impl_->try_recv(id)); // where recv() cannot block it answers what try_recv() does
            }
            if (!got.ok && (got.code == recv_errc::closed || got.code == recv_errc::empty)) break;
            items.push_back(got);
        }
        return items;
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
                would_block ? recv_outcome{false, 0, recv_errc::cancelled, 0} : to_outcome(m.try_recv(id));
            const bool stop_first = with_token && (b & 1) != 0;
            const recv_outcome actual = run_async("async_recv", id, with_token, stop_first, (b & 2) != 0, would_block,
                [&](std::stop_token stop, bcast_support::manual_scheduler* via) {
                    return await_recv(impl_->receiver_at(id), std::move(stop), via);
                });
            expect_answer("async receive result", expected, actual, async_note(would_block, stop_first));
            count_async(would_block);
            after_receive(id, actual, len_before);
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
                                                      : to_outcome(m.try_broadcast(id, value));
            const bool stop_first = with_token && (b & 1) != 0;
            const send_outcome actual = run_async("async_broadcast", id, with_token, stop_first, (b & 2) != 0, would_block,
                [&](std::stop_token stop, bcast_support::manual_scheduler* via) {
                    return await_broadcast(impl_->sender_at(id), traits::make(value), std::move(stop), via);
                });
            expect_answer("async send result", expected, actual, async_note(would_block, stop_first));
            count_async(would_block);
            after_send(value, actual, len_before);
        }
    }

    // Starts the async call `start(stop token, scheduler or nullptr)` makes
    // (stop requested first if `stop_first`), takes it to its end (drive) and
    // returns its answer; fails where it did not behave as the model says.
    template <class Start>
    auto run_async(const char* what, handle_id id, bool with_token, bool stop_first, bool via_scheduler, bool would_block,
                   Start start) {
        std::stop_source stop = stop_source_for(with_token || would_block);
        if (stop_first) stop.request_stop();
        bcast_support::manual_scheduler scheduler;
        auto task = start(stop.get_token(), via_scheduler ? &scheduler : nullptr);
        const std::string problem = drive(task, stop, scheduler, via_scheduler, would_block, stop_first);
        if (!problem.empty()) {
            fail(std::string(what) + " on id " + std::to_string(id) + ": " + problem +
                 (task.done() ? ", and it answered " + show(to_outcome(task.result())) : std::string()));
        }
        return to_outcome(task.result());
    }

    static std::string async_note(bool would_block, bool stop_first) {
        if (!would_block) return {};
        return stop_first ? " (stop before the call: not suspended)" : " (suspended, then stop requested)";
    }

    void count_async(bool cancelled) { ++(cancelled ? stats_.async_cancelled : stats_.async_answered); }

    // ---- checks after every command --------------------------------------------

    void compare_snapshots(const char* when) const {
        if (!has_handles()) return;
        const handle_id via = any_handle();
        expect_equal(when, snapshot_of(*spec_, via), snapshot_of(*impl_, via));
        if constexpr (spec::pending_count_channel<Impl, Msg>) { // R-QUERY-2, for every receiver
            for (handle_id id : receivers_) {
                const std::pair<std::size_t, std::uint64_t> expected{spec_->unread(id), spec_->missed(id)};
                const std::pair<std::size_t, std::uint64_t> actual{impl_->unread(id), impl_->missed(id)};
                if (expected == actual) continue; // the text only for a difference: this runs after every command
                const std::string what = std::string(when) + ": unread(), missed() of receiver " + std::to_string(id);
                expect_equal(what.c_str(), counts_text(expected), counts_text(actual));
            }
        }
    }

    static std::string counts_text(const std::pair<std::size_t, std::uint64_t>& counts) {
        return "unread " + std::to_string(counts.first) + ", missed " + std::to_string(counts.second);
    }

    long live() const { return traits::counted ? instrumented_message::live.load() : 0; }

    void check_lifetimes(const char* when) const {
        if constexpr (traits::counted) {
            const long expected = has_handles() && spec_ ? static_cast<long>(spec_->len(any_handle())) : 0;
            if (instrumented_message::errors != 0) {
                fail(std::string("lifetimes: a message was used or destroyed after its end, ") + when);
            }
            const long live_now = live() - baseline_live_;
            if (live_now != expected) {
                fail(std::string("lifetimes: ") + std::to_string(live_now) + " live messages, but " +
                     std::to_string(expected) + " are queued, " + when);
            }
        }
    }

    void after_command() {
        if (options_.snapshot) compare_snapshots("queries after the command");
        check_lifetimes("after the command");
        if (options_.ghost && has_handles()) check(ghost_.closed_queried(impl_->is_closed(any_handle())));
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
            if (options_.ghost) check(ghost_.drained(id));
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

    ghost_checks ghost_;
};

} // namespace bcast::prop
