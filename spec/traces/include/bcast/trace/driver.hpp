// SPDX-License-Identifier: MIT OR Apache-2.0
// The C++ driver library of the driver protocol (docs/drivers.md): any type
// that meets bcast::spec::timed_broadcast_channel becomes a driver with
//
//     int main() { return bcast::trace::serve<my_adapter>(std::cin, std::cout, "my channel 1.0"); }
//
// serve() says hello, then runs each program bcast sends on real threads and
// answers raw facts only: per call its thread, its invocation and response
// times on the steady clock, and its answer. What was stuck, what is
// linearizable, what to run again: bcast decides (drive.hpp).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <bcast/spec/conformance.hpp>
#include <bcast/spec/conformance_profile.hpp>

#include "format.hpp"
#include "history.hpp"
#include "invoke.hpp"
#include "json.hpp"
#include "program.hpp"
#include "record.hpp"

namespace bcast::trace {

namespace detail::drv {

// One call that ran: its request, its times, its answer.
struct ran {
    spec::call c;          // kind, thread, result
    std::size_t index = 0; // in its thread's list
    std::int64_t invoked_ns = 0, returned_ns = 0;
};

// Runs one program on a fresh Impl; the calls that ran, each thread's in order.
template <class Impl>
std::vector<std::vector<ran>> run_program(const program& p) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    auto now_ns = [start] { return std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start).count(); };
    Impl impl(p.capacity);
    // Handle number -> the implementation's handle. A handle is used by one
    // thread only and the setup's are made before the threads start, so each
    // element is written and read by one thread at a time (no lock).
    std::array<std::optional<spec::handle_id>, spec::max_logical_handles> handles{};
    handles[0] = spec::model<int>::first_sender;
    handles[1] = spec::model<int>::first_receiver;

    // Runs c; false when its thread must stop (a blocking call that used its bound).
    auto run_one = [&](const program_call& pc, std::size_t index, std::vector<ran>& out, std::atomic<int>* announce) {
        const spec::call& rq = pc.request;
        const std::optional<spec::handle_id> id = handles[std::size_t(rq.handle)];
        if (!id) throw std::runtime_error("call " + std::to_string(index) + " of thread " + std::to_string(rq.thread) + ": handle " + std::to_string(rq.handle) + " does not exist here");
        const bool waits = rq.kind == spec::call_kind::broadcast || rq.kind == spec::call_kind::recv;
        const std::chrono::nanoseconds wait = waits ? std::chrono::nanoseconds(p.bound) : std::chrono::nanoseconds(std::chrono::microseconds(pc.timeout_us));
        ran r{rq, index};
        r.invoked_ns = now_ns();
        if (announce != nullptr) announce->fetch_sub(1, std::memory_order_release); // pairs with the waker's acquire load
        const invoked_call answer = invoke(impl, rq.kind, *id, rq.arg, wait);
        r.returned_ns = now_ns();
        r.c.result = answer.result;
        if (spec::consumes_handle(rq.kind)) handles[std::size_t(rq.handle)].reset();
        if (answer.made) handles[std::size_t(rq.out)] = *answer.made;
        out.push_back(r);
        return !(waits && std::chrono::nanoseconds(r.returned_ns - r.invoked_ns) >= wait);
    };

    std::vector<std::vector<ran>> done(p.lanes.size() + 1); // the threads', then the setup's
    for (std::size_t i = 0; i < p.setup.size(); ++i) run_one(p.setup[i], i, done.back(), nullptr);

