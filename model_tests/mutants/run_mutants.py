#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The seeded-bug table: every mutant in mutants.py must be killed by the
checkers listed for it there.

For each mutant and checker: copy impl/ into a scratch directory, apply the
mutant's edits there (each anchored on the code it replaces, see mutants.py),
build the checker against the copy, run it and require it to FAIL.

  relacy    builds model_tests/relacy/main.cpp (copied with spec/include, so a
            concurrent edit of the tree cannot mix into one table) at -O0, runs
            it with --quick (it stops at the first failing suite); killed = it
            fails. Table: the suite (scheduler) and Relacy's first lines.
            With --targeted (what ctest runs), each mutant's build holds only
            the suite mutants.py names for it (suite=, registry.hpp's
            BCAST_RELACY_ONLY_SUITES), and that suite must kill it: a fifth of
            the build time. Without it, every suite is built and any may kill.
  property  builds property_tests/src/properties.cpp with -DNDEBUG (so a kill
            comes from a property, not from one of the channel's own asserts),
            runs the std_primitives properties twice: as the suite runs, and
            with the comparison with the spec model off
            (BCAST_PROPERTY_CHECKS=named); killed = a property fails in the
            first run. The unmutated code runs first the same way and must
            pass, so a kill cannot come from the setup.
  traces    every channel mutant against the portable traces alone
            (docs/traces.md): bcast-trace built on the mutated copy replays
            2000 generated traces and checks them strictly; the mutants the
            property tests kill must be killed, the concurrent ones may survive.
  histories every channel mutant against recorded concurrent histories alone
            (docs/traces.md, "Histories"): bcast-trace built on the mutated
            copy records up to 10000 histories on real threads (seed 1) and
            checks each; the mutants that list HISTORIES in mutants.py must
            be killed with their history_verdict (the wake mutants as lost
            wakeups); --must runs only those.
  --controls  the controls in mutants.py instead, under Relacy with
            --keep-going: each must fail exactly the suites it lists.

Every mode prints its table, on success too, and writes it to
<work>/<checker>-table.txt. Exit status 0 iff every mutant is killed (every
control as expected).

    python3 model_tests/mutants/run_mutants.py [--checker all|relacy|property|generated|traces|histories]
        [--controls] [--mode quick|normal|thorough] [--jobs N] [--debug]
        [--work DIR] [NAME ...]
    python3 model_tests/mutants/run_mutants.py --list           # name kind killer
    python3 model_tests/mutants/run_mutants.py --check-anchors  # every edit matches once
"""
import argparse
import concurrent.futures as cf
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import mutants as registry  # noqa: E402  (the data, next to this file)

RELACY_TIMEOUT_S = 600  # a mutant whose search makes no progress for this long counts as killed
CONTROL_TIMEOUT_S = 900
PROPERTY_TIMEOUT_S = 600


# ---- applying the edits ------------------------------------------------------------

# Comments are their own tokens so they can be dropped: anchors ignore them.
TOKEN = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|\w+|\S", re.S)


def code_tokens(text):
    return [(m.group(), m.start(), m.end()) for m in TOKEN.finditer(text) if not m.group().startswith(("//", "/*"))]


class AnchorError(Exception):
    pass


def locate(source, edit):
    """The span of `source` that edit.code stands for: whole lines where the
    match starts and ends a line (indentation, and a comment that ends the
    last line, included)."""
    wanted = [t for t, _, _ in code_tokens(edit.code)]
    have = code_tokens(source)
    texts = [t for t, _, _ in have]
    n = len(wanted)
    hits = [i for i in range(len(texts) - n + 1) if texts[i] == wanted[0] and texts[i:i + n] == wanted]
    if len(hits) != 1:
        raise AnchorError(f"{edit.file}: the code it replaces matches {len(hits)} times (comments and whitespace "
                          f"ignored), must match exactly once: `{' '.join(edit.code.split())}`")
    start, end = have[hits[0]][1], have[hits[0] + n - 1][2]
    line_start = source.rfind("\n", 0, start) + 1
    whole_first_line = source[line_start:start].strip() == ""
    if whole_first_line:
        start = line_start
    line_end = source.find("\n", end)
    line_end = len(source) if line_end < 0 else line_end
    rest = source[end:line_end].strip()
    whole_last_line = rest == "" or rest.startswith("//")
    if whole_last_line:
        end = line_end
    return start, end, whole_first_line, whole_last_line


def mutated_files(repo, entry):
    """{file: mutated text} for the entry's edits, each matched against the
    unmodified file; raises AnchorError naming the file."""
    out = {}
    for file in sorted({e.file for e in entry.edits}):
        if not file.startswith("impl/"):
            raise AnchorError(f"{file}: edits must be under impl/ (only impl/ is copied and mutated)")
        path = pathlib.Path(repo) / file
        if not path.is_file():
            raise AnchorError(f"{file}: no such file")
        source = path.read_text()
        spans = []
        for edit in (e for e in entry.edits if e.file == file):
            if [t for t, _, _ in code_tokens(edit.code)] == [t for t, _, _ in code_tokens(edit.replacement)]:
                raise AnchorError(f"{file}: an edit that changes no code (comments only) mutates nothing: "
                                  f"`{edit.code}`")
            spans.append((*locate(source, edit), edit))
        spans.sort(key=lambda s: s[0])
        for a, b in zip(spans, spans[1:]):
            if b[0] < a[1]:
                raise AnchorError(f"{file}: two edits overlap: `{a[4].code}` and `{b[4].code}`")
        text = source
        for start, end, whole_first, whole_last, edit in reversed(spans):
            new = edit.replacement if whole_first else edit.replacement.lstrip()
            if not whole_last:
                new += "\n"  # code follows on the same line: keep it out of a trailing // comment
            text = text[:start] + new + text[end:]
        out[file] = text
    return out


def prepare(repo, entry, scratch, extra_dirs=()):
    """A scratch copy of impl/ (and extra_dirs) with the entry's edits applied."""
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    for d in ("impl",) + tuple(extra_dirs):
        shutil.copytree(pathlib.Path(repo) / d, scratch / d)
    if entry is not None:
        for file, text in mutated_files(repo, entry).items():
            (scratch / file).write_text(text)


def check_anchors(args, entries):
    bad = 0
    for entry in entries:
        try:
            mutated_files(args.repo, entry)
        except AnchorError as e:
            bad += 1
            print(f"{entry.name}: {e}")
    files = sorted({e.file for m in entries for e in m.edits})
    if bad:
        print(f"{bad} of {len(entries)} mutants/controls no longer apply to impl/: update their edits in "
              f"model_tests/mutants/mutants.py to the code there now")
        return 1
    print(f"{len(entries)} mutants/controls, {sum(len(m.edits) for m in entries)} edits: "
          f"every one matches its code exactly once ({', '.join(files)})")
    return 0


# ---- relacy ------------------------------------------------------------------------

def first_lines(text, n):
    return [line for line in text.splitlines() if line.strip()][:n]


def build_relacy(args, scratch, dedicated_runs=None, only_suite=None):
    exe = scratch / "bcast_relacy"
    opt = ["-O0", "-g"] if args.debug else [args.opt]
    quick_only = ["-DBCAST_RELACY_QUICK_ONLY"] if args.controls or args.mode == "quick" else []  # registry.hpp
    if only_suite is not None:  # --targeted: that suite's runs only (registry.hpp, suite_built)
        dedicated = [f'-DBCAST_RELACY_ONLY_SUITES="{only_suite}"']
    else:
        # A mutant outside the reference channel (Mutant.dedicated_runs): only the runs that can reach its code are
        # built (scenarios.def: the LOCK lines for bcast's own lock, the FAST, FASTWAIT and CELL lines for bcast::fast).
        dedicated = {"lock": ["-DBCAST_RELACY_DEDICATED_LOCK"], "fast": ["-DBCAST_RELACY_DEDICATED_FAST"]}.get(
            dedicated_runs, [])
    cmd = [args.cxx, "-std=c++20", *opt, *quick_only, *dedicated, "-fno-sized-deallocation", "-fno-lifetime-dse", "-UNDEBUG", "-w",
           "-I", str(scratch / "impl" / "include"), "-I", str(scratch / "spec" / "include"),
           str(scratch / "model_tests" / "relacy" / "main.cpp"), "-o", str(exe)]
    if os.path.normpath(args.relacy_include) not in ("/usr/include", "/usr/local/include"):
        cmd[1:1] = ["-isystem", args.relacy_include]  # never -isystem a default dir (breaks #include_next)
    b = subprocess.run(cmd, capture_output=True, text=True)
    if b.returncode != 0:
        return None, ["does not build: "] + [line for line in b.stderr.splitlines() if "error" in line][:3]
    return exe, []


def mode_flags(mode):
    return [] if mode == "normal" else ["--" + mode]


def replay_caveat(exe, mode, suite_name, suite):
    """bcast_relacy replays every run a name selects, in order, from the one
    state; say so when the failing run is not the first of them."""
    listed = subprocess.run([str(exe), *mode_flags(mode), "--list", suite_name], capture_output=True, text=True)
    first = next((line.split() for line in listed.stdout.splitlines() if line.strip()), [])
    failing = suite[suite.rfind("(") + 1:-1]
    if first and first[0] == suite_name and f"scheduler={failing}" in first:
        return ""
    shown = next((x for x in first if x.startswith("scheduler=")), "scheduler=?")
    return (f"\n      (the failing run is the scheduler={failing} one; `{suite_name}` selects its {shown} run "
            f"first, which runs from the same state, then the failing one)")


def run_relacy(args, entry):
    """-> (name, status, suite, report lines, seconds, replay command or None)"""
    t0 = time.time()
    scratch = pathlib.Path(args.work) / ("relacy-controls" if entry.is_control else "relacy") / entry.name
    try:
        prepare(args.repo, entry, scratch, ("spec/include", "model_tests/relacy"))
    except AnchorError as e:
        return entry.name, "ERROR", "-", [f"edit does not apply: {e}"], time.time() - t0, None
    only_suite = None
    if args.targeted and entry.is_control and entry.suite is not None:
        only_suite = ",".join([entry.suite, *entry.expected_failures])  # its mutant's killer and what it must fail
    elif args.targeted and not entry.is_control:
        if entry.suite is None:
            return (entry.name, "ERROR", "-", ["--targeted: mutants.py names no suite= for it (run it without "
                                              "--targeted to find the suite that kills it)"], time.time() - t0, None)
        only_suite = entry.suite
    exe, errors = build_relacy(args, scratch, dedicated_runs=entry.dedicated_runs, only_suite=only_suite)
    if exe is None:
        return entry.name, "ERROR", "-", errors, time.time() - t0, None
    if only_suite is not None:
        listed = subprocess.run([str(exe), *mode_flags(args.mode), "--list"], capture_output=True, text=True)
        if not listed.stdout.strip():
            return (entry.name, "ERROR", "-", [f"suite={only_suite}: no such suite in scenarios.def (in this mode)"],
                    time.time() - t0, None)
    if entry.is_control:
        # the same search the mutant table uses, so "killed there, passes here" is a fair comparison
        # The controls edit the reference channel: bcast::fast's suites (fast_*) cannot tell them apart.
        listed = subprocess.run([str(exe), "--quick", "--list"], capture_output=True, text=True, check=True).stdout
        reference_runs = [line.split()[0] for line in listed.splitlines() if line.strip() and not line.startswith("fast_")]
        r = subprocess.run([str(exe), "--quick", "--keep-going", *reference_runs], capture_output=True, text=True,
                           timeout=CONTROL_TIMEOUT_S)
        failed = sorted({line.split()[1] for line in r.stdout.splitlines() if "** FAILED **" in line})
        want = list(entry.expected_failures)
        status = "PASSED" if failed == want else "WRONG"
        return (entry.name, status, "fails: " + (", ".join(failed) or "nothing"),
                ["expected: " + (", ".join(want) or "nothing")], time.time() - t0, None)
    try:
        r = subprocess.run([str(exe), *mode_flags(args.mode)], capture_output=True, text=True,
                           timeout=RELACY_TIMEOUT_S)
        out, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired:
        return entry.name, "KILLED", "(timeout: no progress)", [], time.time() - t0, None
    (scratch / "run.log").write_text(out)
    if rc == 0:
        survived = [entry.what] + ([f"(built with suite {only_suite} only: mutants.py says it kills this mutant)"]
                                   if only_suite else [])
        return entry.name, "SURVIVED", "-", survived, time.time() - t0, None
    suite, suite_name, report, replay = "?", None, [], None
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if "** FAILED **" in line and suite == "?":
            parts = line.split()
            suite_name = parts[1]
            suite = suite_name + " (" + next((x for x in parts if x.startswith("scheduler=")), "?=?").split("=")[1] + ")"
        if line.startswith("---- Relacy report") and not report:
            report = [x.strip() for x in lines[i + 1:] if x.strip()][:4]
        if line.startswith("---- replay state (params.initial_state):") and suite_name and replay is None:
            state = line.split(":", 1)[1].strip()
            replay = "gdb --args " + shlex.join([str(exe), *mode_flags(args.mode), f"--replay={state}", suite_name])
            replay += replay_caveat(exe, args.mode, suite_name, suite)
    if suite == "?":
        report = report or [x for x in lines if x.strip()][-3:]
        if rc < 0:
            report = [f"crashed with signal {-rc}"] + report
    return entry.name, "KILLED", suite, report, time.time() - t0, replay


def relacy_table(results, controls):
    w = max(len(r[0]) for r in results)
    head = "outcome (control: failed suites)" if controls else "killed by suite (scheduler)"
    lines = [f"{'control' if controls else 'mutant':<{w}}  {'status':<8}  {head:<52}  "
             f"{'expected' if controls else 'first lines of Relacy report'}",
             f"{'-' * w}  {'-' * 8}  {'-' * 52}  {'-' * 40}"]
    for name, status, suite, report, _, _ in results:
        lines.append(f"{name:<{w}}  {status:<8}  {suite:<52}  {report[0] if report else ''}")
        lines += [f"{'':<{w}}  {'':<8}  {'':<52}  {extra}" for extra in report[1:3]]
    return lines


# ---- property ----------------------------------------------------------------------

UNMUTATED = "(control: unmutated)"
FAILED_PROPERTY = re.compile(r"^\[  FAILED  \] std_primitives\.([a-z_]*)[, ]", re.M)
REPRODUCE = re.compile(r'RC_PARAMS="(reproduce=[^"]*)"')


def run_property_binary(args, exe, checks, log):
    """-> (failed properties as a string, '' when all pass; gdb command or None)"""
    env = dict(os.environ, BCAST_PROPERTY_CHECKS=checks, RC_PARAMS=args.rc_params)
    filt = "--gtest_filter=std_primitives.*"
    try:
        r = subprocess.run([str(exe), filt], capture_output=True, text=True, env=env, timeout=PROPERTY_TIMEOUT_S)
        out, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), None
    log.write_text(out)
    failed = sorted(set(FAILED_PROPERTY.findall(out)))
    text = ",".join(failed)
    if rc is None:
        text = f"hang (timeout {PROPERTY_TIMEOUT_S} s)" + (", " + text if text else "")
    elif rc < 0 or rc > 128 or (rc != 0 and not failed):
        text = f"crash (exit {rc})" + (", " + text if text else "")
    gdb = None
    m = REPRODUCE.search(out)
    if failed and m:
        gdb = (f"RC_PARAMS=\"{m.group(1)}\" BCAST_PROPERTY_CHECKS={checks} gdb --args "
               + shlex.join([str(exe), f"--gtest_filter=std_primitives.{failed[0]}"]))
    return text, gdb


