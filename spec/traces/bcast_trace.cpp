// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast-trace: the spec as portable traces (docs/traces.md).
//
//   bcast-trace generate [--seed S] [--count N] [--target bcast|async-broadcast]
//                        [--profile NAME]... [--max-steps K] [-o FILE]
//   bcast-trace replay TRACES [-o RESULTS] [--block-ms MS] [--channel FAMILY]
//                        on bcast's channel, or another registered family;
//                        a blocking call that waits MS (default 5000) answers "blocked"
//   bcast-trace check TRACES RESULTS [--strict] [--show N] [--minimise-with 'CMD']
//   bcast-trace divergences [--check docs/traces.md]
//   bcast-trace operations   the one operation table (bcast/spec/operations.hpp) as
//                      JSON Lines, one operation a line: what a driver in another
//                      language is checked against
//   bcast-trace record [--histories N] [--seed S] [--threads A-B] [--calls C]
//                      [--stall-ms M] [--contention] [--channel FAMILY]
//                      [-o FILE] [--svg FILE] [--first N]
//                      records N concurrent histories on a registered family
//                      (reference = std_primitives, the default; fast is checked
//                      under its profile P-FAST) and checks
//                      each; on a failure, minimises it, reports it and draws it
//   bcast-trace check-history HISTORIES [--svg DIR] [--show N] [--no-memo] [--minimise-with CMD]
//                      checks recorded histories (any implementation's); with
//                      --minimise-with, records each finding again through CMD (a
//                      recorder taking `record`'s options) with fewer threads and calls
//   bcast-trace drive [record's options] [--timeout-s T] -- CMD ARGS...
//                      checks any implementation through its driver CMD, which
//                      speaks the driver protocol (docs/drivers.md) in any language
//   bcast-trace serve --channel FAMILY
//                      a driver (bcast/trace/driver.hpp) for a registered family
//
// check exits 0 when every difference is documented (the divergence table;
// --strict: when there is none), 1 otherwise, 2 on bad input or usage;
// record, check-history and drive exit 0 when every history is linearizable
// with no lost wakeup (check-history: or only documented ones), 1 otherwise
// 2 on bad input or usage (drive: also a driver that breaks the protocol,
// exits, hangs or reports that it could not run a program), 3 when none
// failed but the search gave up on one before it could prove a rejection
// (--max-states; INCONCLUSIVE). --json FILE writes the verdict as one object.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <bcast/spec/families.hpp>
#include <bcast/trace/check.hpp>
#include <bcast/trace/drive.hpp>
#include <bcast/trace/driver.hpp>
#include <bcast/trace/format.hpp>
#include <bcast/trace/history.hpp>
#include <bcast/trace/history_check.hpp>
#include <bcast/trace/picture.hpp>
#include <bcast/trace/record.hpp>
#include <bcast/trace/run.hpp>

namespace {

using namespace bcast::trace;
namespace spec = bcast::spec;

struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

constexpr const char* usage_text =
    "usage:\n"
    "  bcast-trace generate [--seed S] [--count N] [--target bcast|async-broadcast] [--profile NAME]... [--max-steps K] [-o FILE]\n"
    "  bcast-trace replay TRACES [-o RESULTS] [--block-ms MS] [--channel reference|FAMILY]\n"
    "  bcast-trace check TRACES RESULTS [--strict] [--show N] [--minimise-with 'CMD']\n"
    "  bcast-trace divergences [--check FILE]\n"
    "  bcast-trace operations\n"
    "  bcast-trace record [--histories N] [--seed S] [--threads A-B] [--calls C] [--stall-ms M] [--contention] [--channel reference|FAMILY] [-o FILE] [--svg FILE] [--first N]\n"
    "  bcast-trace check-history HISTORIES [--svg DIR] [--show N] [--no-memo] [--max-states N] [--json FILE] [--minimise-with CMD]\n"
    "  bcast-trace drive [--histories N] [--seed S] [--threads A-B] [--calls C] [--stall-ms M] [--contention] [-o FILE] [--svg FILE] [--first N] [--timeout-s T] [--max-states N] [--json FILE] [--draw-findings DIR] -- CMD ARGS...\n"
    "  bcast-trace serve --channel reference|FAMILY\n"
    "docs/traces.md describes the formats and each command; docs/drivers.md the driver protocol (drive, serve).\n";

std::vector<trace> read_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw usage_error("cannot open " + path);
    return read_traces(in, path);
}

void write_all(const std::vector<trace>& traces, const std::string& path) {
    if (path.empty() || path == "-") {
        for (const trace& t : traces) write_trace(std::cout, t);
        return;
    }
    std::ofstream out(path);
    if (!out) throw usage_error("cannot write " + path);
    for (const trace& t : traces) write_trace(out, t);
}

std::string step_text(const step& s) {
    std::string text = std::string(s.op->name) + " on " + std::to_string(s.handle);
    if (s.made) text += ", new " + std::to_string(*s.made);
    if (s.message) text += ", message " + std::to_string(*s.message);
    if (!s.arg.is_null()) text += ", arg " + s.arg.dump();
    return text + "  -> " + s.result.dump();
}

// ---- generate -----------------------------------------------------------------

