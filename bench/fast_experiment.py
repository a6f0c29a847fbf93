#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The position question in a lock-free receive path: "when the atomic pays"
(docs/position-design.md), end to end.

Runs, side by side and interleaved repetition by repetition:
  ref             the reference channel (bcast::channel: one mutex, plain position)
  fast            bcast::fast (docs/fast-design.md): release position stores, membarrier
  fast-relaxed    the same with relaxed position stores
  fast-seq_cst    the same with seq_cst position stores (an xchg per receive on x86-64)
  fast-symmetric  the same without membarrier (a read-modify-write per receive)
  bare            fan-out only: the bare multicast ring (bench/bare_ring.hpp), the limit row:
                  one producer, per-consumer sequences, gating on the slowest, bcast::fast's
                  waits, and nothing else (no close, overflow, lag, copies beyond a u64 store)
  a-b             async-broadcast 0.4.1 (bench/peers, cargo, Debian's crate sources)
in two shapes:
  single   upstream's: one thread, capacity 1, one try_broadcast + N try_recv per
           iteration, N = 1, 2, 4, 8, 16; thread CPU ns per iteration, and the
           least-squares slope over N: what one more receiver costs
  fanout   one sender thread, N receiver threads, blocking, lossless, capacity
           64 and 1024, N = 1, 2, 4, 8: deliveries per second (wall) and CPU ns per
           delivery (all threads); async-broadcast through bcast-peers
and counts instructions under callgrind (bcast_fast_counts, callgrind_counts.py):
per iteration, and per receive (the slope over N), locked instructions included.

Ratios are taken inside one repetition (both sides measured back to back) and
reported as the median and the worst over the repetitions (fast / bare among
them: how close bcast::fast is to the bare ring). Writes fast-results.json,
fast-tables.txt and position-fast.svg (drawn directly, no gnuplot needed) in
--out-dir.

--scaling (docs/fast-design.md, section 10): the fan-out table alone at N = 1, 2,
4, 8, 16, each thread pinned: the probes run on the first N + 1 CPUs of this
process's affinity set and pin thread k to the k-th of them (--pin), and
async-broadcast's process runs on the same N + 1 CPUs (its threads are not
pinned one by one); fewer CPUs than N + 1 are shared, and the tables say so.
Writes the same files (no plot) plus machine.txt (nproc, lscpu's model name,
the kernel, lscpu in full) in --out-dir, default <build-dir>/fast-scaling.

Usage:
  python3 bench/fast_experiment.py --quick          # 3 reps, short runs
  python3 bench/fast_experiment.py [--reps 7] [--out-dir DIR] [--build-dir DIR]
      [--no-peers] [--no-callgrind] [--replot RESULTS_JSON]
  python3 bench/fast_experiment.py --counts-only    # the callgrind table alone (exact: the
                                                    # machine's load does not change it)
  python3 bench/fast_experiment.py --scaling [--reps 5] [--out-dir DIR]   # a larger machine
  python3 bench/fast_experiment.py --ablation [--counts-only] [--quick] [--reps R]
  python3 bench/fast_experiment.py --counters [--quick] [--reps R]   # needs perf

