#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Grades your answer to exercise 1, 5, 6 or 7 of the course: prints a
verdict, and exits 0 when the answer is right, 1 when it is not yet (with
what is wrong), 2 when it cannot grade (a missing build tree or file).
Exercises 2, 3 and 4 have verdicts of their own (`course_spec_tests
--exercise-2`, the Relacy program, the mutant runner's KILLED).

  grade.py --build DIR 1          your examples in tests/spec_tests.cpp: they pass on the
                                  model and the mailbox, and one fails on a model whose
                                  try_put checks full before closed
  grade.py --build DIR 5 FILE     FILE: a copy of mailbox/mailbox.hpp with the bug you found
                                  planted in it: is it the mystery's bug (indentation and
                                  comments aside)?
  grade.py --build DIR 6 N        N: the full barriers (xchg, lock, mfence) you predict the
                                  atomic build adds to try_put (tests/compare_asm.py counts them)
  grade.py --build DIR 7 FILE     FILE: one line per course mutant of the exercise,
                                  `COURSE-MUTANT BCAST-MUTANT CHECKERS` (CHECKERS as bcast's
                                  runner lists them, e.g. relacy or relacy,property)

  grade.py --build DIR --self-test N
      the course's test of the grader (ctests course.exercise_N): the command above,
      run on the course's own solution (from its solutions page or file, applied to a
      scratch copy), must say right, and on the unsolved starting point and on wrong
      answers must say not yet.

The answers are not in this file: exercise 5's is compared with mutants/mystery.py's
encoded edit, exercise 7's with hashes.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COURSE = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(COURSE))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(COURSE, "mutants"))
from run_mutants import code_of, mutate  # noqa: E402  (the mutant runner's own edit)
from mutants import MUTANTS, Mutant  # noqa: E402

# Exercise 7: sha256("course=bcast")[:16] per course mutant.
PAIRS = {"take-wakes-no-put": "3e5f93f95f9e5fe3", "close-wakes-no-take": "9a47a7dfd864d889",
         "close-wakes-one-take": "7be7f9b37f77d4b1", "take-if-not-while": "ac0e5c93131a269b",
         "try-take-unlocked": "41576858c850926a", "close-drops-value": "9e348e1774fcb797"}


def right(text):
    print("RIGHT: " + text)
    return 0


def not_yet(text):
    print("NOT YET: " + text)
    return 1


def config(build):
    path = os.path.join(build, "docs", "course", "course_config.json")
    if not os.path.isfile(path):
        sys.exit(f"cannot grade: {path} not found: configure the build tree first")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# ---- exercise 1 ------------------------------------------------------------------

ORDER = "        if (closed_) return status::closed;\n        if (slot_) return status::full;\n"


def spec_tests(cxx, source, include, exe):
    """Builds and runs SOURCE without the course's own solution: -> (status, output)."""
    cmd = [cxx, "-std=c++20", "-O0", "-DCOURSE_YOUR_EXAMPLES_ONLY", *[a for d in include for a in ("-I", d)],
           "-I", COURSE, "-I", HERE, source, "-o", exe, "-pthread"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if "error" in line]
        return None, errors[0] if errors else done.stderr[-300:]
    run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    return run.returncode, run.stdout


def exercise_1(build, source):
    cxx = config(build)["cxx"]
    with tempfile.TemporaryDirectory() as scratch:
        status, out = spec_tests(cxx, source, [], os.path.join(scratch, "spec_tests"))
        if status is None:
            return not_yet(f"{os.path.relpath(source)} does not build: {out}")
        if status != 0:
            fails = [line.strip() for line in out.splitlines() if line.strip().startswith("FAIL")]
            return not_yet("an example fails on the correct model or mailbox (the rules say otherwise):\n  " +
                           "\n  ".join(fails))
        # The model with MB-2's order swapped: full checked before closed.
        shutil.copytree(os.path.join(COURSE, "mailbox"), os.path.join(scratch, "mailbox"))
        spec = os.path.join(scratch, "mailbox", "spec.hpp")
        with open(spec, encoding="utf-8") as f:
            text = f.read()
        if text.count(ORDER) != 1:
            sys.exit("cannot grade: mailbox/spec.hpp's try_put no longer starts with the two checks of MB-2")
        swapped = "".join(reversed(ORDER.splitlines(keepends=True)))
        with open(spec, "w", encoding="utf-8") as f:
            f.write(text.replace(ORDER, swapped))
        status, out = spec_tests(cxx, source, [scratch], os.path.join(scratch, "spec_tests_swapped"))
        model = out.split("mailbox<std_model>")[0] if status is not None else ""
        fails = [line.strip() for line in model.splitlines() if line.strip().startswith("FAIL")]
        if status == 0 or not fails:
            return not_yet("every example passes on a model whose try_put checks full before closed: "
                           "none shows that the order matters")
    return right("your examples pass on the model and the mailbox, and this one fails where try_put checks "
                 "full first:\n  " + "\n  ".join(fails))


