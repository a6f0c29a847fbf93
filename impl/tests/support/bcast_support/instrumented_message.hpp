// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_support::instrumented_message: a message type that watches what the
// channel does with its messages, for the tests of R-MSG-1..3 on the
// implementation (impl/tests, through impl/tests/counted.hpp) and the
// lifetimes and exception_safety properties (property_tests).
//
//   - it counts its live instances, its copies, and the destructions of each
//     message's last incarnation (not moved from): leaks, double destruction
//     and needless copies show in the counts;
//   - it marks destroyed instances, and counts in `errors` every use or
//     destruction of an instance that is dead or was never constructed;
//   - while `armed`, its copy constructor throws copy_error (a
//     std::runtime_error), to check that a throwing copy changes nothing.
// Its move constructor and destructor are noexcept, as the channel requires
// (R-MSG-4), and it cannot be assigned: the channel never needs to.
//
// The counters are atomic so that a test whose messages cross threads may use
// it too; they are shared by the whole process, so a test resets them or
// compares with a baseline.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>

namespace bcast_support {

struct copy_error : std::runtime_error {
    copy_error() : std::runtime_error("bcast_support::instrumented_message: copy armed to throw") {}
};

class instrumented_message {
public:
    static inline std::atomic<long> live{0};      // instances constructed and not yet destroyed
    static inline std::atomic<long> copies{0};    // copy constructions that succeeded
    static inline std::atomic<long> destroyed{0}; // destructions of an instance that was not moved from
    static inline std::atomic<long> errors{0};    // uses or destructions of a dead instance
    static inline std::atomic<bool> armed{false}; // while set, every copy throws copy_error

    static void reset() { live = 0, copies = 0, destroyed = 0, errors = 0; }

    explicit instrumented_message(int v) noexcept : value(v) { born(); }
    instrumented_message(const instrumented_message& other) : value(other.read()) {
        if (armed) throw copy_error();
        ++copies;
        born();
    }
    instrumented_message(instrumented_message&& other) noexcept : value(other.read()) {
        other.moved_from = true;
        born();
    }
    instrumented_message& operator=(const instrumented_message&) = delete;
    ~instrumented_message() {
        if (magic_ != alive_magic) ++errors; // destroyed twice, or never constructed
        magic_ = dead_magic;
        --live;
        if (!moved_from) ++destroyed; // each message's last incarnation
    }

    // The value, counting the read in `errors` if this instance is dead.
    int read() const noexcept {
        if (magic_ != alive_magic) ++errors;
        return value;
    }

    int value = 0;
    bool moved_from = false;

private:
    static constexpr std::uint32_t alive_magic = 0x600dc0deu;
    static constexpr std::uint32_t dead_magic = 0xdeadbeefu;

    void born() noexcept {
        magic_ = alive_magic;
        ++live;
    }

    std::uint32_t magic_ = 0;
};

} // namespace bcast_support
