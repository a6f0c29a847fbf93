#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The position experiment (docs/position-design.md), end to end.

Should a receiver's read position be a plain integer or an atomic? This script
builds and runs everything the answer rests on, in one invocation sequence:

  1. builds bench/ (Release, -O2) and, if cargo and Debian's crate sources are
     there, the Rust peers in bench/peers/ (otherwise the peer rows say why they
     are missing and the rest still runs);
  2. runs R repetitions; each repetition runs bcast_bench once (every case, in
     Google Benchmark's random order) and then bcast-peers once (--reps 1), so
     the C++ designs and the Rust peers are interleaved repetition by
     repetition and share the VM's drift;
  3. counts instructions under callgrind (callgrind_counts.py), for every
     design and for the direct-std build (the zero-cost check);
  4. prints the tables (with the async row: coroutines resumed inline vs the
     try calls, and vs the threaded fan-out) and the target verdicts, writes position-results.json
     and position-tables.txt, and renders position-single.svg/.png and
     position-fanout.svg/.png with gnuplot.

The fan-out table has a limit row beside the peers: "bare", the same threads
over the bare multicast ring (bench/bare_ring.hpp, docs/fast-design.md section
10; bcast_bench's fanout_bare rows), with bcast/bare, the share of the ring's
deliveries per second that the channel reaches (in position-results.json:
fanout["bare-fanout/cap:C/N:N/..."] and fanout["bcast_over_bare/cap:C/N:N"]).
An earlier run's JSON without those rows (--replot) prints and plots without them.

Single-thread figures are thread CPU time per iteration (one broadcast plus N
receives); fan-out figures are wall-clock deliveries per second and process CPU
seconds. Medians over the repetitions, with min and max; ratios are medians of
the per-repetition ratios (both sides measured in the same repetition).

Usage:
  python3 bench/run_experiment.py --quick     # under 2 minutes on the 2-vCPU VM (5 reps, shorter runs)
  python3 bench/run_experiment.py             # the full run behind docs/position-design.md
Options: --reps R, --out-dir DIR (default <build-dir>/position-experiment),
         --build-dir DIR (default build-bench), --no-peers, --no-callgrind,
         --replot RESULTS_JSON (tables and plots of an earlier run, measuring nothing).
"""
import argparse
import concurrent.futures
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

# The helper scripts are imported from bench/; keep their bytecode out of the source tree.
sys.dont_write_bytecode = True

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# rmw: upstream PR #70's fetch_add (bench/rmw_position.hpp); the others are impl/'s policies.
DESIGNS = ["plain", "relaxed", "acq_rel", "seq_cst", "rmw"]
CALLS = ["try", "blocking"]
SINGLE_N = [1, 2, 4, 8, 16]
FANOUT_N = [1, 2, 4, 8]
FANOUT_CAPACITIES = [64, 1024]
AB = "async-broadcast-0.4.1"
TOKIO = "tokio-1.24.2"
BARE = "bare"  # the bare multicast ring's fan-out rows (bcast_bench's fanout_bare)
COMPILE_FLAGS = "-O2 -DNDEBUG -std=gnu++20"


def log(message):
    print("[position-experiment] " + message, file=sys.stderr, flush=True)


def run(command, **options):
    return subprocess.run(command, check=True, text=True, **options)


def output_of(command):
    try:
        return subprocess.run(command, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


# ---------------------------------------------------------------- building

def build_cpp(build_dir):
    run(["cmake", "-S", REPO, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
         "-DBCAST_BUILD_TESTS=OFF", "-DBCAST_BUILD_BENCH=ON"], stdout=subprocess.DEVNULL)
    run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2),
         "--target", "bcast_bench", "bcast_counts", "bcast_counts_plain", "bcast_counts_direct"],
        stdout=subprocess.DEVNULL)
    return os.path.join(build_dir, "bench")


def cmake_compiler(build_dir):
    """The C++ compiler CMake chose for the build tree."""
    with open(os.path.join(build_dir, "CMakeCache.txt")) as cache:
        for line in cache:
            if line.startswith("CMAKE_CXX_COMPILER:"):
                return line.split("=", 1)[1].strip()
    return "c++"


def build_peers(build_dir):
    """Path of bcast-peers, or (None, why the peer rows are missing)."""
    if shutil.which("cargo") is None:
        return None, "cargo not found (Debian: cargo + librust-async-broadcast-dev librust-tokio-dev " \
                     "librust-futures-lite-dev librust-libc-dev)"
    target_dir = os.path.join(build_dir, "peers-target")
    environment = dict(os.environ, CARGO_TARGET_DIR=target_dir)
    result = subprocess.run(["cargo", "build", "--release", "--offline", "--locked"],
                            cwd=os.path.join(REPO, "bench", "peers"), env=environment,
                            capture_output=True, text=True)
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("error")] or lines[-3:]
        return None, "cargo build of bench/peers failed: " + " / ".join(errors[:3])
    return os.path.join(target_dir, "release", "bcast-peers"), None


# ---------------------------------------------------------------- running

def run_bcast_bench(bench_dir, out_dir, repetition, min_time, messages):
    json_path = os.path.join(out_dir, "raw", "bcast_bench.%d.json" % repetition)
    run([os.path.join(bench_dir, "bcast_bench"), "--messages=%d" % messages,
         "--benchmark_min_time=%g" % min_time, "--benchmark_repetitions=1",
         "--benchmark_enable_random_interleaving=true",
         "--benchmark_out=" + json_path, "--benchmark_out_format=json"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(out_dir, "raw", "bcast_bench.%d.log" % repetition), "w"))
    with open(json_path) as document:
        return json.load(document)


def run_peers(peers_binary, out_dir, repetition, iterations, messages):
    text = run([peers_binary, "--all", "--reps", "1", "--iters", str(iterations), "--messages", str(messages)],
               capture_output=True).stdout
    with open(os.path.join(out_dir, "raw", "bcast-peers.%d.jsonl" % repetition), "w") as raw:
        raw.write(text)
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


# ---------------------------------------------------------------- statistics

def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def least_squares_slope(points):
    count = len(points)
    mean_x = sum(x for x, _ in points) / count
    mean_y = sum(y for _, y in points) / count
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x, _ in points)


def collect(reps_cpp, reps_peers):
    """Per-repetition samples keyed by row, e.g. ("bcast", "try", "plain", 4)."""
    samples = {}

    def add(key, value):
        samples.setdefault(key, []).append(value)

    for document in reps_cpp:
        for entry in document["benchmarks"]:
            name = entry["name"]
            single = re.fullmatch(r"single/(\w+)/(\w+)/N:(\d+)", name)
            fanout = re.match(r"(fanout|fanout_bare)/cap:(\d+)/N:(\d+)", name)
            async_row = re.fullmatch(r"async/(\w+)/N:(\d+)", name)
            if async_row:  # ("bcast-async", "inline" | "try", N)
                add(("bcast-async", async_row.group(1), int(async_row.group(2))), entry["cpu_time"])
            elif single:
                add(("bcast", single.group(1), single.group(2), int(single.group(3))), entry["cpu_time"])
            elif fanout:
                design = "bcast-fanout" if fanout.group(1) == "fanout" else BARE + "-fanout"
                capacity, receivers = int(fanout.group(2)), int(fanout.group(3))
                add((design, capacity, receivers, "deliveries_per_s"), entry["deliveries_per_s"])
                add((design, capacity, receivers, "cpu_s"), entry["cpu_s"])
                add((design, capacity, receivers, "wall_s"), entry["wall_s"])
            elif name.startswith("floor/"):
                add(("floor", name.split("/", 1)[1]), entry["cpu_time"])
    for rows in reps_peers:
        for row in rows:
            if row["shape"] == "single":
                add((row["peer"], row["variant"], row["receivers"]), row["ns_per_iter_median"])
            else:
                key = (row["peer"] + "-fanout", row["capacity"], row["receivers"])
                add(key + ("deliveries_per_s",), row["deliveries_per_s"])
                add(key + ("cpu_s",), row["cpu_s"])
                add(key + ("wall_s",), row["wall_s"])
                add(key + ("delivered_fraction",), row["delivered_fraction"])
    return samples


def ratio_summary(samples, numerator, denominator):
    """Median (min, max) of per-repetition ratios; None if either side is missing."""
    top, bottom = samples.get(numerator), samples.get(denominator)
    if not top or not bottom:
        return None
    return summary([a / b for a, b in zip(top, bottom)])


# ---------------------------------------------------------------- analysis

def analyse(samples, counts, peers_missing):
    median = {key: statistics.median(values) for key, values in samples.items()}
    results = {"single": {}, "single_ratio_to_plain": {}, "slopes_ns": {}, "floors": {}, "peers_single": {},
               "fanout": {}, "async": {}, "counts": counts, "verdicts": [], "peers_missing": peers_missing}

    for key, values in samples.items():
        if key[0] == "bcast":
            results["single"]["%s/%s/N:%d" % key[1:]] = summary(values)
        elif key[0] == "floor":
            results["floors"][key[1]] = summary(values)
        elif key[0] in (AB, TOKIO):
            results["peers_single"]["%s/%s/N:%d" % key] = summary(values)
        elif key[0].endswith("-fanout"):
            results["fanout"]["%s/cap:%d/N:%d/%s" % key] = summary(values)
        elif key[0] == "bcast-async":
            results["async"]["%s/N:%d" % key[1:]] = summary(values)

    # The async row: coroutines resumed inline against the same flow with try
    # calls, both sides from the same repetition (and the same translation unit).
    for n in SINGLE_N:
        ratio = ratio_summary(samples, ("bcast-async", "inline", n), ("bcast-async", "try", n))
        if ratio:
            results["async"]["inline_over_try/N:%d" % n] = ratio
        ratio = ratio_summary(samples, ("bcast-async", "try", n), ("bcast", "try", "plain", n))
        if ratio:
            results["async"]["try_over_single_try_plain/N:%d" % n] = ratio
    for variant in ("inline", "try"):
        points = [(n, median[("bcast-async", variant, n)]) for n in SINGLE_N if ("bcast-async", variant, n) in median]
        if len(points) >= 2:
            results["async"]["slope_ns/" + variant] = least_squares_slope(points)

    # How close the channel comes to the bare ring, both measured in the same
    # bcast_bench run of each repetition (so the VM's drift cancels).
    for capacity in FANOUT_CAPACITIES:
        for n in FANOUT_N:
            ratio = ratio_summary(samples, ("bcast-fanout", capacity, n, "deliveries_per_s"),
                                  (BARE + "-fanout", capacity, n, "deliveries_per_s"))
            if ratio:
                results["fanout"]["bcast_over_bare/cap:%d/N:%d" % (capacity, n)] = ratio

    for calls in CALLS:
        for design in DESIGNS[1:]:
            for n in SINGLE_N:
                ratio = ratio_summary(samples, ("bcast", calls, design, n), ("bcast", calls, "plain", n))
                if ratio:
                    results["single_ratio_to_plain"]["%s/%s/N:%d" % (calls, design, n)] = ratio

    mutex_pair = median.get(("floor", "mutex_pair"))
    seq_cst_store = median.get(("floor", "seq_cst_store"))
    designs = [("bcast", calls, design) for calls in CALLS for design in DESIGNS]
    designs += [(peer, variant) for peer in (AB, TOKIO) for variant in ("try", "blocking", "upstream")]
    for design in designs:
        points = [(n, median[design + (n,)]) for n in SINGLE_N if design + (n,) in median]
        if len(points) >= 2:
            slope = least_squares_slope(points)
            results["slopes_ns"]["/".join(design)] = {
                "ns_per_extra_receiver": slope,
                "multiple_of_mutex_pair": slope / mutex_pair if mutex_pair else None,
                "multiple_of_seq_cst_store": slope / seq_cst_store if seq_cst_store else None}

    results["verdicts"] = verdicts(samples, median, results, counts)
    return results


def verdict(name, met, figures):
    return {"target": name, "status": "unmeasured" if met is None else ("met" if met else "MISSED"),
            "figures": figures}


def verdicts(samples, median, results, counts):
    found = []
    # Single-threaded, try_* calls, bcast (default design = plain) against async-broadcast.
    ratios = {n: ratio_summary(samples, ("bcast", "try", "plain", n), (AB, "try", n)) for n in SINGLE_N}
    if ratios[1]:
        found.append(verdict("single try: bcast <= 0.8x async-broadcast at N=1", ratios[1]["median"] <= 0.8,
                             "ratio %.3f (per-rep range %.3f..%.3f)" % (ratios[1]["median"], ratios[1]["min"], ratios[1]["max"])))
        worst = max(ratios, key=lambda n: ratios[n]["median"])
        found.append(verdict("single try: bcast never above async-broadcast (N=1..16)", ratios[worst]["median"] <= 1.0,
                             "ratios " + ", ".join("N=%d %.3f" % (n, ratios[n]["median"]) for n in SINGLE_N)))
    else:
        found.append(verdict("single try: bcast vs async-broadcast", None, "peer rows missing"))

    slope = results["slopes_ns"].get("bcast/try/plain", {})
    mutex_pair = median.get(("floor", "mutex_pair"))
    if slope and mutex_pair:
        found.append(verdict("single try: bcast slope <= 1.1x mutex lock/unlock pair",
                             slope["multiple_of_mutex_pair"] <= 1.1,
                             "slope %.2f ns/receiver, mutex pair %.2f ns: %.3fx" % (
                                 slope["ns_per_extra_receiver"], mutex_pair, slope["multiple_of_mutex_pair"])))

    templated = (counts or {}).get("templated", {})
    if templated:
        points = [(n, templated["single/try/plain/N:%d" % n]["locked"]) for n in SINGLE_N]
        locked_slope = least_squares_slope(points)
        found.append(verdict("single try: <= 2 locked instructions per receive", locked_slope <= 2.0 + 1e-9,
                             "%.2f locked instructions per extra receiver (callgrind)" % locked_slope))
    else:
        found.append(verdict("single try: <= 2 locked instructions per receive", None, "callgrind not run"))

    # Fan-out (issue 13's targets): at both capacities and every N, bcast's
    # median >= 2x async-broadcast's (per-repetition ratios), no collapse (bcast's
    # worst repetition >= async-broadcast's median), and CPU per delivery not above
    # async-broadcast's (medians).
    fan_figures, collapse_figures, cpu_figures = [], [], []
    fan_met = collapse_met = cpu_met = True
    for capacity in FANOUT_CAPACITIES:
        for n in FANOUT_N:
            ours = samples.get(("bcast-fanout", capacity, n, "deliveries_per_s"))
            theirs = samples.get((AB + "-fanout", capacity, n, "deliveries_per_s"))
            ratio = ratio_summary(samples, ("bcast-fanout", capacity, n, "deliveries_per_s"),
                                  (AB + "-fanout", capacity, n, "deliveries_per_s"))
            if ratio is None or not ours or not theirs:
                fan_met = collapse_met = cpu_met = None
                break
            fan_met = fan_met and ratio["median"] >= 2.0
            fan_figures.append("cap %d N=%d %.2fx (range %.2f..%.2f)" % (capacity, n, ratio["median"], ratio["min"], ratio["max"]))
            worst = min(ours) / statistics.median(theirs)
            collapse_met = collapse_met and worst >= 1.0
            collapse_figures.append("cap %d N=%d %.2fx" % (capacity, n, worst))
            cpu_ours = statistics.median(samples[("bcast-fanout", capacity, n, "cpu_s")])
            cpu_theirs = statistics.median(samples[(AB + "-fanout", capacity, n, "cpu_s")])
            cpu_met = cpu_met and cpu_ours <= cpu_theirs
            cpu_figures.append("cap %d N=%d %.2f vs %.2f CPU s" % (capacity, n, cpu_ours, cpu_theirs))
        if fan_met is None:
            break
    found.append(verdict("fan-out cap 64 and 1024: bcast deliveries/s >= 2x async-broadcast at N=%s"
                         % ",".join(map(str, FANOUT_N)), fan_met, ", ".join(fan_figures) if fan_figures else "peer rows missing"))
    found.append(verdict("fan-out: no collapse (bcast's worst repetition >= async-broadcast's median)", collapse_met,
                         ", ".join(collapse_figures) if collapse_figures else "peer rows missing"))
    found.append(verdict("fan-out: CPU per delivery not above async-broadcast's (median)", cpu_met,
                         ", ".join(cpu_figures) if cpu_figures else "peer rows missing"))

    direct = (counts or {}).get("direct_std", {})
    plain_only = (counts or {}).get("templated_plain_only", {})
    if plain_only and direct:
        worst_case, worst_difference = None, 0.0
        for case, direct_counts in direct.items():
            difference = plain_only[case]["instructions"] / direct_counts["instructions"] - 1.0
            if worst_case is None or abs(difference) > abs(worst_difference):
                worst_case, worst_difference = case, difference
        found.append(verdict("zero cost: templated std build within 1% of direct-std instructions",
                             abs(worst_difference) <= 0.01,
                             "largest difference %+.3f%% (%s), over %d cases (plain-only builds of the same source)" % (
                                 100 * worst_difference, worst_case, len(direct))))
    else:
        found.append(verdict("zero cost: templated std build within 1% of direct-std instructions", None,
                             "callgrind not run"))
    return found


# ---------------------------------------------------------------- tables

def fmt_range(entry, scale=1.0, digits=1):
    return "%.*f (%.*f..%.*f)" % (digits, entry["median"] * scale, digits, entry["min"] * scale, digits, entry["max"] * scale)


def tables(results, meta):
    lines = []
    out = lines.append
    out("Position experiment: %s, %s, %s" % (meta["cpu"], meta["compiler"], meta["flags"]))
    out("%d repetitions, interleaved; single-thread: thread CPU ns per iteration (1 broadcast + N receives), median (min..max)" % meta["reps"])
    out("Google Benchmark %s is Debian's libbenchmark-dev, a DEBUG build of the library (harness only)." % meta.get("benchmark_library", ""))
    if meta.get("load_average_1min_per_rep"):
        out("Load average (1 min) at the start of each repetition: " +
            " ".join("%.2f" % load for load in meta["load_average_1min_per_rep"]) + " (2 vCPUs; above ~1 means outside load)")
    for calls in CALLS:
        out("")
        out("Upstream's table, %s calls: ns/iteration and change vs plain (median of per-rep ratios); rmw = PR #70's fetch_add" % calls)
        out("%-4s %10s" % ("N", "plain") + "".join("%20s" % design for design in DESIGNS[1:]))
        for n in SINGLE_N:
            row = "%-4d %10.1f" % (n, results["single"]["%s/plain/N:%d" % (calls, n)]["median"])
            for design in DESIGNS[1:]:
                time_ns = results["single"]["%s/%s/N:%d" % (calls, design, n)]["median"]
                change = 100 * (results["single_ratio_to_plain"]["%s/%s/N:%d" % (calls, design, n)]["median"] - 1)
                row += " %10.1f (%+6.1f%%)" % (time_ns, change)
            out(row)

    out("")
    out("Floors (ns, median (min..max))")
    for name, entry in sorted(results["floors"].items()):
        out("  %-16s %s" % (name, fmt_range(entry, digits=2)))

    out("")
    out("Slopes: ns per extra receiver (least squares over N of the medians), as a multiple of one mutex lock/unlock pair and of one seq_cst store")
    counts = (results["counts"] or {}).get("templated", {})
    for design, slope in results["slopes_ns"].items():
        extra = ""
        parts = design.split("/")
        if parts[0] == "bcast" and counts:
            instructions = least_squares_slope([(n, counts["single/%s/%s/N:%d" % (parts[1], parts[2], n)]["instructions"]) for n in SINGLE_N])
            locked = least_squares_slope([(n, counts["single/%s/%s/N:%d" % (parts[1], parts[2], n)]["locked"]) for n in SINGLE_N])
            extra = "   %7.2f instr, %4.2f locked per extra receiver" % (instructions, locked)
        out("  %-32s %7.2f ns  %5.2fx mutex pair  %5.2fx seq_cst store%s" % (
            design, slope["ns_per_extra_receiver"], slope["multiple_of_mutex_pair"] or float("nan"),
            slope.get("multiple_of_seq_cst_store") or float("nan"), extra))

    if counts:
        out("")
        out("Callgrind, per iteration (difference of %s-iteration batches): instructions / locked instructions" %
            " and ".join(str(k) for k in results["counts"]["iterations"]))
        direct = results["counts"].get("direct_std", {})
        plain_only = results["counts"].get("templated_plain_only", {})
        out("  (last two columns: the zero-cost pair, plain-only binaries of the same source: impl/ headers vs generated direct-std headers)")
        for calls in CALLS:
            out("  %s calls" % calls)
            out("  %-4s" % "N" + "".join("%18s" % design for design in DESIGNS) + "%18s%18s" % ("plain-only", "direct-std"))
            for n in SINGLE_N:
                row = "  %-4d" % n
                for design in DESIGNS:
                    entry = counts["single/%s/%s/N:%d" % (calls, design, n)]
                    row += "%12.1f / %3.0f" % (entry["instructions"], entry["locked"])
                for column in (plain_only, direct):
                    entry = column.get("single/%s/plain/N:%d" % (calls, n))
                    row += "%12.1f / %3.0f" % (entry["instructions"], entry["locked"]) if entry else "%18s" % "-"
                out(row)
        for floor in ("floor/mutex_pair", "floor/seq_cst_store"):
            if floor in counts:
                out("  %-20s %6.1f instructions, %3.1f locked" % (floor, counts[floor]["instructions"], counts[floor]["locked"]))

    if results.get("assembly_vs_plain"):
        out("")
        out("Assembly vs plain (bench/position_asm.py; -O2; registers shown as %R; instructions added/removed)")
        for name, entry in results["assembly_vs_plain"].items():
            added = ", ".join("%dx %s" % (n, i.replace("\t", " ")) for i, n in entry["added"].items() if "xchg" in i or "lea" in i or "lock" in i)
            out("  %-28s %3d vs %3d instructions%s" % (name, entry["instructions_design"], entry["instructions_plain"],
                                                      "; adds " + added if added else ("; identical" if not entry["diff"] else "")))

    out("")
    if results["peers_missing"]:
        out("Peer rows MISSING: " + results["peers_missing"])
    else:
        out("Single-thread peers (thread CPU ns/iteration, median): bcast = plain position")
        out("%-4s %10s %10s %8s %10s %12s %12s %12s %12s" % ("N", "bcast try", "a-b try", "ratio", "tokio try",
                                                         "bcast block", "a-b block", "a-b upstrm", "tokio block"))
        for n in SINGLE_N:
            def value(key):
                entry = results["single"].get(key) or results["peers_single"].get(key)
                return entry["median"] if entry else float("nan")
            bcast_try = value("try/plain/N:%d" % n)
            ab_try = value("%s/try/N:%d" % (AB, n))
            out("%-4d %10.1f %10.1f %8.3f %10.1f %12.1f %12.1f %12.1f %12.1f" % (
                n, bcast_try, ab_try, bcast_try / ab_try, value("%s/try/N:%d" % (TOKIO, n)),
                value("blocking/plain/N:%d" % n), value("%s/blocking/N:%d" % (AB, n)),
                value("%s/upstream/N:%d" % (AB, n)), value("%s/blocking/N:%d" % (TOKIO, n))))

    out("")
    out("Fan-out: 1 sender thread, N receiver threads, %d messages, blocking; deliveries/s (wall) median (min..max), process CPU s" % meta["messages"])
    have_bare = any(key.startswith(BARE + "-fanout/") for key in results["fanout"])
    if have_bare:  # an earlier run's JSON (--replot) may be from before the bare rows
        out("bare = the bare multicast ring (bench/bare_ring.hpp), the limit row; bcast/bare = ratio of deliveries/s "
            "inside each repetition, median (worst)")
    for capacity in FANOUT_CAPACITIES:
        for n in FANOUT_N:
            def fan(peer, field):
                return results["fanout"].get("%s/cap:%d/N:%d/%s" % (peer, capacity, n, field))
            per_delivery = 1e9 / (meta["messages"] * n)
            row = "  cap %-5d N=%d  bcast %s M/s cpu %.2f s (%.0f ns/delivery)" % (
                capacity, n, fmt_range(fan("bcast-fanout", "deliveries_per_s"), 1e-6, 2), fan("bcast-fanout", "cpu_s")["median"],
                fan("bcast-fanout", "cpu_s")["median"] * per_delivery)
            bare, bare_cpu = fan(BARE + "-fanout", "deliveries_per_s"), fan(BARE + "-fanout", "cpu_s")
            ratio = results["fanout"].get("bcast_over_bare/cap:%d/N:%d" % (capacity, n))
            if bare and bare_cpu and ratio:
                row += " | bare %s M/s cpu %.2f s (%.0f ns/delivery) | bcast/bare %.2f (%.2f)" % (
                    fmt_range(bare, 1e-6, 2), bare_cpu["median"], bare_cpu["median"] * per_delivery,
                    ratio["median"], ratio["min"])
            elif have_bare:
                row += " | bare - | bcast/bare -"
            if fan(AB + "-fanout", "deliveries_per_s"):
                row += " | a-b %s M/s cpu %.2f s (%.0f ns/delivery)" % (
                    fmt_range(fan(AB + "-fanout", "deliveries_per_s"), 1e-6, 2), fan(AB + "-fanout", "cpu_s")["median"],
                    fan(AB + "-fanout", "cpu_s")["median"] * per_delivery)
                row += " | tokio %.2f M/s, delivered %.4f" % (fan(TOKIO + "-fanout", "deliveries_per_s")["median"] * 1e-6,
                                                              fan(TOKIO + "-fanout", "delivered_fraction")["median"])
            out(row)

    async_table(results, meta, out)

    out("")
    out("Targets")
    for entry in results["verdicts"]:
        out("  %-10s %s: %s" % (entry["status"], entry["target"], entry["figures"]))
    return "\n".join(lines)


def async_table(results, meta, out):
    """The async row: co_await with inline resumption vs the try calls, and vs the threaded fan-out."""
    rows = results.get("async") or {}
    if "inline/N:1" not in rows:
        return  # an earlier run's JSON (--replot), from before the async row
    out("")
    out("Async row: 1 sender coroutine + N receiver coroutines on one thread, inline resumption, capacity 1;")
    out("thread CPU ns per iteration (1 async_broadcast + N async_recv), median (min..max); try = the same flow with")
    out("try_broadcast/try_recv in the same translation unit; ratios are medians of per-repetition ratios")
    out("%-4s %24s %24s %22s %12s %16s" % ("N", "async inline", "try", "async / try", "async ns/rx",
                                            "try / single-try"))
    for n in SINGLE_N:
        inline, calls = rows.get("inline/N:%d" % n), rows.get("try/N:%d" % n)
        if not inline or not calls:
            continue
        ratio = rows.get("inline_over_try/N:%d" % n)
        reference = rows.get("try_over_single_try_plain/N:%d" % n)
        out("%-4d %24s %24s %22s %12.1f %16s" % (
            n, fmt_range(inline), fmt_range(calls), fmt_range(ratio, digits=3) if ratio else "-",
            inline["median"] / n, "%.3f" % reference["median"] if reference else "-"))
    if "slope_ns/inline" in rows and "slope_ns/try" in rows:
        out("  per extra receiver: async %.2f ns, try %.2f ns (%.2fx): one suspension + one inline resumption costs %.2f ns" % (
            rows["slope_ns/inline"], rows["slope_ns/try"], rows["slope_ns/inline"] / rows["slope_ns/try"],
            rows["slope_ns/inline"] - rows["slope_ns/try"]))
    plain_only = ((results.get("counts") or {}).get("templated_plain_only") or {})
    if "async/inline/N:1" in plain_only:
        out("  callgrind (bcast_counts_plain), instructions / locked per iteration, async vs try: " + ", ".join(
            "N=%d %.0f / %.0f vs %.0f / %.0f" % (
                n, plain_only["async/inline/N:%d" % n]["instructions"], plain_only["async/inline/N:%d" % n]["locked"],
                plain_only["single/try/plain/N:%d" % n]["instructions"], plain_only["single/try/plain/N:%d" % n]["locked"])
            for n in SINGLE_N if "async/inline/N:%d" % n in plain_only))
    # Against the blocking threaded fan-out: the same deliveries, made by threads
    # that wait on condition variables instead of coroutines resumed inline.
    fan_rows = []
    for n in FANOUT_N:
        inline = rows.get("inline/N:%d" % n)
        if not inline:
            continue
        row = "  N=%d  async inline: %6.2f M deliveries per CPU second (1 thread), %5.1f CPU ns/delivery" % (
            n, n * 1e3 / inline["median"], inline["median"] / n)
        for capacity in FANOUT_CAPACITIES:
            rate = results["fanout"].get("bcast-fanout/cap:%d/N:%d/deliveries_per_s" % (capacity, n))
            cpu = results["fanout"].get("bcast-fanout/cap:%d/N:%d/cpu_s" % (capacity, n))
            if rate and cpu:
                row += " | fan-out cap %d: %5.2f M/s wall, %6.1f CPU ns/delivery" % (
                    capacity, rate["median"] * 1e-6, cpu["median"] * 1e9 / (meta["messages"] * n))
        fan_rows.append(row)
    if fan_rows:
        out("Async row vs the threaded fan-out (1 sender thread + N receiver threads, blocking, %d messages):" % meta["messages"])
        for row in fan_rows:
            out(row)


# ---------------------------------------------------------------- plots

def plot(results, out_dir):
    if shutil.which("gnuplot") is None:
        log("gnuplot not found (Debian: gnuplot-nox): no plots")
        return []
    single_dat = os.path.join(out_dir, "position-single.dat")
    with open(single_dat, "w") as data:
        data.write("# N plain relaxed acq_rel seq_cst rmw (try, ns) | async-broadcast tokio (try, ns) | "
                   "relaxed acq_rel seq_cst rmw (try, %% vs plain) | relaxed acq_rel seq_cst rmw (blocking, %% vs plain)\n")
        for n in SINGLE_N:
            row = [n] + [results["single"]["try/%s/N:%d" % (d, n)]["median"] for d in DESIGNS]
            for peer in (AB, TOKIO):
                entry = results["peers_single"].get("%s/try/N:%d" % (peer, n))
                row.append(entry["median"] if entry else "NaN")
            for calls in CALLS:
                row += [100 * (results["single_ratio_to_plain"]["%s/%s/N:%d" % (calls, d, n)]["median"] - 1) for d in DESIGNS[1:]]
            data.write(" ".join(str(value) for value in row) + "\n")
    fanout_dat = os.path.join(out_dir, "position-fanout.dat")
    fanout_top = 1.0  # headroom above the tallest bar, which gnuplot would clip at the frame
    with open(fanout_dat, "w") as data:
        data.write("# label bcast async-broadcast tokio bare-ring (deliveries per second, millions)\n")
        for capacity in FANOUT_CAPACITIES:
            for n in FANOUT_N:
                row = ['"cap %d, N=%d"' % (capacity, n)]
                for peer in ("bcast", AB, TOKIO, BARE):
                    entry = results["fanout"].get("%s-fanout/cap:%d/N:%d/deliveries_per_s" % (peer, capacity, n))
                    row.append(entry["median"] * 1e-6 if entry else "NaN")
                    if entry:
                        fanout_top = max(fanout_top, 1.15 * entry["median"] * 1e-6)
                data.write(" ".join(str(value) for value in row) + "\n")
    # Without peer rows (no cargo), their curves and bars are left out: gnuplot
    # refuses a histogram column with no valid points.
    have_peers = not results.get("peers_missing")
    single_peers = (', \\\n     "" u 1:7 w lp dt 2 lc "black" t "async-broadcast 0.4.1", '
                    '"" u 1:8 w lp dt 3 lc "gray40" t "tokio 1.24 broadcast"') if have_peers else ""
    fanout_peers = (', "" u 3 lc "gray20" t "async-broadcast 0.4.1", '
                    '"" u 4 lc "gray70" t "tokio 1.24 (lossy: see delivered fraction)"') if have_peers else ""
    # The same for the bare ring's bars: an earlier run's JSON (--replot) may have none.
    have_bare = any(key.startswith(BARE + "-fanout/") for key in results["fanout"])
    fanout_bare = ', "" u 5 lc "#7f7f7f" fs pattern 4 border -1 t "bare ring (the limit)"' if have_bare else ""
    # One script per output format: SVG for the docs, PNG for viewers without SVG.
    terminals = {"svg": ('set terminal svg size 1100,440 dynamic noenhanced font "sans,11" background "white"',
                         'set terminal svg size 900,420 dynamic noenhanced font "sans,11" background "white"'),
                 "png": ('set terminal pngcairo size 1100,440 noenhanced font "sans,10" background "white"',
                         'set terminal pngcairo size 900,420 noenhanced font "sans,10" background "white"')}
    script = ""
    for extension, (single_terminal, fanout_terminal) in terminals.items():
        script += """
reset
{single_terminal}
set output "{out}/position-single.{extension}"
set multiplot layout 1,2 title "Single thread, capacity 1: one broadcast + N receives (thread CPU time, median)"
set key top left
set grid
set xlabel "receivers N"
set xrange [0:17]
set xtics (1,2,4,8,16)
set ylabel "ns per iteration (try_* calls)"
plot "{single}" u 1:2 w lp lc "#9467bd" t "bcast plain", "" u 1:3 w lp lc "#1f77b4" t "bcast atomic relaxed", \\
     "" u 1:4 w lp lc "#2ca02c" t "bcast atomic acq/rel", "" u 1:5 w lp lc "#d62728" t "bcast atomic seq_cst", \\
     "" u 1:6 w lp lc "#ff7f0e" t "bcast fetch_add (PR #70)"{single_peers}
set ylabel "change vs plain position (%)"
set key at graph 0.98, graph 0.56 right  # the empty band between the atomic-RMW curves and zero
plot "{single}" u 1:9 w lp lc "#1f77b4" t "relaxed, try", "" u 1:10 w lp lc "#2ca02c" t "acq/rel, try", \\
     "" u 1:11 w lp lc "#d62728" t "seq_cst, try", "" u 1:12 w lp lc "#ff7f0e" t "fetch_add, try", \\
     "" u 1:13 w lp dt 2 lc "#1f77b4" t "relaxed, blocking", "" u 1:14 w lp dt 2 lc "#2ca02c" t "acq/rel, blocking", \\
     "" u 1:15 w lp dt 2 lc "#d62728" t "seq_cst, blocking", "" u 1:16 w lp dt 2 lc "#ff7f0e" t "fetch_add, blocking", \\
     0 notitle lc "black"
unset multiplot
reset
{fanout_terminal}
set output "{out}/position-fanout.{extension}"
set title "Fan-out: 1 sender thread, N receiver threads, blocking calls (median deliveries per second)"
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "million deliveries per second"
set yrange [0:{fanout_top}]
set key top left
plot "{fanout}" u 2:xtic(1) lc "#9467bd" t "bcast (plain)"{fanout_peers}{fanout_bare}
""".format(out=out_dir, single=single_dat, fanout=fanout_dat, extension=extension, fanout_top=fanout_top,
           single_peers=single_peers, fanout_peers=fanout_peers, fanout_bare=fanout_bare,
           single_terminal=single_terminal, fanout_terminal=fanout_terminal)
    result = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if result.returncode != 0:
        log("gnuplot failed, no plots: " + result.stderr.strip()[-500:])
        return []
    return [os.path.join(out_dir, "position-%s.%s" % (name, extension))
            for name in ("single", "fanout") for extension in terminals]


# ---------------------------------------------------------------- main

def machine(compiler, peers_binary, reps, messages, min_time, peer_iterations, first_context):
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    return {
        "cpu": "%s, %d vCPU" % (cpu, os.cpu_count() or 0),
        "kernel": platform.release(),
        "compiler": (output_of([compiler, "--version"]).splitlines() or ["?"])[0],
        "flags": COMPILE_FLAGS + " (CMake Release; bench/CMakeLists.txt forces -O2)",
        "glibc": output_of(["ldd", "--version"]).splitlines()[0] if output_of(["ldd", "--version"]) else "?",
        "rustc": output_of(["rustc", "--version"]) if peers_binary else None,
        "valgrind": output_of(["valgrind", "--version"]),
        "benchmark_library": "build type '%s'" % first_context.get("library_build_type", "?"),
        "reps": reps, "messages": messages, "min_time_s": min_time, "peer_iterations": peer_iterations,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }


def main():
    parser = argparse.ArgumentParser(description="bcast position experiment (docs/position-design.md)")
    parser.add_argument("--quick", action="store_true", help="short run: under 2 minutes with builds")
    parser.add_argument("--reps", type=int, help="repetitions (default: quick 5, full 7)")
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build-bench"))
    parser.add_argument("--out-dir", help="default: <build-dir>/position-experiment")
    parser.add_argument("--no-peers", action="store_true", help="skip the Rust peers")
    parser.add_argument("--no-callgrind", action="store_true", help="skip the instruction counts")
    parser.add_argument("--replot", metavar="RESULTS_JSON",
                        help="measure nothing: print the tables and render the plots of an earlier run")
    args = parser.parse_args()

    if args.replot:
        with open(args.replot) as document:
            results = json.load(document)
        out_dir = os.path.abspath(args.out_dir or os.path.dirname(os.path.abspath(args.replot)))
        os.makedirs(out_dir, exist_ok=True)
        print(tables(results, results["meta"]))
        plot(results, out_dir)
        return

    reps = args.reps or (5 if args.quick else 7)
    messages = 200_000 if args.quick else 1_000_000
    min_time = 0.03 if args.quick else 0.3
    peer_iterations = 100_000 if args.quick else 1_000_000
    build_dir = os.path.abspath(args.build_dir)
    out_dir = os.path.abspath(args.out_dir or os.path.join(build_dir, "position-experiment"))
    os.makedirs(os.path.join(out_dir, "raw"), exist_ok=True)
    started = time.monotonic()

    log("building bench/ in %s (Release, -O2)" % build_dir)
    try:
        bench_dir = build_cpp(build_dir)
    except subprocess.CalledProcessError:
        sys.exit("building bench/ failed (see above). It needs cmake, g++, python3 and Google Benchmark "
                 "(Debian: libbenchmark-dev).")
    if not os.path.exists(os.path.join(bench_dir, "bcast_bench")):
        sys.exit("bcast_bench was not built: Google Benchmark missing? (Debian: libbenchmark-dev)")
    peers_binary, peers_missing = (None, "--no-peers given") if args.no_peers else build_peers(build_dir)
    if peers_missing:
        log("peer rows missing: " + peers_missing)

    reps_cpp, reps_peers = [], []
    load_averages = []  # outside load shows here: the VM is shared
    for repetition in range(reps):
        log("repetition %d/%d (%.0f s so far)" % (repetition + 1, reps, time.monotonic() - started))
        load_averages.append(os.getloadavg()[0])
        reps_cpp.append(run_bcast_bench(bench_dir, out_dir, repetition, min_time, messages))
        if peers_binary:
            reps_peers.append(run_peers(peers_binary, out_dir, repetition, peer_iterations, messages))

    counts = None
    if args.no_callgrind:
        log("callgrind skipped (--no-callgrind)")
    elif shutil.which("valgrind") is None or shutil.which("objdump") is None:
        log("valgrind or objdump not found (Debian: valgrind binutils): no instruction counts")
    else:
        log("callgrind instruction counts")
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import callgrind_counts
        iterations = (5000, 15000)
        # The zero-cost pair (templated_plain_only, direct_std): same source, same
        # instantiations, only the headers differ. Counts are exact, so the three
        # valgrind runs may share the CPUs.
        binaries = {"templated": "bcast_counts", "templated_plain_only": "bcast_counts_plain",
                    "direct_std": "bcast_counts_direct"}
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            futures = {key: pool.submit(callgrind_counts.measure, os.path.join(bench_dir, binary), iterations)
                       for key, binary in binaries.items()}
            counts = {"iterations": list(iterations)}
            counts.update({key: future.result() for key, future in futures.items()})

    compiler = cmake_compiler(build_dir)
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import position_asm
        assembly = position_asm.diffs(compiler, os.path.join(out_dir, "position-probe.s"))
    except (subprocess.CalledProcessError, OSError, KeyError) as failure:
        log("assembly comparison failed: %s" % failure)
        assembly = None
    meta = machine(compiler, peers_binary, reps, messages, min_time, peer_iterations, reps_cpp[0].get("context", {}))
    results = analyse(collect(reps_cpp, reps_peers), counts, peers_missing)
    results["meta"] = meta
    meta["load_average_1min_per_rep"] = load_averages
    results["assembly_vs_plain"] = assembly
    results["command"] = " ".join(["python3", "bench/run_experiment.py"] + sys.argv[1:])
    text = tables(results, meta)
    with open(os.path.join(out_dir, "position-results.json"), "w") as document:
        json.dump(results, document, indent=1, sort_keys=True)
    with open(os.path.join(out_dir, "position-tables.txt"), "w") as document:
        document.write(text + "\n")
    print(text)
    plots = plot(results, out_dir)
    log("wrote %s, position-tables.txt%s in %s (%.0f s in all)" % (
        "position-results.json", "".join(", " + os.path.basename(p) for p in plots), out_dir, time.monotonic() - started))


if __name__ == "__main__":
    main()