def run_property(args, entry):
    """entry None: the unmutated control. -> (name, killed_by, named, error lines, seconds, gdb command)"""
    t0 = time.time()
    name = UNMUTATED if entry is None else entry.name
    scratch = pathlib.Path(args.work) / "property" / ("unmutated" if entry is None else entry.name)
    try:
        prepare(args.repo, entry, scratch)
    except AnchorError as e:
        return name, None, None, [f"edit does not apply: {e}"], time.time() - t0, None
    repo = pathlib.Path(args.repo)
    exe = scratch / "properties"
    opt = ["-O0", "-g"] if args.debug else ["-O1"]
    # Only the std_primitives suite, the one the table runs (properties.cpp).
    cmd = [args.cxx, "-std=c++20", *opt, "-DNDEBUG", "-DBCAST_PROPERTIES_STD_PRIMITIVES_ONLY", "-w",
           *shlex.split(args.property_cxxflags),
           f"-I{scratch / 'impl' / 'include'}", f"-I{repo / 'spec' / 'include'}",
           f"-I{repo / 'property_tests' / 'include'}", f"-I{repo / 'impl' / 'tests' / 'support'}",
           str(repo / "property_tests" / "src" / "properties.cpp"), "-o", str(exe),
           *shlex.split(args.property_libs), "-pthread"]
    b = subprocess.run(cmd, capture_output=True, text=True)
    (scratch / "build.log").write_text(b.stdout + b.stderr)
    if b.returncode != 0:
        return name, None, None, ["does not build:"] + b.stderr.splitlines()[-30:], time.time() - t0, None
    killed_by, gdb = run_property_binary(args, exe, "all", scratch / "run-all.log")
    named, _ = run_property_binary(args, exe, "named", scratch / "run-named.log")
    return name, killed_by, named, [], time.time() - t0, gdb


