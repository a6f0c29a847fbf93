#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Instruction counts of the single-thread cases under callgrind.

Runs bcast_counts (and, if given, the zero-cost pair bcast_counts_plain and
bcast_counts_direct) once each under
`valgrind --tool=callgrind --dump-instr=yes`. bcast_counts dumps callgrind's
counters after a batch of K1 and after a batch of K2 iterations of every case
(see bcast_counts.cpp); per iteration = (count(K2) - count(K1)) / (K2 - K1), so
anything a batch pays once cancels out. Counts are exact and repeatable: they do
not depend on the machine's load.

Locked instructions (atomic read-modify-writes: every `lock`-prefixed
instruction, and `xchg` with a memory operand, which is locked implicitly) are
counted by matching callgrind's per-instruction execution counts against the
addresses `objdump -d` reports for such instructions in each object file
(callgrind writes addresses relative to the object, as objdump does for PIE
executables and shared libraries).

Usage: callgrind_counts.py --counts BIN [--plain BIN --direct BIN] [--iters K1,K2] [--out FILE.json]
Prints one JSON document (also to --out).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile

LOCKED = re.compile(r"^\s*([0-9a-f]+):\s+(lock\b.*|xchg\w*\s+.*\(.*)$")


def locked_addresses(object_path, cache={}):
    """Addresses of the locked instructions in one object file."""
    if object_path not in cache:
        addresses = set()
        if os.path.exists(object_path):
            listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", object_path],
                                     capture_output=True, text=True, check=True).stdout
            for line in listing.splitlines():
                match = LOCKED.match(line)
                if match:
                    addresses.add(int(match.group(1), 16))
        cache[object_path] = addresses
    return cache[object_path]


def parse_position(field, previous):
    if field == "*":
        return previous
    if field.startswith("+"):
        return previous + int(field[1:], 0)
    if field.startswith("-"):
        return previous - int(field[1:], 0)
    return int(field, 0)


def parse_dump(path):
    """(label, total instructions, locked instructions executed) of one dump file."""
    label = None
    total = 0
    locked = 0
    names = {}  # callgrind's compressed object names: "(id) path" then "(id)"
    current_object = None
    previous_address = 0
    skip_next_cost_line = False
    with open(path) as dump:
        for line in dump:
            line = line.rstrip("\n")
            if line.startswith("desc: Trigger: Client Request: "):
                label = line[len("desc: Trigger: Client Request: "):]
            elif line.startswith(("ob=", "cob=")):
                match = re.match(r"c?ob=\((\d+)\)(?: (.*))?$", line)
                if match.group(2) is not None:
                    names[match.group(1)] = match.group(2)
                if line.startswith("ob="):
                    current_object = names[match.group(1)]
            elif line.startswith("calls="):
                # The next line is the call site with the callee's inclusive
                # cost, not an instruction of this function: position only.
                skip_next_cost_line = True
            elif line and (line[0] in "0123456789+-*"):
                fields = line.split()
                previous_address = parse_position(fields[0], previous_address)
                if skip_next_cost_line:
                    skip_next_cost_line = False
                    continue
                executions = int(fields[2]) if len(fields) > 2 else 0
                total += executions
                if previous_address in locked_addresses(current_object):
                    locked += executions
    return label, total, locked


def measure(binary, iterations, filter_text=""):
    """{case: {"instructions": per iteration, "locked": per iteration}}."""
    small, large = iterations
    with tempfile.TemporaryDirectory(prefix="bcast-callgrind-") as work:
        command = ["valgrind", "--tool=callgrind", "--dump-instr=yes",
                   "--callgrind-out-file=" + os.path.join(work, "cg.out"),
                   binary, "--iters=%d,%d" % (small, large)]
        if filter_text:
            command.append("--filter=" + filter_text)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        batches = {}
        for path in glob.glob(os.path.join(work, "cg.out.*")):
            label, total, locked = parse_dump(path)
            if label and "|" in label:
                case, batch = label.rsplit("|", 1)
                batches.setdefault(case, {})[int(batch)] = (total, locked)
    results = {}
    for case, by_batch in batches.items():
        (total_small, locked_small), (total_large, locked_large) = by_batch[small], by_batch[large]
        results[case] = {
            "instructions": (total_large - total_small) / (large - small),
            "locked": (locked_large - locked_small) / (large - small),
        }
    return results


def slope(points):
    """Least-squares slope of (x, y) points."""
    count = len(points)
    mean_x = sum(x for x, _ in points) / count
    mean_y = sum(y for _, y in points) / count
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x, _ in points)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", required=True, help="bcast_counts binary")
    parser.add_argument("--plain", help="bcast_counts_plain binary (zero-cost check: templated side)")
    parser.add_argument("--direct", help="bcast_counts_direct binary (zero-cost check: direct-std side)")
    parser.add_argument("--iters", default="5000,15000", help="the two batch sizes K1,K2")
    parser.add_argument("--filter", default="", help="only cases whose name contains this")
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    iterations = tuple(int(part) for part in args.iters.split(","))

    document = {"iterations": list(iterations), "templated": measure(args.counts, iterations, args.filter)}
    if args.plain:
        document["templated_plain_only"] = measure(args.plain, iterations, args.filter)
    if args.direct:
        document["direct_std"] = measure(args.direct, iterations, args.filter)
    text = json.dumps(document, indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as out:
            out.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
