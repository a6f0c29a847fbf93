// SPDX-License-Identifier: MIT OR Apache-2.0
// The trace format (docs/traces.md): JSON, reading with line-numbered errors,
// writing and reading back, and the generator's promises.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <bcast/spec/channel_adapter.hpp>
#include <bcast/trace/format.hpp>
#include <bcast/trace/json.hpp>
#include <bcast/trace/run.hpp>

#include "format_error_of.hpp"

namespace bcast::trace {
namespace {

std::vector<trace> read(const std::string& text) {
    std::istringstream in(text);
    return read_traces(in, "t.jsonl");
}

std::string reading_error(const std::string& text) {
    return tests::format_error_of([&] { read(text); });
}

const std::string header = R"({"format":"bcast-trace","version":1,"trace":0,"capacity":2,"profile":"p","target":"bcast"})";

TEST(json, round_trips_and_compares_objects_as_sets) {
    const json v = json::parse(R"( {"a":[1,-2,true,null,"x\"\n\u00e9"],"b":{}} )");
    EXPECT_EQ(json::parse(v.dump()), v);
    EXPECT_EQ(json::parse(R"({"x":1,"y":2})"), json::parse(R"({"y":2,"x":1})"));
    EXPECT_FALSE(json::parse(R"({"x":1})") == json::parse(R"({"x":2})"));
    EXPECT_EQ(v.find("a")->as_array()[4].as_string(), "x\"\n\xc3\xa9");
}

TEST(json, refuses_what_the_format_does_not_allow_with_the_column) {
    auto column_of = [](const char* text) -> std::size_t {
        try {
            json::parse(text);
        } catch (const json_error& e) {
            return e.column;
        }
        return 0;
    };
    EXPECT_EQ(column_of(R"({"a":1.5})"), 7u);                                                            // numbers are integers
    EXPECT_EQ(column_of(R"({"a":1,"a":2})"), 11u);                                                       // a duplicate member
    EXPECT_EQ(column_of(R"({"a":1)"), 7u);                                                               // truncated
    EXPECT_EQ(column_of(R"({"a":1} x)"), 9u);                                                            // text after the value
    EXPECT_NE(column_of("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]"), 0u); // too deep, no crash
}

TEST(reading, names_the_line_of_malformed_json) {
    const std::string e = reading_error(header + "\n{\"trace\":0,\"step\":0,\"op\":\"len\",\"handle\":0,\"result\":{}\n");
    EXPECT_NE(e.find("t.jsonl:2: column"), std::string::npos) << e;
}

TEST(reading, names_the_line_of_an_unknown_operation) {
    const std::string e = reading_error(header + "\n\n" + R"({"trace":0,"step":0,"op":"peek","handle":1,"result":{}})");
    EXPECT_NE(e.find("t.jsonl:3: unknown operation \"peek\""), std::string::npos) << e;
}

TEST(reading, refuses_steps_out_of_order_or_outside_a_trace) {
    EXPECT_NE(reading_error(R"({"trace":0,"step":0,"op":"len","handle":0,"result":{}})").find("t.jsonl:1: a step before any trace header"),
              std::string::npos);
    EXPECT_NE(reading_error(header + "\n" + R"({"trace":0,"step":1,"op":"len","handle":0,"result":{}})").find("t.jsonl:2: step 1 where step 0"),
              std::string::npos);
    EXPECT_NE(reading_error(header + "\n" + R"({"trace":3,"step":0,"op":"len","handle":0,"result":{}})").find("inside trace 0"),
              std::string::npos);
}

