#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""async-broadcast through bench/trace_driver, and tokio through bench/tokio_driver
(docs/traces.md, docs/drivers.md).

  run_upstream.py verdict      --tool BCAST_TRACE --work DIR [--count N] [--seed S]
  run_upstream.py stranded     --work DIR
  run_upstream.py bad-input    --tool BCAST_TRACE [--work DIR]
  run_upstream.py histories    --tool BCAST_TRACE --work DIR [--count N] [--seed S]
  run_upstream.py tokio        --tool BCAST_TRACE --work DIR [--count N] [--seed S]
  run_upstream.py rust-library --work DIR

Builds the Rust driver offline from Debian's crate sources, then either
replays N generated traces on async-broadcast 0.4.1 and checks them against
the divergence table (bcast-trace check: every difference must be documented),
or runs the stranded-sender reproducers. Where cargo or the crates are
missing it says so and exits 77, which ctest reports as skipped.
bad-input runs bcast-trace replay (and, with --work, the driver, in verdict
mode too) on every file of tests/bad/: each must fail with exit 2 and an error
naming its file and line.
histories checks N concurrent histories of async-broadcast through the
driver protocol (bcast-trace drive, the driver's `serve`; docs/drivers.md):
every finding must be documented (a lost wakeup that a reproducer row of the
divergence table lists), and each stranded sender that 0.4.1 can show (R-CAP-4,
R-OVF-4, R-LIFE-6; R-ACT-3 needs set_await_active, which 0.4.1 lacks) must be
found at least once, minimised through the driver and drawn.
tokio builds bench/tokio_driver and checks N histories of tokio's broadcast
under its profile P-TOKIO (spec/rules.md): none may fail. rust-library runs the
unit tests of the Rust driver library (spec/drivers/rust).
"""
import re
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
DRIVER = os.path.join(REPO, "bench", "trace_driver")
TOKIO_DRIVER = os.path.join(REPO, "bench", "tokio_driver")
RUST_LIBRARY = os.path.join(REPO, "spec", "drivers", "rust")
REGISTRY = "/usr/share/cargo/registry"
CRATES = ["async-broadcast-0.4.1", "futures-lite-1.12.0", "serde_json-1.0.87", "waker-fn-1.1.0"]
TOKIO_CRATES = ["tokio-1.24.2", "serde_json-1.0.87", "waker-fn-1.1.0"]
SKIP = 77
BAD = os.path.join(HERE, "tests", "bad")
# The line each file of tests/bad/ is wrong at.
BAD_LINES = {"truncated.jsonl": 2, "unknown-operation.jsonl": 3, "no-such-handle.jsonl": 2,
             "dropped-handle.jsonl": 3, "wrong-kind.jsonl": 2, "step-before-header.jsonl": 1}


def need_crates(what, crates, packages):
    """Exits 77 (ctest: skipped) naming what is missing, when cargo or a crate source is."""
    missing = [] if shutil.which("cargo") else ["cargo"]
    missing += [os.path.join(REGISTRY, c) for c in crates if not os.path.isdir(os.path.join(REGISTRY, c))]
    if missing:
        print(f"bcast: SKIPPED: {what} cannot be built here; missing: " + ", ".join(missing) +
              f". Debian: apt-get install cargo rustc {packages} (bash .ci/install-deps.sh test installs them)")
        sys.exit(SKIP)


def build_crate(crate, target_dir, binary):
    env = dict(os.environ, CARGO_TARGET_DIR=target_dir)
    subprocess.run(["cargo", "build", "--release", "--offline", "--locked", "--quiet"], cwd=crate, env=env, check=True)
    return os.path.join(target_dir, "release", binary)


def build_driver(target_dir):
    need_crates("async-broadcast", CRATES, "librust-async-broadcast-dev librust-futures-lite-dev librust-serde-json-dev "
                "librust-waker-fn-dev")
    return build_crate(DRIVER, target_dir, "bcast-trace-driver")


def bad_input_named(command, label):
    """Every bad file fails with exit 2 and names FILE:LINE."""
    problems = []
    for name, line in sorted(BAD_LINES.items()):
        path = os.path.join(BAD, name)
        proc = subprocess.run(command + [path], capture_output=True, text=True)
        where = f"{path}:{line}:"
        said = proc.stderr.strip().splitlines()[-1:] or [""]
        if proc.returncode != 2 or where not in proc.stderr:
            problems.append(f"{label} on {name}: exit {proc.returncode}, said {said[0]!r}; wanted exit 2 naming {where}")
        else:
            print(f"{label} on {name}: {said[0]}")
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


def run(args):
    print("+ " + " ".join(args), flush=True)
    return subprocess.run(args).returncode


# The stranded senders async-broadcast 0.4.1 can show in a history.
STRANDED_IN_HISTORIES = ["R-CAP-4", "R-OVF-4", "R-LIFE-6"]


def histories(options, driver):
    recorded = os.path.join(options.work, "histories.jsonl")
    pictures = os.path.join(options.work, "histories-pictures")
    shutil.rmtree(pictures, ignore_errors=True)
    step = [options.tool, "drive", "--histories", str(options.count), "--seed", str(options.seed), "-o", recorded,
            "--draw-findings", pictures, "--svg", os.path.join(pictures, "failure.svg"), "--", driver, "serve"]
    print("+ " + " ".join(step), flush=True)
    proc = subprocess.run(step, capture_output=True, text=True)
    print(proc.stdout + proc.stderr, end="")
    if proc.returncode != 0:
        print(f"FAIL: bcast-trace drive exited {proc.returncode}: a finding no row of the divergence table documents, "
              f"or a driver error")
        return 1
    problems = []
    for rule in STRANDED_IN_HISTORIES:
        found = re.search(r"documented " + re.escape(rule) + r" (\d+)", proc.stdout)
        picture = os.path.join(pictures, f"minimised-lost_wakeup-{rule}.svg")
        if not found:
            problems.append(f"no history shows the stranded sender of {rule}")
        elif not os.path.isfile(picture):
            problems.append(f"{rule} was found but not minimised and drawn ({picture})")
        else:
            print(f"{rule}: {found.group(1)} histories with this stranded sender, reported as a documented lost "
                  f"wakeup; minimised picture: {picture}")
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


def tokio(options):
    """tokio's broadcast under P-TOKIO through its driver: no history may fail."""
    need_crates("tokio's driver", TOKIO_CRATES, "librust-tokio-dev librust-serde-json-dev librust-waker-fn-dev")
    driver = build_crate(TOKIO_DRIVER, os.path.join(options.work, "cargo-target-tokio"), "bcast-tokio-driver")
    return run([options.tool, "drive", "--histories", str(options.count), "--seed", str(options.seed),
                "-o", os.path.join(options.work, "tokio-histories.jsonl"),
                "--svg", os.path.join(options.work, "tokio-failure.svg"), "--", driver])


def rust_library(options):
    """The Rust driver library's own unit tests."""
    need_crates("the Rust driver library", ["serde_json-1.0.87"], "librust-serde-json-dev")
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(options.work, "cargo-target-library"))
    return subprocess.run(["cargo", "test", "--offline", "--locked", "--quiet"], cwd=RUST_LIBRARY, env=env).returncode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["verdict", "stranded", "bad-input", "histories", "tokio", "rust-library"])
    parser.add_argument("--tool")
    parser.add_argument("--work")
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=2026)
    options = parser.parse_args()
    if options.what == "bad-input":
        return bad_input_named([options.tool, "replay"], "bcast-trace replay")
    os.makedirs(options.work, exist_ok=True)
    if options.what == "tokio":
        return tokio(options)
    if options.what == "rust-library":
        return rust_library(options)
    driver = build_driver(os.path.join(options.work, "cargo-target"))
    if options.what == "stranded":
        return run([driver, "stranded"])
    if options.what == "histories":
        return histories(options, driver)
    if bad_input_named([driver, "replay"], "bcast-trace-driver replay") != 0:
        return 1
    traces = os.path.join(options.work, "traces.jsonl")
    results = os.path.join(options.work, "results.jsonl")
    for step in ([options.tool, "generate", "--seed", str(options.seed), "--count", str(options.count),
                  "--target", "async-broadcast", "-o", traces],
                 [driver, "replay", traces, results],
                 [options.tool, "check", traces, results, "--minimise-with", driver + " replay"]):
        status = run(step)
        if status != 0:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
