// See async_cases.hpp. Compiled against impl/include for bcast_counts_plain and
// against the generated direct-std headers for bcast_counts_direct.
#include "async_cases.hpp"

#include "cases.hpp"

#include <bcast_support/task.hpp>

#include <memory>
#include <utility>
#include <vector>

namespace bcast_bench {
namespace {

bcast_support::task<std::uint64_t> receive_all(bcast::receiver<std::uint64_t> rx) {
    std::uint64_t expected = 0;
    for (;;) {
        auto received = co_await rx.async_recv();
        if (!received) break;
        if (*received != expected) fail("async_recv returned a wrong value");
        ++expected;
    }
    co_return expected;
}

bcast_support::task<> send(const bcast::sender<std::uint64_t>& tx, std::uint64_t first, std::uint64_t count) {
    for (std::uint64_t value = first; value < first + count; ++value) {
        if (!co_await tx.async_broadcast(value)) fail("async_broadcast failed");
    }
}

struct async_inline_workload {
    explicit async_inline_workload(std::size_t receiver_count) : ends(bcast::channel<std::uint64_t>(1)) {
        receivers.reserve(receiver_count);
        for (std::size_t k = 1; k < receiver_count; ++k) receivers.push_back(receive_all(ends.second));
        receivers.push_back(receive_all(std::move(ends.second)));
    }
    ~async_inline_workload() {
        ends.first.close(); // resumes every receiver with `closed`
        for (auto& receiver : receivers) {
            if (!receiver.done() || receiver.result() != sent) fail("an async receiver missed messages");
        }
    }
    void run(std::uint64_t iterations) {
        bcast_support::task<> sender = send(ends.first, sent, iterations); // never suspends: always room
        if (!sender.done()) fail("the sender coroutine suspended");
        sent += iterations;
    }

    std::pair<bcast::sender<std::uint64_t>, bcast::receiver<std::uint64_t>> ends;
    std::vector<bcast_support::task<std::uint64_t>> receivers;
    std::uint64_t sent = 0;
};

} // namespace

std::function<void(std::uint64_t)> make_async_inline_workload(std::size_t receivers) {
    auto workload = std::make_shared<async_inline_workload>(receivers);
    return [workload](std::uint64_t iterations) { workload->run(iterations); };
}

} // namespace bcast_bench
