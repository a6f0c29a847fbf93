// SPDX-License-Identifier: MIT OR Apache-2.0
// The scenario generator's own tests: the text form reads back, normalise()
// keeps only valid commands, enumeration is deterministic and complete, the
// minimiser's variants are smaller, random sampling takes its flavours in
// turn (and leaves the async commands out when asked), and the spec explorer finds the
// deadlocks the spec has and no others.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "generator.hpp"
#include "spec_explorer.hpp"

namespace gen = bcast::gen;

TEST(scenario_text, reads_back_every_generated_scenario) {
    for (std::uint64_t seed = 1; seed <= 500; ++seed) {
        const gen::scenario s = gen::random_scenario(seed, {});
        std::string error;
        const auto back = gen::parse_scenario(gen::to_string(s), &error);
        ASSERT_TRUE(back.has_value()) << gen::to_string(s) << ": " << error;
        EXPECT_EQ(*back, s) << gen::to_string(s);
    }
}

TEST(scenario_text, a_malformed_text_names_the_part_and_the_reason) {
    std::string error;
    EXPECT_FALSE(gen::parse_scenario("cap:9 | t0{0}: recv:1", &error));
    EXPECT_NE(error.find("capacity must be 1..5"), std::string::npos) << error;
    EXPECT_FALSE(gen::parse_scenario("cap:1 | t0{0}: fly:0", &error));
    EXPECT_NE(error.find("part 2"), std::string::npos) << error;
    EXPECT_NE(error.find("unknown or unsupported command 'fly'"), std::string::npos) << error;
    EXPECT_FALSE(gen::parse_scenario("cap:1 | t0{0}: recv:x", &error));
    EXPECT_NE(error.find("bad number in 'recv:x'"), std::string::npos) << error;
    EXPECT_FALSE(gen::parse_scenario("cap:1 | setup: try_broadcast:0", &error));
    EXPECT_NE(error.find("at least one thread"), std::string::npos) << error;
    EXPECT_FALSE(gen::parse_scenario("cap:1 | t0{1}: recv_throwing:1", &error)); // the property tests' only
    EXPECT_NE(error.find("unsupported command 'recv_throwing'"), std::string::npos) << error;
    EXPECT_FALSE(gen::parse_scenario("cap:1 | t0{0;x}: len:0", &error));
    EXPECT_NE(error.find("bad handle list"), std::string::npos) << error;
}

TEST(normalise, drops_commands_on_handles_the_context_does_not_hold) {
    // Thread 1 names the first receiver, which thread 0 holds; thread 0
    // receives after dropping its receiver; the setup waits (nobody could
    // wake it). Each of those is dropped; the rest stays.
    const auto s = gen::parse_scenario(
        "cap:1 | setup: recv:1 try_broadcast:0 | t0{1}: drop_receiver:1 recv:1 | t1{0}: recv:1 broadcast:0 | teardown:");
    ASSERT_TRUE(s);
    EXPECT_EQ(gen::to_string(*s),
              "cap:1 | setup: try_broadcast:0 | t0{1}: drop_receiver:1 | t1{0}: broadcast:0 | teardown:");
}

TEST(normalise, numbers_created_handles_from_the_context_range) {
    const auto s = gen::parse_scenario("cap:1 | setup: clone_receiver:1 | t0{0,2}: clone_receiver:2 recv:12 | t1{1}: "
                                       "deactivate:1 activate:16 recv:17 | teardown: close:0");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->setup[0].out, 2);
    EXPECT_EQ(s->threads[0].steps[0].out, gen::first_logical(0));
    EXPECT_EQ(s->threads[0].steps.size(), 2u); // recv:12 is on the clone
    EXPECT_EQ(s->threads[1].steps[1].out, gen::first_logical(1) + 1);
    EXPECT_EQ(s->threads[1].steps.size(), 3u);
    EXPECT_EQ(s->teardown.size(), 1u);
}

