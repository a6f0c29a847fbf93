// SPDX-License-Identifier: MIT OR Apache-2.0
// The conformance suite as a macro: BCAST_CONFORMANCE_SUITE(Name, Family)
// defines the six property tests Name.conformance, Name.overflow, Name.lag,
// Name.close, Name.lifetimes and Name.exception_safety for an implementation
// family (spec/conformance.hpp). Include it in one GoogleTest source linked
// with rapidcheck (see src/properties.cpp and docs/conformance.md).
//
// Every property generates programs of the command language (commands.hpp)
// with its own mix of commands, runs each on the implementation and on
// bcast::spec::model, compares every result (runner.hpp), and checks its named
// statement on the implementation alone. A failure is shrunk to a minimal
// program and printed with the seed and a command that replays that program:
// BCAST_REPLAY='PROGRAM' runs the property on that one program instead of
// generated ones, in whichever test binary the suite is compiled into (and for
// bcast's own families, bcast_replay 'PROGRAM' as well).
// RC_PARAMS="reproduce=..." replays the whole failing rapidcheck case.
//
// Programs per property: RC_PARAMS="max_success=N" if given, else the
// environment variable BCAST_PROPERTY_SEQUENCES, else the compile definition
// BCAST_PROPERTY_SEQUENCES (10000 in the main tree, fewer in sanitizer trees).
// Program length: up to RC_PARAMS max_size commands (default here 200).
#pragma once

#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <bcast/spec/families.hpp>

#include "commands.hpp"
#include "messages.hpp"
#include "profiles.hpp"
#include "runner.hpp"

#ifndef BCAST_PROPERTY_SEQUENCES
#define BCAST_PROPERTY_SEQUENCES 10000
#endif

namespace bcast::prop::suite {

// ---- generators (the profiles: profiles.hpp) ---------- ------------------------------------------------------------

inline rc::Gen<program> programs(const profile& p) {
    std::vector<op> pool; // each op repeated by its weight; shrinking moves towards the front
    for (const auto& [weight, what] : p.weights) pool.insert(pool.end(), weight, what);
    auto one = rc::gen::apply(
        [](op what, int a, int b) { return command{what, static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)}; },
        rc::gen::elementOf(pool), rc::gen::inRange(0, 8), rc::gen::inRange(0, 8));
    return rc::gen::apply(
        [prefix = p.prefix](int capacity, std::vector<command> commands) {
            program result{static_cast<std::uint8_t>(capacity), prefix};
            result.commands.insert(result.commands.end(), commands.begin(), commands.end());
            return result;
        },
        rc::gen::inRange(1, int(max_capacity) + 1), rc::gen::container<std::vector<command>>(one));
}

// ---- running a property ------------------------------------------------------

inline int default_sequences() {
    if (const char* env = std::getenv("BCAST_PROPERTY_SEQUENCES")) return std::atoi(env);
    return BCAST_PROPERTY_SEQUENCES;
}

inline bool rc_params_set(const char* key) {
    const char* params = std::getenv("RC_PARAMS");
    return params != nullptr && std::string(params).find(key) != std::string::npos;
}

// The path this test binary was started with, for a command line to copy.
inline std::string this_binary() {
    // GoogleTest keeps argv only behind this internal function (gtest-port.h).
    const std::vector<std::string> argv = ::testing::internal::GetArgvs();
    return argv.empty() ? std::string("<this test binary>") : argv.front();
}

// The commands that replay `prog` on the property being run now.
template <class Family>
std::string replay_hint(const program& prog) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string text = to_string(prog);
    const std::string here = "BCAST_REPLAY='" + text + "' " + this_binary() + " --gtest_filter='" +
                             info->test_suite_name() + "." + info->name() + "'";
    // bcast_replay (src/replay.cpp) runs the families of the registry only (bcast/spec/families.hpp).
    if constexpr (spec::replayed_families::contains<Family>) {
        return "\n  replay: bcast_replay '" + text + "'\n      or: " + here;
    } else {
        return "\n  replay: " + here;
    }
}

// BCAST_REPLAY='PROGRAM': the property runs that one program, printing its
// trace, instead of generated ones (see replay_hint).
template <class Impl, class Msg>
void replay_one(const std::string& text, check_options options) {
    std::string error;
    const std::optional<program> prog = parse_program(text, &error);
    if (!prog) {
        FAIL() << "BCAST_REPLAY: cannot parse '" << text << "': " << error;
    }
    std::cout << "BCAST_REPLAY: program: " << *prog << std::endl;
    runner<Impl, Msg> run(options);
    try {
        run.run(*prog);
    } catch (const mismatch& failure) {
        FAIL() << "BCAST_REPLAY: the program fails:\n"
               << failure.what();
    }
    for (std::size_t i = 0; i < run.trace().size(); ++i) std::cout << "    " << i << ". " << run.trace()[i] << "\n";
    std::cout << "BCAST_REPLAY: ok" << std::endl;
}

