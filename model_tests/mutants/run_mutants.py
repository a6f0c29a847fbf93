#!/usr/bin/env python3
"""Mutant table for bcast's Relacy model tests.

For every model_tests/mutants/*.patch: copy impl/, spec/include and
model_tests/relacy/ into a scratch directory, apply the patch there with
`patch -p1` (paths are relative to the repo root), build the Relacy suite
binary against the scratch include dirs, run it in --quick mode (it stops at
the first failing suite) and require it to FAIL. Prints a table: mutant,
killed/survived, by which suite, and the first lines of Relacy's report.
Exit status 1 if any mutant survives or cannot be built.

    python3 model_tests/mutants/run_mutants.py [--repo DIR] [--work DIR]
        [--jobs N] [--opt -O1] [--mode quick|normal|thorough] [NAME ...]
"""
import argparse
import concurrent.futures as cf
import os
import pathlib
import shutil
import subprocess
import sys
import time


def parse_args():
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", default=str(here.parent.parent))
    ap.add_argument("--work", default=None, help="scratch dir (default: <repo>/build-relacy/mutants)")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--relacy-include", default="/usr/include")
    ap.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    ap.add_argument("--opt", default="-O0",
                    help="optimisation for the mutant builds: build time dominates the table (-O0: ~13 s per "
                         "mutant, -O1: ~22 s) and the quick search runs in seconds either way")
    ap.add_argument("--mode", default="quick", choices=["quick", "normal", "thorough"])
    ap.add_argument("--controls", action="store_true",
                    help="run controls/*.patch instead: each must fail exactly its 'expect-fail:' suites")
    ap.add_argument("names", nargs="*", help="only these mutants (patch names without .patch)")
    return ap.parse_args()


def expected_failures(patch: pathlib.Path):
    return sorted(l.split(":", 1)[1].strip() for l in patch.read_text().splitlines() if l.startswith("expect-fail:"))


def run_one(args, patch: pathlib.Path):
    name = patch.stem
    repo = pathlib.Path(args.repo)
    d = pathlib.Path(args.work) / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    shutil.copytree(repo / "impl", d / "impl")
    shutil.copytree(repo / "spec" / "include", d / "spec" / "include")
    shutil.copytree(repo / "model_tests" / "relacy", d / "model_tests" / "relacy")
    t0 = time.time()
    with open(patch, "rb") as f:
        p = subprocess.run(["patch", "-p1", "-s", "--no-backup-if-mismatch"], cwd=d, stdin=f,
                           capture_output=True, text=True)
    if p.returncode != 0:
        return name, "ERROR", "-", ["patch does not apply: " + (p.stdout + p.stderr).strip()[:200]], time.time() - t0
    exe = d / "bcast_relacy"
    cmd = [args.cxx, "-std=c++20", args.opt, "-fno-sized-deallocation", "-fno-lifetime-dse", "-UNDEBUG", "-w",
           "-I", str(d / "impl" / "include"), "-I", str(d / "spec" / "include"),
           str(d / "model_tests" / "relacy" / "main.cpp"), "-o", str(exe)]
    if os.path.normpath(args.relacy_include) not in ("/usr/include", "/usr/local/include"):
        cmd[1:1] = ["-isystem", args.relacy_include]  # never -isystem a default dir (breaks #include_next)
    b = subprocess.run(cmd, capture_output=True, text=True)
    if b.returncode != 0:
        first = [l for l in b.stderr.splitlines() if "error" in l][:3]
        return name, "ERROR", "-", ["does not build: "] + first, time.time() - t0
    if args.controls:
        # the same search the mutant table uses, so "killed there, passes here" is a fair comparison
        r = subprocess.run([str(exe), "--quick", "--keep-going"], capture_output=True, text=True, timeout=900)
        failed = sorted({l.split()[1] for l in r.stdout.splitlines() if "** FAILED **" in l})
        want = expected_failures(patch)
        status = "PASSED" if failed == want else "WRONG"
        return name, status, "fails: " + (", ".join(failed) or "nothing"), ["expected: " + (", ".join(want) or "nothing")], time.time() - t0
    try:
        r = subprocess.run([str(exe), "--" + args.mode] if args.mode != "normal" else [str(exe)],
                           capture_output=True, text=True, timeout=600)
        out, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired:
        return name, "KILLED", "(timeout: no progress)", [], time.time() - t0
    if rc == 0:
        return name, "SURVIVED", "-", [], time.time() - t0
    suite, report = "?", []
    lines = out.splitlines()
    for i, l in enumerate(lines):
        if "** FAILED **" in l and suite == "?":
            parts = l.split()
            suite = parts[1] + " (" + next((x for x in parts if x.startswith("scheduler=")), "?").split("=")[1] + ")"
        if l.startswith("---- Relacy report"):
            report = [x.strip() for x in lines[i + 1:] if x.strip()][:4]
            break
    if suite == "?":
        report = report or [x for x in lines if x.strip()][-3:]
        if rc < 0:
            report = [f"crashed with signal {-rc}"] + report
    return name, "KILLED", suite, report, time.time() - t0


def main():
    args = parse_args()
    repo = pathlib.Path(args.repo)
    if args.work is None:
        args.work = str(repo / "build-relacy" / "mutants")
    folder = repo / "model_tests" / "mutants" / ("controls" if args.controls else "")
    patches = sorted(folder.glob("*.patch"))
    if args.names:
        patches = [p for p in patches if p.stem in args.names]
    if not patches:
        print("no mutants found")
        return 1
    t0 = time.time()
    print(f"{len(patches)} mutants, {args.jobs} jobs, {args.opt}, --{args.mode}", flush=True)
    results = []
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_one, args, p) for p in patches]
        for f in cf.as_completed(futures):
            res = f.result()
            results.append(res)
            print(f"  {res[0]}: {res[1]} ({res[4]:.0f} s)", flush=True)
    results.sort()
    w = max(len(r[0]) for r in results)
    print()
    print(f"{'mutant':<{w}}  {'status':<8}  {'killed by suite (scheduler)':<52}  first lines of Relacy's report")
    print(f"{'-' * w}  {'-' * 8}  {'-' * 52}  {'-' * 40}")
    for name, status, suite, report, _ in results:
        first = report[0] if report else ""
        print(f"{name:<{w}}  {status:<8}  {suite:<52}  {first}")
        for extra in report[1:3]:
            print(f"{'':<{w}}  {'':<8}  {'':<52}  {extra}")
    bad = [r for r in results if r[1] != ("PASSED" if args.controls else "KILLED")]
    print()
    word = "controls as expected" if args.controls else "killed"
    print(f"{len(results) - len(bad)}/{len(results)} {word}, {len(bad)} not, {time.time() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