TEST(reading, refuses_missing_and_unknown_members_and_other_versions) {
    EXPECT_NE(reading_error(header + "\n" + R"({"trace":0,"step":0,"op":"try_broadcast","handle":0,"result":{}})")
                  .find("t.jsonl:2: missing \"message\""),
              std::string::npos);
    EXPECT_NE(reading_error(header + "\n" + R"({"trace":0,"step":0,"op":"len","handle":0,"colour":1,"result":{}})")
                  .find("unknown member \"colour\""),
              std::string::npos);
    EXPECT_NE(reading_error(R"({"format":"bcast-trace","version":2,"trace":0,"capacity":2,"profile":"p","target":"bcast"})")
                  .find("unsupported version 2"),
              std::string::npos);
    EXPECT_NE(reading_error(R"({"format":"bcast-trace","version":1,"trace":0,"capacity":0,"profile":"p","target":"bcast"})")
                  .find("R-CAP-1"),
              std::string::npos);
}

TEST(reading, refuses_bcast_extensions_in_a_trace_for_async_broadcast) {
    const std::string upstream = R"({"format":"bcast-trace","version":1,"trace":0,"capacity":2,"profile":"p","target":"async-broadcast"})";
    EXPECT_NE(reading_error(upstream + "\n" + R"({"trace":0,"step":0,"op":"unread","handle":1,"result":{}})").find("bcast extension"),
              std::string::npos);
}

TEST(replaying, names_the_line_of_a_handle_that_does_not_exist_or_is_of_the_wrong_kind) {
    auto replay_error = [](const std::string& text) -> std::string {
        try {
            replay<spec::channel_adapter<int>>(read(text), "t.jsonl", "bcast");
        } catch (const format_error& e) {
            return e.what();
        }
        return "";
    };
    const std::string dropped = header + "\n" + R"({"trace":0,"step":0,"op":"drop_receiver","handle":1,"result":{"ok":true}})" + "\n" +
                                R"({"trace":0,"step":1,"op":"try_recv","handle":1,"result":{"error":"empty"}})";
    EXPECT_NE(replay_error(dropped).find("t.jsonl:3: trace 0 step 1: handle 1 does not exist"), std::string::npos) << replay_error(dropped);
    const std::string wrong = header + "\n" + R"({"trace":0,"step":0,"op":"try_recv","handle":0,"result":{"error":"empty"}})";
    EXPECT_NE(replay_error(wrong).find("handle 0 is a sender; \"try_recv\" needs a receiver"), std::string::npos) << replay_error(wrong);
}

TEST(generating, is_reproducible_from_the_seed_and_reads_back_as_written) {
    generate_options options;
    options.count = 60;
    const std::vector<trace> first = generate(options);
    const std::vector<trace> again = generate(options);
    std::ostringstream a, b;
    for (const trace& t : first) write_trace(a, t);
    for (const trace& t : again) write_trace(b, t);
    EXPECT_EQ(a.str(), b.str());
    options.seed = 2;
    std::ostringstream c;
    for (const trace& t : generate(options)) write_trace(c, t);
    EXPECT_NE(a.str(), c.str());

    std::istringstream in(a.str());
    const std::vector<trace> read_back = read_traces(in, "generated");
    ASSERT_EQ(read_back.size(), first.size());
    std::ostringstream d;
    for (const trace& t : read_back) write_trace(d, t);
    EXPECT_EQ(d.str(), a.str());
}

TEST(generating, traces_for_async_broadcast_have_no_extension_and_block_nowhere) {
    generate_options options;
    options.count = 300;
    options.target = std::string(target_upstream);
    std::size_t steps = 0, blocking = 0;
    for (const trace& t : generate(options)) {
        // resolve() refuses a blocking step that would block; it must give the same trace back.
        const std::optional<trace> again = resolve(t);
        ASSERT_TRUE(again.has_value()) << "trace " << t.id;
        for (std::size_t i = 0; i < t.steps.size(); ++i) {
            ++steps;
            EXPECT_FALSE(t.steps[i].op->extension) << t.steps[i].op->name;
            EXPECT_EQ(again->steps[i].result, t.steps[i].result);
            blocking += t.steps[i].op->name == "broadcast" || t.steps[i].op->name == "recv" ? 1 : 0;
        }
    }
    EXPECT_GT(steps, 3000u);
    EXPECT_GT(blocking, 100u); // the blocking calls are really there
}

} // namespace
} // namespace bcast::trace