int generate_command(const std::vector<std::string>& args) {
    generate_options options;
    std::string out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        auto next = [&]() -> const std::string& {
            if (i + 1 >= args.size()) throw usage_error(args[i] + " needs a value");
            return args[++i];
        };
        auto number = [&]() -> std::uint64_t {
            const std::string& v = next();
            try {
                std::size_t used = 0;
                const std::uint64_t n = std::stoull(v, &used);
                if (used == v.size()) return n;
            } catch (const std::exception&) {
            }
            throw usage_error(args[i - 1] + ": '" + v + "' is not a number");
        };
        if (args[i] == "--seed") options.seed = number();
        else if (args[i] == "--count") options.count = number();
        else if (args[i] == "--max-steps") options.max_steps = number();
        else if (args[i] == "--target") options.target = next();
        else if (args[i] == "--profile") options.profiles.push_back(next());
        else if (args[i] == "-o") out = next();
        else throw usage_error("generate: unknown option " + args[i]);
    }
    if (!valid_target(options.target)) throw usage_error("--target must be bcast or async-broadcast");
    if (options.max_steps == 0) throw usage_error("--max-steps must be at least 1");
    for (const std::string& p : options.profiles) {
        bool known = false;
        for (const std::string& name : profile_names()) known = known || name == p;
        if (!known) throw usage_error("unknown profile '" + p + "'");
    }
    write_all(generate(options), out);
    return 0;
}

// ---- the families of --channel -------------------------------------------------

// Calls fn.template operator()<Family>() for the registered family
// (bcast/spec/families.def) named `name`, `reference` being std_primitives'
// other name, and returns what it returns; a usage error names the choices.
template <class Fn>
int with_family(const std::string& name, Fn&& fn) {
    std::optional<int> status;
    std::string names = "reference";
    spec::registered_families::for_each([&]<class Family>() {
        names += ", " + std::string(Family::name);
        const bool reference = std::is_same_v<Family, spec::std_plain_family>;
        if (!status && (name == Family::name || (reference && name == "reference")))
            status = fn.template operator()<Family>();
    });
    if (!status) throw usage_error("--channel must be one of: " + names + " (not '" + name + "')");
    return *status;
}

// ---- replay -------------------------------------------------------------------

int replay_command(const std::vector<std::string>& args) {
    std::string in, out, channel = "reference";
    std::chrono::milliseconds bound(5000);
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "-o" && i + 1 < args.size()) out = args[++i];
        else if (args[i] == "--block-ms" && i + 1 < args.size()) bound = std::chrono::milliseconds(std::stoul(args[++i]));
        else if (args[i] == "--channel" && i + 1 < args.size()) channel = args[++i];
        else if (in.empty()) in = args[i];
        else throw usage_error("replay: unexpected argument " + args[i]);
    }
    if (in.empty()) throw usage_error("replay needs a trace file");
    const std::vector<trace> traces = read_file(in);
    return with_family(channel, [&]<class Family>() {
        write_all(replay<typename Family::template channel<int>>(traces, in, "bcast", bound), out);
        return 0;
    });
}

// ---- check --------------------------------------------------------------------

// Runs `command IN OUT` on the candidates (minimise()).
rerun_fn rerun_with(const std::string& command) {
    return [command](const std::vector<trace>& candidates) {
        const std::filesystem::path dir = std::filesystem::temp_directory_path();
        const std::string stamp = std::to_string(std::rand());
        const std::filesystem::path in = dir / ("bcast-trace-candidates-" + stamp + ".jsonl");
        const std::filesystem::path out = dir / ("bcast-trace-results-" + stamp + ".jsonl");
        write_all(candidates, in.string());
        const std::string line = command + " '" + in.string() + "' '" + out.string() + "'";
        const int status = std::system(line.c_str());
        std::vector<trace> results;
        if (status == 0) results = read_file(out.string());
        std::filesystem::remove(in);
        std::filesystem::remove(out);
        if (status != 0) throw usage_error("--minimise-with: '" + line + "' failed");
        return results;
    };
}

void print_difference(const difference& d, const trace& t, std::size_t shown_steps_from, const std::vector<step>& prefix,
                      bool minimised) {
    std::cout << "trace " << d.trace << " (profile " << t.profile << "), step " << d.step << " (traces line " << d.expected_line
              << ", results line " << d.actual_line << "): " << d.op << "\n"
              << "  spec model:     " << d.expected.dump() << "\n"
              << "  implementation: " << d.actual.dump() << "\n"
              << "  rule: " << d.rule << "; "
              << (d.documented != nullptr ? "documented (" + std::string(d.documented->kind) + ", docs/traces.md)" : "NOT documented")
              << "\n"
              << "  " << (minimised ? "minimised" : "shortest prefix") << " (" << prefix.size() << " steps"
              << (minimised ? ", expected results of the model" : "") << "):\n";
    for (std::size_t i = shown_steps_from; i < prefix.size(); ++i) {
        std::cout << "    " << prefix[i].index << ". " << step_text(prefix[i]) << "\n";
    }
}

