#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""A timed call's deadline in recorded histories (version 2): what it catches.

Runs `bcast-trace drive` on the Python example channel with its seeded
--early-timeout bug (a timed wait gives up half way to its deadline, as a
wrong time conversion would) and checks that
  1. bcast finds it: not linearizable, rule R-SEND-4 or R-RECV-5;
  2. the same histories with their deadlines taken out (version 1, as every
     history was before) pass `bcast-trace check-history`: without the deadline
     a timed_out answer may take effect anywhere in its call, so the bug is
     invisible. This is what the deadline adds, shown on the same run;
  3. the correct example channel passes with deadlines (no false alarm).

Usage: check_deadlines.py --tool BCAST_TRACE --work DIR [--python PYTHON]
Exit status: 0 when all three hold, 1 otherwise.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "drivers", "python", "example_channel.py")


def drive(args, extra, out):
    command = [args.tool, "drive", "--histories", "300", "--seed", "1", "-o", out, "--", args.python, EXAMPLE] + extra
    r = subprocess.run(command, capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout + r.stderr


def without_deadlines(src, dst):
    """The histories as version 1: every "deadline" member taken out."""
    with open(src) as f, open(dst, "w") as out:
        for line in f:
            o = json.loads(line)
            o.pop("deadline", None)
            if o.get("format") == "bcast-history":
                o["version"] = 1
            out.write(json.dumps(o, separators=(",", ":")) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tool", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    problems = []

    seeded = os.path.join(args.work, "early-timeout.jsonl")
    status, said = drive(args, ["--early-timeout"], seeded)
    found = re.search(r"FAILED, after (\d+) histories \(the first to fail\): not_linearizable (R-SEND-4|R-RECV-5)", said)
    if status != 1 or not found:
        problems.append(f"the early timeout was not found as R-SEND-4 / R-RECV-5 (exit {status}):\n" + said[-1500:])
    else:
        print(f"1. found in history {found.group(1)}: not_linearizable {found.group(2)}")

    stripped = os.path.join(args.work, "early-timeout-version-1.jsonl")
    without_deadlines(seeded, stripped)
    r = subprocess.run([args.tool, "check-history", stripped, "--show", "0"], capture_output=True, text=True)
    summary = (r.stdout.strip().splitlines() or [""])[-2:]
    if r.returncode != 0:
        problems.append("without deadlines the same histories were expected to pass (what the deadline adds), "
                        f"but check-history exited {r.returncode}: {summary}")
    else:
        print("2. the same histories without their deadlines pass: " + summary[0])

    status, said = drive(args, [], os.path.join(args.work, "correct.jsonl"))
    if status != 0:
        problems.append(f"the correct example failed with deadlines (exit {status}):\n" + said[-1500:])
    else:
        print("3. the correct example passes: " + [l for l in said.splitlines() if "histories," in l][-1])
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
