// SPDX-License-Identifier: MIT OR Apache-2.0
// Tests of the linearizability checker for recorded histories
// (spec/include/bcast/spec/linearizability.hpp): verdicts on hand-written
// histories, the lost-wakeup classification by rule (spec/rules.md, "Threads
// and wakeups"), and memoised search against brute force on random histories.
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <bcast/spec/history.hpp>
#include <bcast/spec/linearizability.hpp>
#include <bcast/spec/model.hpp>
#include <bcast/spec/queries.hpp>

namespace bcast::spec_tests {
namespace {

using spec::call;
using spec::call_kind;
using spec::check_history;
using spec::check_options;
using spec::check_report;
using spec::handle_id;
using spec::outcome;
using spec::pending_tick;
using spec::verdict;
using std::size_t;

// ---- building histories ------------------------------------------------------

constexpr outcome ok{0, -1, 0};
constexpr outcome got(int message) { return {0, message, 0}; }
constexpr outcome evicted(int message) { return {0, message, 0}; }
constexpr outcome send_failed(send_errc code, int message) { return {1 + int(code), message, 0}; }
constexpr outcome recv_failed(recv_errc code, std::uint64_t missed = 0) { return {1 + int(code), -1, missed}; }
constexpr outcome closed_it(bool b) { return {0, b ? 1 : 0, 0}; }

// A thread of its own for each call a test does not place on a thread: then only real
// time orders it against the others (the checker also keeps each thread's program order).
int own_thread() {
    static int next = 1000;
    return next++;
}

// One call on `handle` with argument `arg`, invoked at `inv`, returned at `ret`.
call make(call_kind kind, int handle, int arg, std::uint64_t inv, std::uint64_t ret, outcome result = ok,
          int out = -1, int thread = own_thread()) {
    call c;
    c.kind = kind, c.thread = thread, c.handle = handle, c.out = out, c.arg = arg;
    c.invoked = inv, c.returned = ret, c.result = result;
    return c;
}
// A call still blocked when the run ended.
call pending(call_kind kind, int handle, int arg, std::uint64_t inv, int out = -1) {
    return make(kind, handle, arg, inv, pending_tick, outcome{}, out);
}

constexpr int tx = 0; // logical handles of the channel's first sender and receiver
constexpr int rx = 1;

check_report check(const std::vector<call>& calls, size_t capacity, check_options options = {}) {
    check_report r = check_history(calls, capacity, tx, rx, options);
    // Memoisation must never change the answer: every test also checks brute force.
    check_options brute = options;
    brute.memoise = !options.memoise;
    const check_report other = check_history(calls, capacity, tx, rx, brute);
    EXPECT_EQ(r.result, other.result) << spec::to_string(r, calls) << "\nthe other mode:\n"
                                      << spec::to_string(other, calls);
    return r;
}

std::string report(const check_report& r, const std::vector<call>& calls) { return spec::to_string(r, calls); }

// check(), which must give `expected`; on a mismatch the report says why.
check_report expect_verdict(const std::vector<call>& h, size_t capacity, verdict expected, check_options options = {}) {
    const check_report r = check(h, capacity, options);
    EXPECT_EQ(r.result, expected) << report(r, h);
    return r;
}

void expect_linearizable_in_order(const std::vector<call>& h, size_t capacity, const std::vector<size_t>& order) {
    EXPECT_EQ(expect_verdict(h, capacity, verdict::linearizable).order, order);
}

// `receive` invoked at 1 and returning `message` at 4; the send of `message` runs from 2 to 3.
std::vector<call> receive_overlapping_the_send_of(call_kind receive, int message) {
    return {make(receive, rx, 0, 1, 4, got(message)), make(call_kind::try_broadcast, tx, message, 2, 3)};
}

// A lost wake-up on a channel of capacity 1, classified by `rule`; `wake_call` is the
// call that should have woken the lost one (none where it need not have blocked at all).
check_report expect_lost_wakeup(const std::vector<call>& h, const char* rule, std::optional<size_t> wake_call) {
    const check_report r = expect_verdict(h, 1, verdict::lost_wakeup);
    EXPECT_EQ(r.rule, rule);
    EXPECT_EQ(r.wake_call, wake_call);
    return r;
}

// Capacity 1 holding message 1 and a broadcast of 2 blocked on it (call 1), then `after`.
std::vector<call> send_blocked_on_a_full_channel_then(std::initializer_list<call> after) {
    std::vector<call> h{make(call_kind::try_broadcast, tx, 1, 1, 2), pending(call_kind::broadcast, tx, 2, 3)};
    h.insert(h.end(), after);
    return h;
}

// The only receiver deactivated (into handle 2, which keeps the channel open) and a
// broadcast blocked for want of an active receiver (call 1), then `after`.
std::vector<call> send_blocked_without_an_active_receiver_then(call after) {
    return {make(call_kind::deactivate, rx, 0, 1, 2, ok, 2), pending(call_kind::broadcast, tx, 1, 3), after};
}

// ---- vocabulary ----------------------------------------------------------------

TEST(history_vocabulary, every_call_kind_name_reads_back_as_the_same_kind) {
    for (const spec::operation& op : spec::operations) {
        EXPECT_EQ(spec::call_kind_from_name(spec::name(op.kind)), op.kind) << op.name;
        EXPECT_EQ(spec::name(op.kind), op.name);
    }
    EXPECT_STREQ(spec::name(call_kind::try_broadcast), "try_broadcast"); // one spelling everywhere (no "try_send")
    EXPECT_STREQ(spec::name(call_kind::clone_inactive), "clone_inactive");
    EXPECT_STREQ(spec::name(call_kind::inactive_receiver_count), "inactive_receiver_count");
    EXPECT_STREQ(spec::name(static_cast<call_kind>(spec::operation_count)), "?");
    EXPECT_FALSE(spec::call_kind_from_name("try_send").has_value());
    EXPECT_FALSE(spec::call_kind_from_name("send_timed").has_value());
    EXPECT_STREQ(spec::name(verdict::lost_wakeup), "lost_wakeup");
    EXPECT_STREQ(spec::name(verdict::spec_deadlock), "spec_deadlock");
}

// What a call is comes from its row, not from where its kind sits in the enum:
// close (appended among the state changes) answers a value, and a query is
// exactly a row that changes nothing.
TEST(history_vocabulary, what_a_call_is_comes_from_its_row_not_its_position) {
    EXPECT_TRUE(spec::answers_value(call_kind::close));
    EXPECT_FALSE(spec::is_query(call_kind::close));
    EXPECT_TRUE(spec::is_query(call_kind::len));
    EXPECT_TRUE(spec::is_query(call_kind::missed));
    EXPECT_FALSE(spec::answers_value(call_kind::set_capacity));
    EXPECT_TRUE(spec::is_blocking(call_kind::broadcast_timed));
    EXPECT_FALSE(spec::is_blocking(call_kind::broadcast_expired));
    EXPECT_TRUE(spec::creates_handle(call_kind::deactivate));
    EXPECT_TRUE(spec::consumes_handle(call_kind::deactivate));
    EXPECT_FALSE(spec::consumes_handle(call_kind::activate_cloned));
    // Rows that change the channel stand after the first query (appended after
    // it): classifying "len and everything after it" as queries, by the enum's
    // order, would call them queries.
    EXPECT_GT(call_kind::broadcast_expired, call_kind::len);
    EXPECT_FALSE(spec::is_query(call_kind::broadcast_expired));
    EXPECT_FALSE(spec::is_query(call_kind::recv_expired));
}

TEST(history_vocabulary, encoded_results_carry_code_value_and_missed) {
    spec::model<int> m(1);
    EXPECT_EQ(spec::encode_send(m.try_broadcast(0, 5)), ok);
    EXPECT_EQ(spec::encode_send(m.try_broadcast(0, 6)), send_failed(send_errc::full, 6));
    m.set_overflow(0, true);
    EXPECT_EQ(spec::encode_send(m.try_broadcast(0, 7)), evicted(5));
    m.set_overflow(0, false);
    EXPECT_EQ(spec::encode_recv(m.try_recv(1)), recv_failed(recv_errc::overflowed, 1));
    EXPECT_EQ(spec::encode_recv(m.try_recv(1)), got(7));
    EXPECT_EQ(spec::encode_recv(m.try_recv(1)), recv_failed(recv_errc::empty));
}

// ---- linearizable or not -------------------------------------------------------

TEST(linearizability, sequential_sends_and_receives_are_linearizable_in_their_order) {
    const std::vector<call> h{
        make(call_kind::try_broadcast, tx, 5, 1, 2),
        make(call_kind::try_broadcast, tx, 6, 3, 4),
        make(call_kind::try_recv, rx, 0, 5, 6, got(5)),
        make(call_kind::try_recv, rx, 0, 7, 8, got(6)),
        make(call_kind::try_recv, rx, 0, 9, 10, recv_failed(recv_errc::empty)),
        make(call_kind::try_broadcast, tx, 7, 11, 12),
        make(call_kind::try_broadcast, tx, 8, 13, 14),
        make(call_kind::try_broadcast, tx, 9, 15, 16, send_failed(send_errc::full, 9)),
    };
    const check_report r = expect_verdict(h, 2, verdict::linearizable);
    EXPECT_EQ(r.order, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_NE(r.model_state.find("len=2"), std::string::npos) << r.model_state;
    EXPECT_FALSE(r.gave_up);
}

TEST(linearizability, sequential_receive_of_the_wrong_message_is_not_linearizable) {
    const std::vector<call> h{
        make(call_kind::try_broadcast, tx, 5, 1, 2),
        make(call_kind::try_broadcast, tx, 6, 3, 4),
        make(call_kind::try_recv, rx, 0, 5, 6, got(6)), // 5 was first
    };
    const check_report r = expect_verdict(h, 2, verdict::not_linearizable);
    EXPECT_EQ(r.order, (std::vector<size_t>{0, 1}));
    EXPECT_EQ(r.unplaceable, size_t{2});
    EXPECT_FALSE(r.gave_up);
}

TEST(linearizability, a_receive_overlapping_a_send_may_see_its_message) {
    // The receive was invoked first, but only the order send, receive explains it.
    expect_linearizable_in_order(receive_overlapping_the_send_of(call_kind::try_recv, 5), 1, {1, 0});
}

TEST(linearizability, a_thread_s_calls_take_effect_in_the_order_it_made_them) {
    // One thread receives, then sends; a widened clock makes the two intervals overlap. Real time
    // alone would let the send go first, which explains the message received; program order does not.
    constexpr int one_thread = 0;
    const std::vector<call> h{
        make(call_kind::try_recv, rx, 0, 1, 10, got(7), -1, one_thread),
        make(call_kind::try_broadcast, tx, 7, 2, 11, ok, -1, one_thread),
    };
    expect_verdict(h, 1, verdict::not_linearizable);
    check_options real_time_only;
    real_time_only.program_order = false;
    const check_report loose = expect_verdict(h, 1, verdict::linearizable, real_time_only);
    EXPECT_EQ(loose.order, (std::vector<size_t>{1, 0}));
    // Two threads: the same intervals, and the send may go first.
    std::vector<call> two = h;
    two[1].thread = 1;
    expect_verdict(two, 1, verdict::linearizable);
}

// 4 threads x 50 calls, run on the model in a random interleaving (each call two ticks, one
// after the other), then every interval widened by `widen` ticks on each side, as a coarse
// clock would record them. A fifth thread's receive is still pending at the end although its
// receiver has messages (a lost wake-up): to say so the search must try every order the
// intervals allow, not stop at the first that works.
std::vector<call> widened_four_thread_run(std::uint64_t widen) {
    std::mt19937 rng(1);
    spec::model<int> m(2);
    std::vector<call> h{make(call_kind::clone_receiver, rx, 0, 1, 2, ok, 2, -1),
                        make(call_kind::clone_receiver, rx, 0, 3, 4, ok, 3, -1),
                        make(call_kind::clone_receiver, rx, 0, 5, 6, ok, 4, -1)};
    const handle_id receivers[] = {1, m.clone_receiver(1), m.clone_receiver(1)};
    (void)m.clone_receiver(1); // the fifth thread's, which never reads
    int left[4] = {50, 50, 50, 50}, message = 0;
    for (std::uint64_t tick = 7; left[0] + left[1] + left[2] + left[3] > 0; tick += 2) {
        int t = int(rng() % 4);
        while (left[t] == 0) t = (t + 1) % 4;
        --left[t];
        const bool query = rng() % 4 == 0;
        if (t == 0 && query) {
            h.push_back(make(call_kind::len, tx, 0, tick, tick + 1, got(int(m.len(0))), -1, t));
        } else if (t == 0) {
            ++message;
            h.push_back(make(call_kind::try_broadcast, tx, message, tick, tick + 1, spec::encode_send(m.try_broadcast(0, message)), -1, t));
        } else if (query) h.push_back(make(call_kind::unread, t, 0, tick, tick + 1, got(int(m.unread(receivers[t - 1]))), -1, t));
        else h.push_back(make(call_kind::try_recv, t, 0, tick, tick + 1, spec::encode_recv(m.try_recv(receivers[t - 1])), -1, t));
    }
    h.push_back(pending(call_kind::recv, 4, 0, 8));
    for (call& c : h)
        if (!c.is_pending()) c.invoked = c.invoked > widen ? c.invoked - widen : 0, c.returned += widen;
    return h;
}

TEST(linearizability, a_widened_four_thread_history_is_decided_in_program_order) {
    // Widened by 10 ticks, each call overlaps about ten others, its own thread's neighbours
    // among them. Program order keeps the search small; real time alone explores far more.
    const std::vector<call> h = widened_four_thread_run(10);
    ASSERT_EQ(h.size(), size_t{204});
    check_options bounded;
    bounded.max_states = 100'000;
    const check_report r = check_history(h, 2, tx, rx, bounded);
    EXPECT_EQ(r.result, verdict::lost_wakeup) << report(r, h);
    EXPECT_FALSE(r.gave_up);
    check_options real_time_only = bounded;
    real_time_only.program_order = false;
    const check_report loose = check_history(h, 2, tx, rx, real_time_only);
    EXPECT_GT(loose.states_explored, 10 * r.states_explored)
        << "program order explored " << r.states_explored << " states, real time alone " << loose.states_explored;
    std::printf("widened by 10: %zu states in program order, %zu%s by real time alone\n", r.states_explored,
                loose.states_explored, loose.gave_up ? " (gave up)" : "");
}

TEST(linearizability, a_query_answers_what_the_model_holds_where_it_linearizes) {
    // len overlapping the send may see 0 or 1; after the send returned, only 1.
    const std::vector<call> may_see_either{
        make(call_kind::len, rx, 0, 1, 4, got(0)),
        make(call_kind::try_broadcast, tx, 5, 2, 3),
        make(call_kind::len, tx, 0, 5, 6, got(1)),
        make(call_kind::is_closed, rx, 0, 7, 8, got(0)),
        make(call_kind::unread, rx, 0, 9, 10, got(1)),
        make(call_kind::receiver_count, tx, 0, 11, 12, got(1)),
    };
    expect_verdict(may_see_either, 1, verdict::linearizable);
    const std::vector<call> stale{
        make(call_kind::try_broadcast, tx, 5, 1, 2),
        make(call_kind::len, rx, 0, 3, 4, got(0)), // the send returned before it was invoked
    };
    EXPECT_EQ(expect_verdict(stale, 1, verdict::not_linearizable).unplaceable, size_t{1});
}

TEST(linearizability, overlapping_sends_take_the_order_the_receives_saw_not_the_invocation_order) {
    const std::vector<call> h{
        make(call_kind::try_broadcast, tx, 1, 1, 10),
        make(call_kind::try_broadcast, tx, 2, 2, 9),
        make(call_kind::try_recv, rx, 0, 11, 12, got(2)),
        make(call_kind::try_recv, rx, 0, 13, 14, got(1)),
    };
    expect_linearizable_in_order(h, 2, {1, 0, 2, 3});
}

TEST(linearizability, a_receive_of_a_message_sent_after_it_returned_is_not_linearizable) {
    const std::vector<call> h{
        make(call_kind::try_broadcast, tx, 1, 1, 2),
        make(call_kind::try_recv, rx, 0, 3, 4, got(1)),
        make(call_kind::try_recv, rx, 0, 5, 6, got(2)), // returns 2 ...
        make(call_kind::try_broadcast, tx, 2, 7, 8),    // ... sent only later
    };
    const check_report r = expect_verdict(h, 2, verdict::not_linearizable);
    EXPECT_EQ(r.unplaceable, size_t{2});
    EXPECT_EQ(r.order, (std::vector<size_t>{0, 1})) << report(r, h);
    EXPECT_NE(r.model_state.find("len=0"), std::string::npos) << r.model_state;
}

TEST(linearizability, report_of_a_failing_history_names_the_unplaceable_call) {
    const std::vector<call> h{
        make(call_kind::try_broadcast, tx, 1, 1, 2),
        make(call_kind::try_recv, rx, 0, 3, 4, got(1)),
        make(call_kind::try_recv, rx, 0, 5, 6, got(2), -1, 3),
        make(call_kind::try_broadcast, tx, 2, 7, 8),
    };
    const check_report r = check(h, 2);
    const std::string text = report(r, h);
    std::printf("%s", text.c_str());
    EXPECT_NE(text.find("verdict: not_linearizable"), std::string::npos) << text;
    EXPECT_NE(text.find("cannot place next"), std::string::npos) << text;
    EXPECT_NE(text.find("#2 thread 3 try_recv h=1 arg=0 [5,6] -> 0/2/0"), std::string::npos) << text;
    EXPECT_EQ(text.find("NOT a proof"), std::string::npos) << text;
}

// ---- blocking and timed calls ---------------------------------------------------

TEST(linearizability, blocking_recv_linearizes_where_the_model_would_not_block) {
    expect_linearizable_in_order(receive_overlapping_the_send_of(call_kind::recv, 7), 1, {1, 0});
}

TEST(linearizability, blocking_recv_cannot_return_on_an_empty_open_channel) {
    const std::vector<call> open{make(call_kind::recv, rx, 0, 1, 2, recv_failed(recv_errc::closed))};
    expect_verdict(open, 1, verdict::not_linearizable);
    const std::vector<call> closed{
        make(call_kind::close, tx, 0, 1, 2, closed_it(true)),
        make(call_kind::recv, rx, 0, 3, 4, recv_failed(recv_errc::closed)),
    };
    expect_verdict(closed, 1, verdict::linearizable);
}

TEST(linearizability, blocking_send_on_a_full_channel_linearizes_after_a_receive_frees_a_slot) {
    const std::vector<call> h{
        make(call_kind::try_broadcast, tx, 1, 1, 2),
        make(call_kind::broadcast, tx, 2, 3, 8), // full until the receive
        make(call_kind::try_recv, rx, 0, 4, 5, got(1)),
        make(call_kind::try_recv, rx, 0, 9, 10, got(2)),
    };
    expect_linearizable_in_order(h, 1, {0, 2, 1, 3});

    std::vector<call> early = h;
    early[1].returned = 4, early[2].invoked = 5, early[2].returned = 6; // the send returned while still full
    EXPECT_EQ(expect_verdict(early, 1, verdict::not_linearizable).unplaceable, size_t{1});
}

TEST(linearizability, timed_out_recv_is_accepted_only_where_the_model_would_block) {
    const std::vector<call> empty{make(call_kind::recv_timed, rx, 0, 1, 2, recv_failed(recv_errc::timed_out))};
    expect_verdict(empty, 1, verdict::linearizable);

    const std::vector<call> after_send{
        make(call_kind::try_broadcast, tx, 5, 1, 2),
        make(call_kind::recv_timed, rx, 0, 3, 4, recv_failed(recv_errc::timed_out)),
    };
    EXPECT_EQ(expect_verdict(after_send, 1, verdict::not_linearizable).unplaceable, size_t{1});

    const std::vector<call> overlapping{
        make(call_kind::recv_timed, rx, 0, 1, 4, recv_failed(recv_errc::timed_out)),
        make(call_kind::try_broadcast, tx, 5, 2, 3),
        make(call_kind::try_recv, rx, 0, 5, 6, got(5)), // the timed-out recv took nothing
    };
    expect_linearizable_in_order(overlapping, 1, {0, 1, 2});
}

TEST(linearizability, completed_timed_recv_acts_as_the_blocking_one) {
    expect_verdict(receive_overlapping_the_send_of(call_kind::recv_timed, 5), 1, verdict::linearizable);
}

TEST(linearizability, timed_out_send_is_accepted_only_on_a_full_channel_and_hands_the_message_back) {
    const std::vector<call> full{
        make(call_kind::try_broadcast, tx, 1, 1, 2),
        make(call_kind::broadcast_timed, tx, 2, 3, 4, send_failed(send_errc::timed_out, 2)),
    };
    expect_verdict(full, 1, verdict::linearizable);
    const std::vector<call> room{make(call_kind::broadcast_timed, tx, 2, 3, 4, send_failed(send_errc::timed_out, 2))};
    expect_verdict(room, 1, verdict::not_linearizable);
}

// ---- handles ----------------------------------------------------------------------

TEST(linearizability, a_cloned_receiver_is_bound_to_the_id_the_model_returns) {
    const std::vector<call> h{
        make(call_kind::try_broadcast, tx, 5, 1, 2),
        make(call_kind::clone_receiver, rx, 0, 3, 4, ok, 2),
        make(call_kind::try_recv, 2, 0, 5, 6, got(5)), // the clone kept the original's position (R-LIFE-1)
        make(call_kind::try_recv, rx, 0, 7, 8, got(5)),
        make(call_kind::try_recv, 2, 0, 9, 10, recv_failed(recv_errc::empty)),
        make(call_kind::new_receiver, tx, 0, 11, 12, ok, 3),
        make(call_kind::try_recv, 3, 0, 13, 14, recv_failed(recv_errc::empty)),
    };
    const check_report r = expect_verdict(h, 2, verdict::linearizable);
    EXPECT_NE(r.model_state.find("h2=receiver#2"), std::string::npos) << r.model_state;
    EXPECT_NE(r.model_state.find("h3=receiver#3"), std::string::npos) << r.model_state;
}

TEST(linearizability, a_handle_used_before_the_call_that_creates_it_is_not_linearizable) {
    const std::vector<call> h{
        make(call_kind::try_recv, 2, 0, 1, 2, recv_failed(recv_errc::empty)),
        make(call_kind::clone_receiver, rx, 0, 3, 4, ok, 2),
    };
    EXPECT_EQ(expect_verdict(h, 1, verdict::not_linearizable).unplaceable, size_t{0});
}

TEST(linearizability, new_kinds_clone_sender_new_sender_activate_and_clone_inactive_replay) {
    const std::vector<call> h{
        make(call_kind::clone_sender, tx, 0, 1, 2, ok, 2),
        make(call_kind::new_sender, rx, 0, 3, 4, ok, 3),
        make(call_kind::deactivate, rx, 0, 5, 6, ok, 4),
        make(call_kind::clone_inactive, 4, 0, 7, 8, ok, 5),
        make(call_kind::try_broadcast, 3, 9, 9, 10, send_failed(send_errc::inactive, 9)),
        make(call_kind::activate, 5, 0, 11, 12, ok, 6),
        make(call_kind::try_broadcast, 2, 8, 13, 14),
        make(call_kind::try_recv, 6, 0, 15, 16, got(8)),
        make(call_kind::drop_inactive, 5, 0, 17, 18), // consumed by activate
    };
    const check_report r = expect_verdict(h, 1, verdict::not_linearizable);
    EXPECT_EQ(r.unplaceable, size_t{8});
    EXPECT_EQ(r.order.size(), 8u);
}

// ---- pending calls that are not send / recv ---------------------------------------

TEST(linearizability, pending_try_send_is_placed_when_a_receive_saw_its_message) {
    const std::vector<call> h{
        pending(call_kind::try_broadcast, tx, 5, 1),
        make(call_kind::try_recv, rx, 0, 2, 3, got(5)),
    };
    expect_linearizable_in_order(h, 1, {0, 1});
}

TEST(linearizability, pending_close_is_placed_or_left_out_as_the_answers_need) {
    const std::vector<call> left_out{
        pending(call_kind::close, tx, 0, 1),
        make(call_kind::try_broadcast, tx, 5, 2, 3),
    };
    expect_linearizable_in_order(left_out, 1, {1});

    const std::vector<call> placed{
        pending(call_kind::close, tx, 0, 1),
        make(call_kind::try_broadcast, tx, 5, 2, 3, send_failed(send_errc::closed, 5)),
    };
    expect_linearizable_in_order(placed, 1, {0, 1});
}

// ---- lost wakeups ---------------------------------------------------------------

TEST(lost_wakeup, pending_recv_after_a_completed_send_missed_the_send_R_WAKE_1) {
    const std::vector<call> h{
        pending(call_kind::recv, rx, 0, 1),
        make(call_kind::try_broadcast, tx, 5, 2, 3),
    };
    const check_report r = expect_lost_wakeup(h, "R-WAKE-1", 1);
    EXPECT_EQ(r.lost_calls, (std::vector<size_t>{0}));
    EXPECT_FALSE(r.jointly_lost);
    EXPECT_NE(report(r, h).find("should have woken it"), std::string::npos) << report(r, h);
}

TEST(lost_wakeup, pending_send_on_a_full_channel_after_capacity_grew_R_CAP_4) {
    const std::vector<call> h = send_blocked_on_a_full_channel_then({make(call_kind::set_capacity, rx, 2, 4, 5)});
    EXPECT_EQ(expect_lost_wakeup(h, "R-CAP-4", 2).lost_calls, (std::vector<size_t>{1}));
}

TEST(lost_wakeup, pending_send_on_a_full_channel_after_close_R_CLOSE_6) {
    expect_lost_wakeup(send_blocked_on_a_full_channel_then({make(call_kind::close, rx, 0, 4, 5, closed_it(true))}), "R-CLOSE-6", 2);
}

TEST(lost_wakeup, pending_recv_after_the_last_sender_was_dropped_R_CLOSE_6) {
    const std::vector<call> h{
        pending(call_kind::recv, rx, 0, 1),
        make(call_kind::drop_sender, tx, 0, 2, 3),
    };
    expect_lost_wakeup(h, "R-CLOSE-6", 1);
}

TEST(lost_wakeup, pending_send_without_receivers_after_await_active_off_R_ACT_3) {
    expect_lost_wakeup(send_blocked_without_an_active_receiver_then(make(call_kind::set_await_active, tx, 0, 4, 5)), "R-ACT-3", 2);
}

TEST(lost_wakeup, pending_send_on_a_full_channel_after_overflow_on_R_OVF_4) {
    expect_lost_wakeup(send_blocked_on_a_full_channel_then({make(call_kind::set_overflow, rx, 1, 4, 5)}), "R-OVF-4", 2);
}

TEST(lost_wakeup, pending_send_after_a_receiver_became_active_R_LIFE_6) {
    expect_lost_wakeup(send_blocked_without_an_active_receiver_then(make(call_kind::activate, 2, 0, 4, 5, ok, 3)), "R-LIFE-6", 2);
}

TEST(lost_wakeup, pending_send_after_a_dropped_receiver_freed_the_slot_R_WAKE_1) {
    const std::vector<call> h{
        make(call_kind::clone_receiver, rx, 0, 1, 2, ok, 2),
        make(call_kind::try_broadcast, tx, 1, 3, 4),
        make(call_kind::try_recv, rx, 0, 5, 6, got(1)), // receiver 2 still holds the slot
        pending(call_kind::broadcast, tx, 2, 7),
        make(call_kind::drop_receiver, 2, 0, 8, 9),
    };
    expect_lost_wakeup(h, "R-WAKE-1", 4);
}

TEST(lost_wakeup, recv_blocked_although_a_message_was_there_when_called_has_no_wake_call) {
    const std::vector<call> h{
        make(call_kind::try_broadcast, tx, 5, 1, 2),
        pending(call_kind::recv, rx, 0, 3),
    };
    const check_report r = expect_lost_wakeup(h, "R-WAKE-1", std::nullopt);
    EXPECT_NE(report(r, h).find("blocked although the model says it need not wait when called"), std::string::npos)
        << report(r, h);
}

TEST(lost_wakeup, two_pending_calls_never_both_blocked_in_one_linearisation_are_jointly_lost) {
    // The clone and the receive race: clone first leaves the message queued for
    // the clone (so the send blocks, the clone's recv need not); receive first
    // frees the slot (the send need not block, the clone's recv does).
    const std::vector<call> h{
        make(call_kind::try_broadcast, tx, 5, 1, 2),
        make(call_kind::clone_receiver, rx, 0, 3, 6, ok, 2),
        make(call_kind::try_recv, rx, 0, 4, 5, got(5)),
        pending(call_kind::broadcast, tx, 6, 7),
        pending(call_kind::recv, 2, 0, 8),
    };
    const check_report r = expect_verdict(h, 1, verdict::lost_wakeup);
    EXPECT_TRUE(r.jointly_lost);
    EXPECT_EQ(r.lost_calls.size(), 1u);
}

// ---- the spec's own deadlocks -------------------------------------------------------

TEST(spec_deadlock, pending_recv_with_nothing_ever_sent_is_a_spec_deadlock) {
    const check_report r = expect_verdict({pending(call_kind::recv, rx, 0, 1)}, 1, verdict::spec_deadlock);
    EXPECT_TRUE(r.lost_calls.empty());
    EXPECT_TRUE(r.order.empty());
}

TEST(spec_deadlock, pending_send_on_a_full_channel_is_a_spec_deadlock) {
    expect_verdict(send_blocked_on_a_full_channel_then({pending(call_kind::broadcast_timed, tx, 3, 4)}), 1, verdict::spec_deadlock);
}

TEST(spec_deadlock, racing_overflow_settings_where_one_order_keeps_the_send_blocked_is_not_lost) {
    const std::vector<call> h = send_blocked_on_a_full_channel_then({
        make(call_kind::set_overflow, rx, 1, 4, 7),
        make(call_kind::set_overflow, rx, 0, 5, 6),
    });
    const check_report r = expect_verdict(h, 1, verdict::spec_deadlock);
    EXPECT_EQ(r.order, (std::vector<size_t>{0, 2, 3})); // overflow off last: the send stays blocked
}

TEST(spec_deadlock, new_receiver_racing_a_send_where_one_order_leaves_its_recv_blocked_is_not_lost) {
    const std::vector<call> h{
        make(call_kind::new_receiver, tx, 0, 1, 4, ok, 2),
        make(call_kind::try_broadcast, tx, 5, 2, 3),
        pending(call_kind::recv, 2, 0, 5),
    };
    const check_report r = expect_verdict(h, 1, verdict::spec_deadlock);
    EXPECT_EQ(r.order, (std::vector<size_t>{1, 0})); // sent before the receiver existed
    EXPECT_NE(report(r, h).find("legitimate"), std::string::npos);
}

// ---- limits ----------------------------------------------------------------------------

TEST(linearizability, histories_up_to_256_calls_are_checked_and_longer_ones_throw_invalid_argument) {
    std::vector<call> h;
    for (std::uint64_t i = 0; i < 256; ++i)
        h.push_back(make(call_kind::try_recv, rx, 0, 2 * i + 1, 2 * i + 2, recv_failed(recv_errc::empty)));
    const check_report r = check_history(h, 1);
    EXPECT_EQ(r.result, verdict::linearizable);
    EXPECT_EQ(r.order.size(), 256u);
    h.push_back(make(call_kind::try_recv, rx, 0, 1000, 1001, recv_failed(recv_errc::empty)));
    try {
        (void)check_history(h, 1);
        ADD_FAILURE() << "257 calls accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("257"), std::string::npos) << e.what();
    }
}

TEST(linearizability, malformed_calls_throw_invalid_argument) {
    EXPECT_THROW((void)check_history(std::vector<call>{make(call_kind::try_recv, 64, 0, 1, 2)}, 1), std::invalid_argument);
    EXPECT_THROW((void)check_history(std::vector<call>{make(call_kind::try_recv, rx, 0, 3, 2)}, 1), std::invalid_argument);
    EXPECT_THROW((void)check_history(std::vector<call>{make(call_kind::clone_receiver, rx, 0, 1, 2, ok, 70)}, 1),
                 std::invalid_argument);
}

// Many receivers each calling try_recv at once: all orders are equivalent, so
// memoisation sees 2^n subsets where brute force walks n! orders. A final
// impossible receive makes both search everything.
std::vector<call> concurrent_independent_receives(int receivers) {
    std::vector<call> h;
    std::uint64_t t = 0;
    for (int i = 2; i <= receivers; ++i, t += 2) h.push_back(make(call_kind::clone_receiver, rx, 0, t + 1, t + 2, ok, i));
    for (int i = 1; i <= receivers; ++i)
        h.push_back(make(call_kind::try_recv, i, 0, 100 + std::uint64_t(i), 200 + std::uint64_t(i),
                         recv_failed(recv_errc::empty), -1, i));
    h.push_back(make(call_kind::try_recv, rx, 0, 300, 301, got(42)));
    return h;
}

TEST(linearizability, memoisation_explores_fewer_states_on_concurrent_independent_calls) {
    const std::vector<call> h = concurrent_independent_receives(8);
    const check_report memo = check_history(h, 1, tx, rx, {.memoise = true});
    const check_report brute = check_history(h, 1, tx, rx, {.memoise = false});
    std::printf("8 concurrent try_recv + 1 impossible: states explored memoised %zu, brute force %zu\n",
                memo.states_explored, brute.states_explored);
    EXPECT_EQ(memo.result, verdict::not_linearizable);
    EXPECT_EQ(brute.result, verdict::not_linearizable);
    EXPECT_EQ(memo.unplaceable, h.size() - 1);
    EXPECT_EQ(brute.unplaceable, h.size() - 1);
    EXPECT_FALSE(memo.gave_up);
    EXPECT_FALSE(brute.gave_up);
    EXPECT_LT(memo.states_explored * 100, brute.states_explored);
}

TEST(linearizability, a_search_that_reaches_max_states_says_its_verdict_is_not_a_proof) {
    const std::vector<call> h = concurrent_independent_receives(6);
    const check_report r = check_history(h, 1, tx, rx, {.memoise = false, .max_states = 50});
    EXPECT_TRUE(r.gave_up);
    EXPECT_EQ(r.result, verdict::not_linearizable);
    EXPECT_EQ(r.states_explored, 50u);
    EXPECT_NE(report(r, h).find("NOT a proof"), std::string::npos) << report(r, h);
}

// ---- memoised search against brute force on random histories -------------------------

// A random sequential run of the model with 3..9 calls, each given an interval
// around its linearisation point (so it is linearizable by construction);
// optionally followed by pending calls.
struct random_history {
    std::vector<call> calls;
    size_t capacity = 1;
};

random_history make_random_history(std::mt19937& rng, bool with_pending) {
    auto pick = [&rng](size_t n) { return size_t(std::uniform_int_distribution<size_t>(0, n - 1)(rng)); };
    random_history out;
    out.capacity = 1 + pick(3);
    spec::model<int> m(out.capacity);
    struct named {
        int logical;
        handle_id id;
    };
    std::vector<named> senders{{tx, 0}}, receivers{{rx, 1}}, inactives;
    int next_logical = 2;
    int next_message = 1;
    const size_t length = 3 + pick(7);
    const int timed_out_send = 1 + int(send_errc::timed_out);
    const int timed_out_recv = 1 + int(recv_errc::timed_out);
    for (size_t k = 0; k < length; ++k) {
        call c;
        bool made = false;
        for (int attempt = 0; attempt < 50 && !made; ++attempt) {
            const auto kind = static_cast<call_kind>(pick(size_t(call_kind::missed) + 1));
            c = call{};
            c.kind = kind;
            c.thread = own_thread(); // the intervals below overlap at random: no program order among them
            auto one_of = [&](const std::vector<named>& v) -> const named& { return v[pick(v.size())]; };
            auto take_one_of = [&](std::vector<named>& v) {
                const size_t i = pick(v.size());
                const named taken = v[i];
                v.erase(v.begin() + std::ptrdiff_t(i));
                return taken;
            };
            auto every_handle = [&] {
                std::vector<named> any = senders;
                any.insert(any.end(), receivers.begin(), receivers.end());
                any.insert(any.end(), inactives.begin(), inactives.end());
                return any;
            };
            const bool have_tx = !senders.empty(), have_rx = !receivers.empty(), have_ia = !inactives.empty();
            made = [&] {
                switch (kind) {
                case call_kind::try_broadcast:
                case call_kind::broadcast:
                case call_kind::broadcast_timed: {
                    if (!have_tx) return false;
                    const named s = one_of(senders);
                    c.handle = s.logical, c.arg = next_message++;
                    if (kind == call_kind::broadcast && m.broadcast_would_block()) return false;
                    if (kind == call_kind::broadcast_timed && m.broadcast_would_block()) c.result = {timed_out_send, c.arg, 0};
                    else c.result = spec::encode_send(m.try_broadcast(s.id, c.arg));
                    return true;
                }
                case call_kind::try_recv:
                case call_kind::recv:
                case call_kind::recv_timed: {
                    if (!have_rx) return false;
                    const named r = one_of(receivers);
                    c.handle = r.logical;
                    if (kind == call_kind::recv && m.recv_would_block(r.id)) return false;
                    if (kind == call_kind::recv_timed && m.recv_would_block(r.id)) c.result = {timed_out_recv, -1, 0};
                    else c.result = spec::encode_recv(m.try_recv(r.id));
                    return true;
                }
                case call_kind::clone_receiver:
                case call_kind::clone_sender: {
                    std::vector<named>& same_kind = kind == call_kind::clone_receiver ? receivers : senders;
                    if (same_kind.empty()) return false;
                    const named f = one_of(same_kind);
                    c.handle = f.logical, c.out = next_logical++;
                    same_kind.push_back({c.out, kind == call_kind::clone_receiver ? m.clone_receiver(f.id) : m.clone_sender(f.id)});
                    return true;
                }
                case call_kind::new_receiver:
                case call_kind::new_sender: {
                    std::vector<named> from = receivers;
                    if (kind == call_kind::new_receiver) from.insert(from.end(), senders.begin(), senders.end());
                    if (from.empty()) return false;
                    const named f = one_of(from);
                    c.handle = f.logical, c.out = next_logical++;
                    if (kind == call_kind::new_receiver) receivers.push_back({c.out, m.new_receiver(f.id)});
                    else senders.push_back({c.out, m.new_sender(f.id)});
                    return true;
                }
                case call_kind::drop_receiver:
                case call_kind::deactivate: {
                    if (!have_rx) return false;
                    const named r = take_one_of(receivers);
                    c.handle = r.logical;
                    if (kind == call_kind::deactivate) {
                        c.out = next_logical++;
                        inactives.push_back({c.out, m.deactivate(r.id)});
                    } else {
                        m.drop_receiver(r.id);
                    }
                    return true;
                }
                case call_kind::drop_sender: {
                    if (!have_tx || pick(3) != 0) return false; // rarely: the last one closes the channel
                    const named s = take_one_of(senders);
                    c.handle = s.logical;
                    m.drop_sender(s.id);
                    return true;
                }
                case call_kind::activate_cloned:
                case call_kind::activate:
                case call_kind::clone_inactive:
                case call_kind::drop_inactive: {
                    if (!have_ia) return false;
                    const bool consumes = kind == call_kind::drop_inactive || kind == call_kind::activate;
                    const named ia = consumes ? take_one_of(inactives) : one_of(inactives);
                    c.handle = ia.logical;
                    if (kind == call_kind::drop_inactive) {
                        m.drop_inactive(ia.id);
                    } else {
                        c.out = next_logical++;
                        if (kind == call_kind::activate_cloned) receivers.push_back({c.out, m.activate_cloned(ia.id)});
                        else if (kind == call_kind::activate) receivers.push_back({c.out, m.activate(ia.id)});
                        else inactives.push_back({c.out, m.clone_inactive(ia.id)});
                    }
                    return true;
                }
                case call_kind::set_capacity:
                case call_kind::set_overflow:
                case call_kind::set_await_active:
                case call_kind::close: {
                    const std::vector<named> any = every_handle();
                    if (any.empty() || (kind == call_kind::close && pick(3) != 0)) return false;
                    const named via = one_of(any);
                    c.handle = via.logical;
                    if (kind == call_kind::set_capacity) c.arg = int(1 + pick(3)), m.set_capacity(via.id, size_t(c.arg));
                    else if (kind == call_kind::set_overflow) c.arg = int(pick(2)), m.set_overflow(via.id, c.arg != 0);
                    else if (kind == call_kind::set_await_active) c.arg = int(pick(2)), m.set_await_active(via.id, c.arg != 0);
                    else c.result = closed_it(m.close(via.id));
                    return true;
                }
                case call_kind::broadcast_expired: // not recorded (operations.hpp): traces only
                case call_kind::recv_expired:
                case call_kind::same_channel:
                    return false;
#define BCAST_PLAIN_QUERY(name) case call_kind::name:
                    BCAST_PLAIN_QUERIES
#undef BCAST_PLAIN_QUERY
                    {
                        // unread and missed ask a receiver; the channel-wide queries, any live handle
                        const bool on_receiver = spec::operation_of(kind).acts_on == spec::handle_kind::receiver;
                        const std::vector<named> candidates = on_receiver ? receivers : every_handle();
                        if (candidates.empty()) return false;
                        const named chosen = one_of(candidates);
                        c.handle = chosen.logical;
                        c.result = got(int(spec::ask(m, kind, chosen.id)));
                        return true;
                    }
                }
                return false; // not a call_kind
            }();
        }
        if (!made) break;
        const std::uint64_t point = 10'000 + 1'000 * std::uint64_t(k);
        c.invoked = point - pick(1'800);
        c.returned = point + 1 + pick(1'800);
        out.calls.push_back(c);
    }
    if (with_pending) {
        const std::uint64_t point = 10'000 + 1'000 * std::uint64_t(out.calls.size());
        const size_t count = 1 + pick(2);
        for (size_t i = 0; i < count; ++i) {
            const bool send = pick(2) == 0;
            if (send && senders.empty()) continue;
            if (!send && receivers.empty()) continue;
            const int h = send ? senders[pick(senders.size())].logical : receivers[pick(receivers.size())].logical;
            out.calls.push_back(pending(send ? call_kind::broadcast : call_kind::recv, h, 900 + int(i), point - pick(1'800)));
        }
        if (pick(4) == 0 && !senders.empty())
            out.calls.push_back(pending(call_kind::try_broadcast, senders[0].logical, 950, point - pick(1'800)));
    }
    return out;
}

bool answer_is_checked(call_kind k) {
    switch (k) {
    case call_kind::try_broadcast:
    case call_kind::broadcast:
    case call_kind::broadcast_timed:
    case call_kind::try_recv:
    case call_kind::recv:
    case call_kind::recv_timed:
    case call_kind::close: return true;
    default: return k >= call_kind::len; // the queries
    }
}

void expect_same_reports(const check_report& memo, const check_report& brute, const std::vector<call>& h) {
    EXPECT_EQ(memo.result, brute.result) << report(memo, h) << "\nbrute force:\n"
                                         << report(brute, h);
    EXPECT_EQ(memo.order, brute.order) << report(memo, h) << "\nbrute force:\n"
                                       << report(brute, h);
    EXPECT_EQ(memo.unplaceable, brute.unplaceable);
    EXPECT_EQ(memo.lost_calls, brute.lost_calls);
    EXPECT_EQ(memo.rule, brute.rule);
    EXPECT_EQ(memo.wake_call, brute.wake_call);
    EXPECT_EQ(memo.model_state, brute.model_state);
    EXPECT_LE(memo.states_explored, brute.states_explored);
    EXPECT_FALSE(memo.gave_up);
    EXPECT_FALSE(brute.gave_up);
}

TEST(linearizability, memoised_and_brute_force_search_agree_on_random_histories) {
    std::mt19937 rng(20240611);
    std::array<int, 4> seen{};
    int corrupted = 0;
    for (int round = 0; round < 400; ++round) {
        const bool with_pending = round % 3 == 2;
        const random_history rh = make_random_history(rng, with_pending);
        const auto& h = rh.calls;
        SCOPED_TRACE("round " + std::to_string(round));
        const check_report memo = check_history(h, rh.capacity, tx, rx, {.memoise = true});
        const check_report brute = check_history(h, rh.capacity, tx, rx, {.memoise = false});
        expect_same_reports(memo, brute, h);
        ++seen[size_t(memo.result)];
        if (!with_pending) EXPECT_EQ(memo.result, verdict::linearizable) << report(memo, h);
        else EXPECT_NE(memo.result, verdict::not_linearizable) << report(memo, h);

        // An answer no order can give: a message never sent, or close() answering 7.
        std::vector<size_t> checked;
        for (size_t i = 0; i < h.size(); ++i)
            if (!h[i].is_pending() && answer_is_checked(h[i].kind)) checked.push_back(i);
        if (checked.empty()) continue;
        std::vector<call> bad = h;
        call& victim = bad[checked[std::uniform_int_distribution<size_t>(0, checked.size() - 1)(rng)]];
        victim.result = victim.kind == call_kind::close ? outcome{0, 7, 0} : outcome{0, 5'000, 0};
        const check_report bad_memo = check_history(bad, rh.capacity, tx, rx, {.memoise = true});
        const check_report bad_brute = check_history(bad, rh.capacity, tx, rx, {.memoise = false});
        expect_same_reports(bad_memo, bad_brute, bad);
        EXPECT_EQ(bad_memo.result, verdict::not_linearizable) << report(bad_memo, bad);
        ++corrupted;

        // A plausible corruption (two checked answers swapped): any verdict, the same in both.
        if (checked.size() >= 2) {
            std::vector<call> swapped = h;
            std::swap(swapped[checked[0]].result, swapped[checked.back()].result);
            expect_same_reports(check_history(swapped, rh.capacity, tx, rx, {.memoise = true}),
                                check_history(swapped, rh.capacity, tx, rx, {.memoise = false}), swapped);
        }
    }
    std::printf("verdicts: linearizable %d, lost_wakeup %d, spec_deadlock %d; corrupted histories %d\n",
                seen[size_t(verdict::linearizable)], seen[size_t(verdict::lost_wakeup)],
                seen[size_t(verdict::spec_deadlock)], corrupted);
    EXPECT_GT(seen[size_t(verdict::lost_wakeup)], 0);
    EXPECT_GT(seen[size_t(verdict::spec_deadlock)], 0);
    EXPECT_GT(corrupted, 100);
}

} // namespace
} // namespace bcast::spec_tests