def property_table(args, results):
    def row(a, b, c):
        return f"{a:<28} | {b:<58} | {c}"
    lines = [f"RC_PARAMS=\"{args.rc_params}\", properties std_primitives.*, impl asserts off (-DNDEBUG)",
             row("mutant", "killed by (suite as run)", "killed by (named statements alone)"),
             row("-" * 28, "-" * 58, "-" * 34)]
    for name, killed_by, named, errors, _, _ in results:
        if errors:
            lines.append(row(name, "ERROR", errors[0]))
            lines += errors[1:]
        elif name == UNMUTATED:
            lines.append(row(name, killed_by or "none - passes", named or "none - passes"))
        else:
            lines.append(row(name, killed_by or "SURVIVED", named or "survived"))
    lines.append(f"logs: {pathlib.Path(args.work) / 'property'}/<mutant>/run-{{all,named}}.log")
    return lines


# ---- generated scenarios -------------------------------------------------------------
# Every mutant (not only the RELACY ones) against bcast_relacy_generated alone:
# the generated scenarios must kill what the hand-written suites kill, and the
# unmutated code must pass the same budget.
GENERATED = registry.GENERATED


def build_generated(args, scratch):
    exe = scratch / "bcast_relacy_generated"
    opt = ["-O0", "-g"] if args.debug else [args.opt]
    cmd = [args.cxx, "-std=c++20", *opt, "-fno-sized-deallocation", "-fno-lifetime-dse", "-UNDEBUG", "-w",
           "-I", str(scratch / "impl" / "include"), "-I", str(scratch / "spec" / "include"),
           "-I", str(pathlib.Path(args.repo) / "property_tests" / "include"),
           str(scratch / "model_tests" / "relacy" / "generated_main.cpp"), "-o", str(exe)]
    if os.path.normpath(args.relacy_include) not in ("/usr/include", "/usr/local/include"):
        cmd[1:1] = ["-isystem", args.relacy_include]
    b = subprocess.run(cmd, capture_output=True, text=True)
    if b.returncode != 0:
        return None, ["does not build: "] + [line for line in b.stderr.splitlines() if "error" in line][:3]
    return exe, []


