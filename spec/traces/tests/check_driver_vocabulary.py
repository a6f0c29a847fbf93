#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The drivers' vocabulary against the one operation table.

`bcast-trace operations` prints the table (spec/include/bcast/spec/operations.hpp)
as JSON Lines. The async-broadcast driver's trace replayer (bench/trace_driver,
its `match op` in src/main.rs) names operations by string; this checks that
  - every name the replayer matches is an operation of the table (a rename in
    the table, or a typo in the driver, fails here, not at run time);
  - the replayer answers every operation of the trace language (its own result,
    or {"unsupported":true}).
The Rust driver library of the driver protocol (spec/drivers/rust/src/program.rs)
names every operation in `Op::name` and classes them in `makes_handle` and
`consumes_handle`: its names must be exactly the table's `recorded` rows, and
its classes the table's. The Python driver library of the driver protocol (spec/drivers/python/bcast_driver.py,
docs/drivers.md) keeps the table's names and classes in OPERATIONS, SENDS,
RECEIVES, CONSUMES and ANSWERS_VALUE: each must be exactly the table's.

Usage: check_driver_vocabulary.py --tool BCAST_TRACE [--driver DIR] [--self-test]
--self-test also checks that the check fails on a driver with a renamed
operation ("try_broadcast" spelled "try_send"), so that it can fail at all,
in the Rust driver and in the Python library.
Exit status: 0 when the driver agrees, 1 when it does not (each finding names
the file and line), 2 on usage errors.
"""
import argparse
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def read_table(tool):
    out = subprocess.run([tool, "operations"], check=True, capture_output=True, text=True).stdout
    return {row["op"]: row for row in (json.loads(line) for line in out.splitlines() if line.strip())}


def lines_of(text):
    return text.splitlines()


def replayer_names(main_rs):
    """(name, line) of every string pattern in main.rs's `match op` arms."""
    found = []
    inside = False
    for number, line in enumerate(lines_of(main_rs), 1):
        if re.search(r"Ok\(match op \{", line):
            inside = True
            continue
        if inside and re.match(r"\s*_ => return self\.fail", line):
            break
        if inside and re.match(r'\s*\|?\s*"[a-z_]+"(\s*\|\s*"[a-z_]+")*\s*(\||=>)', line):
            found += [(name, number) for name in re.findall(r'"([a-z_]+)"', line.split("=>")[0])]
    return found


def library_names(program_rs):
    """(name, line) of Op::name's strings; and the names makes_handle and consumes_handle list."""
    names, variant_name, classes, inside = [], {}, {"makes_handle": set(), "consumes_handle": set()}, None
    for number, line in enumerate(lines_of(program_rs), 1):
        m = re.match(r'\s*Op::(\w+) => "([a-z_]+)",', line)
        if m:
            names.append((m.group(2), number))
            variant_name[m.group(1)] = m.group(2)
        function = re.search(r"fn (\w+)\(", line)
        if function:
            inside = function.group(1) if function.group(1) in classes else None
        elif inside:
            classes[inside].update(re.findall(r"Op::(\w+)", line))
    return names, {k: {variant_name.get(v, v) for v in vs} for k, vs in classes.items()}


def check_library(table, program_rs, where):
    problems = []
    named, classes = library_names(program_rs)
    if not named:
        return [f"{where}: no `Op::… => \"name\"` arms found: the check no longer reads the library"]
    for name, line in named:
        if name not in table:
            problems.append(f"{where}:{line}: \"{name}\" is not an operation of the table")
        elif not table[name]["recorded"]:
            problems.append(f"{where}:{line}: \"{name}\" is not `recorded` in the table")
    recorded = {n for n, row in table.items() if row["recorded"]}
    have = {n for n, _ in named}
    if recorded - have:
        problems.append(f"{where}: Op::name lacks {sorted(recorded - have)}")
    want = {"makes_handle": {n for n in recorded if table[n]["creates"] != "none"},
            "consumes_handle": {n for n in recorded if table[n]["consumes"]}}
    for function, expected in want.items():
        if classes[function] != expected:
            problems.append(f"{where}: {function} lists {sorted(classes[function])}, the table's are {sorted(expected)}")
    return problems


