// Message types for the property tests.
//
// `int`: plain payload. `tracked`: an instrumented payload that counts its live
// instances (lifetimes property: every message is destroyed exactly once, and
// none outlives the moment no receiver can read it), detects use and
// destruction of dead instances, and whose copy constructor throws while
// `tracked::arm_copy_throw` is set (exception-safety property). Its move is
// noexcept, as the channel requires. Single-threaded use only.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace bcast::prop {

struct copy_error : std::runtime_error {
    copy_error() : std::runtime_error("bcast::prop::tracked: copy armed to throw") {}
};

class tracked {
public:
    // Counters of the whole process (tests run one at a time).
    static inline long live = 0;          // instances constructed and not yet destroyed
    static inline long errors = 0;        // uses or destructions of a dead instance
    static inline long copies_thrown = 0; // copies that threw because armed
    static inline bool arm_copy_throw = false;

    explicit tracked(int value) noexcept : value_(value) { born(); }
    tracked(const tracked& other) : value_(other.checked()) {
        if (arm_copy_throw) {
            ++copies_thrown;
            throw copy_error();
        }
        born();
    }
    tracked(tracked&& other) noexcept : value_(other.checked()) { born(); }
    tracked& operator=(const tracked& other) {
        if (arm_copy_throw) {
            ++copies_thrown;
            throw copy_error();
        }
        value_ = other.checked();
        checked();
        return *this;
    }
    tracked& operator=(tracked&& other) noexcept {
        value_ = other.checked();
        checked();
        return *this;
    }
    ~tracked() {
        if (magic_ != alive_magic) ++errors; // destroyed twice, or never constructed
        magic_ = dead_magic;
        --live;
    }

    int value() const noexcept { return checked(); }

private:
    static constexpr std::uint32_t alive_magic = 0x600dc0deu;
    static constexpr std::uint32_t dead_magic = 0xdeadbeefu;

    void born() noexcept {
        magic_ = alive_magic;
        ++live;
    }
    int checked() const noexcept {
        if (magic_ != alive_magic) ++errors;
        return value_;
    }

    int value_;
    std::uint32_t magic_ = 0;
};

// How the runner makes and reads messages of each type.
template <class Msg>
struct message_traits;

template <>
struct message_traits<int> {
    static constexpr bool counted = false;
    static constexpr bool can_throw = false;
    static int make(int value) { return value; }
    static int value(const int& message) { return message; }
};

template <>
struct message_traits<tracked> {
    static constexpr bool counted = true;
    static constexpr bool can_throw = true;
    static tracked make(int value) { return tracked(value); }
    static int value(const tracked& message) { return message.value(); }
};

} // namespace bcast::prop
