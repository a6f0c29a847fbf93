// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast's side of the driver protocol (docs/drivers.md): starts a driver
// process, sends it programs (program.hpp), reads its answers (each line
// checked, errors naming the driver's output line) and turns each answered
// program into a history by the rules that docs/drivers.md, "What bcast
// decides", states: the order from the driver's clock, a stuck call pending
// whatever it answered, quiescence. The history then goes to the one checker
// like any recorded history (history_check.hpp).
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format.hpp"
#include "history.hpp"
#include "invoke.hpp"
#include "json.hpp"
#include "program.hpp"
#include "record.hpp"

namespace bcast::trace {

// The driver broke the protocol, exited or hung (exit 2 of `drive`).
struct driver_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The driver answered `{"error":...}`: it could not run a program (an
// exception of the implementation or of the glue; exit 2, as a driver error:
// exit 1 is kept for what the checker finds).
struct driver_reported_failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The driver's process: its standard input and output as pipes, its standard
// error shared with ours.
class driver_process {
public:
    explicit driver_process(const std::vector<std::string>& command) {
        if (command.empty()) throw driver_error("no driver command");
        int to_child[2], from_child[2];
        if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0)
            throw driver_error(std::string("cannot make pipes: ") + std::strerror(errno));
        ::signal(SIGPIPE, SIG_IGN); // a driver that exits makes write() fail with EPIPE, reported below, not a signal
        pid_ = ::fork();
        if (pid_ < 0) throw driver_error(std::string("cannot start the driver: ") + std::strerror(errno));
        if (pid_ == 0) {
            ::dup2(to_child[0], 0);
            ::dup2(from_child[1], 1);
            std::vector<char*> argv;
            for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            ::execvp(argv[0], argv.data());
            const std::string why = "bcast-trace drive: cannot run " + command[0] + ": " + std::strerror(errno) + "\n";
            (void)!::write(2, why.data(), why.size());
            ::_exit(127);
        }
        ::close(to_child[0]);
        ::close(from_child[1]);
        in_ = to_child[1];
        out_ = from_child[0];
        name_ = command[0];
    }
    driver_process(const driver_process&) = delete;
    driver_process& operator=(const driver_process&) = delete;
    ~driver_process() {
        finish(std::chrono::seconds(2));
        if (out_ >= 0) ::close(out_);
    }

    void send(const std::string& line) {
        const std::string text = line + "\n";
        for (std::size_t done = 0; done < text.size();) {
            const ssize_t n = ::write(in_, text.data() + done, text.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw driver_error("the driver " + name_ + " stopped reading (" + std::strerror(errno) + "): " + status());
            done += std::size_t(n);
        }
    }

    // The next line of the driver's output, waiting at most until `deadline`;
    // nullopt when it has not come by then. Throws driver_error at the end of
    // its output (it exited or closed it), or on a last line cut short.
    std::optional<std::string> read_line(std::chrono::steady_clock::time_point deadline) {
        for (;;) {
            if (const std::size_t nl = buffer_.find('\n'); nl != std::string::npos) {
                std::string line = buffer_.substr(0, nl);
                buffer_.erase(0, nl + 1);
                ++lines_;
                return line;
            }
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return std::nullopt;
            pollfd p{out_, POLLIN, 0};
            const int ready = ::poll(&p, 1, int(std::min<std::int64_t>(left.count(), 1000)));
            if (ready < 0 && errno != EINTR) throw driver_error(std::string("poll: ") + std::strerror(errno));
            if (ready <= 0) continue;
            char chunk[65536];
            const ssize_t n = ::read(out_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                settle(); // its output ended: it is exiting, so that the error can say how
                if (!buffer_.empty())
                    throw driver_error("driver:" + std::to_string(lines_ + 1) + ": the output ends inside a line (no newline): " + buffer_.substr(0, 200) + "; " + status());
                throw driver_error("the driver's output ended after line " + std::to_string(lines_) + ": " + status());
            }
            buffer_.append(chunk, std::size_t(n));
        }
    }
    std::size_t lines_read() const { return lines_; }

    // Closes its input and waits up to `grace` for it to exit, then kills it.
    void finish(std::chrono::milliseconds grace) {
        if (in_ >= 0) ::close(in_), in_ = -1;
        if (pid_ <= 0 || exited_) return;
        const auto until = std::chrono::steady_clock::now() + grace;
        while (std::chrono::steady_clock::now() < until && !reaped(WNOHANG)) ::usleep(2000); // polling the exit, not ordering anything
        if (!exited_) ::kill(pid_, SIGKILL), reaped(0);
    }
    // How the process stands, for an error message.
    std::string status() {
        if (!exited_) reaped(WNOHANG);
        if (!exited_) return "it is still running";
        if (WIFEXITED(wait_status_)) return "it exited with status " + std::to_string(WEXITSTATUS(wait_status_));
        if (WIFSIGNALED(wait_status_)) return "it was killed by signal " + std::to_string(WTERMSIG(wait_status_));
        return "it ended";
    }

private:
    // Waits up to a second for the process to be reaped (it closed its output).
    void settle() {
        for (int i = 0; i < 500 && !exited_ && !reaped(WNOHANG); ++i) ::usleep(2000); // polling the exit, not ordering anything
    }
    bool reaped(int flags) {
        const pid_t r = ::waitpid(pid_, &wait_status_, flags);
        if (r == pid_) exited_ = true;
        return exited_;
    }
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1;
    int wait_status_ = 0;
    bool exited_ = false;
    std::string name_, buffer_;
    std::size_t lines_ = 0;
};

struct drive_stats {
    std::uint64_t recorded = 0, stalled = 0;
    std::uint64_t not_quiescent = 0; // discarded: something happened after a stall
    std::uint64_t unsupported = 0;   // discarded: it asked for an operation the driver then said it lacks
};

namespace detail::drv {

// One answered call, as the driver reported it.
struct answer {
    std::int64_t invoked_ns = 0, returned_ns = 0;
    bool woken = false; // the driver saw the implementation notify this waiting call
    spec::outcome result{};
    bool present = false;
};

inline bool waits_for_bound(spec::call_kind k) { return k == spec::call_kind::broadcast || k == spec::call_kind::recv; }

} // namespace detail::drv

// A driver, spoken to: its hello, then one program at a time.
class driver {
public:
    driver(const std::vector<std::string>& command, std::chrono::seconds patience) : process_(command), patience_(patience) {
        using namespace detail;
        const auto deadline = std::chrono::steady_clock::now() + patience_;
        const std::optional<std::string> first = process_.read_line(deadline);
        if (!first) throw driver_error("the driver said no hello within " + std::to_string(patience_.count()) + " s: " + process_.status());
        const json o = parse_line(*first);
        only_members(o, {"format", "version", "implementation", "unsupported", "profile", "target"}, source, 1);
        check_format(o, driver_format_name, driver_format_version, source, 1);
        implementation_ = text(o, "implementation", source, 1);
        if (o.find("target") != nullptr) {
            target_ = text(o, "target", source, 1);
            if (!valid_target(target_)) fail_at(source, 1, "unknown target \"" + target_ + "\" (bcast or async-broadcast)");
        }
        if (o.find("profile") != nullptr) {
            profile_ = text(o, "profile", source, 1);
            if (profile_named(profile_) == nullptr) fail_at(source, 1, "unknown profile \"" + profile_ + "\" (known: " + known_profile_names() + ")");
        }
        if (const json* u = o.find("unsupported")) {
            if (!u->is_array()) fail_at(source, 1, "\"unsupported\" must be an array of operation names");
            for (const json& name : u->as_array()) {
                const auto k = name.is_string() ? history_op_kind(name.as_string()) : std::nullopt;
                if (!k) fail_at(source, 1, "\"unsupported\" names no operation: " + name.dump() + " (bcast-trace operations lists them)");
                unsupported_.insert(*k);
            }
        }
    }

    const std::string& implementation() const { return implementation_; }
    const std::string& profile() const { return profile_; }
    const operation_set& unsupported() const { return unsupported_; }
    const drive_stats& stats() const { return stats_; }

    // Program `id` drawn from `options` without what the driver lacks, run by
    // the driver and turned into a history; nullopt when it is discarded.
    std::optional<history> record(const record_options& options, std::uint64_t id) {
        return run(make_program(options, id, unsupported_), options);
    }

    std::optional<history> run(const program& p, const record_options& options) {
        process_.send(program_line(p));
        const auto [answers, discarded] = read_answers(p);
        if (discarded) {
            ++stats_.unsupported;
            return std::nullopt;
        }
        return to_history(p, answers, options);
    }

private:
    static constexpr std::string_view source = "driver";

    // A line that is not JSON is most often a print() of the glue: standard
    // output is the protocol's, logging belongs on standard error.
    json parse_line(const std::string& line) {
        try {
            return detail::parse_object_line(line, source, process_.lines_read());
        } catch (const format_error& e) {
            throw format_error(std::string(e.what()) + " in the line \"" + line.substr(0, 120) + (line.size() > 120 ? "..." : "") +
                               "\" (the driver's standard output is the protocol: log to standard error)");
        }
    }

    // Every answer of program p, [thread + 1][call] (the setup first); true
    // with them when the driver said it lacks one of the program's operations.
    std::pair<std::vector<std::vector<detail::drv::answer>>, bool> read_answers(const program& p) {
        using namespace detail;
        std::vector<std::vector<drv::answer>> got(p.lanes.size() + 1);
        got[0].resize(p.setup.size());
        for (std::size_t t = 0; t < p.lanes.size(); ++t) got[t + 1].resize(p.lanes[t].size());
        auto request = [&](std::int64_t thread, std::uint64_t index, std::size_t line) -> const program_call& {
            if (thread < -1 || thread >= std::int64_t(p.lanes.size()))
                fail_at(source, line, "\"thread\" must be -1 (setup) or 0.." + std::to_string(p.lanes.size() - 1) + " in program " + std::to_string(p.id));
            const auto& list = thread < 0 ? p.setup : p.lanes[std::size_t(thread)];
            if (index >= list.size())
                fail_at(source, line, "thread " + std::to_string(thread) + " of program " + std::to_string(p.id) + " has no call " + std::to_string(index) + " (it was sent " + std::to_string(list.size()) + ")");
            return list[index];
        };
        bool discarded = false;
        const auto deadline = std::chrono::steady_clock::now() + patience_;
        for (;;) {
            const std::optional<std::string> text_line = process_.read_line(deadline);
            if (!text_line)
                throw driver_error("the driver hung: program " + std::to_string(p.id) + " not ended within " + std::to_string(patience_.count()) + " s (its last line was " + std::to_string(process_.lines_read()) + "); most often a broadcast or recv run without its bound_us, or a timed call that never times out (docs/drivers.md); bcast-trace drive --timeout-s sets the limit");
            const std::size_t line = process_.lines_read();
            if (text_line->find_first_not_of(" \t\r") == std::string::npos) continue;
            const json o = parse_line(*text_line);
            if (counter(o, "program", source, line) != p.id)
                fail_at(source, line, "an answer to program " + member(o, "program", source, line).dump() + " while program " + std::to_string(p.id) + " runs");
            if (const json* e = o.find("error")) {
                only_members(o, {"program", "error"}, source, line);
                throw driver_reported_failure("the driver could not run program " + std::to_string(p.id) + " (an exception of the implementation or of the glue): " + (e->is_string() ? e->as_string() : e->dump()));
            }
            if (const json* end = o.find("end")) {
                only_members(o, {"program", "end"}, source, line);
                if (!end->is_bool() || !end->as_bool()) fail_at(source, line, "\"end\" must be true");
                break;
            }
            const std::int64_t thread = integer(o, "thread", source, line);
            const std::uint64_t index = counter(o, "call", source, line);
            const program_call& rq = request(thread, index, line);
            if (const json* u = o.find("unsupported")) {
                only_members(o, {"program", "thread", "call", "unsupported"}, source, line);
                if (!u->is_bool() || !u->as_bool()) fail_at(source, line, "\"unsupported\" must be true");
                unsupported_.insert(rq.request.kind);
                discarded = true;
                continue;
            }
            only_members(o, {"program", "thread", "call", "invoked_ns", "returned_ns", "result", "woken"}, source, line);
            drv::answer& a = got[std::size_t(thread + 1)][index];
            if (a.present) fail_at(source, line, "call " + std::to_string(index) + " of thread " + std::to_string(thread) + " answered twice");
            a.present = true;
            a.invoked_ns = std::int64_t(counter(o, "invoked_ns", source, line));
            a.returned_ns = std::int64_t(counter(o, "returned_ns", source, line));
            if (a.returned_ns < a.invoked_ns) fail_at(source, line, "\"returned_ns\" is before \"invoked_ns\"");
            a.result = outcome_of(rq.request, member(o, "result", source, line), source, line);
            if (const json* w = o.find("woken")) {
                if (!w->is_bool()) fail_at(source, line, "\"woken\" must be true or false");
                if (!drv::waits_for_bound(rq.request.kind)) fail_at(source, line, "\"woken\" is for a broadcast or recv only");
                a.woken = w->as_bool();
            }
        }
        if (discarded) return {std::move(got), true};
        const std::size_t end_line = process_.lines_read();
        for (std::size_t t = 0; t < got.size(); ++t) {
            const auto& list = t == 0 ? p.setup : p.lanes[t - 1];
            const std::size_t ran = std::size_t(std::find_if(got[t].begin(), got[t].end(), [](const drv::answer& a) { return !a.present; }) - got[t].begin());
            const std::string who = t == 0 ? "the setup" : "thread " + std::to_string(t - 1);
            for (std::size_t i = ran; i < list.size(); ++i)
                if (got[t][i].present)
                    fail_at(source, end_line, "program " + std::to_string(p.id) + ": " + who + " answered call " + std::to_string(i) + " but not call " + std::to_string(ran));
            if (ran == list.size()) continue;
            const bool used_bound = ran > 0 && t > 0 && drv::waits_for_bound(list[ran - 1].request.kind) &&
                                    std::chrono::nanoseconds(got[t][ran - 1].returned_ns - got[t][ran - 1].invoked_ns) >= p.bound;
            if (!used_bound)
                fail_at(source, end_line, "program " + std::to_string(p.id) + " ended with call " + std::to_string(ran) + " of " + who + " unanswered, and " + (ran == 0 ? std::string("it was the first") : "call " + std::to_string(ran - 1) + " before it did not wait out its bound") + " (docs/drivers.md: only a blocking call that used its bound stops a thread)");
        }
        return {std::move(got), false};
    }

    // The rules of docs/drivers.md, "What bcast decides".
    std::optional<history> to_history(const program& p, const std::vector<std::vector<detail::drv::answer>>& got, const record_options& options) {
        using namespace detail::drv;
        struct entry {
            spec::call c;
            std::int64_t timeout_us;
            std::int64_t invoked_ns, returned_ns;
            bool woken;
            bool stalled = false;
        };
        std::vector<entry> all;
        for (std::size_t t = 0; t < got.size(); ++t) {
            const auto& list = t == 0 ? p.setup : p.lanes[t - 1];
            for (std::size_t i = 0; i < list.size() && got[t][i].present; ++i) {
                entry e{list[i].request, list[i].timeout_us, got[t][i].invoked_ns, got[t][i].returned_ns, got[t][i].woken};
                e.c.result = got[t][i].result;
                all.push_back(e);
            }
        }
        const std::int64_t bound_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(p.bound).count();
        // Stuck or slow: a blocking call that used its bound is pending if no
        // other call was invoked or returned in the last half of its wait. A
        // stall's own end is no event (it is pending), so the calls that used
        // their bound are decided in the order they ended, each against the
        // decisions before it (as record.hpp's clock, which a stall never ticks).
        auto used_bound = [bound_ns](const entry& e) { return waits_for_bound(e.c.kind) && e.returned_ns - e.invoked_ns >= bound_ns; };
        std::vector<std::size_t> candidates;
        for (std::size_t i = 0; i < all.size(); ++i)
            if (used_bound(all[i])) candidates.push_back(i);
        std::sort(candidates.begin(), candidates.end(), [&all](std::size_t a, std::size_t b) { return all[a].returned_ns < all[b].returned_ns; });
        for (std::size_t i : candidates) {
            entry& e = all[i];
            const std::int64_t from = e.returned_ns - bound_ns / 2;
            auto inside = [&](std::int64_t t) { return t > from && t <= e.returned_ns; };
            bool quiet = true;
            for (std::size_t j = 0; j < all.size() && quiet; ++j)
                if (j != i) quiet = !inside(all[j].invoked_ns) && (all[j].stalled || !inside(all[j].returned_ns));
            if (quiet && !e.woken) {
                e.stalled = true;
                e.c.result = {}; // whatever it answered: nothing woke it
            } else if (timed_out(e.c.kind, e.c.result)) {
                e.c.kind = e.c.kind == spec::call_kind::broadcast ? spec::call_kind::broadcast_timed : spec::call_kind::recv_timed;
                e.timeout_us = bound_ns / 1000;
            }
        }
        // Quiescence: nothing may happen after a stall (a stalled call's own end is no event).
        bool any_stall = false;
        for (const entry& s : all) {
            if (!s.stalled) continue;
            any_stall = true;
            for (const entry& o : all)
                if (o.invoked_ns > s.returned_ns || (!o.stalled && o.returned_ns > s.returned_ns)) {
                    ++stats_.not_quiescent;
                    return std::nullopt;
                }
        }
        // A timed call's deadline on the driver's clock: its invocation plus its
        // timeout (read before the call, so no later than the deadline the
        // implementation computes inside it: a constraint it must meet).
        auto deadline_ns = [](const entry& e) { return e.invoked_ns + e.timeout_us * 1000; };
        auto timed = [](const entry& e) { return !e.stalled && spec::is_timed(e.c.kind); };
        // Ticks: the ranks of the times, an invocation (or a deadline) before a
        // response at equal times (overlapping).
        std::vector<std::int64_t> keys;
        for (const entry& e : all) {
            keys.push_back(2 * e.invoked_ns);
            if (!e.stalled) keys.push_back(2 * e.returned_ns + 1);
            if (timed(e)) keys.push_back(2 * deadline_ns(e));
        }
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        auto tick = [&keys](std::int64_t key) { return std::uint64_t(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin()) + 1; };
        std::stable_sort(all.begin(), all.end(), [](const entry& a, const entry& b) { return a.invoked_ns < b.invoked_ns; });
        history h;
        h.id = p.id;
        h.capacity = p.capacity;
        h.threads = int(p.lanes.size());
        h.implementation = implementation_;
        h.target = target_;
        h.profile = profile_;
        h.seed = options.seed;
        h.stall_ms = std::uint64_t(options.stall.count());
        h.calls_per_thread = std::uint64_t(options.calls);
        h.contention = options.contention_only;
        for (entry& e : all) {
            e.c.invoked = tick(2 * e.invoked_ns);
            e.c.returned = e.stalled ? spec::pending_tick : tick(2 * e.returned_ns + 1);
            if (timed(e)) e.c.deadline = tick(2 * deadline_ns(e));
            h.calls.push_back(e.c);
            h.timeout_us.push_back(e.timeout_us);
            h.call_lines.push_back(0);
        }
        ++stats_.recorded;
        if (any_stall) ++stats_.stalled;
        return h;
    }

    driver_process process_;
    std::chrono::seconds patience_;
    std::string implementation_, profile_{spec::reference_profile.name}, target_{target_bcast};
    operation_set unsupported_;
    drive_stats stats_;
};

} // namespace bcast::trace