    const int waiters = p.waker ? int(p.lanes.size()) - 1 : 0;
    std::atomic<int> first_calls_due{waiters};
    std::vector<std::atomic<long>> waiter_tids(p.lanes.size()); // 0: not waiting in its first call (yet)
    std::vector<std::string> errors(p.lanes.size());
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < p.lanes.size(); ++t) {
        threads.emplace_back([&, t] {
            try {
                const std::vector<program_call>& mine = p.lanes[t];
                std::size_t i = 0;
                if (p.waker && int(t) == *p.waker) {
                    // The waker starts once every other thread has invoked its first
                    // call and sleeps in it, or after 50 ms (record.hpp does the same).
                    const auto give_up = clock::now() + std::chrono::milliseconds(50);
                    while (first_calls_due.load(std::memory_order_acquire) > 0 && clock::now() < give_up) rec::poll_pause(); // pairs with the release fetch_sub
                    for (std::size_t w = 0; w < waiter_tids.size(); ++w)
                        for (long tid = waiter_tids[w].load(std::memory_order_relaxed); // a tid only steers this wait
                             tid != 0 && !rec::is_asleep(tid) && clock::now() < give_up; tid = waiter_tids[w].load(std::memory_order_relaxed))
                            rec::poll_pause();
                } else if (p.waker) {
                    if (mine.empty()) {
                        first_calls_due.fetch_sub(1, std::memory_order_release); // nothing to wait on; pairs with the waker's load
                        return;
                    }
                    waiter_tids[t].store(rec::this_thread_tid(), std::memory_order_relaxed); // ordered by the announce's release
                    const bool go_on = run_one(mine[0], 0, done[t], &first_calls_due);
                    waiter_tids[t].store(0, std::memory_order_relaxed);
                    if (!go_on) return;
                    i = 1;
                }
                for (; i < mine.size(); ++i)
                    if (!run_one(mine[i], i, done[t], nullptr)) return;
            } catch (const std::exception& e) {
                errors[t] = e.what();
            }
        });
    }
    for (std::thread& t : threads) t.join();
    for (std::size_t t = 0; t < errors.size(); ++t)
        if (!errors[t].empty()) throw std::runtime_error("thread " + std::to_string(t) + ": " + errors[t]);
    return done;
}

} // namespace detail::drv

// Serves the driver protocol on `in` / `out` for Impl until `in` ends. The
// hello names `implementation` and, where Impl declares one, its conformance
// profile. Returns 0, or 2 when a line bcast sent could not be read (after
// answering it with an error line, which bcast reports).
template <class Impl>
    requires spec::timed_broadcast_channel<Impl, int>
int serve(std::istream& in, std::ostream& out, std::string_view implementation) {
    json_object hello{{"format", json(std::string(driver_format_name))}, {"version", json(driver_format_version)}, {"implementation", json(std::string(implementation))}};
    const std::string_view profile = spec::profile_of<Impl>().name;
    if (profile != spec::reference_profile.name) hello.emplace_back("profile", json(std::string(profile)));
    out << json(std::move(hello)).dump() << std::endl;
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        if (line.empty()) continue;
        std::uint64_t id = 0;
        try {
            const json o = detail::parse_object_line(line, "bcast", number);
            if (const json* p = o.find("program"); p != nullptr && p->is_int()) id = std::uint64_t(p->as_int());
            const program p = read_program(o, "bcast", number);
            const auto done = detail::drv::run_program<Impl>(p);
            for (std::size_t t = 0; t < done.size(); ++t) {
                const int thread = t + 1 == done.size() ? -1 : int(t);
                for (const detail::drv::ran& r : done[t])
                    out << json(json_object{{"program", json(p.id)}, {"thread", json(thread)}, {"call", json(std::uint64_t{r.index})}, {"invoked_ns", json(r.invoked_ns)}, {"returned_ns", json(r.returned_ns)}, {"result", result_json(r.c)}}).dump() << '\n';
            }
            out << json(json_object{{"program", json(p.id)}, {"end", json(true)}}).dump() << std::endl;
        } catch (const std::exception& e) {
            out << json(json_object{{"program", json(id)}, {"error", json(std::string(e.what()))}}).dump() << std::endl;
            if (dynamic_cast<const format_error*>(&e) != nullptr) return 2;
        }
    }
    return 0;
}

} // namespace bcast::trace