int check_command(const std::vector<std::string>& args) {
    std::vector<std::string> files;
    bool strict = false;
    std::size_t show = 5;
    std::string minimise_with;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--strict") strict = true;
        else if (args[i] == "--show" && i + 1 < args.size()) show = std::stoul(args[++i]);
        else if (args[i] == "--minimise-with" && i + 1 < args.size()) minimise_with = args[++i];
        else if (args[i].rfind("--", 0) == 0) throw usage_error("check: unknown option " + args[i]);
        else files.push_back(args[i]);
    }
    if (files.size() != 2) throw usage_error("check needs TRACES and RESULTS");
    const std::vector<trace> expected = read_file(files[0]);
    const std::vector<trace> actual = read_file(files[1]);
    check_options options;
    options.divergences = !strict;
    const verdict v = check(expected, actual, options, files[1]);

    std::map<std::uint64_t, const trace*> by_id;
    for (const trace& t : expected) by_id[t.id] = &t;
    std::map<std::string, std::size_t> documented_by_rule, undocumented_by_rule;
    std::size_t shown = 0;
    for (const difference& d : v.differences) {
        (d.documented != nullptr ? documented_by_rule : undocumented_by_rule)[d.rule]++;
        // Every undocumented difference is shown; documented ones up to --show.
        if (d.documented != nullptr && shown >= show) continue;
        ++shown;
        const trace& t = *by_id.at(d.trace);
        if (!minimise_with.empty()) {
            const trace small = minimise(t, d, rerun_with(minimise_with), options.divergences && t.target == target_upstream);
            print_difference(d, t, 0, small.steps, true);
        } else {
            print_difference(d, t, 0, std::vector<step>(t.steps.begin(), t.steps.begin() + static_cast<std::ptrdiff_t>(d.step) + 1), false);
        }
    }
    std::cout << "bcast-trace check: " << v.traces << " traces, " << v.traces_agreed << " agreed in every step; " << v.steps
              << " steps: " << v.steps_agreed << " agreed, " << v.steps_unsupported << " unsupported, " << v.differences.size()
              << " differed, " << v.steps_not_compared << " not compared (after a trace's first difference)\n";
    for (const auto& [op, n] : v.unsupported_by_op) std::cout << "  unsupported: " << op << " " << n << "\n";
    for (const auto& [rule, n] : documented_by_rule) std::cout << "  documented difference: " << rule << " " << n << "\n";
    for (const auto& [rule, n] : undocumented_by_rule) std::cout << "  UNDOCUMENTED difference: " << rule << " " << n << "\n";
    const bool pass = strict ? v.differences.empty() && v.steps_unsupported == 0 : v.undocumented() == 0;
    std::cout << "bcast-trace check: " << (pass ? "PASS" : "FAIL") << (strict ? " (strict: no difference allowed)" : "") << "\n";
    return pass ? 0 : 1;
}

// ---- operations ------------------------------------------------------------------

int operations_command(const std::vector<std::string>& args) {
    if (!args.empty()) throw usage_error("operations takes no arguments");
    for (const spec::operation& op : spec::operations) {
        const json line(json_object{
            {"op", json(std::string(op.name))},
            {"acts_on", json(std::string(spec::name(op.acts_on)))},
            {"creates", json(std::string(spec::name(op.creates)))},
            {"consumes", json(op.consumes)},
            {"argument", json(std::string(spec::name(op.argument)))},
            {"answer", json(std::string(spec::name(op.answer)))},
            {"query", json(op.query)},
            {"blocks", json(op.blocks)},
            {"extension", json(op.extension)},
            {"recorded", json(op.recorded)},
            {"trace", json(in_trace_language(op))},
            {"rules", json(std::string(op.rules))},
            {"upstream", json(std::string(op.upstream))},
        });
        std::cout << line.dump() << "\n";
    }
    return 0;
}

// ---- divergences ----------------------------------------------------------------

int divergences_command(const std::vector<std::string>& args) {
    const std::string table = divergence_table_markdown();
    if (args.empty()) {
        std::cout << table;
        return 0;
    }
    if (args.size() != 2 || args[0] != "--check") throw usage_error("divergences [--check FILE]");
    std::ifstream in(args[1]);
    if (!in) throw usage_error("cannot open " + args[1]);
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const std::string begin = "<!-- divergences:begin (bcast-trace divergences) -->\n";
    const std::string end = "<!-- divergences:end -->";
    const std::size_t from = doc.find(begin);
    const std::size_t to = doc.find(end);
    if (from == std::string::npos || to == std::string::npos || to < from) {
        std::cerr << args[1] << ": no divergence table between the markers '" << begin.substr(0, begin.size() - 1) << "' and '" << end << "'\n";
        return 1;
    }
    const std::string documented = doc.substr(from + begin.size(), to - from - begin.size());
    if (documented != table) {
        std::cerr << args[1] << ": the divergence table differs from the checker's (spec/traces/include/bcast/trace/check.hpp);"
                  << " paste the output of `bcast-trace divergences` between the markers. The checker's table:\n"
                  << table;
        return 1;
    }
    std::cout << args[1] << ": the divergence table is the checker's (" << bcast::trace::divergences().size() << " rows)\n";
    return 0;
}

// ---- histories -------------------------------------------------------------------
//
// The options are parsed by hand (number_at, program_option), not with Debian's
// libcli11-dev (2.1.2): a translation unit with one CLI11 option compiles in
// 3.57 s and 330 MB here (g++ 12, -O1, measured 2026-12-07), against 0.58 s for
// one of this tool's own headers, and the mutant runner builds this file once
// per mutant; each subcommand's options are a dozen lines, and every bad
// option is a usage_error that names it.

