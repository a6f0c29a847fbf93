// SPDX-License-Identifier: MIT OR Apache-2.0
// The checker (docs/traces.md, "Checking"): bcast agrees with the model, and
// the checker catches what it must: a tampered result, two seeded bugs in a
// channel (minimised to a few steps), and the divergence table's rows and
// nothing else.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <bcast/spec/channel_adapter.hpp>
#include <bcast/trace/check.hpp>
#include <bcast/trace/run.hpp>

namespace bcast::trace {
namespace {

using adapter = spec::channel_adapter<int>;

std::vector<trace> generated(std::size_t count, std::string_view target = target_bcast) {
    generate_options options;
    options.count = count;
    options.target = std::string(target);
    return generate(options);
}

TEST(checking, bcast_agrees_with_the_model_in_every_step) {
    const std::vector<trace> traces = generated(300);
    const verdict v = check(traces, replay<adapter>(traces, "generated", "bcast"), {false});
    EXPECT_EQ(v.traces_agreed, 300u);
    EXPECT_EQ(v.steps_agreed, v.steps);
    EXPECT_TRUE(v.differences.empty());
}

TEST(checking, finds_a_tampered_result_at_its_step) {
    const std::vector<trace> traces = generated(20);
    std::vector<trace> results = replay<adapter>(traces, "generated", "bcast");
    trace& t = results[7];
    ASSERT_GT(t.steps.size(), 3u);
    t.steps[3].result = json(json_object{{"value", json(12345)}});
    const verdict v = check(traces, results, {false});
    ASSERT_EQ(v.differences.size(), 1u);
    EXPECT_EQ(v.differences[0].trace, 7u);
    EXPECT_EQ(v.differences[0].step, 3u);
    EXPECT_EQ(v.differences[0].rule, governing_rule(traces[7].steps[3]));
    EXPECT_EQ(v.differences[0].documented, nullptr);
    EXPECT_EQ(v.steps_not_compared, traces[7].steps.size() - 4);
}

TEST(checking, refuses_results_that_are_not_for_these_traces) {
    const std::vector<trace> traces = generated(3);
    std::vector<trace> results = replay<adapter>(traces, "generated", "bcast");
    ASSERT_FALSE(results[0].steps.empty());
    auto error_of = [&](const std::vector<trace>& r) -> std::string {
        try {
            check(traces, r);
        } catch (const format_error& e) {
            return e.what();
        }
        return "";
    };
    std::vector<trace> missing(results.begin(), results.begin() + 2);
    EXPECT_NE(error_of(missing).find("no results for trace 2"), std::string::npos);
    std::vector<trace> other = results;
    other[1].capacity += 1;
    EXPECT_NE(error_of(other).find("has capacity"), std::string::npos);
    std::vector<trace> shorter = results;
    shorter[0].steps.pop_back();
    EXPECT_NE(error_of(shorter).find("steps, the traces have"), std::string::npos);
    std::vector<trace> extra = results;
    extra.push_back(results[0]);
    extra.back().id = 99;
    EXPECT_NE(error_of(extra).find("results for trace 99"), std::string::npos);
}

// Seeded bug 1: an overflowed(n) report one too high (the "wrong missed count" mutant).
struct wrong_missed_count : adapter {
    using adapter::adapter;
    recv_result<int> try_recv(spec::handle_id id) {
        recv_result<int> r = adapter::try_recv(id);
        if (!r.has_value() && r.error().code == recv_errc::overflowed) {
            return recv_result<int>(error_tag, recv_error{recv_errc::overflowed, r.error().missed + 1});
        }
        return r;
    }
};

// Seeded bug 2: dropping a sender never closes the channel (R-CLOSE-2): the
// sender is kept alive behind the adapter's back.
struct last_sender_keeps_channel_open : adapter {
    using adapter::adapter;
    std::vector<sender<int>> kept;
    void drop_sender(spec::handle_id id) {
        kept.push_back(sender_at(id));
        adapter::drop_sender(id);
    }
};

template <class Buggy>
void caught_and_minimised(const char* rule) {
    const std::vector<trace> traces = generated(400);
    // A blocking call that the bug makes wait ends as "blocked" after 20 ms, not 5 s.
    const auto replay_buggy = [](const std::vector<trace>& t) { return replay<Buggy>(t, "generated", "seeded bug", std::chrono::milliseconds(20)); };
    const std::vector<trace> results = replay_buggy(traces);
    const verdict v = check(traces, results, {false});
    ASSERT_FALSE(v.differences.empty()) << "the seeded bug went unnoticed";
    const difference* first = nullptr;
    for (const difference& d : v.differences) {
        EXPECT_EQ(d.documented, nullptr);
        if (first == nullptr && d.rule == rule) first = &d;
    }
    ASSERT_NE(first, nullptr) << "no difference governed by " << rule;
    const trace& original = traces[first->trace];
    const trace small = minimise(original, *first, replay_buggy, false);
    EXPECT_LE(small.steps.size(), first->step + 1);
    std::ostringstream shown;
    write_trace(shown, small);
    EXPECT_LE(small.steps.size(), 6u) << "minimised from " << first->step + 1 << " steps to\n"
                                      << shown.str();
    // The minimised trace still shows the difference, at its last step.
    const verdict again = check({small}, replay_buggy({small}), {false});
    ASSERT_EQ(again.differences.size(), 1u);
    EXPECT_EQ(again.differences[0].step + 1, small.steps.size());
    EXPECT_EQ(again.differences[0].rule, rule);
    std::cout << "[ seeded bug ] " << v.differences.size() << " of 400 traces differ; the first " << rule << " one minimised from "
              << first->step + 1 << " to " << small.steps.size() << " steps\n";
}

TEST(checking, catches_a_wrong_missed_count_and_minimises_it) { caught_and_minimised<wrong_missed_count>("R-OVF-2"); }

TEST(checking, catches_a_last_sender_that_does_not_close_and_minimises_it) {
    caught_and_minimised<last_sender_keeps_channel_open>("R-CLOSE-5");
}

// ---- the divergence table on hand-made upstream results -------------------------------

trace upstream_trace(std::vector<step> steps) {
    trace t;
    t.target = std::string(target_upstream);
    t.capacity = 2;
    t.steps = std::move(steps);
    std::optional<trace> resolved = resolve(std::move(t));
    EXPECT_TRUE(resolved.has_value());
    return *resolved;
}

step make(std::string_view op, std::uint64_t handle, json arg = {}) {
    step s;
    s.op = find_op(op);
    s.handle = handle;
    s.arg = std::move(arg);
    if (s.op->sends) s.message = 0;
    if (s.op->makes_handle) s.made = 100; // resolve() renumbers it
    return s;
}

TEST(divergences, set_capacity_zero_accepted_is_documented_as_R_CAP_2) {
    const trace t = upstream_trace({make("try_broadcast", 0), make("set_capacity", 0, json(0)), make("len", 0)});
    trace r = t;
    r.steps[1].result = ok();
    r.steps[2].result = value_result(json(0)); // the queue emptied: not compared any more
    const verdict v = check({t}, {r});
    ASSERT_EQ(v.differences.size(), 1u);
    EXPECT_EQ(v.differences[0].rule, "R-CAP-2");
    ASSERT_NE(v.differences[0].documented, nullptr);
    EXPECT_EQ(v.differences[0].documented->rule, "R-CAP-2");
    EXPECT_EQ(v.undocumented(), 0u);
    EXPECT_EQ(v.steps_not_compared, 1u);
}

TEST(divergences, await_active_unsupported_is_counted_and_its_consequence_documented) {
    // Only an inactive receiver: with await_active off, broadcast answers inactive (R-ACT-2).
    const trace t = upstream_trace({make("set_await_active", 0, json(false)), make("deactivate", 1), make("broadcast", 0)});
    trace r = t;
    r.steps[0].result = unsupported();
    r.steps[2].result = blocked();
    const verdict v = check({t}, {r});
    EXPECT_EQ(v.steps_unsupported, 1u);
    EXPECT_EQ(v.unsupported_by_op.at("set_await_active"), 1u);
    ASSERT_EQ(v.differences.size(), 1u);
    ASSERT_NE(v.differences[0].documented, nullptr);
    EXPECT_EQ(v.differences[0].documented->rule, "R-ACT-2");
    EXPECT_EQ(v.undocumented(), 0u);

    // The same blocked broadcast without the earlier unsupported step is not documented.
    const trace plain = upstream_trace({make("set_await_active", 0, json(false)), make("deactivate", 1), make("broadcast", 0)});
    trace r2 = plain;
    r2.steps[2].result = blocked(); // set_await_active answered as the spec says: no excuse
    EXPECT_EQ(check({plain}, {r2}).undocumented(), 1u);
}

TEST(divergences, unsupported_where_no_row_says_so_is_an_undocumented_difference) {
    const trace t = upstream_trace({make("len", 0)});
    trace r = t;
    r.steps[0].result = unsupported();
    const verdict v = check({t}, {r});
    EXPECT_EQ(v.steps_unsupported, 0u);
    EXPECT_EQ(v.undocumented(), 1u);
}

TEST(divergences, the_table_applies_only_to_async_broadcast_traces) {
    trace t = upstream_trace({make("set_capacity", 0, json(0))});
    t.target = std::string(target_bcast);
    trace r = t;
    r.steps[0].result = ok();
    EXPECT_EQ(check({t}, {r}).undocumented(), 1u);
}

} // namespace
} // namespace bcast::trace