--ablation (docs/fast-design.md, section 10): bcast::fast with one part turned off
at a time (bench/ablation/make_ablated_headers.py, whose list they are: the rules
no-lag, lazy-close, no-recheck and all three; the lock futex-lock and spin-lock;
the layout packed-slots; everything), in a copy of the headers in the build tree. Counts instructions
per receive and per iteration under callgrind (and with a lock that does nothing,
single-thread only: what the send's lock costs), then, unless --counts-only, runs
the fan-out (capacity 64 and 1024, N = 1, 2, 4, 8) of each ablated build beside
the bare ring, interleaved, with each one's speed-up over the baseline and
baseline / bare inside each repetition. Writes ablation-results.json and
ablation-tables.txt in --out-dir, default <build-dir>/fast-ablation.

--counters (docs/fast-design.md, section 11): the fan-out of ref, fast, bare and
async-broadcast under `perf stat` (system-call tracepoints: needs perf and the
right to read them), per 1,000 messages: futex waits, futex wakes, sched_yield
calls, membarrier calls and context switches, beside the deliveries per second
and the CPU per delivery. Writes counters-results.json and counters-tables.txt in
--out-dir, default <build-dir>/fast-counters.
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bench"))
import callgrind_counts  # noqa: E402  (bench/callgrind_counts.py)
sys.path.insert(0, os.path.join(REPO, "bench", "ablation"))
import make_ablated_headers  # noqa: E402  (bench/ablation/make_ablated_headers.py: the list of ablations)

DESIGNS = ["ref", "fast", "fast-relaxed", "fast-seq_cst", "fast-symmetric"]
SINGLE_N = [1, 2, 4, 8, 16]
FANOUT_N = [1, 2, 4, 8]
SCALING_N = [1, 2, 4, 8, 16]
FANOUT_CAPACITIES = [64, 1024]
BARE = "bare"
FANOUT_DESIGNS = ["ref", "fast", "fast-relaxed", "fast-seq_cst", "fast-symmetric", BARE]
AB = "a-b"


def log(text):
    print(text, file=sys.stderr, flush=True)


def build(build_dir, peers):
    subprocess.run(["cmake", "-S", REPO, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DBCAST_BUILD_TESTS=OFF",
                    "-DBCAST_BUILD_STRESS_TESTS=OFF", "-DBCAST_BUILD_MODEL_TESTS=OFF", "-DBCAST_BUILD_PROPERTY_TESTS=OFF",
                    "-DBCAST_BUILD_FUZZ=OFF", "-DBCAST_BUILD_DOCS=OFF", "-DBCAST_BUILD_STYLE_CHECKS=OFF",
                    "-DBCAST_BUILD_EXAMPLES=OFF", "-DBCAST_INSTALL=OFF", "-DBCAST_BUILD_BENCH=ON"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build_dir, "--target", "bcast_fast_probe", "bcast_fast_counts", "-j2"],
                   check=True, stdout=subprocess.DEVNULL)
    peer_binary = None
    # bench/peers: its async-broadcast rows (`--peer async-broadcast`), the same loops as the
    # position experiment's (.ci/install-deps.sh bench installs the crate sources it needs).
    if peers and shutil.which("cargo"):
        target = os.path.abspath(os.path.join(build_dir, "peers-target"))  # cargo runs in bench/peers
        done = subprocess.run(["cargo", "build", "--release", "--offline", "--locked"],
                              cwd=os.path.join(REPO, "bench", "peers"), env=dict(os.environ, CARGO_TARGET_DIR=target),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode == 0:
            peer_binary = os.path.join(target, "release", "bcast-peers")
        else:
            log("bench/peers does not build: %s" % done.stderr.strip().splitlines()[-1:])
    if peers and not peer_binary:
        log("no async-broadcast rows")
    return (os.path.join(build_dir, "bench", "bcast_fast_probe"), os.path.join(build_dir, "bench", "bcast_fast_counts"),
            peer_binary)


def on_cpus(cpus):
    """A preexec_fn that runs the child on `cpus` (None: wherever it would run)."""
    if not cpus:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


def probe(binary, *args, cpus=None, wrapper=()):
    """Runs bcast_fast_probe or bcast-peers (under `wrapper`, a command prefix); returns its last line's JSON."""
    out = subprocess.run([*wrapper, binary, *map(str, args)], check=True, capture_output=True, text=True,
                         preexec_fn=on_cpus(cpus)).stdout
    return json.loads(out.strip().splitlines()[-1])


peer = probe  # bench/peers' binary prints one JSON line too


def allowed_cpus():
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))


def machine():
    """What the scaling run ran on: nproc, lscpu's model name, the kernel, lscpu in full."""
    desc = {"nproc": len(allowed_cpus()), "cpu_count": os.cpu_count(), "kernel": platform.release(),
            "uname": " ".join(platform.uname()), "model_name": None, "lscpu": None}
    if shutil.which("lscpu"):
        desc["lscpu"] = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        found = re.search(r"^Model name:\s*(.+)$", desc["lscpu"], re.M)
        desc["model_name"] = found.group(1).strip() if found else None
    if desc["model_name"] is None and os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            found = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
        desc["model_name"] = found.group(1).strip() if found else None
    return desc


def machine_text(desc):
    lines = ["nproc (CPUs this process may run on): %d; os.cpu_count(): %s" % (desc["nproc"], desc["cpu_count"]),
             "model name: %s" % desc["model_name"], "kernel: %s" % desc["kernel"], "uname: %s" % desc["uname"]]
    if desc.get("lscpu"):
        lines += ["", "lscpu:", desc["lscpu"].rstrip()]
    return "\n".join(lines)


def slope(points):
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def rotate(items, k):
    k %= len(items)
    return items[k:] + items[:k]


ABLATIONS = make_ablated_headers.ABLATIONS
ABLATION_N = [1, 2, 4, 8]


def build_ablation(build_dir):
    build(build_dir, False)  # configures the tree; bcast_fast_probe runs the bare ring
    targets = ["bcast_ablation_%s_%s" % (kind, a) for a in ABLATIONS for kind in ("counts", "probe")]
    subprocess.run(["cmake", "--build", build_dir, "--target", *targets, "-j2"], check=True, stdout=subprocess.DEVNULL)
    bench = os.path.join(build_dir, "bench")
    return ({a: os.path.join(bench, "bcast_ablation_counts_" + a) for a in ABLATIONS},
            {a: os.path.join(bench, "bcast_ablation_probe_" + a) for a in ABLATIONS},
            os.path.join(bench, "bcast_fast_probe"))


def ablation_counts(counts_bins):
    """Per ablation and design (fast, fast-nolock): instructions and locked per receive (slope over N) and
    per iteration at N = 1 (one send and one receive)."""
    out = {}
    for a in ABLATIONS:
        measured = callgrind_counts.measure(counts_bins[a], (2000, 6000))
        for design in ("fast", "fast-nolock"):
            rows = [(n, measured["ablation/%s/N:%d" % (design, n)]) for n in ABLATION_N]
            out["%s/%s" % (a, design)] = {
                "instructions_per_receive": slope([(n, r["instructions"]) for n, r in rows]),
                "locked_per_receive": slope([(n, r["locked"]) for n, r in rows]),
                "instructions_per_iteration_n1": rows[0][1]["instructions"],
                "locked_per_iteration_n1": rows[0][1]["locked"],
            }
    return out


