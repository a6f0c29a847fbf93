#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Checks that exercise 5's mystery mutant cannot be read where a student
looks (the ctest course.mystery_hidden; docs/course/05-property-tests.md):
builds it as the page does (run_mutants.py mystery, then --program with
tests/shrunk_program.cpp, the debugger route), then searches every file of
the build tree for its code: the lines it puts in place of mailbox.hpp's,
or its `// MUTANT:` label, blanks aside. Also that the program's debug info
names the course's own mailbox.hpp, not the deleted temporary copy.

First it shows that the search can fail: a file holding the mutated
mailbox.hpp, in a temporary folder, must be found.

  check_hidden.py --build DIR
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COURSE = os.path.dirname(HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(COURSE, "mutants"))
from run_mutants import code_of, mutate  # noqa: E402
from mutants import MUTANTS  # noqa: E402

RUNNER = os.path.join(COURSE, "mutants", "run_mutants.py")
MYSTERY = next(m for m in MUTANTS if m.name == "mystery")


def squash(data):
    return re.sub(rb"\s+", b" ", data)


def needles():
    """What a readable copy of the mystery would hold: its code lines in a row, and its label."""
    code = " ".join(code_of(line) for line in MYSTERY.replacement.split("\n") if code_of(line)).encode()
    with open(os.path.join(COURSE, "mailbox", "mailbox.hpp"), "rb") as f:
        if code in squash(f.read()):
            sys.exit("check_hidden.py: the mystery's code is in the unmodified mailbox.hpp too: nothing to search for")
    labels = [squash(m.group(0).encode()) for m in re.finditer(r"MUTANT:[^\n]*", MYSTERY.replacement)]
    return [code, *labels]


def holders(root, wanted):
    """The files under root that hold one of `wanted`."""
    words = {w.split()[-1] for w in wanted}  # a word each must hold as it is: most files are skipped on it
    found = []
    for top, _, files in os.walk(root):
        for name in files:
            path = os.path.join(top, name)
            if os.path.islink(path) or os.path.getsize(path) > 256 << 20:
                continue
            with open(path, "rb") as f:
                data = f.read()
            if any(w in data for w in words) and any(w in squash(data) for w in wanted):
                found.append(path)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="the CMake build tree of the course")
    args = ap.parse_args()
    wanted = needles()
    problems = []
    with tempfile.TemporaryDirectory() as planted:  # the control: a readable copy is found
        with open(os.path.join(COURSE, "mailbox", "mailbox.hpp"), encoding="utf-8") as f:
            text = mutate(f.read(), MYSTERY)
        with open(os.path.join(planted, "mailbox.hpp"), "w", encoding="utf-8") as f:
            f.write(re.sub(r"\s*// MUTANT:.*", "", text))  # as the runner wrote it, without its label
        if not holders(planted, wanted):
            problems.append("the control: a copy of the mystery's mailbox.hpp is not found by the search")
    steps = [[RUNNER, "--build", args.build, "mystery"],
             [RUNNER, "--build", args.build, "--program", os.path.join(HERE, "shrunk_program.cpp"), "mystery"]]
    for step in steps:
        done = subprocess.run([sys.executable, *step], capture_output=True, text=True)
        print(done.stdout.strip())
        if done.returncode != 0:
            problems.append(f"{' '.join(step[1:])}: exit status {done.returncode}: {done.stderr.strip()[-300:]}")
    # The course's part of the tree, where the runner builds its mutants: the whole tree also
    # holds source copies of the repository (the package tests' FetchContent checkout), whose
    # solutions page rightly holds the answer.
    searched = os.path.join(args.build, "docs", "course")
    found = holders(searched, wanted)
    problems += [f"{path} holds the mystery mutant's code" for path in found]
    program = os.path.join(args.build, "docs", "course", "mutants", "mystery", "shrunk_program")
    if os.path.isfile(program):
        with open(program, "rb") as f:
            data = f.read()
        if os.path.join(COURSE, "mailbox").encode() not in data:
            problems.append(f"{program}: its debug info does not name {os.path.join(COURSE, 'mailbox')}")
        if re.search(rb"/mutant-[\w]+/", data):
            problems.append(f"{program}: its debug info names the temporary copy")
    else:
        problems.append(f"{program} was not built")
    for problem in problems:
        print("FAIL " + problem)
    print(f"searched {searched} for the mystery's code: "
          f"{'found' if found else 'not found'}; problems: {len(problems)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