def solved_spec_tests(scratch):
    """A scratch copy of spec_tests.cpp whose rule_examples ends with the course's solution."""
    with open(os.path.join(HERE, "spec_tests.cpp"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("void rule_examples() {")
    end = text.index("\n}\n", start)
    path = os.path.join(scratch, "spec_tests.cpp")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:end] + "\n    exercise_1_solution<Box>();" + text[end:])
    return path


# ---- exercise 5 ------------------------------------------------------------------

def code_lines(text):
    return [code_of(line) for line in text.split("\n") if code_of(line)]


def exercise_5(answer):
    if not os.path.isfile(answer):
        sys.exit(f"cannot grade: {answer} not found (a copy of docs/course/mailbox/mailbox.hpp, with your edit)")
    with open(os.path.join(COURSE, "mailbox", "mailbox.hpp"), encoding="utf-8") as f:
        original = f.read()
    with open(answer, encoding="utf-8") as f:
        yours = code_lines(f.read())
    mystery = code_lines(mutate(original, next(m for m in MUTANTS if m.name == "mystery")))
    if yours == code_lines(original):
        return not_yet(f"{answer} is mailbox.hpp unchanged: plant the bug you found in it")
    if yours == mystery:
        return right(f"{answer} has the mystery's bug; its solution page says why it breaks MB-2 and MB-3")
    differ = sum(1 for a, b in zip(yours, mystery) if a != b) + abs(len(yours) - len(mystery))
    return not_yet(f"{answer} is not the mystery's mailbox ({differ} line(s) of code differ from it, comments "
                   "and indentation aside): read the shrunk program again, and which answer differs from the model's")


def solved_5(scratch):
    """mailbox.hpp with the diff of the solution page applied."""
    with open(os.path.join(COURSE, "solutions", "05-property-tests.md"), encoding="utf-8") as f:
        page = f.read()
    diff = re.search(r"```diff\n(.*?)```", page, re.S).group(1).splitlines()
    old = "\n".join(line[1:] for line in diff if line.startswith("-"))
    new = "\n".join(line[1:].strip() for line in diff if line.startswith("+"))
    with open(os.path.join(COURSE, "mailbox", "mailbox.hpp"), encoding="utf-8") as f:
        text = f.read()
    path = os.path.join(scratch, "mailbox.hpp")
    with open(path, "w", encoding="utf-8") as f:
        f.write(mutate(text, Mutant("solution", "5", "property", "", code=old, replacement=new)))
    return path


# ---- exercise 6 ------------------------------------------------------------------

def exercise_6(build, predicted):
    cmd = [sys.executable, os.path.join(HERE, "compare_asm.py"), "--cxx", config(build)["cxx"],
           "--model", "std_atomic_model", "--summary"]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    found = re.search(r"try_put\s+DIFFERENT:.*hand (\d+), template (\d+)", out)
    if not found:
        sys.exit("cannot grade: compare_asm.py printed no DIFFERENT line for try_put:\n" + out)
    added = int(found.group(2)) - int(found.group(1))
    if predicted != added:
        return not_yet(f"the atomic build does not add {predicted} full barrier(s) to try_put: which of its "
                       "statements store, and what does a seq_cst store become on this machine?")
    return right(f"the atomic build adds {added} full barrier(s) to try_put; compare_asm.py without --summary "
                 "shows them")


def solved_6(scratch):
    with open(os.path.join(COURSE, "solutions", "06-measure.md"), encoding="utf-8") as f:
        return re.search(r"try_put\s+DIFFERENT:.*template (\d+)", f.read()).group(1)


# ---- exercise 7 ------------------------------------------------------------------

