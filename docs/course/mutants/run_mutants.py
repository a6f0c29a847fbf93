#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Runs the course's seeded bugs (mutants.py) against the checker that must
catch each (docs/course/04-first-mutant.md).

First, as a control, the unmodified mailbox: the tree's own course_relacy or
course_properties must pass the same selection, or a failure would say
nothing about the mutant (a scenario that fails on correct code kills every
mutant). Then, for each mutant: copy docs/course/mailbox/ to a scratch
folder, apply the mutant's edit there (never to the real file), build the
checker against the copy, run it, and read the verdict:
  KILLED    the checker failed, as it must: the table shows which search or
            property caught it and the first lines of its report
  SURVIVED  the checker passed: a bug no check catches (write the check)
  ERROR     the edit does not apply, or the mutant does not build

  run_mutants.py [--build DIR] [--only SEARCH]... [NAME ...]
  run_mutants.py [--build DIR] --program SOURCE NAME
  run_mutants.py --list | --check-anchors

--build is the CMake build tree of the course (default build/default): the
compiler and flags come from its docs/course/course_config.json, and the
scratch folders go to DIR/docs/course/mutants/NAME (with run.log, the
checker's whole output). Exit status 0 when every mutant run was KILLED.
A secret mutant's copy (an exercise's answer) is not left there: it is built
from a temporary copy, deleted once compiled, whose paths the debug info maps
to the unmodified file, so a debugger shows its line numbers, not its text.
--program builds a program of yours against one mutant (a shrunk program to
step through, chapter 5), into the same folder.

Nothing here names the mailbox: mutants.py says which file the mutants edit,
which programs check it and the name of the build's config file, and the
folder of the build tree is this folder's parent's place in the source tree.
So the starter kit (docs/course/kit) gives a structure of one's own this same
file, unchanged.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COURSE = os.path.dirname(HERE)  # docs/course: the folder of the structure and its checks
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from mutants import CHECKERS, CONFIG, MUTANTS, TARGET  # noqa: E402  (the table, next to this file)

MAILBOX = os.path.join(COURSE, TARGET)  # the file every mutant edits
STRUCTURE = os.path.dirname(TARGET)  # its folder, which a mutant build copies


def shown(path):
    """A path as the reader would type it: relative to here when it is below."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def tree_dir(build):
    """Where the build tree holds this folder's programs: its place in the
    source tree (docs/course in bcast's tree; `.` in a structure of one's own)."""
    cache = os.path.join(build, "CMakeCache.txt")
    if not os.path.isfile(cache):
        return None
    with open(cache, encoding="utf-8") as f:
        home = next((line.split("=", 1)[1].strip() for line in f if line.startswith("CMAKE_HOME_DIRECTORY:")), None)
    if home is None:
        return None
    return os.path.join(build, os.path.relpath(os.path.realpath(COURSE), os.path.realpath(home)))


# ---- applying an edit ------------------------------------------------------------

def code_of(line):
    """A line as the anchor compares it: no indentation, no trailing // comment."""
    return line.split("//")[0].strip()


def mutate(text, mutant):
    """TARGET's text with the mutant's edit applied; ValueError if the
    anchor does not match exactly once or the line count would change."""
    lines = text.split("\n")
    anchor = [code_of(line) for line in mutant.code.split("\n")]
    replacement = mutant.replacement.split("\n")
    if len(replacement) != len(anchor):
        raise ValueError(f"{mutant.name}: the replacement has {len(replacement)} lines, the code {len(anchor)}")
    hits = [i for i in range(len(lines) - len(anchor) + 1)
            if [code_of(line) for line in lines[i:i + len(anchor)]] == anchor]
    if len(hits) != 1:
        raise ValueError(f"{mutant.name}: its code matches {len(hits)} times in {os.path.basename(TARGET)}, "
                         f"must match once: "
                         f"{mutant.code!r}")
    for k, new in enumerate(replacement):
        old = lines[hits[0] + k]
        lines[hits[0] + k] = old[:len(old) - len(old.lstrip())] + new  # keep the indentation
    return "\n".join(lines)


# ---- building and running a checker --------------------------------------------