def run_generated_checker(args, entry):
    """entry None: the unmutated code. -> (name, status, kind, scenarios, minimised, seconds, replay)"""
    t0 = time.time()
    name = UNMUTATED if entry is None else entry.name
    scratch = pathlib.Path(args.work) / GENERATED / ("unmutated" if entry is None else entry.name)
    try:
        prepare(args.repo, entry, scratch, ("spec/include", "model_tests/relacy", "model_tests/generator"))
    except AnchorError as e:
        return name, "ERROR", f"edit does not apply: {e}", 0, "", time.time() - t0, None
    exe, errors = build_generated(args, scratch)
    if exe is None:
        return name, "ERROR", errors[0], 0, "", time.time() - t0, None
    try:
        channel = [f"--channel={args.family}"] if args.family else []
        r = subprocess.run([str(exe), f"--budget={args.budget}", "--seed=1", *channel], capture_output=True,
                           text=True, timeout=RELACY_TIMEOUT_S)
        out, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired:
        return (name, "TIMEOUT" if entry is None else "KILLED", "timeout: no progress", 0, "", time.time() - t0,
                None)
    (scratch / "run.log").write_text(out)
    explored = re.search(r"^(\d+) scenarios explored", out, re.M)
    scenarios = int(explored.group(1)) if explored else 0
    if rc == 0:
        return name, "PASSED" if entry is None else "SURVIVED", "-", scenarios, "", time.time() - t0, None
    kind = re.search(r"^==== FAILED: (.*)$", out, re.M)
    small = re.search(r"^minimised: (.*?)   \(", out, re.M)
    replay = re.search(r"^---- replay: (.*)$", out, re.M)
    status = "FAILED" if entry is None else "KILLED"
    if not kind:
        return name, status, f"crashed (exit {rc})", scenarios, "", time.time() - t0, None
    return (name, status, kind.group(1), scenarios, small.group(1) if small else "", time.time() - t0,
            replay.group(1).replace("bcast_relacy_generated", str(exe), 1) if replay else None)


def channel_mutants(args):
    """None (the unmutated code) and the reference channel's own mutants: the lock's and bcast::fast's
    are left out (the generated scenarios, the traces and the histories run the reference channel on
    another lock, or none). With --family fast (the generated scenarios only), bcast::fast's own
    mutants instead, its lock's included: the generated scenarios then run bcast::fast."""
    family = "fast" if getattr(args, "family", None) == "fast" else None
    return [None] + [m for m in sorted(registry.MUTANTS, key=lambda m: m.name)
                     if not m.is_control and m.dedicated_runs == family and (not args.names or m.name in args.names)]


