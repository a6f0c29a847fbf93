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
  run_mutants.py --list | --check-anchors

--build is the CMake build tree of the course (default build/default): the
compiler and flags come from its docs/course/course_config.json, and the
scratch folders go to DIR/docs/course/mutants/NAME (with run.log, the
checker's whole output). Exit status 0 when every mutant run was KILLED.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COURSE = os.path.dirname(HERE)  # docs/course
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from mutants import MUTANTS  # noqa: E402  (the table, next to this file)

MAILBOX = os.path.join(COURSE, "mailbox", "mailbox.hpp")


def shown(path):
    """A path as the reader would type it: relative to here when it is below."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


# ---- applying an edit ------------------------------------------------------------

def code_of(line):
    """A line as the anchor compares it: no indentation, no trailing // comment."""
    return line.split("//")[0].strip()


def mutate(text, mutant):
    """mailbox.hpp's text with the mutant's edit applied; ValueError if the
    anchor does not match exactly once or the line count would change."""
    lines = text.split("\n")
    anchor = [code_of(line) for line in mutant.code.split("\n")]
    replacement = mutant.replacement.split("\n")
    if len(replacement) != len(anchor):
        raise ValueError(f"{mutant.name}: the replacement has {len(replacement)} lines, the code {len(anchor)}")
    hits = [i for i in range(len(lines) - len(anchor) + 1)
            if [code_of(line) for line in lines[i:i + len(anchor)]] == anchor]
    if len(hits) != 1:
        raise ValueError(f"{mutant.name}: its code matches {len(hits)} times in mailbox.hpp, must match once: "
                         f"{mutant.code!r}")
    for k, new in enumerate(replacement):
        old = lines[hits[0] + k]
        lines[hits[0] + k] = old[:len(old) - len(old.lstrip())] + new  # keep the indentation
    return "\n".join(lines)


# ---- building and running a checker --------------------------------------------

def build(mutant, scratch, config):
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(os.path.join(COURSE, "mailbox"), os.path.join(scratch, "mailbox"))
    with open(MAILBOX, encoding="utf-8") as f:
        text = mutate(f.read(), mutant)
    with open(os.path.join(scratch, "mailbox", "mailbox.hpp"), "w", encoding="utf-8") as f:
        f.write(text)
    if mutant.checker == "relacy":
        binary, source, flags, libs = "course_relacy", "relacy/scenarios.cpp", config["relacy_flags"], []
    else:
        binary, source, flags, libs = "course_properties", "property/properties.cpp", config["property_flags"], \
            config["property_libs"]
    exe = os.path.join(scratch, binary)
    # -I scratch first: <mailbox/mailbox.hpp> is the mutated copy; the rest is the course's own.
    cmd = [config["cxx"], *flags, "-I", scratch, "-I", COURSE, os.path.join(COURSE, source), "-o", exe, *libs]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if "error" in line]
        raise ValueError(f"{mutant.name} does not build: " + (errors[0] if errors else done.stderr[-300:]))
    return exe


def control(checker, build, only):
    """Runs the tree's own, unmutated checker with the same selection: -> (status, note)."""
    binary = os.path.join(build, "docs", "course", "course_relacy" if checker == "relacy" else "course_properties")
    if not os.path.isfile(binary):
        return "ERROR", f"{shown(binary)} is not built (docs/course/README.md, Setting up)"
    sources = [os.path.join(top, f) for d in ("mailbox", "relacy" if checker == "relacy" else "property")
               for top, _, files in os.walk(os.path.join(COURSE, d)) for f in files]
    newer = [f for f in sources if os.path.getmtime(f) > os.path.getmtime(binary)]
    if newer:
        return "ERROR", f"{shown(binary)} is older than {shown(newer[0])}: rebuild it (docs/course/README.md)"
    env = dict(os.environ)
    if checker == "property":
        env.setdefault("RC_PARAMS", "seed=1")
    done = subprocess.run([binary, *(only if checker == "relacy" else [])], capture_output=True, text=True,
                          env=env, timeout=600)
    if done.returncode != 0:
        failed = next((line for line in done.stdout.splitlines() if "** FAILED **" in line), "it fails")
        return "ERROR", "the unmutated mailbox fails too, so a kill would mean nothing: " + " ".join(failed.split()[:2])
    return "PASSED", "the control: the unmutated mailbox passes"


def run(mutant, exe, only):
    """-> (status, killed by, report lines, replay command or None)"""
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
    return "KILLED", failed[1] if failed else "(crashed)", report, replay


# ---- the command line ----------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="mutants to run (default: all)")
    ap.add_argument("--build", default="build/default", help="the course's CMake build tree")
    ap.add_argument("--only", action="append", default=[], metavar="SEARCH",
                    help="relacy mutants: run only this search or scenario (course_relacy's selection); repeatable")
    ap.add_argument("--list", action="store_true", help="print the mutants and stop")
    ap.add_argument("--check-anchors", action="store_true", help="check that every edit applies, and stop")
    args = ap.parse_args()
    unknown = [n for n in args.names if n not in {m.name for m in MUTANTS}]
    if unknown:
        ap.error(f"no mutant named {', '.join(unknown)} (see --list)")
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]

    if args.list:
        for m in chosen:
            print(f"{m.name:<22} {m.checker:<9} chapter {m.chapter}")
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
        print(f"every edit applies to mailbox.hpp exactly once ({len(chosen)} mutants)")
        return 0

    config_file = os.path.join(args.build, "docs", "course", "course_config.json")
    if not os.path.isfile(config_file):
        ap.error(f"{config_file} not found: configure the course first (docs/course/README.md)")
    with open(config_file, encoding="utf-8") as f:
        config = json.load(f)
    rows, replays = [], []
    for checker in sorted({m.checker for m in chosen}, reverse=True):  # relacy first, as in the table
        status, note = control(checker, args.build, args.only)
        rows.append(("(unmutated)", checker, status, "-", [note]))
    if any(row[2] != "PASSED" for row in rows):
        chosen = []  # no mutant run means anything
    for m in chosen:
        scratch = os.path.abspath(os.path.join(args.build, "docs", "course", "mutants", m.name))
        try:
            exe = build(m, scratch, config)
            status, killer, report, replay = run(m, exe, args.only)
        except (ValueError, subprocess.TimeoutExpired) as e:
            status, killer, report, replay = "ERROR", "-", [str(e)], None
        rows.append((m.name, m.checker, status, killer, report))
        if replay:
            replays.append((m.name, replay))

    print(f"{'mutant':<22}  {'checker':<8}  {'status':<8}  {'killed by':<32}  first lines of the report")
    print(f"{'-' * 22}  {'-' * 8}  {'-' * 8}  {'-' * 32}  {'-' * 40}")
    for name, checker, status, killer, report in rows:
        print(f"{name:<22}  {checker:<8}  {status:<8}  {killer:<32}  {report[0] if report else ''}")
        for more in report[1:]:
            print(f"{'':<22}  {'':<8}  {'':<8}  {'':<32}  {more}")
    for name, replay in replays:
        print(f"replay {name}: {replay}")
    print(f"logs: {shown(os.path.join(args.build, 'docs', 'course', 'mutants'))}/NAME/run.log")
    return 0 if all(row[2] in ("KILLED", "PASSED") for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