def build(mutant, scratch, config, program=None):
    """Builds the mutant's checker (or `program`, a source of yours, at -O0 -g)
    into `scratch` against a copy of the structure with the mutant's edit."""
    if program is None:
        shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch, exist_ok=True)
    # A secret mutant (an exercise's answer) is copied to a temporary folder that lives only while it
    # compiles, and its debug info and __FILE__ name the course's own file: a debugger shows the line
    # numbers of the mutated code (every mutant keeps them) but not its text, and the build tree holds none.
    copies = tempfile.mkdtemp(prefix="mutant-") if mutant.secret else scratch
    try:
        shutil.rmtree(os.path.join(copies, STRUCTURE), ignore_errors=True)
        shutil.copytree(os.path.join(COURSE, STRUCTURE), os.path.join(copies, STRUCTURE))
        with open(MAILBOX, encoding="utf-8") as f:
            text = mutate(f.read(), mutant)
        if mutant.secret:  # no `// MUTANT:` label on the line either
            text = "\n".join(re.sub(r"\s*// MUTANT:.*$", "", line) for line in text.split("\n"))
        with open(os.path.join(copies, TARGET), "w", encoding="utf-8") as f:
            f.write(text)
        if program is None:
            binary, source = CHECKERS[mutant.checker]
            source = os.path.join(COURSE, source)
            flags, libs = config[mutant.checker + "_flags"], config.get(mutant.checker + "_libs", [])
        else:
            binary, source = os.path.splitext(os.path.basename(program))[0], os.path.abspath(program)
            flags, libs = ["-std=c++20", "-O0", "-g"], ["-pthread"]
        hide = ["-ffile-prefix-map=" + os.path.join(copies, STRUCTURE) + "=" + os.path.join(COURSE, STRUCTURE)] \
            if mutant.secret else []
        exe = os.path.join(scratch, binary)
        # -I the copy first: <mailbox/mailbox.hpp> is the mutated copy; the rest is the course's own.
        cmd = [config["cxx"], *flags, *hide, "-I", copies, "-I", COURSE, source, "-o", exe, *libs]
        done = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        if mutant.secret:
            shutil.rmtree(copies, ignore_errors=True)
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if "error" in line]
        raise ValueError(f"{mutant.name} does not build: " + (errors[0] if errors else done.stderr[-300:]))
    return exe


def control(checker, tree, only):
    """Runs the tree's own, unmutated checker with the same selection: -> (status, note)."""
    binary = os.path.join(tree, CHECKERS[checker][0])
    if not os.path.isfile(binary):
        return "ERROR", f"{shown(binary)} is not built: build it first"
    sources = [os.path.join(top, f) for d in (STRUCTURE, os.path.dirname(CHECKERS[checker][1]))
               for top, _, files in os.walk(os.path.join(COURSE, d)) for f in files]
    newer = [f for f in sources if os.path.getmtime(f) > os.path.getmtime(binary)]
    if newer:
        return "ERROR", f"{shown(binary)} is older than {shown(newer[0])}: rebuild it"
    env = dict(os.environ)
    if checker == "property":
        env.setdefault("RC_PARAMS", "seed=1")
    done = subprocess.run([binary, *(only if checker == "relacy" else [])], capture_output=True, text=True,
                          env=env, timeout=600)
    if done.returncode != 0:
        failed = next((line for line in done.stdout.splitlines() if "** FAILED **" in line), "it fails")
        return "ERROR", f"the unmutated {STRUCTURE} fails too, so a kill would mean nothing: " + \
            " ".join(failed.split()[:2])
    return "PASSED", f"the control: the unmutated {STRUCTURE} passes"


def run(mutant, exe, only, named):
    """-> (status, killed by, report lines, replay command or None). `named`:
    the mutant was asked for by name, so an exercise's answer may be shown."""
    env = dict(os.environ)
    if mutant.checker == "property":
        env.setdefault("RC_PARAMS", "seed=1")  # the same programs every run, so the report can be compared
        cmd = [shown(exe)]
    else:
        cmd = [shown(exe), *only]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    out = done.stdout + done.stderr
    with open(os.path.join(os.path.dirname(exe), "run.log"), "w", encoding="utf-8") as f:
        f.write(out)
    lines = out.splitlines()
    if done.returncode == 0:
        return "SURVIVED", "-", [mutant.what], None
    if mutant.checker == "property":
        # The shrunk program: the lines after RapidCheck's "std::vector<...>:" up to a blank line.
        start = next((i for i, line in enumerate(lines) if line.startswith("std::vector<")), len(lines))
        program = []
        for line in lines[start + 1:]:
            if not line.strip():
                break
            program.append(line.strip())
        verdict = next((line for line in lines if line.startswith("Falsifiable")), "failed")
        if mutant.secret:  # exercise 5: the program is the exercise's clue, to be read from the binary's own output
            return "KILLED", "the lockstep property", [verdict, "program: not shown (the exercise: run its binary)"], None
        return "KILLED", "the lockstep property", [verdict, "program: " + " ".join(program)], None
    failed = next((line.split() for line in lines if "** FAILED **" in line), None)
    at = next((i for i, line in enumerate(lines) if line.startswith("---- Relacy report")), None)
    report = [line for line in lines[at + 1:] if line.strip()][:2] if at is not None else lines[-2:]
    replay = next((line.split(": ", 1)[1] for line in lines if line.startswith("---- replay: ")), None)
    if mutant.secret and not named:  # the search that kills it is an exercise's answer: shown when asked for
        return "KILLED", "(an exercise: name it to see)", report, None
    return "KILLED", failed[1] if failed else "(crashed)", report, replay


