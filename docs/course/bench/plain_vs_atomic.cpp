// SPDX-License-Identifier: MIT OR Apache-2.0
// course_bench: what seq_cst atomic fields cost the mailbox where plain fields
// under the lock are enough (docs/course/06-measure.md). Two builds of one
// mailbox.hpp, mailbox<std_model> and mailbox<std_atomic_model>, measured in
// one process, in alternating rounds, and compared round by round: the
// ratio of two numbers taken a moment apart on the same machine is far
// steadier than either number, or than numbers taken in two runs.
//
//   course_bench [--rounds N] [--pairs N]
//
// Exit status 1 if a build loses or invents a value (the benchmark checks
// what it measures), 2 on a usage error.
#include <mailbox/mailbox.hpp>
#include <mailbox/std_model.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

struct timing {
    double ns_per_pair;
    long long sum_taken; // every value put, taken back exactly once: 0 + 1 + ... + (pairs - 1)
};

// One thread: try_put then try_take, so nobody ever waits. What is left to
// measure is the lock and the field accesses, where the two builds differ.
template <class Model>
timing one_thread(long pairs) {
    course::mailbox<Model> box;
    long long sum = 0;
    const auto start = clock_type::now();
    for (long i = 0; i < pairs; ++i) {
        box.try_put(int(i));
        sum += box.try_take().value;
    }
    const std::chrono::duration<double, std::nano> spent = clock_type::now() - start;
    return {spent.count() / double(pairs), sum};
}

// Two threads: each put waits for the take before it and each take for its
// put, so every pair is two wakeups, which cost far more than the fields.
template <class Model>
timing ping_pong(long pairs) {
    course::mailbox<Model> box;
    long long sum = 0;
    const auto start = clock_type::now();
    std::thread consumer([&] {
        for (long i = 0; i < pairs; ++i) sum += box.take().value;
    });
    for (long i = 0; i < pairs; ++i) box.put(int(i));
    consumer.join(); // orders the consumer's writes to sum before the read below
    const std::chrono::duration<double, std::nano> spent = clock_type::now() - start;
    return {spent.count() / double(pairs), sum};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Runs one case: plain and atomic alternate, `rounds` times each.
template <timing (*Plain)(long), timing (*Atomic)(long)>
bool compare(const char* what, int rounds, long pairs) {
    const long long expected_sum = (long long)pairs * (pairs - 1) / 2;
    std::vector<double> plain, atomic, ratio;
    bool values_ok = true;
    for (int r = 0; r < rounds; ++r) {
        const timing p = Plain(pairs);
        const timing a = Atomic(pairs);
        values_ok = values_ok && p.sum_taken == expected_sum && a.sum_taken == expected_sum;
        plain.push_back(p.ns_per_pair);
        atomic.push_back(a.ns_per_pair);
        ratio.push_back(a.ns_per_pair / p.ns_per_pair);
    }
    std::printf("%s, %ld put+take pairs per round\n", what, pairs); // each case says its own count
    std::printf("  plain  %8.1f ns per put+take (median of %d rounds)\n", median(plain), rounds);
    std::printf("  atomic %8.1f ns per put+take\n", median(atomic));
    std::printf("  atomic / plain: median %.2f, rounds %.2f .. %.2f\n", median(ratio),
                *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()));
    if (!values_ok) std::printf("  ERROR: a build did not take back exactly the values it put\n");
    return values_ok;
}

} // namespace

int main(int argc, char** argv) {
    int rounds = 11;
    long pairs = 1000000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--pairs") == 0) pairs = std::atol(argv[i + 1]);
    }
    if (argc % 2 == 0 || rounds < 1 || pairs < 1) {
        std::fprintf(stderr, "usage: course_bench [--rounds N] [--pairs N]\n");
        return 2;
    }
    std::printf("plain and atomic builds alternating, %d rounds\n", rounds);
    const bool one = compare<&one_thread<course::std_model>, &one_thread<course::std_atomic_model>>(
        "one thread, try_put then try_take (nobody waits)", rounds, pairs);
    // A put+take that waits costs about a thousand times one that does not: a
    // hundredth of the pairs keeps the two cases' running times comparable.
    const bool two = compare<&ping_pong<course::std_model>, &ping_pong<course::std_atomic_model>>(
        "two threads, put and take (every call waits for the other thread)", rounds, std::max(1L, pairs / 100));
    return one && two ? 0 : 1;
}
