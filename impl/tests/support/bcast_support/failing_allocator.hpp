// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_support::failing_allocations: a test hook that makes the Nth
// allocation fail, so that a test can run an operation once for every N and
// check that each failure leaves the channel exactly as it was (R-EXC-1), the
// way SQLite tests its out-of-memory handling.
//
// Including this header REPLACES the global operator new and operator delete
// (every form: plain and array, sized, aligned, nothrow) for the whole
// program, so include it in exactly one translation unit of a test binary of
// its own (impl/tests/alloc_failure_tests.cpp). The replacements are plain
// malloc/free (aligned_alloc for the aligned forms) plus this hook; a
// replacement function may not be inline, hence the definitions here.
//
// The hook is per thread and off by default: only the thread that armed it is
// affected, and only while armed. GoogleTest, other threads and the test's
// own bookkeeping allocate normally, so arm it around the operation under
// test and nothing else. While armed it also counts that thread's successful
// allocations and its deallocations, so a failed operation that leaks shows
// as allocations != deallocations.
//
//   bcast_support::failing_allocations armed(n);          // the allocation n (0-based) from now fails
//   bcast_support::failing_allocations armed(n, failure_mode::from_then_on); // and every later one
//   bcast_support::failing_allocations counting(failing_allocations::never); // counts, fails nothing
//   ... armed.log().fired, .allocations, .deallocations
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace bcast_support {

// Whether an armed hook fails only the Nth allocation (then lets the rest
// succeed, as a transient shortage does) or the Nth and every later one (as
// exhausted memory does). A correct operation survives both.
enum class failure_mode {
    once,         // only the Nth
    from_then_on, // the Nth and every later one
};

struct allocation_log {
    long allocations = 0;   // successful allocations while armed, this thread
    long deallocations = 0; // deallocations of non-null pointers while armed, this thread
    bool fired = false;     // an allocation was refused
};

namespace failing_allocator_detail {

struct thread_state {
    bool armed = false;
    bool persistent = false; // failure_mode::from_then_on
    long fail_at = -1;       // index of the first request to refuse; -1: none
    long requests = 0;       // allocation requests since armed
    allocation_log log;
};

// constinit: a thread-local with constant initialisation needs no guard, and
// its first use from inside operator new allocates nothing.
inline constinit thread_local thread_state current{};

// Every operator new asks first: true if this request must fail.
inline bool refuse() noexcept {
    thread_state& state = current;
    if (!state.armed) return false;
    const long index = state.requests++;
    if (state.fail_at < 0 || index < state.fail_at || (index > state.fail_at && !state.persistent)) return false;
    state.log.fired = true;
    return true;
}
inline void allocated() noexcept {
    if (current.armed) ++current.log.allocations;
}
inline void freed(void* pointer) noexcept {
    if (pointer != nullptr && current.armed) ++current.log.deallocations;
}

inline void* allocate(std::size_t size) noexcept {
    if (refuse()) return nullptr;
    void* pointer = std::malloc(size == 0 ? 1 : size);
    if (pointer != nullptr) allocated();
    return pointer;
}
inline void* allocate(std::size_t size, std::align_val_t alignment) noexcept {
    if (refuse()) return nullptr;
    const auto align = static_cast<std::size_t>(alignment);
    const std::size_t rounded = (size + align - 1) / align * align; // aligned_alloc wants a multiple
    void* pointer = std::aligned_alloc(align, rounded == 0 ? align : rounded);
    if (pointer != nullptr) allocated();
    return pointer;
}
// Out of line: inlined into a delete expression, g++ would see free() on a
// pointer from `new` and warn (-Wmismatched-new-delete), not knowing that
// this operator new is malloc.
[[gnu::noinline]] inline void release(void* pointer) noexcept {
    freed(pointer);
    std::free(pointer);
}

} // namespace failing_allocator_detail

// Arms the hook on this thread for its lifetime. Not nestable.
class failing_allocations {
public:
    static constexpr long never = -1; // count only

    explicit failing_allocations(long fail_at, failure_mode mode = failure_mode::once) noexcept {
        arm(fail_at, mode);
    }
    ~failing_allocations() { disarm(); }
    failing_allocations(const failing_allocations&) = delete;
    failing_allocations& operator=(const failing_allocations&) = delete;

    // What happened on this thread since it was armed.
    allocation_log log() const noexcept { return failing_allocator_detail::current.log; }

    // For code that cannot scope it: a thread that arms itself before it blocks.
    static void arm(long fail_at, failure_mode mode = failure_mode::once) noexcept {
        failing_allocator_detail::current = {true, mode == failure_mode::from_then_on, fail_at, 0, {}};
    }
    static void disarm() noexcept { failing_allocator_detail::current.armed = false; }
};

} // namespace bcast_support

// ---- the replacements (the whole program; see the top) -------------------------

void* operator new(std::size_t size) {
    if (void* pointer = bcast_support::failing_allocator_detail::allocate(size)) return pointer;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    return bcast_support::failing_allocator_detail::allocate(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    return bcast_support::failing_allocator_detail::allocate(size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
    if (void* pointer = bcast_support::failing_allocator_detail::allocate(size, alignment)) return pointer;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t alignment) { return ::operator new(size, alignment); }
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
    return bcast_support::failing_allocator_detail::allocate(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
    return bcast_support::failing_allocator_detail::allocate(size, alignment);
}

void operator delete(void* pointer) noexcept { bcast_support::failing_allocator_detail::release(pointer); }
void operator delete[](void* pointer) noexcept { bcast_support::failing_allocator_detail::release(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { bcast_support::failing_allocator_detail::release(pointer); }
void operator delete[](void* pointer, std::size_t) noexcept { bcast_support::failing_allocator_detail::release(pointer); }
void operator delete(void* pointer, const std::nothrow_t&) noexcept {
    bcast_support::failing_allocator_detail::release(pointer);
}
void operator delete[](void* pointer, const std::nothrow_t&) noexcept {
    bcast_support::failing_allocator_detail::release(pointer);
}
void operator delete(void* pointer, std::align_val_t) noexcept { bcast_support::failing_allocator_detail::release(pointer); }
void operator delete[](void* pointer, std::align_val_t) noexcept {
    bcast_support::failing_allocator_detail::release(pointer);
}
void operator delete(void* pointer, std::size_t, std::align_val_t) noexcept {
    bcast_support::failing_allocator_detail::release(pointer);
}
void operator delete[](void* pointer, std::size_t, std::align_val_t) noexcept {
    bcast_support::failing_allocator_detail::release(pointer);
}
void operator delete(void* pointer, std::align_val_t, const std::nothrow_t&) noexcept {
    bcast_support::failing_allocator_detail::release(pointer);
}
void operator delete[](void* pointer, std::align_val_t, const std::nothrow_t&) noexcept {
    bcast_support::failing_allocator_detail::release(pointer);
}