# ---- the command line ----------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="mutants to run (default: all)")
    ap.add_argument("--build", default="build/default", help="the CMake build tree of the checkers")
    ap.add_argument("--only", action="append", default=[], metavar="SEARCH",
                    help="relacy mutants: run only this search or scenario (the Relacy program's selection); "
                         "repeatable")
    ap.add_argument("--program", metavar="SOURCE",
                    help="build SOURCE (a program of yours, such as a copy of tests/shrunk_program.cpp) against the "
                         "one mutant named, at -O0 -g for a debugger, into its folder; nothing is run")
    ap.add_argument("--list", action="store_true", help="print the mutants and stop")
    ap.add_argument("--check-anchors", action="store_true", help="check that every edit applies, and stop")
    args = ap.parse_args()
    unknown = [n for n in args.names if n not in {m.name for m in MUTANTS}]
    if unknown:
        ap.error(f"no mutant named {', '.join(unknown)} (see --list)")
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]

    if args.list:
        width = max([22] + [len(m.name) for m in chosen])
        for m in chosen:
            print(f"{m.name:<{width}} {m.checker:<9} chapter {m.chapter}")
        return 0
    if args.check_anchors:
        with open(MAILBOX, encoding="utf-8") as f:
            text = f.read()
        for m in chosen:
            try:
                mutate(text, m)
            except ValueError as e:
                print(e)
                return 1
        print(f"every edit applies to {os.path.basename(TARGET)} exactly once ({len(chosen)} mutants)")
        return 0

    tree = tree_dir(args.build)
    if tree is None:
        ap.error(f"{args.build} is not a CMake build tree: configure it first")
    config_file = os.path.join(tree, CONFIG)
    if not os.path.isfile(config_file):
        ap.error(f"{config_file} not found: configure the build tree first")
    with open(config_file, encoding="utf-8") as f:
        config = json.load(f)
    if args.program:
        if len(chosen) != 1 or not args.names:
            ap.error("--program builds against one mutant: name it")
        try:
            exe = build(chosen[0], os.path.abspath(os.path.join(tree, "mutants", chosen[0].name)), config, args.program)
        except ValueError as e:
            print(e)
            return 1
        print(f"built {shown(exe)} against {chosen[0].name}")
        return 0
    rows, replays = [], []
    for checker in sorted({m.checker for m in chosen}, reverse=True):  # relacy first, as in the table
        status, note = control(checker, tree, args.only)
        rows.append(("(unmutated)", checker, status, "-", [note]))
    if any(row[2] != "PASSED" for row in rows):
        chosen = []  # no mutant run means anything
    for m in chosen:
        scratch = os.path.abspath(os.path.join(tree, "mutants", m.name))
        try:
            exe = build(m, scratch, config)
            status, killer, report, replay = run(m, exe, args.only, m.name in args.names)
        except (ValueError, subprocess.TimeoutExpired) as e:
            status, killer, report, replay = "ERROR", "-", [str(e)], None
        rows.append((m.name, m.checker, status, killer, report))
        if replay:
            replays.append((m.name, replay))

    # The columns fit the course's names, and widen for longer ones of yours.
    w1, w4 = max([22] + [len(row[0]) for row in rows]), max([32] + [len(row[3]) for row in rows])
    print(f"{'mutant':<{w1}}  {'checker':<8}  {'status':<8}  {'killed by':<{w4}}  first lines of the report")
    print(f"{'-' * w1}  {'-' * 8}  {'-' * 8}  {'-' * w4}  {'-' * 40}")
    for name, checker, status, killer, report in rows:
        print(f"{name:<{w1}}  {checker:<8}  {status:<8}  {killer:<{w4}}  {report[0] if report else ''}")
        for more in report[1:]:
            print(f"{'':<{w1}}  {'':<8}  {'':<8}  {'':<{w4}}  {more}")
    for name, replay in replays:
        print(f"replay {name}: {replay}")
    print(f"logs: {shown(os.path.join(tree, 'mutants'))}/NAME/run.log")
    return 0 if all(row[2] in ("KILLED", "PASSED") for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
