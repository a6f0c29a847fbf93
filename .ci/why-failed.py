#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""A line or two per failed test of a ctest run: the lines of its output that say why.

Usage: why-failed.py CTEST_OUTPUT   (what ctest --output-on-failure printed)

CI shows only the last lines of a run, and ctest's summary names a failed test
without its reason; .ci/test-suite.sh prints these lines just above the
summary's list of failures, so a red run that cannot be repeated still says
what went wrong. The lines are the first and the last of the test's output
that read like a verdict (FAIL, panicked, an error, an assertion): the first
is usually the cause, the last the test's conclusion. Without one, the
output's last line."""
import re
import sys

VERDICT = re.compile(r"FAIL|panicked|[Ee]rror|[Aa]ssert|[Tt]imeout|Exception|Segmentation|Killed|Skipped")
FAILED = re.compile(r"^\s*\d+/\d+ Test +#\d+: (\S+) \.*\s*\*\*\*(?:Failed|Timeout|Exception)")
NEXT = re.compile(r"^\s*(?:\d+/\d+ Test +#\d+:|Start +\d+:|\d+% tests passed)")
WIDTH = 400  # characters of the line shown (a history line can be long)


def failures(lines):
    """(test name, its output lines) for each test ctest printed as failed or timed out: its
    output follows that line (--output-on-failure) up to the next test's line."""
    name, output = None, []
    for line in lines:
        failed = FAILED.match(line)
        if name and (failed or NEXT.match(line)):
            yield name, output
            name = None
        if failed:
            name, output = failed.group(1), []
        elif name:
            output.append(line.rstrip("\n"))
    if name:
        yield name, output


def reasons(output):
    said = [line.strip() for line in output if line.strip()]
    telling = [line for line in said if VERDICT.search(line)]
    if not telling:
        return [(said or ["(no output)"])[-1][:WIDTH]]
    return [line[:WIDTH] for line in dict.fromkeys([telling[0], telling[-1]])]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], errors="replace") as log:
        for name, output in failures(log):
            for line in reasons(output):
                print(f"bcast: {name} failed: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
