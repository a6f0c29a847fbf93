// SPDX-License-Identifier: MIT OR Apache-2.0
// The driver protocol's programs (bcast/trace/program.hpp) and the C++ driver
// library (driver.hpp), in process: programs are drawn the same way every
// time, never ask for what a driver lacks, and read back as written; the
// driver answers every call of a program as docs/drivers.md says. The whole
// exchange with real driver processes is the drive.* ctests.
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <bcast/spec/channel_adapter.hpp>
#include <bcast/trace/driver.hpp>
#include <bcast/trace/program.hpp>

namespace {

using namespace bcast::trace;
namespace spec = bcast::spec;

record_options some_options(bool contention) {
    record_options o;
    o.seed = 11;
    o.contention_only = contention;
    return o;
}

TEST(programs, the_same_seed_and_id_draw_the_same_program) {
    for (std::uint64_t id = 0; id < 50; ++id)
        EXPECT_EQ(program_line(make_program(some_options(false), id)), program_line(make_program(some_options(false), id)));
    EXPECT_NE(program_line(make_program(some_options(false), 1)), program_line(make_program(some_options(false), 2)));
}

TEST(programs, a_program_reads_back_as_it_was_written) {
    for (std::uint64_t id = 0; id < 200; ++id) {
        const program p = make_program(some_options(id % 2 == 0), id);
        const std::string line = program_line(p);
        const program back = read_program(json::parse(line), "test", 1);
        EXPECT_EQ(program_line(back), line);
    }
}

// Every call is on a handle its thread holds at that point, of the kind it
// needs, and every number made is new: what a driver relies on.
TEST(programs, every_call_is_on_a_live_handle_of_its_thread) {
    for (std::uint64_t id = 0; id < 300; ++id) {
        const program p = make_program(some_options(id % 3 == 0), id);
        std::vector<spec::handle_kind> kind(spec::max_logical_handles, spec::handle_kind::none);
        std::vector<int> holder(spec::max_logical_handles, -2);
        kind[0] = spec::handle_kind::sender, kind[1] = spec::handle_kind::receiver;
        holder[0] = holder[1] = -1;
        std::set<int> made{0, 1};
        auto follow = [&](const std::vector<program_call>& calls, int thread) {
            for (const program_call& c : calls) {
                const spec::operation& op = spec::operation_of(c.request.kind);
                const auto h = std::size_t(c.request.handle);
                ASSERT_NE(kind[h], spec::handle_kind::none) << "program " << id << ": handle " << h << " is not alive";
                ASSERT_TRUE(thread == -1 || holder[h] == thread || holder[h] == -1) << "program " << id << ": handle " << h << " is another thread's";
                ASSERT_TRUE(op.acts_on == spec::handle_kind::any || op.acts_on == kind[h] ||
                            (op.acts_on == spec::handle_kind::sender_or_receiver && kind[h] != spec::handle_kind::inactive))
                    << "program " << id << ": " << op.name << " on a handle of the wrong kind";
                holder[h] = thread;
                if (op.consumes) kind[h] = spec::handle_kind::none;
                if (spec::creates_handle(c.request.kind)) {
                    ASSERT_TRUE(made.insert(c.request.out).second) << "program " << id << ": number " << c.request.out << " made twice";
                    kind[std::size_t(c.request.out)] = op.creates;
                    holder[std::size_t(c.request.out)] = thread;
                }
            }
        };
        follow(p.setup, -1);
        for (std::size_t t = 0; t < p.lanes.size(); ++t) follow(p.lanes[t], int(t));
    }
}

// 8 threads of up to 50 calls would be 400: a program stops drawing at the
// 256 calls a history may hold, setup included.
TEST(programs, a_program_never_holds_more_calls_than_a_history_may) {
    record_options o = some_options(false);
    o.min_threads = o.max_threads = 8;
    o.calls = 50;
    std::size_t largest = 0;
    for (std::uint64_t id = 0; id < 50; ++id) {
        const program p = make_program(o, id);
        std::size_t calls = p.setup.size();
        for (const auto& l : p.lanes) calls += l.size();
        largest = std::max(largest, calls);
    }
    EXPECT_EQ(largest, spec::max_history_calls);
}

// Shrinking takes one call out, and with it every later call on a handle only
// it made: the rest is still a program on live handles.
TEST(programs, taking_a_call_out_takes_the_calls_on_what_it_made) {
    program p;
    auto call = [](spec::call_kind k, int handle, int out = -1) {
        program_call c;
        c.request.kind = k, c.request.handle = handle, c.request.out = out;
        return c;
    };
    p.setup = {call(spec::call_kind::clone_receiver, 1, 2), call(spec::call_kind::len, 2)};
    p.lanes = {{call(spec::call_kind::recv, 2), call(spec::call_kind::deactivate, 2, 3), call(spec::call_kind::drop_inactive, 3)},
               {call(spec::call_kind::try_broadcast, 0), call(spec::call_kind::recv, 1)}};
    const program no_clone = without_call(p, 0, 0);
    EXPECT_TRUE(no_clone.setup.empty());
    EXPECT_TRUE(no_clone.lanes[0].empty()); // all on handle 2, or on 3 that a call on 2 made
    EXPECT_EQ(no_clone.lanes[1].size(), 2u);
    const program no_deactivate = without_call(p, 1, 1);
    ASSERT_EQ(no_deactivate.lanes[0].size(), 1u);
    EXPECT_EQ(no_deactivate.lanes[0][0].request.kind, spec::call_kind::recv);
    EXPECT_EQ(call_count(without_call(p, 2, 0)), call_count(p) - 1);
}

TEST(programs, an_operation_the_driver_lacks_is_never_asked_for) {
    const operation_set lacks{spec::call_kind::deactivate, spec::call_kind::set_await_active, spec::call_kind::len, spec::call_kind::missed};
    int calls = 0;
    for (std::uint64_t id = 0; id < 300; ++id) {
        const program p = make_program(some_options(id % 2 == 0), id, lacks);
        auto none_lacking = [&](const std::vector<program_call>& list) {
            for (const program_call& c : list) {
                ++calls;
                EXPECT_FALSE(lacks.contains(c.request.kind)) << "program " << id << " asks for " << spec::name(c.request.kind);
            }
        };
        none_lacking(p.setup);
        for (const auto& l : p.lanes) none_lacking(l);
    }
    EXPECT_GT(calls, 3000);
}

TEST(programs, a_contention_program_starts_its_waiters_with_a_call_that_waits) {
    int shaped = 0;
    for (std::uint64_t id = 0; id < 100; ++id) {
        const program p = make_program(some_options(true), id);
        if (!p.waker) continue;
        ++shaped;
        for (std::size_t t = 0; t + 1 < p.lanes.size(); ++t) {
            if (p.lanes[t].empty()) continue;
            const spec::call_kind first = p.lanes[t].front().request.kind;
            EXPECT_TRUE(first == spec::call_kind::broadcast || first == spec::call_kind::recv) << "program " << id;
        }
    }
    EXPECT_GT(shaped, 90);
}

TEST(programs, a_malformed_program_line_names_its_line) {
    auto error_of = [](const std::string& text) {
        try {
            read_program(json::parse(text), "bcast", 7);
        } catch (const format_error& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    EXPECT_EQ(error_of(R"({"program":1,"capacity":0,"bound_us":5,"setup":[],"threads":[[]]})"), "bcast:7: \"capacity\" must be at least 1 (R-CAP-1)");
    EXPECT_EQ(error_of(R"({"program":1,"capacity":1,"bound_us":5,"setup":[{"op":"fly","handle":0}],"threads":[[]]})"), "bcast:7: unknown operation \"fly\"");
    EXPECT_EQ(error_of(R"({"program":1,"capacity":1,"bound_us":5,"setup":[],"threads":[[]],"waker":3})"), "bcast:7: \"waker\" must name one of the threads");
}

// The C++ driver library, spoken to in process: a hello, then every call of
// each program answered once, then the end.
TEST(cpp_driver, answers_every_call_of_a_program_then_ends_it) {
    std::string programs;
    std::vector<program> sent;
    for (std::uint64_t id = 0; id < 20; ++id) {
        record_options o = some_options(false);
        o.stall = std::chrono::milliseconds(5);
        sent.push_back(make_program(o, id));
        programs += program_line(sent.back()) + "\n";
    }
    std::istringstream in(programs);
    std::ostringstream out;
    ASSERT_EQ(serve<spec::channel_adapter<int>>(in, out, "test"), 0);
    std::istringstream answers(out.str());
    std::string line;
    ASSERT_TRUE(std::getline(answers, line));
    EXPECT_EQ(line, R"({"format":"bcast-driver","version":1,"implementation":"test"})");
    for (const program& p : sent) {
        std::size_t calls = p.setup.size(), answered = 0;
        for (const auto& l : p.lanes) calls += l.size();
        for (;;) {
            ASSERT_TRUE(std::getline(answers, line)) << "program " << p.id << " has no end";
            const json o = json::parse(line);
            ASSERT_EQ(o.find("program")->as_int(), std::int64_t(p.id)) << line;
            if (o.find("end") != nullptr) break;
            ASSERT_NE(o.find("result"), nullptr) << line;
            ++answered;
        }
        // A thread stops after a blocking call that used its bound; the rest are answered.
        EXPECT_LE(answered, calls);
        EXPECT_GE(answered, p.setup.size());
    }
}

} // namespace