def run_each(entries, run, jobs, announcement, describe):
    """Print `announcement` with the job count (`jobs`, or one a core), run(entry) for every entry on that
    many threads, printing describe(result) as each ends; the results sorted, the unmutated code first."""
    jobs = jobs or (os.cpu_count() or 1)
    print(f"{announcement}, {jobs} jobs", flush=True)
    results = []
    with cf.ThreadPoolExecutor(jobs) as pool:
        for f in cf.as_completed([pool.submit(run, e) for e in entries]):
            res = f.result()
            results.append(res)
            print("  " + describe(res), flush=True)
    return sorted(results, key=lambda r: (r[0] != UNMUTATED, r[0]))


def table_head(results, *counts, last):
    """The name column's width and the two header lines of a checker's table: mutant and status, then
    `counts` ((title, width): right-aligned columns), then `last`, the free-width column."""
    w = max(len(r[0]) for r in results)
    titles = [f"{'mutant':<{w}}", f"{'status':<8}", *(f"{title:>{width}}" for title, width in counts), last]
    rules = ["-" * w, "-" * 8, *("-" * width for _, width in counts), "-" * 40]
    return w, ["  ".join(titles), "  ".join(rules)]


def generated_table(args):
    # The lock's own mutants are left out: the generated scenarios run the
    # channel on Relacy's mutex, so they cannot reach bcast's futex lock.
    # (bcast::fast's lock is in: with --family fast the scenarios run it.)
    entries = channel_mutants(args)
    if args.no_control:  # ctest: the unmutated code passes the same scenarios in another test
        entries = entries[1:]
    t0 = time.time()
    results = run_each(entries, lambda e: run_generated_checker(args, e), args.jobs or min(4, os.cpu_count() or 1),
                       f"{len(entries) - (0 if args.no_control else 1)} mutants"
                       f"{'' if args.no_control else ' + the unmutated code'} against the generated scenarios "
                       f"alone on {'bcast::fast' if args.family == 'fast' else 'the reference channel'} "
                       f"(budget {args.budget}, seed 1; {args.opt})",
                       lambda r: f"{GENERATED} {r[0]}: {r[1]} after {r[3]} scenarios ({r[5]:.0f} s)")
    w, lines = table_head(results, ("scenarios", 9), ("seconds", 7), last="failure / minimised scenario")
    for name, status, kind, scenarios, small, secs, _ in results:
        lines.append(f"{name:<{w}}  {status:<8}  {scenarios:>9}  {secs:>7.0f}  {kind}")
        if small:
            lines.append(f"{'':<{w}}  {'':<8}  {'':>9}  {'':>7}  {small}")
    print()
    emit(args, lines, "generated-table.txt")
    bad = sum(1 for r in results if r[1] != ("PASSED" if r[0] == UNMUTATED else "KILLED"))
    mutated = [r for r in results if r[0] != UNMUTATED]
    killed = sum(1 for r in mutated if r[1] == "KILLED")
    control = "not run (--no-control)" if args.no_control else results[0][1]
    print(f"\n{killed}/{len(mutated)} killed by the generated scenarios alone; unmutated: {control}; "
          f"{bad} not as required; {time.time() - t0:.0f} s")
    return 1 if bad else 0


# ---- portable traces -------------------------------------------------------------------
# Every channel mutant against the trace checker alone (docs/traces.md): bcast-trace
# built on the mutated copy generates traces on the spec model, replays them on the
# mutated channel and checks strictly. A trace has one thread, so the concurrent
# mutants are expected to survive; the single-threaded ones (those the property
# tests kill) must be killed. The unmutated code runs first and must agree.
TRACES = "traces"
TRACE_COUNT = 2000
TRACE_TIMEOUT_S = 600
FIRST_DIFFERENCE = re.compile(r"^trace (\d+) \(profile (\w+)\), step (\d+) .*?: (\w+)\n.*\n.*\n  rule: (R-[A-Z]+-\d+)", re.M)


def build_trace_tool(args, entry, checker):
    """bcast-trace built on the mutated copy of impl/ (entry None: unmutated).
    -> (scratch dir, executable) or (None, what went wrong)."""
    scratch = pathlib.Path(args.work) / checker / ("unmutated" if entry is None else entry.name)
    try:
        prepare(args.repo, entry, scratch)
    except AnchorError as e:
        return None, f"edit does not apply: {e}"
    repo = pathlib.Path(args.repo)
    exe = scratch / "bcast-trace"
    cmd = [args.cxx, "-std=c++20", "-O1", "-DNDEBUG", "-w", f"-I{scratch / 'impl' / 'include'}",
           f"-I{repo / 'spec' / 'include'}", f"-I{repo / 'property_tests' / 'include'}",
           f"-I{repo / 'spec' / 'traces' / 'include'}", f"-I{repo / 'impl' / 'tests' / 'support'}",
           str(repo / "spec" / "traces" / "bcast_trace.cpp"), "-o", str(exe), "-pthread"]
    b = subprocess.run(cmd, capture_output=True, text=True)
    if b.returncode != 0:
        return None, "does not build: " + (b.stderr.splitlines() or [""])[-1]
    return scratch, exe


