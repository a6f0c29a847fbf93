#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The starter kit as a student uses it (the ctest course.kit;
docs/course/07-to-bcast.md, "The starter kit"): copy docs/course/ to a
temporary folder outside the repository, start a structure there with the
copy's kit/new-structure, build it with plain cmake, and require that

  * it builds without a warning (-Werror);
  * its examples pass (NAME_spec_tests);
  * its Relacy scenario passes, every search, and the twin reaches its condition;
  * its mutant is KILLED by the mutant runner, the control passing first;
  * the runner's report names the structure's functions without their
    namespace, whatever it is (no `course`, no NS::);
  * with --no-close, no +close search exists, and with close, one does.

Once with close and a namespace of its own, once without close and the
default namespace. Prints each step; exit status 1 at the first that fails.

  check_kit.py [--cxx COMPILER] [--keep]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

COURSE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # docs/course


class Failed(Exception):
    pass


def run(cmd, cwd, want=0):
    print("run: " + " ".join(cmd), flush=True)
    done = subprocess.run(cmd, cwd=cwd, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    if done.returncode != want:
        tail = "\n      ".join(done.stdout.strip().splitlines()[-15:])
        raise Failed(f"exit status {done.returncode}, not {want}: {' '.join(cmd)}\n      {tail}")
    return done.stdout


def check(holds, what):
    print(f"  {'ok' if holds else 'FAIL'}  {what}", flush=True)
    if not holds:
        raise Failed(what)


def one_structure(work, name, ns, close, cxx):
    kit = os.path.join(work, "course", "kit", "new-structure")
    args = [sys.executable, kit, name, "--into", name] + (["--namespace", ns] if ns else []) + \
        ([] if close else ["--no-close"])
    run(args, work)
    folder = os.path.join(work, name)
    # -Werror: the kit's code must build without a warning, as bcast's own does in CI.
    configure = ["cmake", "-S", folder, "-B", os.path.join(folder, "build"), "-DCMAKE_CXX_FLAGS=-Werror"] + \
        ([f"-DCMAKE_CXX_COMPILER={cxx}"] if cxx else [])
    run(configure, work)
    run(["cmake", "--build", os.path.join(folder, "build"), "-j2"], work)

    # Every rule ID the generated files cite is a rule of the generated RULES.md (the inline
    # close markers of a rule that goes on over two lines once swallowed rule 4).
    with open(os.path.join(folder, "RULES.md"), encoding="utf-8") as f:
        rules = set(re.findall(r"^- \*\*([A-Z]+-\d+)\*\*", f.read(), re.M))
    cited = set()
    for root, _, files in os.walk(folder):
        if os.path.basename(root) == "build" or "/build/" in root + "/":
            continue
        for file in files:
            if file.endswith((".hpp", ".cpp", ".py")):
                with open(os.path.join(root, file), encoding="utf-8") as f:
                    cited |= set(re.findall(r"\b" + re.escape(name.upper()) + r"-\d+\b", f.read()))
    check(cited and cited <= rules, f"{name}: every rule the code cites is in RULES.md ({sorted(cited)} of {sorted(rules)})")
    if not close:
        with open(os.path.join(folder, "mutants", "mutants.py"), encoding="utf-8") as f:
            mutants_text = f.read()
        with open(os.path.join(folder, "relacy", "scenarios.cpp"), encoding="utf-8") as f:
            scenarios_text = f.read()
        check("close" not in mutants_text + scenarios_text, f"{name}: no close in the scenario and mutant of a structure without one")

    examples = run([os.path.join(folder, "build", f"{name}_spec_tests")], folder)
    check("every example holds" in examples and "FAIL" not in examples, f"{name}: every rule's example holds")

    searches = run([os.path.join("build", f"{name}_relacy")], folder)
    lines = [line for line in searches.splitlines() if line.startswith("SEARCH ")]
    check(len(lines) == (4 if close else 3) and all("FAILED" not in line for line in lines),
          f"{name}: {len(lines)} searches, each passed ({'with' if close else 'without'} a +close variant)")
    check(any("+until/" in line and "UNTIL CONDITION HIT" in line for line in lines),
          f"{name}: the twin reached its condition")
    check(any("+close/" in line for line in lines) == close, f"{name}: a +close search exactly when close() exists")

    table = run([sys.executable, os.path.join("mutants", "run_mutants.py"), "--build", "build"], folder)
    check(re.search(rf"\(unmutated\)\s+relacy\s+PASSED.*the unmutated {name} passes", table) is not None,
          f"{name}: the control passed")
    check(re.search(r"^count-down-wakes-nobody\s+relacy\s+KILLED\s+wait_blocked_vs_count_down/full", table, re.M)
          is not None, f"{name}: its mutant was KILLED by wait_blocked_vs_count_down/full")
    with open(os.path.join(folder, "build", "mutants", "count-down-wakes-nobody", "run.log"), encoding="utf-8") as f:
        report = f.read()
    events = [line for line in report.splitlines() if ", in " in line]
    check(any(f", in {name}::wait {name}.hpp(" in line for line in events),
          f"{name}: the report names {name}::wait, short")
    check(not any("course" in line or f"{ns or 'mine'}::" in line for line in events),
          f"{name}: no event names a namespace ({len(events)} events)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cxx", help="the C++ compiler the structure is built with (default: cmake's)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder, and print where it is")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="course-kit-")
    try:
        # The course's folder only, as a student copies it: nothing of the rest of bcast comes along.
        shutil.copytree(COURSE, os.path.join(work, "course"), ignore=shutil.ignore_patterns("__pycache__"))
        one_structure(work, "latch", "own", True, args.cxx)
        one_structure(work, "gate", None, False, args.cxx)
    except (Failed, subprocess.TimeoutExpired) as e:
        print(f"FAIL {e}")
        return 1
    finally:
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("the kit: both structures built, their scenarios passed and their mutants were KILLED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
