// Message types that watch the channel: `counted` tracks live instances and
// copies; `throwing_copy` throws from its copy constructor when armed.
#pragma once

#include <atomic>
#include <stdexcept>

namespace bcast::spec_tests {

struct counted {
    static inline std::atomic<long> live{0};
    static inline std::atomic<long> copies{0};
    static inline std::atomic<long> destroyed{0};
    static void reset() { live = 0, copies = 0, destroyed = 0; }

    int value = 0;
    bool moved_from = false;

    explicit counted(int v) : value(v) { ++live; }
    counted(const counted& other) : value(other.value) { ++live, ++copies; }
    counted(counted&& other) noexcept : value(other.value) {
        other.moved_from = true;
        ++live;
    }
    counted& operator=(const counted&) = delete;
    ~counted() {
        --live;
        if (!moved_from) ++destroyed; // each message's last incarnation
    }
};

struct throwing_copy {
    static inline bool armed = false;
    int value = 0;

    explicit throwing_copy(int v) : value(v) {}
    throwing_copy(const throwing_copy& other) : value(other.value) {
        if (armed) throw std::runtime_error("copy failed on purpose");
    }
    throwing_copy(throwing_copy&&) noexcept = default;
    throwing_copy& operator=(const throwing_copy&) = delete;
};

} // namespace bcast::spec_tests