def ablation_counts_table(cg):
    base = cg["baseline/fast"]
    lines = ["Ablation, callgrind (exact), single thread, capacity 1, try calls: instructions per receive (slope over "
             "N = 1, 2, 4, 8) and per iteration at N = 1 (one send + one receive); the difference from the baseline",
             "| ablation | lock | instructions/receive | vs baseline | locked/receive | instructions/iteration N=1 | "
             "vs baseline | locked/iteration N=1 |",
             "|---|---|---|---|---|---|---|---|"]
    for a in ABLATIONS:
        for design, lock in (("fast", "bcast's"), ("fast-nolock", "none (one thread)")):
            c = cg["%s/%s" % (a, design)]
            lines.append("| %s | %s | %.1f | %+.1f | %.3f | %.1f | %+.1f | %.2f |" % (
                a, lock, c["instructions_per_receive"], c["instructions_per_receive"] - base["instructions_per_receive"],
                c["locked_per_receive"], c["instructions_per_iteration_n1"],
                c["instructions_per_iteration_n1"] - base["instructions_per_iteration_n1"], c["locked_per_iteration_n1"]))
    return "\n".join(lines)


def ablation_fanout(args, probes, bare_probe):
    messages = 200_000 if args.quick else 1_000_000
    fan = {}  # "cap:c/N:n/design" -> [deliveries per s, per rep]
    designs = ABLATIONS + [BARE]
    for rep in range(args.reps):
        t0 = time.time()
        for cap in FANOUT_CAPACITIES:
            for n in ABLATION_N:
                for design in rotate(designs, rep):
                    binary = bare_probe if design == BARE else probes[design]
                    row = probe(binary, "fanout", "--design", BARE if design == BARE else "fast", "--receivers", n,
                                "--capacity", cap, "--messages", messages)
                    fan.setdefault("cap:%d/N:%d/%s" % (cap, n, design), []).append(row["deliveries_per_s"])
        log("repetition %d of %d: %.0f s" % (rep + 1, args.reps, time.time() - t0))
    return {"fanout": fan, "messages": messages, "reps": args.reps}


def ablation_fanout_table(raw):
    reps, fan = raw["reps"], raw["fanout"]
    lines = ["Ablation, fan-out: 1 sender + N receiver threads, blocking, lossless, %d messages, %d repetitions; "
             "M deliveries/s median [worst, best]; then each ablation's speed-up over the baseline and baseline / bare, "
             "inside each repetition, median (worst)" % (raw["messages"], reps),
             "| cap | N | " + " | ".join(ABLATIONS + [BARE]) + " | " +
             " | ".join("%s/baseline" % a for a in ABLATIONS[1:]) + " | baseline/bare |",
             "|---" * (len(ABLATIONS) * 2 + 3) + "|"]
    for cap in FANOUT_CAPACITIES:
        for n in ABLATION_N:
            key = "cap:%d/N:%d/" % (cap, n)
            cells = []
            for d in ABLATIONS + [BARE]:
                v = fan[key + d]
                cells.append("%.2f [%.2f, %.2f]" % (statistics.median(v) / 1e6, min(v) / 1e6, max(v) / 1e6))
            for a, against in [(a, "baseline") for a in ABLATIONS[1:]] + [("baseline", BARE)]:
                per_rep = [fan[key + a][r] / fan[key + against][r] for r in range(reps)]
                cells.append("%.2f (%.2f)" % (statistics.median(per_rep), min(per_rep)))
            lines.append("| %d | %d | %s |" % (cap, n, " | ".join(cells)))
    return "\n".join(lines)