TEST(normalise, a_borrower_uses_only_const_methods_and_the_owner_never_drops_a_lent_handle) {
    // t1 borrows t0's receiver 1 and sender 0: it may copy the receiver and
    // send on the sender, not receive on the receiver; t0 may
    // not drop what it lent. A borrow of a handle nobody owns is dropped.
    const auto s = gen::parse_scenario("cap:1 | t0{0,1}: recv:1 drop_receiver:1 drop_sender:0 | "
                                       "t1{;1,0,5}: clone_receiver:1 recv:1 broadcast:0 recv:16 | teardown:");
    ASSERT_TRUE(s);
    EXPECT_EQ(gen::to_string(*s),
              "cap:1 | setup: | t0{0,1}: recv:1 | t1{;1,0}: clone_receiver:1 broadcast:0 recv:16 | teardown:");
    EXPECT_EQ(gen::parse_scenario(gen::to_string(*s)), s); // the text form reads back
}

TEST(normalise, a_query_is_valid_on_every_handle_kind_it_is_defined_for) {
    const auto s = gen::parse_scenario("cap:1 | setup: clone_receiver:1 deactivate:2 | t0{0,1,3}: len:0 unread:0 "
                                       "missed:1 is_closed:3 | t1{;1}: unread:3 unread:1 | teardown:");
    ASSERT_TRUE(s);
    EXPECT_EQ(gen::to_string(*s), "cap:1 | setup: clone_receiver:1 deactivate:2 | t0{0,1,3}: len:0 missed:1 "
                                  "is_closed:3 | t1{;1}: unread:1 | teardown:");
    const auto cancelled = gen::parse_scenario("cap:1 | t0{1}: async_recv_cancelled:1:1 async_recv_cancelled:1:7");
    ASSERT_TRUE(cancelled); // the argument of a cancelled command: 1 before the start, 0 once queued
    EXPECT_EQ(gen::to_string(*cancelled),
              "cap:1 | setup: | t0{1}: async_recv_cancelled:1:1 async_recv_cancelled:1:1 | teardown:");
}

TEST(enumerate, visits_the_same_distinct_scenarios_every_time) {
    gen::generator_config cfg;
    cfg.max_threads = 2, cfg.max_steps = 1, cfg.max_capacity = 1, cfg.lifecycle = false, cfg.flags = false;
    cfg.queries = false, cfg.borrowing = false;
    std::vector<std::string> first, second;
    gen::enumerate(cfg, [&](const gen::scenario& s) { return first.push_back(gen::to_string(s)), true; });
    gen::enumerate(cfg, [&](const gen::scenario& s) { return second.push_back(gen::to_string(s)), true; });
    EXPECT_EQ(first, second);
    // roles: 5 x 5; queued: 0 or 1; commands: per role (6 send, 6 receive,
    // 12 both, 0 on an inactive receiver without lifecycle commands; the
    // cancelled ones twice: cancelled before or after the start) x 3 teardowns.
    const std::set<std::string> distinct(first.begin(), first.end());
    EXPECT_GT(distinct.size(), first.size() / 2);
    const std::size_t per_role[] = {6, 6, 12, 0, 6}; // sender, receiver, both, inactive, sender+inactive
    std::size_t expected = 0;
    for (std::size_t a : per_role)
        for (std::size_t b : per_role) expected += std::max<std::size_t>(a, 1) * std::max<std::size_t>(b, 1);
    EXPECT_EQ(first.size(), 2 * expected * 3);
}

TEST(enumerate, stops_when_the_visitor_says_so) {
    int seen = 0;
    const auto n = gen::enumerate({}, [&](const gen::scenario&) { return ++seen < 7; });
    EXPECT_EQ(n, 7u);
}

TEST(smaller_variants, are_each_one_step_smaller_and_valid) {
    const gen::scenario s = gen::random_scenario(42, {});
    const auto variants = gen::smaller_variants(s);
    ASSERT_FALSE(variants.empty());
    for (const auto& v : variants) {
        EXPECT_NE(v, s);
        EXPECT_EQ(gen::normalise(v), v);
        EXPECT_LE(gen::thread_steps(v), gen::thread_steps(s));
        EXPECT_LE(v.threads.size(), s.threads.size());
    }
}

