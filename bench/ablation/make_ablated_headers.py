#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The ablation's headers (docs/fast-design.md, section 10): a copy of
impl/include/bcast with one named part of bcast::fast turned off, for the
benchmark only. impl/ itself has no switch for it: the copy is made in the
build tree at build time, from the headers as they are, so it cannot drift;
a replacement whose text is not found exactly once stops the build, naming
it, instead of measuring something else.

Every ablation keeps the fan-out of bench/cases.hpp correct (one sender,
no overflow, no capacity change, a close at the end), which the probe checks
in every run; none of them is a correct channel in general.

  baseline    the copy unchanged (the same build shape as the ablated ones)
  no-lag      a receive does not read the eviction head [R3] nor report a lag
  lazy-close  a receive reads `closed` [R1] only when its slot is empty, and
              then looks at the slot once more (correct in general, in fact)
  no-recheck  the seqlock's re-check of the stamp after the copy [R7] is gone
              (without overflow no slot is overwritten while a receiver that
              does not lag needs it, F3)
  all         the three together
  packed-slots  a slot is the stamp and the message's words only (16 bytes for a
              u64, four to a cache line, as the bare ring packs them), not a
              cache line of its own (ring.hpp): the layout's price
  futex-lock  the send's lock is bcast's futex lock (bcast/detail/futex_mutex.hpp),
              whose release is an exchange (a second locked instruction per
              send), instead of bcast::fast's store-release lock
              (fast/detail/lock.hpp): what that lock gained
  spin-lock   the send's lock is a test-and-set spin lock: one locked
              instruction to take it and a plain store to release it, as the
              store-release lock, but no sleeping (a correct lock that spins)
  everything  no-lag, lazy-close, no-recheck, packed-slots and spin-lock
              together: what is left is the generic send and receive

Usage: make_ablated_headers.py SOURCE_BCAST_DIR OUT_DIR ABLATION
       make_ablated_headers.py --list
       make_ablated_headers.py --check SOURCE_BCAST_DIR   (every replacement applies; writes nothing)
"""
import os
import shutil
import sys

STATE = "fast/detail/state.hpp"
RING = "fast/detail/ring.hpp"
PRIMITIVES = "fast/primitives.hpp"

PATCHES = {
    "no-lag": [(STATE, """            // [R3] acquire; partner [S1].
            const std::uint64_t head = evict_head_.load(std::memory_order_acquire);
            if (pos < head) { // R-OVF-2: report the loss once, resume at the oldest kept (F4)
                advance(cell, pos, head);
                return recv_result<T>(error_tag, recv_error{recv_errc::overflowed, head - pos});
            }
""", """            // ABLATION no-lag: no [R3], no overflowed report
""")],
    "lazy-close": [(STATE, """        const bool closed = closed_.load(std::memory_order_acquire);
""", """        bool closed = false; // ABLATION lazy-close: [R1] below, only on an empty slot
"""), (STATE, """            case ring_type::found::not_yet: break;
""", """            case ring_type::found::not_yet:
                // ABLATION lazy-close: [R1] acquire; partner [C1]: every message sent
                // before the close is visible now, so the slot is read once more.
                if (!closed && closed_.load(std::memory_order_acquire)) {
                    closed = true;
                    continue;
                }
                break;
""")],
    "no-recheck": [(RING, """        if (source.stamp.load(std::memory_order_relaxed) != before) return found::overwritten;
""", """        // ABLATION no-recheck: no [R7]
""")],
    "futex-lock": [(PRIMITIVES, """template <class PositionPolicy = default_position, class LockPolicy = fast_lock<detail::asymmetric_fences>,
""", """// ABLATION futex-lock: bcast's futex lock, released by an exchange
template <class PositionPolicy = default_position, class LockPolicy = default_lock,
""")],
    "packed-slots": [(RING, """    struct alignas(cache_line_bytes) slot {
""", """    struct slot { // ABLATION packed-slots: no line of its own
""")],
    "spin-lock": [(PRIMITIVES, """template <class PositionPolicy = default_position, class LockPolicy = fast_lock<detail::asymmetric_fences>,
""", """// ABLATION spin-lock: a test-and-set lock; one locked instruction to take it,
// a plain release store to give it back; spins, yielding, while it is taken.
struct ablation_spin_lock {
    class mutex {
    public:
        void lock() noexcept {
            // Acquire; partner the release store in unlock().
            while (taken_.exchange(true, std::memory_order_acquire)) {
                while (taken_.load(std::memory_order_relaxed)) std::this_thread::yield();
            }
        }
        bool try_lock() noexcept { return !taken_.exchange(true, std::memory_order_acquire); }
        void unlock() noexcept { taken_.store(false, std::memory_order_release); } // partner: lock()'s exchange

    private:
        std::atomic<bool> taken_{false};
    };
};

template <class PositionPolicy = default_position, class LockPolicy = ablation_spin_lock,
"""), (PRIMITIVES, """#include <mutex>
""", """#include <mutex>
#include <thread> // ABLATION spin-lock
""")],
}
PATCHES["all"] = PATCHES["no-lag"] + PATCHES["lazy-close"] + PATCHES["no-recheck"]
PATCHES["everything"] = PATCHES["all"] + PATCHES["packed-slots"] + PATCHES["spin-lock"]
# The one list of ablations: CMake (bench/CMakeLists.txt, --list) and fast_experiment.py read it here.
ABLATIONS = ["baseline", "no-lag", "lazy-close", "no-recheck", "all", "futex-lock", "packed-slots", "spin-lock",
             "everything"]


def apply(name, rel, text):
    for path, old, new in PATCHES.get(name, []):
        if path != rel:
            continue
        if text.count(old) != 1:
            sys.exit("make_ablated_headers.py: ablation %s: the text to replace in %s is found %d times, not once "
                     "(bcast::fast changed: update the ablation):\n%s" % (name, rel, text.count(old), old))
        text = text.replace(old, new)
    return text


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(ABLATIONS))
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        for name in ABLATIONS:
            for rel in sorted({path for path, _, _ in PATCHES.get(name, [])}):
                with open(os.path.join(sys.argv[2], rel)) as f:
                    apply(name, rel, f.read())
        print("every ablation applies: " + ", ".join(ABLATIONS))
        return
    if len(sys.argv) != 4 or sys.argv[3] not in ABLATIONS:
        sys.exit(__doc__.split("\n\n")[-1])
    source, out, name = sys.argv[1:]
    if os.path.isdir(out):
        shutil.rmtree(out)
    shutil.copytree(source, out)
    for rel in sorted({path for path, _, _ in PATCHES.get(name, [])}):
        path = os.path.join(out, rel)
        with open(path) as f:
            text = apply(name, rel, f.read())
        with open(path, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