def run_ablation(args):
    out_dir = args.out_dir or os.path.join(args.build_dir, "fast-ablation")
    os.makedirs(out_dir, exist_ok=True)
    counts_bins, probes, bare_probe = build_ablation(args.build_dir)
    res = {"meta": {"machine": dict(machine(), lscpu=None), "cores": os.cpu_count()}}
    text = []
    if not args.no_callgrind and shutil.which("valgrind"):
        res["callgrind"] = ablation_counts(counts_bins)
        text.append(ablation_counts_table(res["callgrind"]))
    if not args.counts_only:
        res["fanout"] = ablation_fanout(args, probes, bare_probe)
        res["meta"]["load_average_at_end"] = os.getloadavg()
        text.append(ablation_fanout_table(res["fanout"]))
    with open(os.path.join(out_dir, "ablation-results.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out_dir, "ablation-tables.txt"), "w") as f:
        f.write("\n\n".join(text) + "\n")
    print("\n\n".join(text))
    log("results in %s" % out_dir)


# --counters: what the fan-out's time goes to, counted by the kernel for every design alike
# (perf's tracepoints; the ring's and the channels' code is not instrumented). Name, event,
# filter. The futex operations: FUTEX_WAIT_PRIVATE 128 (bcast's sleeps), FUTEX_WAIT_BITSET_PRIVATE
# 137 (bcast's timed sleeps, Rust std's parking), FUTEX_WAKE_PRIVATE 129; 0, 1, 9 the same
# without the private flag.
PERF_EVENTS = [
    ("futex_waits", "syscalls:sys_enter_futex", "op == 128 || op == 137 || op == 0 || op == 9"),
    ("futex_wakes", "syscalls:sys_enter_futex", "op == 129 || op == 1"),
    ("yields", "syscalls:sys_enter_sched_yield", None),
    ("membarriers", "syscalls:sys_enter_membarrier", None),
    ("context_switches", "context-switches", None),
]
COUNTER_DESIGNS = ["ref", "fast", BARE]


def perf_wrapper(out_file):
    """`perf stat` with PERF_EVENTS, writing CSV to out_file; exits with the reason if it cannot count here."""
    cmd = ["perf", "stat", "-x", ",", "-o", out_file]
    for _, event, flt in PERF_EVENTS:
        cmd += ["-e", event] + (["--filter", flt] if flt else [])
    if not shutil.which("perf"):
        sys.exit("--counters needs perf (Debian: linux-perf)")
    tried = subprocess.run(cmd + ["--", "true"], capture_output=True, text=True)
    if tried.returncode != 0:
        sys.exit("--counters: perf cannot count the system-call tracepoints here (as root, or with "
                 "kernel.perf_event_paranoid = -1 and tracefs readable): %s" % tried.stderr.strip()[-300:])
    return cmd + ["--"]


def read_perf(out_file):
    """The counts of a perf stat -x, file, in PERF_EVENTS' order; a line it cannot read is named."""
    values = []
    with open(out_file) as f:
        for number, line in enumerate(f, 1):
            fields = line.strip().split(",")
            if len(fields) < 3 or not fields[2]:
                continue  # perf's comment and blank lines
            if not fields[0].isdigit():
                sys.exit("%s:%d: perf did not count %s: %r" % (out_file, number, fields[2], line.strip()))
            values.append(int(fields[0]))
    if len(values) != len(PERF_EVENTS):
        sys.exit("%s: %d counts, expected %d (%s)" % (out_file, len(values), len(PERF_EVENTS),
                                                      ", ".join(e for _, e, _ in PERF_EVENTS)))
    return dict(zip((name for name, _, _ in PERF_EVENTS), values))


def run_counters(args):
    """The fan-out grid under perf stat: per design, deliveries per second and, per 1,000 messages,
    futex waits and wakes, yields, membarriers and context switches (docs/fast-design.md, section 11)."""
    out_dir = args.out_dir or os.path.join(args.build_dir, "fast-counters")
    os.makedirs(out_dir, exist_ok=True)
    probe_bin, _, peers_bin = build(args.build_dir, not args.no_peers)
    perf_out = os.path.join(out_dir, "perf.csv")
    wrapper = perf_wrapper(perf_out)
    messages = 200_000 if args.quick else 1_000_000
    designs = COUNTER_DESIGNS + ([AB] if peers_bin else [])
    rows = {}  # "cap:c/N:n/design" -> [{deliveries_per_s, cpu_ns_per_delivery, counters...} per rep]
    for rep in range(args.reps):
        for cap in FANOUT_CAPACITIES:
            for n in FANOUT_N:
                for design in rotate(designs, rep):
                    if design == AB:
                        row = peer(peers_bin, "fanout", "--receivers", n, "--capacity", cap, "--messages", messages,
                                   "--reps", 1, "--peer", "async-broadcast", wrapper=wrapper)
                        row["cpu_ns_per_delivery"] = row["cpu_s"] * 1e9 / (n * messages)
                    else:
                        row = probe(probe_bin, "fanout", "--design", design, "--receivers", n, "--capacity", cap,
                                    "--messages", messages, wrapper=wrapper)
                    counted = read_perf(perf_out)
                    counted.update({k: row[k] for k in ("deliveries_per_s", "cpu_ns_per_delivery")})
                    rows.setdefault("cap:%d/N:%d/%s" % (cap, n, design), []).append(counted)
        log("repetition %d of %d" % (rep + 1, args.reps))
    res = {"messages": messages, "reps": args.reps, "rows": rows,
           "meta": {"machine": dict(machine(), lscpu=None), "cores": os.cpu_count(),
                    "load_average_at_end": os.getloadavg()}}
    names = [name for name, _, _ in PERF_EVENTS]
    lines = ["Fan-out under perf stat: 1 sender + N receiver threads, blocking, lossless, %d messages, %d "
             "repetitions; medians. M deliveries/s, CPU ns per delivery, then per 1,000 messages: %s" % (
                 messages, args.reps, ", ".join(n.replace("_", " ") for n in names)),
             "| cap | N | design | M deliveries/s | CPU ns/delivery | " + " | ".join(n.replace("_", " ") for n in names) + " |",
             "|---" * (5 + len(names)) + "|"]
    for cap in FANOUT_CAPACITIES:
        for n in FANOUT_N:
            for design in designs:
                reps = rows["cap:%d/N:%d/%s" % (cap, n, design)]
                med = {k: statistics.median(r[k] for r in reps) for k in reps[0]}
                lines.append("| %d | %d | %s | %.2f | %.1f | %s |" % (
                    cap, n, design, med["deliveries_per_s"] / 1e6, med["cpu_ns_per_delivery"],
                    " | ".join("%.1f" % (med[k] * 1000 / messages) for k in names)))
    text = "\n".join(lines)
    with open(os.path.join(out_dir, "counters-results.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out_dir, "counters-tables.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    log("results in %s" % out_dir)


def measure(args, probe_bin, peers_bin):
    iters = 200_000 if args.quick else 1_000_000
    messages = 200_000 if args.quick else 1_000_000
    fanout_n = SCALING_N if args.scaling else FANOUT_N
    cpus = allowed_cpus()
    single = {}  # "design/N:n" -> [ns per rep]
    fan = {}     # "cap:c/N:n/design" -> [row per rep]
    for rep in range(args.reps):
        t0 = time.time()
        for n in ([] if args.scaling else SINGLE_N):
            for design in rotate(DESIGNS + ([AB] if peers_bin else []), rep):
                if design == AB:
                    row = peer(peers_bin, "single", "--receivers", n, "--iters", iters, "--reps", 1,
                               "--peer", "async-broadcast", "--variant", "try")
                else:
                    row = probe(probe_bin, "single", "--design", design, "--receivers", n, "--iters", iters, "--reps", 1)
                single.setdefault("%s/N:%d" % (design, n), []).append(row["ns_per_iter_median"])
        for cap in FANOUT_CAPACITIES:
            for n in fanout_n:
                # --scaling: the first N + 1 CPUs, one a thread (shared when there are fewer)
                on = cpus[:n + 1] if args.scaling else None
                pin = ["--pin"] if args.scaling else []
                for design in rotate(FANOUT_DESIGNS + ([AB] if peers_bin else []), rep):
                    if design == AB:
                        import resource
                        before = resource.getrusage(resource.RUSAGE_CHILDREN)
                        row = peer(peers_bin, "fanout", "--receivers", n, "--capacity", cap, "--messages", messages,
                                   "--reps", 1, "--peer", "async-broadcast", cpus=on)
                        after = resource.getrusage(resource.RUSAGE_CHILDREN)
                        if row["delivered_fraction"] != 1.0:
                            sys.exit("async-broadcast lost messages in the fan-out: %r" % row)
                        row = {"deliveries_per_s": row["deliveries_per_s"],
                               "cpu_ns_per_delivery": row["cpu_s"] * 1e9 / (n * messages),
                               "vcs": (after.ru_nvcsw - before.ru_nvcsw) / messages}
                    else:
                        row = probe(probe_bin, "fanout", "--design", design, "--receivers", n, "--capacity", cap,
                                    "--messages", messages, *pin, cpus=on)
                    fan.setdefault("cap:%d/N:%d/%s" % (cap, n, design), []).append(row)
        log("repetition %d of %d: %.0f s" % (rep + 1, args.reps, time.time() - t0))
    return {"single": single, "fanout": fan, "iters": iters, "messages": messages, "reps": args.reps,
            "fanout_n": fanout_n, "scaling": bool(args.scaling)}


def fanout_grid(fanout):
    """The capacities and receiver counts of a results file's fan-out, in order (older files have N = 1, 2, 4)."""
    keys = [tuple(int(part.split(":")[1]) for part in key.split("/")[:2]) for key in fanout]
    return sorted({c for c, _ in keys}), sorted({n for _, n in keys})


def counts(counts_bin):
    measured = callgrind_counts.measure(counts_bin, (5000, 15000))
    per = {}
    for design in DESIGNS:
        rows = [(n, measured["fast-single/%s/N:%d" % (design, n)]) for n in SINGLE_N]
        per[design] = {
            "instructions_per_iteration": {str(n): r["instructions"] for n, r in rows},
            "locked_per_iteration": {str(n): r["locked"] for n, r in rows},
            "instructions_per_receive": slope([(n, r["instructions"]) for n, r in rows]),
            "locked_per_receive": slope([(n, r["locked"]) for n, r in rows]),
        }
    return per


def analyse(raw, cg):
    out = {"meta": {k: raw[k] for k in ("iters", "messages", "reps", "fanout_n", "scaling")}, "single": {},
           "slopes": {}, "fanout": {}, "callgrind": cg}
    designs = DESIGNS + ([AB] if ("%s/N:1" % AB) in raw["single"] else []) if raw["single"] else []
    reps = raw["reps"]
    for design in designs:
        for n in SINGLE_N:
            out["single"]["%s/N:%d" % (design, n)] = summary(raw["single"]["%s/N:%d" % (design, n)])
        per_rep = [slope([(n, raw["single"]["%s/N:%d" % (design, n)][r]) for n in SINGLE_N]) for r in range(reps)]
        out["slopes"][design] = summary(per_rep)
    ratios = {}
    for design in designs:
        if design == AB:
            continue
        for against in ("ref", AB):
            if against not in designs or against == design:
                continue
            per_rep = []
            for r in range(reps):
                mine = slope([(n, raw["single"]["%s/N:%d" % (design, n)][r]) for n in SINGLE_N])
                theirs = slope([(n, raw["single"]["%s/N:%d" % (against, n)][r]) for n in SINGLE_N])
                per_rep.append(mine / theirs)
            ratios["%s/%s" % (design, against)] = {"median": statistics.median(per_rep), "worst": max(per_rep)}
    out["slope_ratios"] = ratios
    fdesigns = FANOUT_DESIGNS + ([AB] if any(k.endswith("/" + AB) for k in raw["fanout"]) else [])
    for cap in FANOUT_CAPACITIES:
        for n in raw["fanout_n"]:
            key = "cap:%d/N:%d" % (cap, n)
            cell = {}
            for design in fdesigns:
                rows = raw["fanout"]["%s/%s" % (key, design)]
                cell[design] = {"deliveries_per_s": summary([row["deliveries_per_s"] for row in rows]),
                                "cpu_ns_per_delivery": summary([row["cpu_ns_per_delivery"] for row in rows]),
                                "vcs": summary([row["vcs"] for row in rows])}
            for design in fdesigns:
                if design == AB:
                    continue
                for against in ("ref", AB, BARE):
                    if against not in fdesigns or against == design or (design == "ref" and against == BARE):
                        continue
                    per_rep = [raw["fanout"]["%s/%s" % (key, design)][r]["deliveries_per_s"] /
                               raw["fanout"]["%s/%s" % (key, against)][r]["deliveries_per_s"] for r in range(reps)]
                    cell["%s/%s" % (design, against)] = {"median": statistics.median(per_rep), "worst": min(per_rep)}
            out["fanout"][key] = cell
    return out


def tables(res):
    lines = []
    meta = res["meta"]
    if meta.get("machine"):
        lines.append("Machine:")
        lines.append(machine_text(dict(meta["machine"], lscpu=None)))
        lines.append("")
    if res["single"]:
        single_tables(res, lines)
    fanout_table(res, lines)
    return "\n".join(lines)


def single_tables(res, lines):
    meta = res["meta"]
    lines.append("Single thread, capacity 1: one try_broadcast + N try_recv; thread CPU ns per iteration, median "
                 "[min, max] of %d repetitions of %d iterations" % (meta["reps"], meta["iters"]))
    designs = [d for d in DESIGNS + [AB] if d in res["slopes"]]
    lines.append("| N | " + " | ".join(designs) + " |")
    lines.append("|---" * (len(designs) + 1) + "|")
    for n in SINGLE_N:
        cells = []
        for d in designs:
            s = res["single"]["%s/N:%d" % (d, n)]
            cells.append("%.1f [%.1f, %.1f]" % (s["median"], s["min"], s["max"]))
        lines.append("| %d | %s |" % (n, " | ".join(cells)))
    lines.append("| slope (ns per extra receiver) | " +
                 " | ".join("%.2f [%.2f, %.2f]" % (res["slopes"][d]["median"], res["slopes"][d]["min"],
                                                   res["slopes"][d]["max"]) for d in designs) + " |")
    lines.append("")
    lines.append("Slope ratios (per repetition, median; worst):")
    for key, r in sorted(res["slope_ratios"].items()):
        lines.append("  %-28s %.3f  (worst %.3f)" % (key, r["median"], r["worst"]))
    if res.get("callgrind"):
        lines.append("")
        lines.append(callgrind_table(res["callgrind"]))
    lines.append("")


def fanout_table(res, lines):
    meta = res["meta"]
    caps, ns = fanout_grid(res["fanout"])
    first = res["fanout"]["cap:%d/N:%d" % (caps[0], ns[0])]
    fdesigns = [d for d in FANOUT_DESIGNS + [AB] if d in first]
    pinned = " each thread pinned (--pin), the probe on the first N + 1 CPUs;" if meta.get("scaling") else ""
    lines.append("Fan-out: 1 sender thread + N receiver threads, blocking, lossless, %d messages;%s M deliveries/s "
                 "median [worst, best]; CPU ns per delivery (median); ratios inside each repetition, median (worst)"
                 % (meta["messages"], pinned))
    ratios = [r for r in ("fast/ref", "fast/a-b", "fast/bare", "ref/a-b") if r in first]
    lines.append("| cap | N | " + " | ".join(fdesigns) + " | " + " | ".join(ratios) + " | CPU ns/delivery " +
                 ", ".join(fdesigns) + " |")
    lines.append("|---" * (len(fdesigns) + len(ratios) + 3) + "|")
    cpus = meta.get("machine", {}).get("nproc")
    for cap in caps:
        for n in ns:
            cell = res["fanout"]["cap:%d/N:%d" % (cap, n)]
            ms = ["%.2f [%.2f, %.2f]" % (cell[d]["deliveries_per_s"]["median"] / 1e6, cell[d]["deliveries_per_s"]["min"] / 1e6,
                                         cell[d]["deliveries_per_s"]["max"] / 1e6) for d in fdesigns]
            rs = ["%.2f (%.2f)" % (cell[r]["median"], cell[r]["worst"]) if r in cell else "-" for r in ratios]
            cpu = ", ".join("%.0f" % cell[d]["cpu_ns_per_delivery"]["median"] for d in fdesigns)
            shared = " (CPUs shared: %d threads on %d)" % (n + 1, cpus) if meta.get("scaling") and cpus and cpus < n + 1 else ""
            lines.append("| %d | %d%s | %s | %s | %s |" % (cap, n, shared, " | ".join(ms), " | ".join(rs), cpu))


def callgrind_table(cg):
    lines = ["Callgrind (exact), try calls: instructions per receive (slope over N), locked instructions per "
             "receive, instructions and locked per iteration at N = 1:",
             "| design | instructions/receive | locked/receive | instructions/iteration N=1 | locked/iteration N=1 |",
             "|---|---|---|---|---|"]
    for d in DESIGNS:
        c = cg[d]
        lines.append("| %s | %.1f | %.3f | %.1f | %.2f |" % (d, c["instructions_per_receive"], c["locked_per_receive"],
                                                             c["instructions_per_iteration"]["1"],
                                                             c["locked_per_iteration"]["1"]))
    return "\n".join(lines)


def plot(res, out_dir):
    """position-fast.svg: the single-thread curves and the fan-out bars, written directly (no gnuplot).
    None (no plot) without the single-thread shape (--scaling)."""
    if not res["single"]:
        return None
    names = {BARE: "bare ring (the limit)", "ref": "reference (mutex, plain position)", "fast": "bcast::fast, release position",
             "fast-relaxed": "bcast::fast, relaxed position", "fast-seq_cst": "bcast::fast, seq_cst position",
             "fast-symmetric": "bcast::fast, no membarrier", AB: "async-broadcast 0.4.1"}
    colours = {BARE: "#7f7f7f", "ref": "#9467bd", "fast": "#2ca02c", "fast-relaxed": "#1f77b4", "fast-seq_cst": "#d62728",
               "fast-symmetric": "#ff7f0e", AB: "#000000"}
    designs = [d for d in DESIGNS + [AB] if d in res["slopes"]]
    caps, ns = fanout_grid(res["fanout"])
    fdesigns = [d for d in ("ref", "fast", BARE, AB) if d in res["fanout"]["cap:%d/N:%d" % (caps[0], ns[0])]]
    width, height, panel = 1240, 500, 560
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">'
           % (width, height), '<rect width="100%%" height="100%%" fill="white"/>',
           '<text x="%d" y="22" text-anchor="middle" font-size="15">When the atomic pays: the reference channel vs '
           'bcast::fast (lock-free receive), %d repetitions, medians</text>' % (width // 2, res["meta"]["reps"])]

    def nice(value):  # the axis top: a round number at least `value`
        scale = 10 ** (len(str(int(value))) - 1)
        for candidate in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
            if candidate * scale >= value:
                return candidate * scale
        return 10 * scale

    def axes(x0, y0, w, h, ymax, ylabel, xlabels, label_size=12):
        svg.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (x0, y0 + h, x0 + w, y0 + h))
        svg.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (x0, y0, x0, y0 + h))
        for k in range(6):
            v = ymax * k / 5
            y = y0 + h - h * k / 5
            svg.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#dddddd"/>' % (x0, y, x0 + w, y))
            svg.append('<text x="%d" y="%.1f" text-anchor="end">%.0f</text>' % (x0 - 5, y + 4, v))
        svg.append('<text transform="translate(%d,%d) rotate(-90)" text-anchor="middle">%s</text>'
                   % (x0 - 45, y0 + h // 2, ylabel))
        for x, label in xlabels:
            svg.append('<text x="%.1f" y="%d" text-anchor="middle" font-size="%d">%s</text>'
                       % (x, y0 + h + 16, label_size, label))

    # left: ns per iteration against N
    x0, y0, w, h = 80, 50, panel - 110, 360
    ymax = nice(max(res["single"]["%s/N:16" % d]["median"] for d in designs) * 1.05)
    xpos = lambda n: x0 + w * (n - 0.5) / 16.5
    axes(x0, y0, w, h, ymax, "ns per iteration: 1 try_broadcast + N try_recv (thread CPU)",
         [(xpos(n), str(n)) for n in SINGLE_N])
    svg.append('<text x="%d" y="%d" text-anchor="middle">receivers N (single thread, capacity 1)</text>'
               % (x0 + w // 2, y0 + h + 34))
    for i, d in enumerate(designs):
        points = [(xpos(n), y0 + h - h * res["single"]["%s/N:%d" % (d, n)]["median"] / ymax) for n in SINGLE_N]
        svg.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                   % (colours[d], " ".join("%.1f,%.1f" % p for p in points)))
        for p in points:
            svg.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (p[0], p[1], colours[d]))
        svg.append('<rect x="%d" y="%d" width="14" height="3" fill="%s"/><text x="%d" y="%d">%s (slope %.1f ns)</text>'
                   % (x0 + 10, y0 + 8 + 16 * i, colours[d], x0 + 30, y0 + 13 + 16 * i, names[d],
                      res["slopes"][d]["median"]))
    # right: deliveries per second, grouped bars
    x0, y0, w, h = panel + 110, 50, width - panel - 150, 360
    groups = [(cap, n) for cap in caps for n in ns]
    values = {(cap, n, d): res["fanout"]["cap:%d/N:%d" % (cap, n)][d]["deliveries_per_s"]["median"] / 1e6
              for cap, n in groups for d in fdesigns}
    ymax = nice(max(values.values()) * 1.15)
    gw = w / len(groups)
    bw = gw * 0.8 / len(fdesigns)
    axes(x0, y0, w, h, ymax, "M deliveries per second: 1 sender + N receiver threads",
         [(x0 + gw * (g + 0.5), "cap %d, N=%d" % grp) for g, grp in enumerate(groups)], label_size=10)
    for g, (cap, n) in enumerate(groups):
        for k, d in enumerate(fdesigns):
            v = values[(cap, n, d)]
            x = x0 + gw * g + gw * 0.1 + bw * k
            svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                       % (x, y0 + h - h * v / ymax, bw - 1, h * v / ymax, colours[d]))
    for k, d in enumerate(fdesigns):
        svg.append('<rect x="%d" y="%d" width="14" height="10" fill="%s"/><text x="%d" y="%d">%s</text>'
                   % (x0 + 10, y0 + 6 + 16 * k, colours[d], x0 + 30, y0 + 15 + 16 * k, names[d]))
    svg.append('<text x="%d" y="%d" text-anchor="middle">fan-out, blocking, lossless; %d messages</text>'
               % (x0 + w // 2, y0 + h + 34, res["meta"]["messages"]))
    svg.append("</svg>")
    path = os.path.join(out_dir, "position-fast.svg")
    with open(path, "w") as f:
        f.write("\n".join(svg) + "\n")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="3 repetitions (unless --reps), 200,000 iterations/messages")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "fast-bench"))
    ap.add_argument("--out-dir", default=None, help="default: <build-dir>/fast-experiment")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--replot", help="tables and plot of an earlier run's fast-results.json, measuring nothing")
    ap.add_argument("--counts-only", action="store_true",
                    help="build, count instructions under callgrind and print that table; no timed runs")
    ap.add_argument("--ablation", action="store_true",
                    help="bcast::fast with one part turned off at a time: callgrind counts, then (unless "
                         "--counts-only) the fan-out beside the bare ring")
    ap.add_argument("--scaling", action="store_true",
                    help="the fan-out table alone at N = 1, 2, 4, 8, 16, threads pinned, with the machine's "
                         "description (machine.txt); for a machine with 17 CPUs or more")
    ap.add_argument("--counters", action="store_true",
                    help="the fan-out of ref, fast, bare (and async-broadcast) under perf stat: futex waits and "
                         "wakes, yields, membarriers and context switches per 1,000 messages")
    args = ap.parse_args()
    if args.quick and "--reps" not in sys.argv:
        args.reps = 3
    if args.ablation:
        run_ablation(args)
        return
    if args.counters:
        run_counters(args)
        return
    out_dir = args.out_dir or os.path.join(args.build_dir, "fast-scaling" if args.scaling else "fast-experiment")
    os.makedirs(out_dir, exist_ok=True)
    if args.counts_only:
        _, counts_bin, _ = build(args.build_dir, False)
        print(callgrind_table(counts(counts_bin)))
        return
    if args.replot:
        with open(args.replot) as f:
            res = json.load(f)
        if "raw" in res:  # analysed again, so that a replot has every ratio this script computes now
            res = dict(res, **{k: v for k, v in analyse(res["raw"], res.get("callgrind")).items() if k != "meta"})
    else:
        t0 = time.time()
        probe_bin, counts_bin, peers_bin = build(args.build_dir, not args.no_peers)
        raw = measure(args, probe_bin, peers_bin)
        cg = None
        if not args.no_callgrind and not args.scaling and shutil.which("valgrind"):
            cg = counts(counts_bin)
        res = analyse(raw, cg)
        res["meta"]["seconds"] = round(time.time() - t0)
        res["meta"]["cores"] = os.cpu_count()
        res["meta"]["load_average_at_end"] = os.getloadavg()
        desc = machine()
        res["meta"]["machine"] = dict(desc, lscpu=None)
        with open(os.path.join(out_dir, "machine.txt"), "w") as f:
            f.write(machine_text(desc) + "\n")
        res["raw"] = raw
        with open(os.path.join(out_dir, "fast-results.json"), "w") as f:
            json.dump(res, f, indent=1)
    text = tables(res)
    with open(os.path.join(out_dir, "fast-tables.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    svg = plot(res, out_dir)
    log("results in %s%s" % (out_dir, (", plot " + svg) if svg else ""))


if __name__ == "__main__":
    main()
