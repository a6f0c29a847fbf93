#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Times the same bcast_bench rows in several builds, alternating, on one machine.

For a before/after comparison of one change (for example the try calls before
and after the async operations: build bench/ at the older commit in a git
worktree, then compare). Each round runs every binary once, the order rotated
round by round, so that the shared VM's drift hits them all alike; a row's
figure is the median over rounds of thread CPU ns per iteration, and each
binary's ratio to the first is the median of the per-round ratios (both sides
from the same round).

Usage: compare_binaries.py ROUNDS FILTER MIN_TIME NAME=BINARY [NAME=BINARY ...]
  e.g. git worktree add /tmp/bcast-pre 4a39fe5 && (build bench/ there) &&
       python3 bench/compare_binaries.py 9 'single/try/plain/' 0.2 \\
           pre=/tmp/bcast-pre/build-bench/bench/bcast_bench now=build-bench/bench/bcast_bench
"""
import json
import os
import statistics
import subprocess
import sys


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    rounds, row_filter, min_time = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    binaries = [argument.split("=", 1) for argument in sys.argv[4:]]
    samples = {}
    for round_index in range(rounds):
        shift = round_index % len(binaries)
        for name, path in binaries[shift:] + binaries[:shift]:
            output = subprocess.run([path, "--benchmark_filter=" + row_filter, "--benchmark_min_time=" + min_time,
                                     "--benchmark_format=json", "--benchmark_enable_random_interleaving=true"],
                                    capture_output=True, text=True, check=True).stdout
            for entry in json.loads(output)["benchmarks"]:
                samples.setdefault((entry["name"], name), []).append(entry["cpu_time"])

    def order(row):
        head, _, n = row.rpartition("N:")
        return (head, int(n) if n.isdigit() else 0)

    base = binaries[0][0]
    print("%-28s" % "row" + "".join("%34s" % ("%s ns (min..max) / %s" % (name, base)) for name, _ in binaries))
    for row in sorted({key[0] for key in samples}, key=order):
        line = "%-28s" % row
        reference = samples.get((row, base))
        for name, _ in binaries:
            values = samples.get((row, name))
            if not reference or not values:
                line += "%34s" % "-"
                continue
            ratio = statistics.median([value / first for first, value in zip(reference, values)])
            line += "%14.1f (%6.1f..%6.1f) %5.3f" % (statistics.median(values), min(values), max(values), ratio)
        print(line)
    print("%d rounds; load average at the end: %.2f %.2f %.2f" % ((rounds,) + os.getloadavg()))


if __name__ == "__main__":
    main()