std::uint64_t number_at(const std::vector<std::string>& args, std::size_t& i) {
    if (i + 1 >= args.size()) throw usage_error(args[i] + " needs a value");
    const std::string& v = args[++i];
    try {
        std::size_t used = 0;
        const unsigned long long n = std::stoull(v, &used);
        if (used == v.size()) return n;
    } catch (const std::exception&) {
    }
    throw usage_error(args[i - 1] + ": '" + v + "' is not a number");
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    if (!out) throw usage_error("cannot write " + path);
    out << text;
}

// What `record --channel` names: a family of the registry (bcast/spec/families.hpp)
// by its name, or `reference` for std_primitives; bcast::fast's histories name its
// profile, P-FAST, which the checker then allows.

struct record_request {
    std::uint64_t count = 100, first = 0, parallel = 4;
    std::string out_path, svg_path, channel = "reference";
};

template <class Impl>
int record_histories(const record_options& options, const record_request& request);

// The options `record` and `drive` share (the program drawn, and what is
// written); false when args[i] is none of them.
bool program_option(const std::vector<std::string>& args, std::size_t& i, record_options& options, record_request& request) {
    if (args[i] == "--histories") request.count = number_at(args, i);
    else if (args[i] == "--seed") options.seed = number_at(args, i);
    else if (args[i] == "--first") request.first = number_at(args, i);
    else if (args[i] == "--calls") options.calls = int(number_at(args, i));
    else if (args[i] == "--stall-ms") options.stall = std::chrono::milliseconds(number_at(args, i));
    else if (args[i] == "--contention") options.contention_only = true;
    else if (args[i] == "--threads") {
        if (i + 1 >= args.size()) throw usage_error("--threads needs A-B");
        const std::string v = args[++i];
        const std::size_t dash = v.find('-');
        try {
            options.min_threads = std::stoi(v.substr(0, dash));
            options.max_threads = dash == std::string::npos ? options.min_threads : std::stoi(v.substr(dash + 1));
        } catch (const std::exception&) {
            throw usage_error("--threads: '" + v + "' is not A-B");
        }
    } else if (args[i] == "-o") {
        if (i + 1 >= args.size()) throw usage_error("-o needs a file");
        request.out_path = args[++i];
    } else if (args[i] == "--svg") {
        if (i + 1 >= args.size()) throw usage_error("--svg needs a file");
        request.svg_path = args[++i];
    } else return false;
    return true;
}

void check_program_options(const record_options& options) {
    if (options.min_threads < 1 || options.max_threads < options.min_threads || options.max_threads > 8)
        throw usage_error("--threads must be A-B with 1 <= A <= B <= 8");
    if (options.calls < 1 || options.calls > 50) throw usage_error("--calls must be 1..50 (a history holds at most 256 calls)");
    if (options.stall.count() < 2) throw usage_error("--stall-ms must be at least 2");
}

int record_command(const std::vector<std::string>& args) {
    record_options options;
    record_request request;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (program_option(args, i, options, request)) continue;
        if (args[i] == "--parallel") request.parallel = number_at(args, i);
        else if (args[i] == "--channel") {
            if (i + 1 >= args.size()) throw usage_error("--channel needs a family name");
            request.channel = args[++i];
        } else throw usage_error("record: unknown option " + args[i]);
    }
    check_program_options(options);
    if (request.parallel < 1 || request.parallel > 64) throw usage_error("--parallel must be 1..64");
    return with_family(request.channel, [&]<class Family>() {
        options.implementation = std::string(Family::implementation);
        return record_histories<typename Family::template channel<int>>(options, request);
    });
}