TEST(sampling, seeds_take_turns_between_the_whole_space_the_core_commands_and_the_contention_shape) {
    int queries = 0, borrows = 0;
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
        const gen::generator_config cfg = gen::sampling_config(seed, {});
        EXPECT_EQ(cfg.queries, seed % 3 == 0);
        EXPECT_EQ(cfg.borrowing, seed % 3 == 0);
        EXPECT_EQ(cfg.two_waiters, seed % 3 == 2);
        const gen::scenario s = gen::random_scenario(seed, cfg);
        for (const auto& t : s.threads) {
            borrows += !t.borrows.empty();
            for (const auto& st : t.steps) queries += gen::is_query(st.what);
            if (seed % 3 != 0) {
                EXPECT_TRUE(t.borrows.empty()) << gen::to_string(s);
            }
        }
    }
    EXPECT_GT(queries, 0); // the whole space still has them
    EXPECT_GT(borrows, 0);
}

TEST(sampling, the_contention_shape_starts_two_threads_with_a_blocking_call_of_one_kind) {
    using gen::op;
    int sends = 0, receives = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        gen::generator_config cfg;
        cfg.two_waiters = true;
        const gen::scenario s = gen::random_scenario(seed, cfg);
        ASSERT_EQ(s.threads.size(), 3u) << gen::to_string(s);
        const op first[2] = {s.threads[0].steps.at(0).what, s.threads[1].steps.at(0).what};
        auto is_send = [](op w) { return w == op::broadcast || w == op::async_broadcast; };
        auto is_recv = [](op w) { return w == op::recv || w == op::async_recv; };
        EXPECT_TRUE((is_send(first[0]) && is_send(first[1])) || (is_recv(first[0]) && is_recv(first[1])))
            << gen::to_string(s);
        sends += is_send(first[0]);
        receives += is_recv(first[0]);
        EXPECT_FALSE(s.threads[2].owns.empty()) << "the third thread holds what ends the wait: " << gen::to_string(s);
    }
    EXPECT_GT(sends, 0);
    EXPECT_GT(receives, 0);
}

// bcast::fast has no async calls (P-FAST-5): with async off no scenario has
// one, in any flavour, while the same seeds with async on do draw them.
TEST(sampling, with_async_off_no_scenario_has_an_async_command_and_the_rest_still_varies) {
    int with_async = 0, blocking = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        gen::generator_config off;
        off.async = false;
        const gen::scenario s = gen::random_scenario(seed, gen::sampling_config(seed, off));
        EXPECT_FALSE(gen::has_command(s, gen::is_async)) << gen::to_string(s);
        for (const auto& t : s.threads)
            for (const auto& st : t.steps) blocking += gen::may_block(st.what);
        with_async += gen::has_command(gen::random_scenario(seed, gen::sampling_config(seed, {})), gen::is_async);
    }
    EXPECT_GT(blocking, 0); // the blocking calls stay: they are what bcast::fast's wakeups are for
    EXPECT_GT(with_async, 0);
}

// The spec explorer on the scenario written as `text`; a text that does not parse fails the test.
gen::exploration explored(const std::string& text) {
    std::string error;
    const auto s = gen::parse_scenario(text, &error);
    if (!s) throw std::invalid_argument(text + ": " + error);
    return gen::explore(*s);
}

TEST(spec_explorer, a_receive_nobody_sends_to_is_a_spec_deadlock) {
    EXPECT_TRUE(explored("cap:1 | t0{0}: try_broadcast:0 | t1{1}: recv:1 recv:1 | teardown:").spec_may_deadlock);
}

TEST(spec_explorer, a_receive_the_other_thread_sends_to_cannot_deadlock) {
    const gen::exploration e = explored("cap:1 | t0{0}: broadcast:0 broadcast:0 | t1{1}: recv:1 recv:1 | teardown:");
    EXPECT_FALSE(e.spec_may_deadlock);
    // Capacity 1: the second send waits for the first receive and each
    // receive for a send, so send, receive, send, receive is the only order.
    EXPECT_EQ(e.interleavings, 1u);
}

TEST(spec_explorer, a_dropped_last_sender_ends_every_wait) {
    // R-CLOSE-2: the receive ends with `closed` in every order.
    EXPECT_FALSE(explored("cap:1 | t0{0}: drop_sender:0 | t1{1}: recv:1 async_recv:1 | teardown:").spec_may_deadlock);
}

TEST(spec_explorer, a_timed_receive_never_deadlocks) {
    EXPECT_FALSE(explored("cap:1 | t0{1}: recv_expired:1 async_recv_cancelled:1 | t1{0}: close:0 | teardown:").spec_may_deadlock);
}
