#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""`bcast-trace drive` against drivers that break the protocol (docs/drivers.md).

Runs `bcast-trace drive` on spec/traces/tests/misbehaving_driver.py once per
mode and checks that each is reported as it should be: a driver that breaks
the protocol, exits or hangs gets exit 2 and an error that says what happened
(naming the driver's output line where there is one); a driver that keeps the
protocol but answers wrongly gets exit 1 and the checker's verdict. A driver
that is never reported would make every other drive test meaningless.

Usage: check_drive_errors.py --tool BCAST_TRACE [--python PYTHON]
Exit status: 0 when every mode is reported as expected, 1 otherwise.
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "misbehaving_driver.py")

# mode -> (exit status, what the report must say)
EXPECTED = {
    "--truncated": (2, r"driver:\d+: the output ends inside a line \(no newline\)"),
    "--not-json": (2, r"driver:\d+: column \d+: "),
    "--wrong-call": (2, r"driver:\d+: thread 0 of program \d+ has no call \d+|driver:\d+: thread -1 of program \d+ has no call \d+"),
    "--missing-end": (2, r"the driver hung: program 0 not ended within 3 s"),
    "--hang": (2, r"the driver hung: program 1 not ended within 3 s"),
    "--crash": (2, r"the driver's output ended after line \d+: it exited with status 3"),
    "--no-hello": (2, r"the driver said no hello within 3 s"),
    "--wrong-answer": (1, r"FAILED, after \d+ histories \(the first to fail\): not_linearizable"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tool", required=True, help="the bcast-trace binary")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    failures = 0
    for mode, (status, pattern) in EXPECTED.items():
        t0 = time.time()
        command = [args.tool, "drive", "--histories", "20", "--seed", "1", "--timeout-s", "3", "--",
                   args.python, DRIVER, mode]
        try:
            r = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            print(f"{mode}: bcast-trace drive itself did not stop within 120 s")
            failures += 1
            continue
        said = r.stdout + r.stderr
        ok = r.returncode == status and re.search(pattern, said) is not None
        failures += 0 if ok else 1
        last = [line for line in said.splitlines() if line.strip()]
        print(f"{mode}: exit {r.returncode} (expected {status}) in {time.time() - t0:.1f} s: "
              f"{'as expected' if ok else 'NOT AS EXPECTED, wanted /' + pattern + '/'}")
        if not ok or mode != "--wrong-answer":
            print("    " + "\n    ".join(last[-3:]))
    print(f"drive errors: {len(EXPECTED) - failures} of {len(EXPECTED)} misbehaving drivers reported as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
