// SPDX-License-Identifier: MIT OR Apache-2.0
// The callgrind protocol of the instruction-count binaries (bcast_counts,
// bcast_fast_counts, bcast_ablation_counts_<ablation>), written once: for
// every case whose name holds --filter, callgrind's counters are zeroed, K1
// iterations run and are dumped ("<case>|<K1>"), then K2 ("<case>|<K2>");
// callgrind_counts.py divides the difference by K2 - K1. Each binary keeps
// its own cases (they are its translation unit: GCC's inliner budgets are per
// unit, see bcast_counts.cpp).
//
// Usage of each: PROGRAM [--iters=K1,K2] [--filter=SUBSTRING] [--list]
#pragma once

#include "cases.hpp" // fail(), leave_single_thread_mode()

// Without valgrind's headers the binary still builds (and just runs the loops),
// so a tree without valgrind installed is not broken by this benchmark.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(label) static_cast<void>(label)
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace bcast_bench {

struct count_case {
    std::string name;
    // Makes a fresh workload and returns "run k iterations of it".
    std::function<std::function<void(std::uint64_t)>()> prepare;
};

inline int counts_main(int argc, char** argv, const char* program, const std::vector<count_case>& cases) {
    leave_single_thread_mode();
    std::uint64_t small_batch = 5000;
    std::uint64_t large_batch = 15000;
    std::string filter;
    bool list_only = false;
    for (int k = 1; k < argc; ++k) {
        if (std::strncmp(argv[k], "--iters=", 8) == 0) {
            char* rest = nullptr;
            small_batch = std::strtoull(argv[k] + 8, &rest, 10);
            if (rest == nullptr || *rest != ',') fail("--iters takes K1,K2");
            large_batch = std::strtoull(rest + 1, nullptr, 10);
        } else if (std::strncmp(argv[k], "--filter=", 9) == 0) {
            filter = argv[k] + 9;
        } else if (std::strcmp(argv[k], "--list") == 0) {
            list_only = true;
        } else {
            std::fprintf(stderr, "usage: %s [--iters=K1,K2] [--filter=SUBSTRING] [--list]\n", program);
            return 2;
        }
    }
    if (small_batch == 0 || large_batch <= small_batch) fail("--iters needs 0 < K1 < K2");
    for (const count_case& entry : cases) {
        if (entry.name.find(filter) == std::string::npos) continue;
        std::printf("%s\n", entry.name.c_str());
        if (list_only) continue;
        auto run = entry.prepare();
        run(16); // first touch outside the counted batches
        for (std::uint64_t batch : {small_batch, large_batch}) {
            const std::string label = entry.name + "|" + std::to_string(batch);
            CALLGRIND_ZERO_STATS;
            run(batch);
            CALLGRIND_DUMP_STATS_AT(label.c_str());
        }
    }
    return 0;
}

} // namespace bcast_bench