def run_traces_checker(args, entry):
    """entry None: the unmutated code. -> (name, status, first difference, traces differing, seconds)"""
    t0 = time.time()
    name = UNMUTATED if entry is None else entry.name
    scratch, exe = build_trace_tool(args, entry, TRACES)
    if scratch is None:
        return name, "ERROR", exe, 0, time.time() - t0
    traces, results = scratch / "traces.jsonl", scratch / "results.jsonl"
    try:
        subprocess.run([str(exe), "generate", "--seed", "1", "--count", str(TRACE_COUNT), "-o", str(traces)],
                       check=True, capture_output=True, timeout=TRACE_TIMEOUT_S)
        # A blocking call the mutant makes wait answers "blocked" after 20 ms (a difference), not 5 s.
        r = subprocess.run([str(exe), "replay", str(traces), "-o", str(results), "--block-ms", "20"],
                           capture_output=True, text=True,
                           timeout=TRACE_TIMEOUT_S)
        if r.returncode != 0:
            status = "FAILED" if entry is None else "KILLED"
            return name, status, f"replay failed (exit {r.returncode}): {r.stderr.strip()[:80]}", 0, time.time() - t0
        c = subprocess.run([str(exe), "check", "--strict", "--show", "1", str(traces), str(results)],
                           capture_output=True, text=True, timeout=TRACE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return name, "TIMEOUT" if entry is None else "KILLED", "timeout", 0, time.time() - t0
    (scratch / "check.log").write_text(c.stdout + c.stderr)
    differed = re.search(r"(\d+) differed", c.stdout)
    n = int(differed.group(1)) if differed else 0
    if c.returncode == 0:
        return name, "PASSED" if entry is None else "SURVIVED", "-", 0, time.time() - t0
    first = FIRST_DIFFERENCE.search(c.stdout)
    what = (f"{first.group(5)}: trace {first.group(1)} ({first.group(2)}) step {first.group(3)}, {first.group(4)}"
            if first else f"check exit {c.returncode}")
    return name, "FAILED" if entry is None else "KILLED", what, n, time.time() - t0


def traces_table(args):
    entries = channel_mutants(args)
    t0 = time.time()
    results = run_each(entries, lambda e: run_traces_checker(args, e), args.jobs,
                       f"{len(entries) - 1} mutants + the unmutated code against {TRACE_COUNT} portable traces (seed 1)",
                       lambda r: f"{TRACES} {r[0]}: {r[1]} ({r[4]:.0f} s)")
    must = {m.name for m in registry.MUTANTS if registry.PROPERTY in m.killers}
    w, lines = table_head(results, ("traces differing", 16), ("must", 4), last="first difference (rule: where)")
    for name, status, what, n, _ in results:
        lines.append(f"{name:<{w}}  {status:<8}  {n:>16}  {'yes' if name in must else '':>4}  {what}")
    print()
    emit(args, lines, "traces-table.txt")
    bad = sum(1 for r in results if (r[0] == UNMUTATED and r[1] != "PASSED") or (r[0] in must and r[1] != "KILLED")
              or r[1] == "ERROR")
    killed = sum(1 for r in results[1:] if r[1] == "KILLED")
    print(f"\n{killed}/{len(results) - 1} killed by the traces alone (the single-threaded ones must be: "
          f"{sum(1 for r in results if r[0] in must)} here); unmutated: {results[0][1]}; {bad} not as required; "
          f"{time.time() - t0:.0f} s")
    return 1 if bad else 0


# ---- recorded histories -----------------------------------------------------------------
# Every channel mutant against the history checker alone (docs/traces.md,
# "Histories"): bcast-trace built on the mutated copy records concurrent
# histories on real threads and checks each against the spec (linearizability,
# lost wakeups at quiescence); it stops at the first failure and minimises it.
# The mutants that list HISTORIES in mutants.py must be killed, each with its
# history_verdict (the wake ones as lost wakeups): HISTORY_MUST, from the registry.
HISTORIES = registry.HISTORIES
HISTORY_COUNT = 10000
HISTORY_TIMEOUT_S = 900
# The recorders' stall bound. Longer than bcast-trace's 20 ms: a wake mutant is
# seen only once its waiters are asleep in the kernel, and on a loaded machine
# (ctest runs this beside other tests) their back-off's yields alone can take
# 20 ms, so with the short bound every such wait ran out before it slept and was
# excused, and last-receiver-wakes-one survived 10000 histories. A stall costs
# one bound, about one history in two ends in one, and 8 record at once.
HISTORY_STALL_MS = 100
HISTORY_MUST = {m.name: m.history_verdict for m in registry.MUTANTS if HISTORIES in m.killers}
HISTORY_FAILED = re.compile(r"FAILED, the first of (\d+) histories to fail: (\w+)")
HISTORY_RULE = re.compile(r"^lost wakeup, rule (R-[A-Z]+-\d+)", re.M)
HISTORY_SMALL = re.compile(r"^minimised: (.*?) \(", re.M)


def run_histories_checker(args, entry):
    """entry None: the unmutated code.
    -> (name, status, verdict (and rule), histories until the failure, minimised size, seconds)"""
    t0 = time.time()
    name = UNMUTATED if entry is None else entry.name
    scratch, exe = build_trace_tool(args, entry, HISTORIES)
    if scratch is None:
        return name, "ERROR", exe, 0, "", time.time() - t0
    try:
        count = args.histories if entry is not None or args.control_histories is None else args.control_histories
        r = subprocess.run([str(exe), "record", "--histories", str(count), "--seed", "1", "--parallel", "8",
                            "--stall-ms", str(HISTORY_STALL_MS),
                            "--svg", str(scratch / "failure.svg")],
                           capture_output=True, text=True, timeout=HISTORY_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return name, "TIMEOUT" if entry is None else "KILLED", "timeout", 0, "", time.time() - t0
    (scratch / "record.log").write_text(r.stdout + r.stderr)
    if r.returncode == 0:
        return name, "PASSED" if entry is None else "SURVIVED", "-", count, "", time.time() - t0
    failed = HISTORY_FAILED.search(r.stdout)
    if not failed:
        return name, "FAILED" if entry is None else "KILLED", f"exit {r.returncode}: {r.stderr.strip()[:80]}", 0, "", \
            time.time() - t0
    verdict = failed.group(2)
    rule = HISTORY_RULE.search(r.stdout)
    if rule:
        verdict += " " + rule.group(1)
    small = HISTORY_SMALL.search(r.stdout)
    return (name, "FAILED" if entry is None else "KILLED", verdict, int(failed.group(1)),
            small.group(1) if small else "", time.time() - t0)


def histories_table(args):
    entries = channel_mutants(args)
    if args.must:  # only the mutants mutants.py says the histories must kill (HISTORIES), and the unmutated code
        entries = [e for e in entries if e is None or e.name in HISTORY_MUST]
    t0 = time.time()
    results = run_each(entries, lambda e: run_histories_checker(args, e), args.jobs,
                       f"{len(entries) - 1} mutants + the unmutated code against at most {args.histories} "
                       "recorded histories (seed 1)",
                       lambda r: f"{HISTORIES} {r[0]}: {r[1]} {r[2]} ({r[5]:.0f} s)")
    w, lines = table_head(results, ("histories", 9), ("must", 4), last="verdict; minimised failing program")
    for name, status, verdict, n, small, _ in results:
        lines.append(f"{name:<{w}}  {status:<8}  {n:>9}  {'yes' if name in HISTORY_MUST else '':>4}  {verdict}"
                     + (f"; {small}" if small else ""))
    print()
    emit(args, lines, "histories-table.txt")
    def as_required(r):
        if r[0] == UNMUTATED:
            return r[1] == "PASSED"
        if r[0] in HISTORY_MUST:
            return r[1] == "KILLED" and r[2].split()[0] == HISTORY_MUST[r[0]]
        return r[1] != "ERROR"
    bad = sum(1 for r in results if not as_required(r))
    killed = sum(1 for r in results[1:] if r[1] == "KILLED")
    print(f"\n{killed}/{len(results) - 1} killed by the recorded histories alone (those that must be, with their "
          f"verdict: {sum(1 for r in results if r[0] in HISTORY_MUST)} here); unmutated: {results[0][1]}; "
          f"{bad} not as required; {time.time() - t0:.0f} s")
    return 1 if bad else 0


# ---- the table ---------------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", default=str(HERE.parent.parent))
    ap.add_argument("--work", default=None, help="scratch dir (default: <repo>/build/mutants)")
    ap.add_argument("--checker", default="all",
                    choices=["all", registry.RELACY, registry.PROPERTY, GENERATED, TRACES, HISTORIES],
                    help="run only this checker's part of the table (default: every checker each mutant lists); "
                         f"'{GENERATED}': every mutant against the generated Relacy scenarios alone; "
                         f"'{TRACES}': every channel mutant against the portable traces alone (docs/traces.md); "
                         f"'{HISTORIES}': every channel mutant against the recorded histories alone")
    ap.add_argument("--histories", type=int, default=HISTORY_COUNT,
                    help=f"--checker {HISTORIES}: at most this many histories per mutant (seed 1)")
    ap.add_argument("--control-histories", type=int, default=None,
                    help=f"--checker {HISTORIES}: the unmutated code records this many (default: --histories; "
                         "ctest's histories.mutants takes fewer, as histories.std_primitives_is_linearizable "
                         "records the full run on the same code)")
    ap.add_argument("--no-control", action="store_true",
                    help=f"--checker {GENERATED}: do not run the unmutated code (ctest's relacy.generated_fast "
                         "runs the same scenarios on the same source)")
    ap.add_argument("--budget", type=int, default=1000,
                    help=f"--checker {GENERATED}: at most this many generated scenarios per mutant (seed 1 on)")
    ap.add_argument("--controls", action="store_true",
                    help="run the controls instead: each must fail exactly its expected Relacy suites")
    ap.add_argument("--list", action="store_true",
                    help="print one line per mutant and control: name, kind, killer (tab-separated); run nothing")
    ap.add_argument("--check-anchors", action="store_true",
                    help="check that every edit matches its code exactly once in impl/; build nothing")
    ap.add_argument("--debug", action="store_true",
                    help="build the mutants at -O0 -g and print the gdb command that replays each failure")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--relacy-include", default="/usr/include")
    ap.add_argument("--jobs", type=int, default=int(os.environ["BCAST_MUTANT_JOBS"])
                    if os.environ.get("BCAST_MUTANT_JOBS") else None,
                    help="parallel builds (default: the cores, at most 4 when Relacy builds run)")
    ap.add_argument("--opt", default="-O0",
                    help="optimisation for the Relacy mutant builds: build time dominates the table (-O0 builds "
                         "fastest) and the quick search runs in seconds either way")
    ap.add_argument("--mode", default="quick", choices=["quick", "normal", "thorough"],
                    help="the Relacy search mode for the mutants")
    ap.add_argument("--rc-params", default=os.environ.get("BCAST_MUTANT_RC_PARAMS", "max_success=1000 noshrink=1"),
                    help="RC_PARAMS for the property runs")
    ap.add_argument("--property-libs", default=os.environ.get("BCAST_MUTANT_LIBS", "-lrapidcheck -lgtest_main -lgtest"),
                    help="what the property binary links (one string, split like a shell)")
    ap.add_argument("--property-cxxflags", default=os.environ.get("BCAST_MUTANT_CXXFLAGS", ""))
    ap.add_argument("--targeted", action="store_true",
                    help="--checker relacy and --controls: build each mutant with only the suite mutants.py names for it (suite=; "
                         "a control: that suite and its expected failures), "
                         "which must kill it; what ctest runs (a fifth of the build time)")
    ap.add_argument("--family", choices=("reference", "fast"), default=None,
                    help="only the mutants of one channel family (bcast::fast's are named fast-*); "
                         "ctest runs the two as separate tests, each within its own timeout; "
                         f"with --checker {GENERATED}, also the family the generated scenarios run on "
                         "(bcast_relacy_generated --channel)")
    ap.add_argument("--must", action="store_true",
                    help=f"--checker {HISTORIES}: only the mutants that mutants.py says the histories must kill")
    ap.add_argument("names", nargs="*", help="only these mutants (or controls)")
    return ap.parse_args()


def killer_column(entry):
    if entry.is_control:
        return "expect-fail=" + ",".join(entry.expected_failures)
    return ",".join(entry.killers)


def emit(args, lines, table_file):
    text = "\n".join(lines)
    print(text, flush=True)
    path = pathlib.Path(args.work) / table_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")
    print(f"(this table is also in {path})")


def main():
    args = parse_args()
    args.repo = str(pathlib.Path(args.repo).resolve())
    if args.work is None:
        args.work = str(pathlib.Path(args.repo) / "build" / "mutants")
    everything = sorted(registry.MUTANTS, key=lambda m: m.name)
    known = {m.name for m in everything}
    unknown = [n for n in args.names if n not in known]
    if unknown:
        print(f"unknown mutant(s): {', '.join(unknown)} (see --list)", file=sys.stderr)
        return 2
    selected = [m for m in everything if not args.names or m.name in args.names]
    if args.family is not None:  # bcast::fast's mutants are the ones named fast-*
        selected = [m for m in selected if m.name.startswith("fast-") == (args.family == "fast")]
    if args.list:
        for m in selected:
            print(f"{m.name}\t{m.kind}\t{killer_column(m)}")
        return 0
    if args.check_anchors:
        return check_anchors(args, selected)
    if args.checker == GENERATED:
        return generated_table(args)
    if args.checker == TRACES:
        return traces_table(args)
    if args.checker == HISTORIES:
        return histories_table(args)

    if args.controls:
        relacy_entries, property_entries = [m for m in selected if m.is_control], []
    else:
        mutants = [m for m in selected if not m.is_control]
        relacy_entries = [m for m in mutants if registry.RELACY in m.killers and args.checker != registry.PROPERTY]
        property_entries = [m for m in mutants if registry.PROPERTY in m.killers and args.checker != registry.RELACY]
    if not relacy_entries and not property_entries:
        print("nothing selected: no " + ("control" if args.controls else "mutant") + " matches the names and "
              "--checker (see --list)", file=sys.stderr)
        return 2
    cores = os.cpu_count() or 1
    jobs = args.jobs or (min(4, cores) if relacy_entries else cores)
    t0 = time.time()
    parts = []
    if relacy_entries:
        parts.append(f"{len(relacy_entries)} {'controls' if args.controls else 'mutants'} under Relacy "
                     f"({'-O0 -g' if args.debug else args.opt}, --{'quick' if args.controls else args.mode})")
    if property_entries:
        parts.append(f"{len(property_entries)} mutants + the unmutated control under the property tests")
    print(", ".join(parts) + f", {jobs} jobs", flush=True)

    relacy_results, property_results = [], []
    with cf.ThreadPoolExecutor(jobs) as pool:
        futures = {}
        if property_entries:  # the unmutated control first: if it fails, no kill means anything
            for entry in [None] + property_entries:
                futures[pool.submit(run_property, args, entry)] = property_results
        for entry in relacy_entries:
            futures[pool.submit(run_relacy, args, entry)] = relacy_results
        for f in cf.as_completed(futures):
            res = f.result()
            futures[f].append(res)
            label = "relacy" if futures[f] is relacy_results else "property"
            verdict = res[1] if label == "relacy" else ("ERROR" if res[3] else res[1] or "passes")
            print(f"  {label} {res[0]}: {verdict} ({res[4]:.0f} s)", flush=True)

    bad, notes = 0, []
    if relacy_results:
        relacy_results.sort()
        print()
        emit(args, relacy_table(relacy_results, args.controls),
             "relacy-controls-table.txt" if args.controls else "relacy-table.txt")
        want = "PASSED" if args.controls else "KILLED"
        rbad = [r for r in relacy_results if r[1] != want]
        bad += len(rbad)
        word = "controls as expected" if args.controls else "killed by Relacy"
        notes.append(f"{len(relacy_results) - len(rbad)}/{len(relacy_results)} {word}")
        if args.debug:
            print("\nreplay each failure in gdb (the -O0 -g binaries):")
            for r in relacy_results:
                if r[5]:
                    print(f"  {r[0]}: {r[5]}")
    if property_results:
        property_results.sort(key=lambda r: (r[0] != UNMUTATED, r[0]))
        print()
        emit(args, property_table(args, property_results), "property-table.txt")
        control = property_results[0]
        if control[3] or control[1] or control[2]:
            print(f"ERROR: the unmutated code fails the property tests (see {pathlib.Path(args.work) / 'property'}"
                  "/unmutated/): no kill in this table means anything")
            bad += 1
        killed = [r for r in property_results[1:] if r[1] and not r[3]]
        bad += len(property_results) - 1 - len(killed)
        notes.append(f"{len(killed)}/{len(property_results) - 1} killed by the property tests")
        if args.debug:
            print("\nreplay each failure in gdb (the -O0 -g binaries):")
            for r in property_results[1:]:
                if r[5]:
                    print(f"  {r[0]}: {r[5]}")
    print()
    print(f"{', '.join(notes)}; {bad} not as required; {time.time() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