def check(table, main_rs, where):
    problems = []
    replayed = replayer_names(main_rs)
    if not replayed:
        problems.append(f"{where}/src/main.rs: no `match op` arms found: the check no longer reads the driver")
    for name, line in replayed:
        if name not in table:
            problems.append(f"{where}/src/main.rs:{line}: \"{name}\" is not an operation of the table")
    answered = {name for name, _ in replayed}
    for name, row in table.items():
        if row["trace"] and name not in answered:
            problems.append(f"{where}/src/main.rs: the replayer has no arm for \"{name}\" (answer it, or {{\"unsupported\":true}})")
    return problems


def check_python(table, module, where):
    """The Python library's sets against the table's rows that recorders make."""
    recorded = [name for name, row in table.items() if row["recorded"]]
    want = {
        "OPERATIONS": set(recorded),
        "SENDS": {n for n in recorded if table[n]["answer"] == "send"},
        "RECEIVES": {n for n in recorded if table[n]["answer"] == "recv"},
        "CONSUMES": {n for n in recorded if table[n]["consumes"]},
        "ANSWERS_VALUE": {n for n in recorded if table[n]["answer"] in ("count", "flag")},
    }
    problems = []
    for name, expected in want.items():
        have = set(getattr(module, name, ()))
        if have != expected:
            problems.append(f"{where}: {name} differs from the table: has {sorted(have - expected)} too many, "
                            f"lacks {sorted(expected - have)}")
    if len(getattr(module, "OPERATIONS", ())) != len(set(getattr(module, "OPERATIONS", ()))):
        problems.append(f"{where}: OPERATIONS names an operation twice")
    return problems


def load_python_driver(path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("bcast_driver", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tool", required=True, help="the bcast-trace binary")
    parser.add_argument("--driver", default=os.path.join(REPO, "bench", "trace_driver"))
    parser.add_argument("--rust-library", default=os.path.join(REPO, "spec", "drivers", "rust", "src", "program.rs"))
    parser.add_argument("--python-driver", default=os.path.join(REPO, "spec", "drivers", "python", "bcast_driver.py"))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    table = read_table(args.tool)
    with open(os.path.join(args.driver, "src", "main.rs")) as f:
        main_rs = f.read()
    with open(args.rust_library) as f:
        program_rs = f.read()
    where = os.path.relpath(args.driver, REPO)
    library_where = os.path.relpath(args.rust_library, REPO)
    problems = check(table, main_rs, where) + check_library(table, program_rs, library_where)
    python_driver = load_python_driver(args.python_driver)
    python_where = os.path.relpath(args.python_driver, REPO)
    problems += check_python(table, python_driver, python_where)
    for p in problems:
        print(p)
    if args.self_test:
        drifted = check(table, main_rs.replace('"try_broadcast" =>', '"try_send" =>'), where) + \
            check_library(table, program_rs.replace('=> "try_broadcast",', '=> "try_send",'), library_where)
        if not any('"try_send" is not an operation' in p for p in drifted):
            print("self-test: a driver that spells try_broadcast \"try_send\" was not caught")
            return 1
        print(f"self-test: a renamed operation is caught ({len(drifted)} findings)")
        python_driver.OPERATIONS = tuple("try_send" if n == "try_broadcast" else n for n in python_driver.OPERATIONS)
        python_driver.SENDS = (set(python_driver.SENDS) - {"try_broadcast"}) | {"try_send"}
        drifted = check_python(table, python_driver, python_where)
        if len(drifted) != 2:
            print(f"self-test: a Python library that spells try_broadcast \"try_send\" gave {drifted}, not 2 findings")
            return 1
        print("self-test: a renamed operation in the Python library is caught (2 findings)")
    print(f"driver vocabulary: {len(table)} operations in the table; {'agrees' if not problems else f'{len(problems)} findings'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