def exercise_7(answer):
    if not os.path.isfile(answer):
        sys.exit(f"cannot grade: {answer} not found")
    listed = subprocess.run([sys.executable, os.path.join(REPO, "model_tests", "mutants", "run_mutants.py"), "--list"],
                            capture_output=True, text=True).stdout
    checkers = {line.split()[0]: line.split()[-1] for line in listed.splitlines() if line.split()}
    problems, named = [], set()
    with open(answer, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            words = line.split("#")[0].split()
            if not words:
                continue
            if len(words) != 3:
                problems.append(f"line {n}: want `COURSE-MUTANT BCAST-MUTANT CHECKERS`, has {len(words)} word(s)")
                continue
            ours, theirs, said = words
            named.add(ours)
            if ours not in PAIRS:
                problems.append(f"line {n}: {ours} is not one of the exercise's mutants")
            elif theirs not in checkers:
                problems.append(f"line {n}: bcast has no mutant {theirs} (run_mutants.py --list)")
            elif said != checkers[theirs]:
                problems.append(f"line {n}: {theirs} must be killed by {checkers[theirs]}, not {said}")
            elif hashlib.sha256(f"{ours}={theirs}".encode()).hexdigest()[:16] != PAIRS[ours]:
                problems.append(f"line {n}: {theirs} plants another kind of bug than {ours}")
    problems += [f"no line for {m}" for m in PAIRS if m not in named]
    if problems:
        return not_yet(f"{len(problems)} problem(s):\n  " + "\n  ".join(problems))
    return right(f"all {len(PAIRS)} counterparts, with their checkers")


def solved_7(scratch):
    """The answer file, from the solution page's table and its --list block."""
    with open(os.path.join(COURSE, "solutions", "07-to-bcast.md"), encoding="utf-8") as f:
        page = f.read()
    pairs = re.findall(r"^\| `([\w-]+)` \| `([\w-]+)` \|", page, re.M)
    kinds = dict(re.findall(r"^([\w-]+) mutant (\S+)$", page, re.M))
    path = os.path.join(scratch, "answer.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(f"{a} {b} {kinds.get(b, '?')}\n" for a, b in pairs))
    return path


# ---- the self-test -----------------------------------------------------------------

def self_test(build, exercise):
    """The student's command on the course's solution (must pass), and on the
    unsolved starting point and wrong answers (must fail)."""
    me = [sys.executable, os.path.abspath(__file__), "--build", build, exercise]
    with tempfile.TemporaryDirectory() as scratch:
        if exercise == "1":  # the unsolved starting point: spec_tests.cpp as shipped
            cases = [([solved_spec_tests(scratch)], 0, "the course's solution"), ([], 1, "the unsolved starting point")]
        elif exercise == "5":
            unchanged, other = os.path.join(scratch, "unchanged.hpp"), os.path.join(scratch, "other.hpp")
            shutil.copy(os.path.join(COURSE, "mailbox", "mailbox.hpp"), unchanged)
            with open(unchanged, encoding="utf-8") as f, open(other, "w", encoding="utf-8") as g:
                g.write(mutate(f.read(), next(m for m in MUTANTS if m.name == "close-drops-value")))
            cases = [([solved_5(scratch)], 0, "the course's solution"), ([unchanged], 1, "the unsolved starting point"),
                     ([other], 1, "another bug (close-drops-value)")]
        elif exercise == "6":
            answer = solved_6(scratch)
            cases = [([answer], 0, "the course's solution"), (["0"], 1, "a wrong answer (0)"),
                     ([str(int(answer) + 1)], 1, "a wrong answer (one more)")]
        else:
            empty, swapped = os.path.join(scratch, "empty.txt"), os.path.join(scratch, "swapped.txt")
            open(empty, "w", encoding="utf-8").close()
            solved = solved_7(scratch)
            with open(solved, encoding="utf-8") as f:
                lines = [line.split() for line in f]
            lines[0][1], lines[1][1] = lines[1][1], lines[0][1]  # two counterparts swapped
            with open(swapped, "w", encoding="utf-8") as f:
                f.write("".join(" ".join(words) + "\n" for words in lines))
            cases = [([solved], 0, "the course's solution"), ([empty], 1, "the unsolved starting point"),
                     ([swapped], 1, "two counterparts swapped")]
        failures = 0
        for args, want, what in cases:
            done = subprocess.run(me + args, capture_output=True, text=True)
            ok = done.returncode == want
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} exercise {exercise}, {what}: exit status {done.returncode} "
                  f"(want {want})\n    " + "\n    ".join(done.stdout.strip().splitlines()))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build/default", help="the CMake build tree (default build/default)")
    ap.add_argument("--self-test", action="store_true", help="grade the course's own solution and the unsolved start")
    ap.add_argument("exercise", choices=["1", "5", "6", "7"])
    ap.add_argument("answer", nargs="?", help="5, 7: your file; 6: your count; 1: (your spec_tests.cpp)")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args.build, args.exercise)
    if args.exercise == "1":
        return exercise_1(args.build, args.answer or os.path.join(HERE, "spec_tests.cpp"))
    if args.answer is None:
        ap.error(f"exercise {args.exercise} needs your answer")
    if args.exercise == "5":
        return exercise_5(args.answer)
    if args.exercise == "6":
        if not args.answer.isdigit():
            ap.error("exercise 6's answer is a number")
        return exercise_6(args.build, int(args.answer))
    return exercise_7(args.answer)


if __name__ == "__main__":
    sys.exit(main())