template <class Family, class Msg>
void check_property(const profile& p, check_options options = {}) {
    using impl = typename Family::template channel<Msg>;
    static_assert(spec::broadcast_channel<impl, Msg>);

    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    rc::detail::TestMetadata metadata;
    metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
    metadata.description = metadata.id;
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    if (!rc_params_set("max_success")) params.maxSuccess = default_sequences();
    if (!rc_params_set("max_size")) params.maxSize = 200; // programs of up to 200 commands (+ prefix)

    // BCAST_PROPERTY_CHECKS=named: judge by the named properties alone, not by
    // comparing results with the model (model_tests/mutants/run_mutants.py --checker property shows both).
    if (const char* checks = std::getenv("BCAST_PROPERTY_CHECKS"); checks != nullptr && std::string(checks) == "named") {
        options.compare = false;
    }

    if (const char* replay = std::getenv("BCAST_REPLAY")) {
        replay_one<impl, Msg>(replay, options);
        return;
    }

    run_stats total;
    const rc::Gen<program> generator = programs(p);
    const auto result = rc::detail::checkTestable(
        [&] {
            const program prog = *generator;
            runner<impl, Msg> run(options);
            try {
                run.run(prog);
            } catch (const mismatch& failure) {
                RC_FAIL(std::string(failure.what()) + replay_hint<Family>(prog));
            }
            total += run.stats();
        },
        metadata, params);

    std::cout << "[ " << metadata.id << " ] " << total << std::endl;
    if (!result.template is<rc::detail::SuccessResult>()) {
        std::ostringstream message;
        rc::detail::printResultMessage(result, message);
        FAIL() << message.str() << "\n(seed " << params.seed << "; rerun the whole property with RC_PARAMS=\"seed="
               << params.seed << "\", or the failing case alone with the reproduce= string printed at exit)";
    }
}

// The two properties over instrumented_message (instance counting, a copy that
// throws). Where the family's profile (spec/conformance_profile.hpp) rules
// such message types out (its entry `ruled_out` names why), the property's
// command mix still runs with `int`, every result compared with the model, and
// then the test is skipped, naming the profile entry: its named statement
// (`statement`) was not checked.
template <class Family, std::string_view spec::conformance_profile::*ruled_out>
void check_with_instrumented_messages(const profile& p, const char* statement) {
    constexpr const spec::conformance_profile& declared = spec::profile_of<typename Family::template channel<int>>();
    if constexpr (!(declared.*ruled_out).empty()) {
        check_property<Family, int>(p);
        GTEST_SKIP() << "the mix ran with int in lockstep with the model; " << statement
                     << " not applicable: " << declared.describe(declared.*ruled_out);
    } else {
        check_property<Family, instrumented_message>(p);
    }
}
template <class Family>
void check_lifetimes() {
    check_with_instrumented_messages<Family, &spec::conformance_profile::without_counted_messages>(lifetimes_profile(),
                                                                                                   "instance counts");
}
template <class Family>
void check_exception_safety() {
    check_with_instrumented_messages<Family, &spec::conformance_profile::without_throwing_copies>(exception_profile(),
                                                                                                  "throwing copies");
}

} // namespace bcast::prop::suite

// The six properties for one implementation family; `Name` becomes the
// GoogleTest suite name (test Name.conformance, ...).
#define BCAST_CONFORMANCE_SUITE(Name, Family) \
    /* Every command, every result compared with the model. */ \
    TEST(Name, conformance) { \
        ::bcast::prop::suite::check_property<Family, int>(::bcast::prop::suite::conformance_profile()); \
    } \
    /* The evicted message is the oldest; received + missed == sent since the receiver started. */ \
    TEST(Name, overflow) { \
        ::bcast::prop::suite::check_property<Family, int>(::bcast::prop::suite::overflow_profile()); \
    } \
    /* overflowed(n) once, before anything newer, n exact after evictions and shrinks. */ \
    TEST(Name, lag) { ::bcast::prop::suite::check_property<Family, int>(::bcast::prop::suite::lag_profile()); } \
    /* After close: drain exactly the pending messages, then closed forever; sends closed; no reopening. */ \
    TEST(Name, close) { \
        ::bcast::prop::suite::check_property<Family, int>(::bcast::prop::suite::close_profile()); \
    } \
    /* Every message destroyed exactly once, as soon as no receiver can read it. */ \
    TEST(Name, lifetimes) { ::bcast::prop::suite::check_lifetimes<Family>(); } \
    /* A throwing copy in try_recv changes nothing; the retry delivers the same message. */ \
    TEST(Name, exception_safety) { ::bcast::prop::suite::check_exception_safety<Family>(); } \
    static_assert(true, "")
