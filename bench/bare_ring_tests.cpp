// SPDX-License-Identifier: MIT OR Apache-2.0
// The bare ring's own check (bare_ring.hpp, docs/fast-design.md section 10):
// one producer and N consumer threads over capacities 1 to 64, with and
// without membarrier, with and without a consumer or the producer stalling
// now and then (so that both sides sleep). Every consumer checks that it gets
// 0..M-1 in order; a mismatch or a missing message fails the run. Built with
// ThreadSanitizer as the ctest bcast_bare_ring_tsan (bench/CMakeLists.txt),
// which also reports any access to a slot that its release/acquire pairs do
// not order.
//
//   bcast_bare_ring_tests [--messages M]   (default 20000 a run)
#include "bare_ring.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using bcast_bench::bare::fences;

enum class stall { none,
                   consumer,
                   producer };

const char* name_of(stall s) {
    switch (s) {
    case stall::consumer: return "consumer stalls";
    case stall::producer: return "producer stalls";
    default: return "no stalls";
    }
}

// Stalls every 997 messages: long enough for the other side's back-off to end and sleep.
void maybe_stall(bool stalling, std::uint64_t k) {
    if (stalling && k % 997 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
}

// One run; returns false (after printing why) if a consumer saw a wrong message.
bool run(std::size_t consumers, std::size_t capacity, fences kind, stall how, std::uint64_t messages) {
    bcast_bench::bare::ring ring(capacity, consumers, kind);
    std::vector<std::uint64_t> wrong(consumers, 0); // per consumer: 0, or 1 + the index of the first mismatch
    std::vector<std::thread> threads;
    for (std::size_t c = 0; c < consumers; ++c) {
        threads.emplace_back([&, c] {
            auto reader = ring.reader_at(c);
            for (std::uint64_t expected = 0; expected < messages; ++expected) {
                const std::uint64_t got = reader.next();
                if (got != expected) {
                    wrong[c] = expected + 1;
                    std::fprintf(stderr, "bare ring: consumer %zu expected %llu, got %llu\n", c,
                                 static_cast<unsigned long long>(expected), static_cast<unsigned long long>(got));
                    return; // the producer may now wait forever: main exits instead
                }
                maybe_stall(how == stall::consumer && c == consumers - 1, expected);
            }
        });
    }
    threads.emplace_back([&] {
        for (std::uint64_t value = 0; value < messages; ++value) {
            ring.publish(value);
            maybe_stall(how == stall::producer, value);
        }
    });
    for (std::size_t c = 0; c < consumers; ++c) threads[c].join();
    bool ok = true;
    for (std::size_t c = 0; c < consumers; ++c) ok = ok && wrong[c] == 0;
    if (!ok) {
        std::fprintf(stderr, "bare ring: FAILED with %zu consumers, capacity %zu, %s, %s\n", consumers, capacity,
                     kind == fences::symmetric ? "symmetric fences" : "membarrier if available", name_of(how));
        std::fflush(stderr);
        std::_Exit(1); // the producer thread may be blocked on a full ring
    }
    threads.back().join();
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    std::uint64_t messages = 20000;
    for (int k = 1; k + 1 < argc; k += 2) {
        if (std::strcmp(argv[k], "--messages") == 0) messages = std::stoull(argv[k + 1]);
    }
    std::size_t runs = 0;
    for (std::size_t consumers : {1, 2, 3, 4}) {
        for (std::size_t capacity : {1, 2, 8, 64}) {
            for (fences kind : {fences::automatic, fences::symmetric}) {
                for (stall how : {stall::none, stall::consumer, stall::producer}) {
                    // The stalling runs are short: their point is the sleeps.
                    run(consumers, capacity, kind, how, how == stall::none ? messages : messages / 10);
                    ++runs;
                }
            }
        }
    }
    std::printf("bare ring: %zu runs, every consumer got every message in order (membarrier %s)\n", runs,
                bcast_bench::bare::membarrier_available() ? "available" : "not available");
    return 0;
}
