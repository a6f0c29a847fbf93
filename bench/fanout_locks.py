#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The wake protocol's before/after table (docs/design.md, section 4).

Runs the fan-out shape (one sender thread, N receiver threads, blocking,
lossless; bench/cases.hpp) three ways, interleaved repetition by repetition:

  std     bcast on std::mutex + std::condition_variable (the lock before issue 13)
  futex   bcast on its own lock (bcast::futex_lock, the default on Linux)
  a-b     async-broadcast 0.4.1 (bench/peers), the crate bcast reproduces
  bare    the bare multicast ring (bench/bare_ring.hpp, bcast_fast_probe --design
          bare): the limit row, no channel at all (docs/fast-design.md, section 10)

and prints, per capacity and N, the median and the [worst, best] repetition of
deliveries per second, the CPU nanoseconds per delivery, the voluntary context
switches per message, and the ratios futex / a-b and std / a-b (median over
median, and bcast's worst over a-b's median: the "no collapse" test) and
futex / bare (inside each repetition, median).

    python3 bench/fanout_locks.py [--reps 7] [--messages 1000000]
        [--receivers 1,2,4,8] [--capacity 64,1024] [--build-dir build-bench] [--json FILE]

It builds bcast_fanout_probe (CMake, Release) and bcast-peers (cargo, offline,
Debian's crate sources) in --build-dir first. A machine with 2 cores runs every
N > 1 with threads outnumbering cores, which is the case this table is about.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DESIGNS = ["std", "futex", "a-b", "bare"]  # the table's order; the runs rotate it


def build(build_dir):
    build_dir = os.path.abspath(build_dir)  # cargo runs in bench/peers
    subprocess.run(["cmake", "-S", REPO, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DBCAST_BUILD_TESTS=OFF",
                    "-DBCAST_BUILD_BENCH=ON"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build_dir, "--target", "bcast_fanout_probe", "bcast_fast_probe",
                    "-j", str(os.cpu_count() or 2)],
                   check=True, stdout=subprocess.DEVNULL)
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(build_dir, "peers-target"))
    subprocess.run(["cargo", "build", "--release", "--offline", "--locked"], cwd=os.path.join(REPO, "bench", "peers"),
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (os.path.join(build_dir, "bench", "bcast_fanout_probe"),
            os.path.join(build_dir, "peers-target", "release", "bcast-peers"),
            os.path.join(build_dir, "bench", "bcast_fast_probe"))


def run_probe(probe, lock, n, cap, messages):
    out = subprocess.run([probe, "--lock", lock, "--receivers", str(n), "--capacity", str(cap),
                          "--messages", str(messages)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def run_bare(fast_probe, n, cap, messages):
    out = subprocess.run([fast_probe, "fanout", "--design", "bare", "--receivers", str(n), "--capacity", str(cap),
                          "--messages", str(messages)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def run_peer(peers, n, cap, messages):
    # /usr/bin/time is not needed: the peer reports wall and CPU itself; the
    # context switches come from getrusage of the child (resource module).
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([peers, "fanout", "--receivers", str(n), "--capacity", str(cap), "--messages", str(messages),
                          "--reps", "1", "--peer", "async-broadcast"], check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    row = json.loads(out.strip().splitlines()[-1])
    if row["delivered_fraction"] != 1.0:
        sys.exit("async-broadcast lost messages in the fan-out: %r" % row)
    return {"deliveries_per_s": row["deliveries_per_s"], "cpu_s": row["cpu_s"],
            "cpu_ns_per_delivery": row["cpu_s"] * 1e9 / (n * messages),
            "vcs": (after.ru_nvcsw - before.ru_nvcsw) / messages}


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--receivers", default="1,2,4,8")
    ap.add_argument("--capacity", default="64,1024")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build-bench"))
    ap.add_argument("--json", help="also write the raw repetitions here")
    args = ap.parse_args()
    probe, peers, fast_probe = build(args.build_dir)
    receivers = [int(x) for x in args.receivers.split(",")]
    capacities = [int(x) for x in args.capacity.split(",")]
    raw = {}
    for cap in capacities:
        for n in receivers:
            for rep in range(args.reps):
                # The order rotates, so no design always runs first (warm caches, turbo).
                order = DESIGNS[rep % len(DESIGNS):] + DESIGNS[:rep % len(DESIGNS)]
                for design in order:
                    if design == "a-b":
                        row = run_peer(peers, n, cap, args.messages)
                    elif design == "bare":
                        row = run_bare(fast_probe, n, cap, args.messages)
                    else:
                        row = run_probe(probe, design, n, cap, args.messages)
                    raw.setdefault("%d/%d/%s" % (cap, n, design), []).append(row)
            print("cap %d N=%d done" % (cap, n), file=sys.stderr, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(raw, f, indent=1)
    print("fan-out, %d messages, %d repetitions interleaved, %d cores; M deliveries/s median [worst, best]"
          % (args.messages, args.reps, os.cpu_count() or 0))
    print("| cap | N | std lock | futex lock (default) | async-broadcast | bare | futex/a-b median | futex worst/a-b median "
          "| std/a-b median | futex/bare | CPU ns/delivery std, futex, a-b, bare | vcs/msg std, futex, a-b, bare |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for cap in capacities:
        for n in receivers:
            rows = {d: raw["%d/%d/%s" % (cap, n, d)] for d in DESIGNS}
            s = {d: summary([r["deliveries_per_s"] for r in rows[d]]) for d in DESIGNS}
            cpu = {d: statistics.median([r["cpu_ns_per_delivery"] for r in rows[d]]) for d in DESIGNS}
            vcs = {d: statistics.median([r["vcs"] for r in rows[d]]) for d in DESIGNS}
            cell = lambda d: "%.2f [%.2f, %.2f]" % (s[d]["median"] / 1e6, s[d]["min"] / 1e6, s[d]["max"] / 1e6)
            ab = s["a-b"]["median"]
            over_bare = statistics.median(f["deliveries_per_s"] / b["deliveries_per_s"]
                                          for f, b in zip(rows["futex"], rows["bare"]))
            print("| %d | %d | %s | %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %s |" % (
                cap, n, cell("std"), cell("futex"), cell("a-b"), cell("bare"), s["futex"]["median"] / ab,
                s["futex"]["min"] / ab, s["std"]["median"] / ab, over_bare, ", ".join("%.0f" % cpu[d] for d in DESIGNS),
                ", ".join("%.3f" % vcs[d] for d in DESIGNS)))


if __name__ == "__main__":
    main()