// Records request.count histories on Impl, checks each, and on the first
// failure minimises, reports and draws it.
template <class Impl>
int record_histories(const record_options& options, const record_request& request) {
    const std::uint64_t count = request.count, first = request.first, parallel = request.parallel;
    const std::string &out_path = request.out_path, &svg_path = request.svg_path;
    std::ofstream out;
    if (!out_path.empty()) {
        out.open(out_path);
        if (!out) throw usage_error("cannot write " + out_path);
    }
    const auto t0 = std::chrono::steady_clock::now();
    // `parallel` recorders at once, each on its own channel and clock: a run
    // spends most of its time waiting out a stall, not on a core. Each stops
    // at its first failure; the lowest failing id is reported.
    struct slot {
        std::optional<history> h;
        std::optional<history_finding> f;
    };
    std::vector<slot> slots(count);
    std::vector<record_stats> worker_stats(parallel);
    std::atomic<std::uint64_t> first_failure{count};
    std::vector<std::string> worker_errors(parallel);
    std::vector<std::thread> workers;
    for (std::uint64_t w = 0; w < parallel; ++w) {
        workers.emplace_back([&, w] {
            for (std::uint64_t k = w; k < count && k < first_failure.load(); k += parallel) {
                slot& s = slots[k];
                try {
                    s.h = record_one<Impl>(options, first + k, worker_stats[w]);
                } catch (const std::exception& e) {
                    worker_errors[w] = "history " + std::to_string(first + k) + ": the channel threw: " + e.what();
                    first_failure.store(0);
                    return;
                }
                if (!s.h) continue;
                s.f = check_recorded(*s.h);
                if (s.f->failed() && s.f->report.result == spec::verdict::lost_wakeup) {
                    // Counted only if it happens again (history_check.hpp, confirm_lost_wakeup).
                    auto again = [&](const record_options& o, std::uint64_t id) {
                        record_stats ignored;
                        return record_one<Impl>(o, id, ignored);
                    };
                    s.f->unconfirmed = !confirm_lost_wakeup(options, s.h->threads, first + k, again);
                }
                if (s.f->failed()) {
                    std::uint64_t seen = first_failure.load();
                    while (k < seen && !first_failure.compare_exchange_weak(seen, k)) {}
                    return;
                }
            }
        });
    }
    for (std::thread& w : workers) w.join();
    for (const std::string& e : worker_errors)
        if (!e.empty()) throw std::runtime_error(e);
    record_stats stats;
    for (const record_stats& s : worker_stats) {
        stats.recorded += s.recorded, stats.discarded += s.discarded, stats.stalled += s.stalled;
    }
    history_tally tally;
    for (std::uint64_t k = 0; k < count; ++k) {
        if (!slots[k].h) continue;
        const history& h = *slots[k].h;
        const history_finding& f = *slots[k].f;
        const std::uint64_t id = first + k;
        tally.add(h, f);
        if (out) write_history(out, h);
        if (f.unconfirmed)
            std::cout << "bcast-trace record: history " << id << ": a lost wakeup (" << f.report.rule
                      << ") that fewer than " << confirm_needed << " of " << confirm_attempts
                      << " re-recordings showed again: a stall of the machine, not counted\n";
        if (!f.failed()) continue;
        std::cout << "bcast-trace record: history " << id << " (seed " << options.seed << ") FAILED, the first of "
                  << tally.histories << " histories to fail: " << spec::name(f.report.result) << "\n";
        auto [small, small_options] = minimise_recorded<Impl>(h, options, id);
        const history_finding sf = check_recorded(small);
        std::cout << "minimised: " << small.threads << " threads, at most " << small_options.calls << " calls each, "
                  << small.calls.size() << " calls in all (bcast-trace record --seed " << options.seed << " --first " << id
                  << " --histories 1 --threads " << small.threads << " --calls " << small_options.calls
                  << (options.contention_only ? " --contention" : "") << (request.channel == "reference" ? "" : " --channel " + request.channel) << ")\n"
                  << spec::to_string(sf.report, small.calls);
        write_history(std::cout, small);
        if (!svg_path.empty()) {
            write_text(svg_path, history_svg(small, sf.report));
            std::cout << "picture: " << svg_path << "\n";
        }
        return 1;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "bcast-trace record: " << tally.summary() << "; " << stats.stalled << " with a stalled call, "
              << stats.discarded << " discarded (not quiescent); " << seconds << " s\n";
    std::cout << "bcast-trace record: PASS\n";
    return 0;
}

// Records history `id` again with `o` by running `command`, a recorder that
// takes bcast-trace record's options (bench/trace_driver's `record`), and
// reads it back; nullopt when that run was discarded (not quiescent).
std::optional<history> record_with(const std::string& command, const record_options& o, std::uint64_t id,
                                   const std::string& scratch) {
    const std::string out = scratch + "/minimise-candidate.jsonl";
    std::filesystem::remove(out);
    const std::string threads = std::to_string(o.min_threads) + "-" + std::to_string(o.max_threads);
    const std::string cmd = command + " record --seed " + std::to_string(o.seed) + " --first " + std::to_string(id) +
                            " --histories 1 --parallel 1 --threads " + threads + " --calls " + std::to_string(o.calls) +
                            " --stall-ms " + std::to_string(o.stall.count()) + (o.contention_only ? " --contention" : "") +
                            " -o '" + out + "' 2>/dev/null";
    const int status = std::system(cmd.c_str());
    if (status != 0) throw std::runtime_error("--minimise-with: '" + cmd + "' failed (status " + std::to_string(status) + ")");
    std::ifstream in(out);
    if (!in) throw std::runtime_error("--minimise-with: '" + cmd + "' wrote no " + out);
    std::vector<history> recorded = read_histories(in, out);
    if (recorded.empty()) return std::nullopt;
    return std::move(recorded.front());
}

// check-history --minimise-with and drive --draw-findings: the first history
// of each finding (verdict and rule), recorded again by `record` (a callable
// (const record_options&, id) -> std::optional<history>: a recorder command,
// or a driver) with fewer threads and calls while it still shows that
// finding; printed, and drawn into `svg_dir` if given.
template <class Record>
void minimise_findings(const std::vector<std::pair<history, history_finding>>& findings, Record record,
                       const std::string& svg_dir, int attempts) {
    std::vector<std::string> done;
    for (const auto& finding : findings) {
        // Named, not a structured binding: clang 14 cannot capture a binding in a lambda (still_fails).
        const history& h = finding.first;
        const history_finding& f = finding.second;
        const std::string what = std::string(spec::name(f.report.result)) + (f.rule().empty() ? "" : " " + f.rule());
        if (std::find(done.begin(), done.end(), what) != done.end()) continue;
        done.push_back(what);
        if (!h.seed || !h.stall_ms || !h.calls_per_thread) {
            std::cout << "history " << h.id << " (" << what << "): no seed, stall_ms and calls in its header, so it cannot be recorded again\n";
            continue;
        }
        record_options options;
        options.seed = *h.seed;
        options.stall = std::chrono::milliseconds(*h.stall_ms);
        options.calls = int(*h.calls_per_thread);
        options.contention_only = h.contention;
        options.implementation = h.implementation;
        auto still_fails = [&](const history& candidate) { return same_finding(f, candidate); };
        auto [small, small_options] = minimise_recorded(h, options, h.id, record, still_fails, attempts);
        const history_finding sf = check_recorded(small);
        std::cout << "minimised " << what << ": history " << h.id << " of " << h.implementation << " from " << h.threads
                  << " threads and " << h.calls.size() << " calls to " << small.threads << " threads, at most "
                  << small_options.calls << " calls each, " << small.calls.size() << " calls in all\n"
                  << spec::to_string(sf.report, small.calls);
        write_history(std::cout, small);
        if (!svg_dir.empty()) {
            std::string file = svg_dir + "/minimised-" + std::string(spec::name(f.report.result)) + (f.rule().empty() ? "" : "-" + f.rule()) + ".svg";
            write_text(file, history_svg(small, sf.report));
            std::cout << "picture: " << file << "\n";
        }
    }
}

// The verdict of check-history or drive as one JSON object (--json FILE), for
// tools: the exit status and what it means, the counts, and the first failure.
struct verdict_json {
    std::string path, command, implementation;
    void write(const history_tally& tally, int exit_status, const history* failure = nullptr, const history_finding* f = nullptr) const {
        if (path.empty()) return;
        static constexpr const char* meaning[] = {"pass", "violation", "bad input", "inconclusive"};
        json_object verdicts;
        for (const auto& [name, n] : tally.verdicts) verdicts.emplace_back(name, json(n));
        json_object o{{"format", json("bcast-verdict")}, {"version", json(1)}, {"command", json(command)}, {"implementation", json(implementation)}, {"exit", json(exit_status)}, {"result", json(meaning[exit_status])}, {"histories", json(tally.histories)}, {"calls", json(tally.calls)}, {"pending", json(tally.pending)}, {"verdicts", json(std::move(verdicts))}, {"failed", json(tally.failures)}, {"inconclusive", json(tally.inconclusive)}};
        if (failure != nullptr && f != nullptr) {
            std::ostringstream lines;
            write_history(lines, *failure);
            o.emplace_back("failure", json(json_object{{"history", json(failure->id)}, {"verdict", json(spec::name(f->report.result))}, {"rule", json(f->rule())}, {"report", json(spec::to_string(f->report, failure->calls))}, {"jsonl", json(lines.str())}}));
        }
        write_text(path, json(std::move(o)).dump() + "\n");
    }
};

// The exit status of a tally: 1 a failure, else 3 an inconclusive history, else 0.
int exit_status(const history_tally& tally) { return tally.failures > 0 ? 1 : tally.inconclusive > 0 ? 3
                                                                                                     : 0; }
const char* exit_word(int status) { return status == 0 ? "PASS" : status == 3 ? "INCONCLUSIVE"
                                                                              : "FAIL"; }

int check_history_command(const std::vector<std::string>& args) {
    std::string path, svg_dir, minimise_with;
    verdict_json verdict;
    verdict.command = "check-history";
    std::uint64_t show = 3;
    spec::check_options options;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--svg") {
            if (i + 1 >= args.size()) throw usage_error("--svg needs a directory");
            svg_dir = args[++i];
        } else if (args[i] == "--show") show = number_at(args, i);
        else if (args[i] == "--no-memo") options.memoise = false;
        else if (args[i] == "--max-states") options.max_states = number_at(args, i);
        else if (args[i] == "--json") {
            if (i + 1 >= args.size()) throw usage_error("--json needs a file");
            verdict.path = args[++i];
        } else if (args[i] == "--minimise-with") {
            if (i + 1 >= args.size()) throw usage_error("--minimise-with needs a command");
            minimise_with = args[++i];
        } else if (args[i].rfind("--", 0) == 0) throw usage_error("check-history: unknown option " + args[i]);
        else if (path.empty()) path = args[i];
        else throw usage_error("check-history: one file of histories");
    }
    if (path.empty()) throw usage_error("check-history needs a file of histories");
    std::ifstream in(path);
    if (!in) throw usage_error("cannot open " + path);
    const std::vector<history> histories = read_histories(in, path);
    if (!svg_dir.empty()) std::filesystem::create_directories(svg_dir);
    history_tally tally;
    std::uint64_t shown = 0;
    std::vector<std::pair<history, history_finding>> findings;
    for (const history& h : histories) {
        const history_finding f = check_recorded(h, options);
        tally.add(h, f);
        if (f.report.result != spec::verdict::not_linearizable && f.report.result != spec::verdict::lost_wakeup) continue;
        if (!minimise_with.empty()) findings.emplace_back(h, f);
        if (!svg_dir.empty()) {
            const std::string file = svg_dir + "/history-" + std::to_string(h.id) + ".svg";
            write_text(file, history_svg(h, f.report));
        }
        if (shown++ < show) {
            std::cout << path << ":" << h.line << ": history " << h.id << " (" << h.implementation << "): "
                      << (f.documented ? "documented " : "") << spec::name(f.report.result)
                      << (f.documented ? " (the divergence table's row " + f.documented_rule + ")" : "") << "\n"
                      << spec::to_string(f.report, h.calls);
        }
    }
    if (!minimise_with.empty()) {
        const std::string scratch = (std::filesystem::temp_directory_path() / "bcast-trace-minimise").string();
        std::filesystem::create_directories(scratch);
        auto record = [&](const record_options& o, std::uint64_t id) { return record_with(minimise_with, o, id, scratch); };
        minimise_findings(findings, record, svg_dir, 10);
    }
    std::cout << "bcast-trace check-history: " << tally.summary() << "\n";
    const int status = exit_status(tally);
    std::cout << "bcast-trace check-history: " << exit_word(status) << "\n";
    if (!histories.empty()) verdict.implementation = histories.front().implementation;
    verdict.write(tally, status);
    return status;
}

