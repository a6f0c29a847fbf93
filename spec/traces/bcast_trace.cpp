// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast-trace: the spec as portable traces (docs/traces.md).
//
//   bcast-trace generate [--seed S] [--count N] [--target bcast|async-broadcast]
//                        [--profile NAME]... [--max-steps K] [-o FILE]
//   bcast-trace replay TRACES [-o RESULTS] [--block-ms MS]   on bcast's own channel;
//                        a blocking call that waits MS (default 5000) answers "blocked"
//   bcast-trace check TRACES RESULTS [--strict] [--show N] [--minimise-with 'CMD']
//   bcast-trace divergences [--check docs/traces.md]
//
// check exits 0 when every difference is documented (the divergence table;
// --strict: when there is none), 1 otherwise, 2 on bad input or usage.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <bcast/spec/channel_adapter.hpp>
#include <bcast/trace/check.hpp>
#include <bcast/trace/format.hpp>
#include <bcast/trace/run.hpp>

namespace {

using namespace bcast::trace;

struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

constexpr const char* usage_text =
    "usage:\n"
    "  bcast-trace generate [--seed S] [--count N] [--target bcast|async-broadcast] [--profile NAME]... [--max-steps K] [-o FILE]\n"
    "  bcast-trace replay TRACES [-o RESULTS] [--block-ms MS]\n"
    "  bcast-trace check TRACES RESULTS [--strict] [--show N] [--minimise-with 'CMD']\n"
    "  bcast-trace divergences [--check FILE]\n"
    "docs/traces.md describes the format and each command.\n";

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

// ---- replay -------------------------------------------------------------------

int replay_command(const std::vector<std::string>& args) {
    std::string in, out;
    std::chrono::milliseconds bound(5000);
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "-o" && i + 1 < args.size()) out = args[++i];
        else if (args[i] == "--block-ms" && i + 1 < args.size()) bound = std::chrono::milliseconds(std::stoul(args[++i]));
        else if (in.empty()) in = args[i];
        else throw usage_error("replay: unexpected argument " + args[i]);
    }
    if (in.empty()) throw usage_error("replay needs a trace file");
    const std::vector<trace> traces = read_file(in);
    write_all(replay<bcast::spec::channel_adapter<int>>(traces, in, "bcast", bound), out);
    return 0;
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
        throw usage_error("unknown command '" + all[0] + "'");
    } catch (const format_error& e) {
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
