// SPDX-License-Identifier: MIT OR Apache-2.0
// ThreadSanitizer and bcast's own lock (impl/include/bcast/detail/futex_mutex.hpp,
// annotated with TSan's mutex interface): built and run only in the TSan trees.
//
//   tsan_probe ordered     a plain int written before a broadcast and read after
//                          the matching recv: the channel orders the two (its lock
//                          releases in the sender, acquires in the receiver), so
//                          TSan must stay silent (a report fails the run: exit 66)
//   tsan_probe unordered   the same int written AFTER the broadcast: nothing orders
//                          it with the receiver's read, and TSan must report the
//                          data race (the ctest requires the report in the output)
//
// Together they show that the project's lock neither hides real races from TSan
// (over-synchronising, as a lock TSan treated as a full barrier would) nor
// invents races on data the channel does synchronise.
#include <cstdio>
#include <cstring>
#include <thread>

#include <bcast/bcast.hpp>

namespace {

int user_data = 0; // plain, unsynchronised user state; what TSan watches

[[gnu::noinline]] void write_user_data(int value) { user_data = value; }
[[gnu::noinline]] int read_user_data() { return user_data; }

int run(bool ordered) {
    auto [tx, rx] = bcast::channel<int>(4);
    int seen = -1;
    std::thread receiver([&seen, rx = std::move(rx)]() mutable {
        auto message = rx.recv(); // acquires the channel lock after the sender released it
        if (!message) return;
        seen = read_user_data();
    });
    if (ordered) {
        write_user_data(42); // before the broadcast: ordered before the receiver's read
        if (!tx.broadcast(1)) return 2;
    } else {
        if (!tx.broadcast(1)) return 2;
        write_user_data(42); // after it: races with the receiver's read
    }
    receiver.join();
    if (ordered && seen != 42) {
        std::fprintf(stderr, "tsan_probe: the receiver read %d, not 42\n", seen);
        return 1;
    }
    std::printf("tsan_probe %s: done\n", ordered ? "ordered" : "unordered");
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "ordered") == 0) return run(true);
    if (argc == 2 && std::strcmp(argv[1], "unordered") == 0) return run(false);
    std::fprintf(stderr, "usage: tsan_probe ordered|unordered\n");
    return 2;
}