// ---- the driver protocol (docs/drivers.md) ---------------------------------------

// drive [OPTIONS] -- CMD ARGS...: programs sent to the driver CMD, its answers
// turned into histories and checked; the first failure confirmed (a lost
// wakeup), minimised through the driver, reported and drawn.
int drive_command(const std::vector<std::string>& args) {
    record_options options;
    record_request request;
    request.count = 200;
    std::uint64_t timeout_s = 60;
    spec::check_options check;
    std::string findings_dir; // documented findings (upstream's) minimised and drawn here
    verdict_json verdict;
    verdict.command = "drive";
    std::vector<std::string> command;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--") {
            command.assign(args.begin() + std::ptrdiff_t(i) + 1, args.end());
            break;
        }
        if (program_option(args, i, options, request)) continue;
        if (args[i] == "--timeout-s") timeout_s = number_at(args, i);
        else if (args[i] == "--max-states") check.max_states = number_at(args, i);
        else if (args[i] == "--draw-findings") {
            if (i + 1 >= args.size()) throw usage_error("--draw-findings needs a directory");
            findings_dir = args[++i];
        } else if (args[i] == "--json") {
            if (i + 1 >= args.size()) throw usage_error("--json needs a file");
            verdict.path = args[++i];
        } else throw usage_error("drive: unknown option " + args[i] + " (the driver's command comes after --)");
    }
    check_program_options(options);
    if (command.empty()) throw usage_error("drive needs the driver's command after --");
    if (timeout_s < 1) throw usage_error("--timeout-s must be at least 1");
    std::ofstream out;
    if (!request.out_path.empty()) {
        out.open(request.out_path);
        if (!out) throw usage_error("cannot write " + request.out_path);
    }
    const auto t0 = std::chrono::steady_clock::now();
    driver d(command, std::chrono::seconds(timeout_s));
    options.implementation = d.implementation();
    verdict.implementation = d.implementation();
    auto lacks = [&d] {
        std::string names;
        for (spec::call_kind k : d.unsupported()) names += (names.empty() ? "" : ", ") + std::string(spec::name(k));
        return names.empty() ? std::string("nothing") : names;
    };
    std::cout << "bcast-trace drive: " << d.implementation() << " (profile " << d.profile() << "); it lacks " << lacks() << "\n";
    auto record = [&d](const record_options& o, std::uint64_t id) { return d.record(o, id); };
    history_tally tally;
    std::vector<std::pair<history, history_finding>> documented; // for --draw-findings
    for (std::uint64_t k = 0; k < request.count; ++k) {
        const std::uint64_t id = request.first + k;
        const std::optional<history> h = d.record(options, id);
        if (!h) continue;
        history_finding f = check_recorded(*h, check);
        if (f.inconclusive())
            std::cout << "bcast-trace drive: history " << id << ": INCONCLUSIVE, the search gave up after " << f.report.states_explored
                      << " states (--max-states)\n";
        if (f.failed() && f.report.result == spec::verdict::lost_wakeup)
            f.unconfirmed = !confirm_lost_wakeup(options, h->threads, id, record); // the same program, sent again
        tally.add(*h, f);
        if (out) write_history(out, *h);
        if (f.documented && !findings_dir.empty()) documented.emplace_back(*h, f);
        if (f.unconfirmed)
            std::cout << "bcast-trace drive: history " << id << ": a lost wakeup (" << f.report.rule << ") that fewer than "
                      << confirm_needed << " of " << confirm_attempts << " re-runs showed again: a stall of the machine, not counted\n";
        if (!f.failed()) continue;
        std::cout << "bcast-trace drive: history " << id << " (seed " << options.seed << ") FAILED, after "
                  << tally.histories << " histories (the first to fail): " << spec::name(f.report.result)
                  << (f.rule().empty() ? "" : " " + f.rule()) << "\n";
        // The same verdict (a lost wakeup: of the same rule; a history that is
        // not linearizable may fail at another call when smaller).
        auto still_fails = [&f](const history& candidate) {
            const history_finding c = check_recorded(candidate);
            return c.failed() && c.report.result == f.report.result && (c.report.result != spec::verdict::lost_wakeup || c.rule() == f.rule());
        };
        auto [small, small_options] = minimise_recorded(*h, options, id, record, still_fails);
        // Then single calls taken out of that program (with the calls that need
        // only what they made), the last first, each candidate sent up to 5
        // times, while it still fails the same way: drawing again cannot drop
        // one call (a wrong answer to one rare query keeps a long program).
        program kept = make_program(small_options, id, d.unsupported());
        std::size_t before = call_count(kept);
        for (std::size_t lane = kept.lanes.size() + 1; lane-- > 0;) {
            for (std::size_t index = (lane == 0 ? kept.setup : kept.lanes[lane - 1]).size(); index-- > 0;) {
                if (index >= (lane == 0 ? kept.setup : kept.lanes[lane - 1]).size()) continue; // a removal took it already
                const program candidate = without_call(kept, lane, index);
                for (int attempt = 0; attempt < 5; ++attempt) {
                    std::optional<history> again = d.run(candidate, small_options);
                    if (again && still_fails(*again)) {
                        kept = candidate, small = std::move(*again);
                        break;
                    }
                }
            }
        }
        if (call_count(kept) < before)
            std::cout << "bcast-trace drive: shrunk further by taking calls out: " << before << " -> " << call_count(kept) << " calls\n";
        const history_finding sf = check_recorded(small);
        std::map<int, int> per_thread; // calls a thread made (a waiter's first call comes on top of --calls)
        for (const spec::call& c : small.calls)
            if (c.thread >= 0) ++per_thread[c.thread];
        int most = 0;
        for (const auto& [thread, n] : per_thread) most = std::max(most, n);
        std::cout << "minimised: " << small.threads << " threads, at most " << most << " calls a thread (--calls " << small_options.calls
                  << "), " << small.calls.size() << " calls in all, setup included (bcast-trace drive --seed " << options.seed << " --first " << id
                  << " --histories 1 --threads " << small.threads << " --calls " << small_options.calls
                  << (options.contention_only ? " --contention" : "") << " -- ... draws the program"
                  << (call_count(kept) < before ? " before calls were taken out" : "") << ")\n"
                  << spec::to_string(sf.report, small.calls);
        write_history(std::cout, small);
        if (!request.svg_path.empty()) {
            write_text(request.svg_path, history_svg(small, sf.report));
            std::cout << "picture: " << request.svg_path << "\n";
        }
        verdict.write(tally, 1, &small, &sf);
        return 1;
    }
    if (!findings_dir.empty()) {
        // Each documented finding (an upstream behaviour a row of the divergence
        // table names) minimised through the driver and drawn, as check-history
        // --minimise-with does for a recorder.
        std::filesystem::create_directories(findings_dir);
        minimise_findings(documented, record, findings_dir, 20);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const drive_stats& st = d.stats();
    std::cout << "bcast-trace drive: " << tally.summary() << "; " << st.stalled << " with a stalled call, " << st.not_quiescent
              << " discarded (not quiescent), " << st.unsupported << " discarded (an operation the driver lacks); "
              << tally.histories / std::max(seconds, 1e-9) << " histories/s; " << seconds << " s\n";
    if (st.unsupported > 0) std::cout << "bcast-trace drive: the driver lacks " << lacks() << "\n";
    if (tally.histories == 0) {
        std::cout << "bcast-trace drive: FAIL: no history was checked\n";
        verdict.write(tally, 1);
        return 1;
    }
    const int status = exit_status(tally);
    std::cout << "bcast-trace drive: " << exit_word(status) << "\n";
    verdict.write(tally, status);
    return status;
}

// serve --channel FAMILY: a driver (bcast/trace/driver.hpp) for a registered family.
int serve_command(const std::vector<std::string>& args) {
    if (args.size() != 2 || args[0] != "--channel") throw usage_error("serve --channel FAMILY");
    return with_family(args[1], [&]<class Family>() {
        return serve<typename Family::template channel<int>>(std::cin, std::cout, Family::implementation);
    });
}

} // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> all(argv + 1, argv + argc);
    if (all.empty() || all[0] == "--help" || all[0] == "-h") {
        std::cout << usage_text;
        return all.empty() ? 2 : 0;
    }
    const std::vector<std::string> args(all.begin() + 1, all.end());
    try {
        if (all[0] == "generate") return generate_command(args);
        if (all[0] == "replay") return replay_command(args);
        if (all[0] == "check") return check_command(args);
        if (all[0] == "divergences") return divergences_command(args);
        if (all[0] == "operations") return operations_command(args);
        if (all[0] == "record") return record_command(args);
        if (all[0] == "check-history") return check_history_command(args);
        if (all[0] == "drive") return drive_command(args);
        if (all[0] == "serve") return serve_command(args);
        throw usage_error("unknown command '" + all[0] + "'");
    } catch (const format_error& e) {
        std::cerr << "bcast-trace: " << e.what() << "\n";
        return 2;
    } catch (const driver_reported_failure& e) {
        std::cerr << "bcast-trace: " << e.what() << "\n";
        return 2;
    } catch (const usage_error& e) {
        std::cerr << "bcast-trace: " << e.what() << "\n"
                  << usage_text;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "bcast-trace: " << e.what() << "\n";
        return 2;
    }
}
