#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""What each position design compiles to: assembly diffs against the plain position.

Compiles bench/position_asm_probe.cpp to assembly (-O2, the benchmark's flags)
and, for each atomic design, prints a unified diff of its functions against the
plain design's: `position_probe` (one out-of-line try_recv) and
`position_probe_loop` (try_recv inlined into a loop over receivers, the
benchmark's shape). Local labels and register names are normalised (%R), so
that register allocation does not hide the real differences, and the summary
line counts instructions added and removed regardless of their order (the
compiler also reorders blocks between designs).

Usage: position_asm.py [--compiler c++] [--out FILE.s] [--verbose]
Prints the diffs; exits non-zero if the compiler fails.
"""
import argparse
import collections
import difflib
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DESIGN_OF = {"bcast::plain_position": "plain", "bcast_bench::fetch_add_position": "rmw", "(std::memory_order)0": "relaxed",
             "(std::memory_order)4": "acq_rel", "(std::memory_order)5": "seq_cst"}
FUNCTION = re.compile(r"^\S.*\b(position_probe(?:_loop)?)<bcast::basic_std_primitives<"
                      r"(bcast::plain_position|bcast::atomic_position<(\(std::memory_order\)\d)>|bcast_bench::fetch_add_position)")


POSITION_TYPE = re.compile(r"bcast::plain_position|bcast::atomic_position<\(std::memory_order\)\d>|bcast_bench::fetch_add_position")


def functions(assembly):
    """{(probe, design): [instruction lines]} from demangled assembly."""
    found, current = {}, None
    for line in assembly.splitlines():
        match = FUNCTION.match(line)
        if match:
            design = DESIGN_OF[match.group(3) or match.group(2)]
            current = found.setdefault((match.group(1), design), [])
        elif current is not None and line.startswith("\t") and not line.startswith("\t."):
            instruction = re.sub(r"\.L\d+", ".L", line.strip())
            # A call into another instantiation names the design: the same callee for every design.
            instruction = re.sub(r"\s+>", ">", POSITION_TYPE.sub("<position>", instruction))
            current.append(re.sub(r"%[a-z0-9]+", "%R", instruction))
        elif current is not None and line.startswith("\t.cfi_endproc"):
            current = None
    return found


def diffs(compiler="c++", keep_assembly=None):
    with tempfile.TemporaryDirectory() as work:
        assembly_path = keep_assembly or os.path.join(work, "probe.s")
        subprocess.run([compiler, "-O2", "-DNDEBUG", "-std=c++20", "-I", os.path.join(REPO, "impl", "include"),
                        "-I", os.path.join(REPO, "bench"),
                        "-S", "-fno-asynchronous-unwind-tables", "-o", assembly_path,
                        os.path.join(REPO, "bench", "position_asm_probe.cpp")], check=True)
        demangled = subprocess.run(["c++filt"], stdin=open(assembly_path), capture_output=True, text=True,
                                   check=True).stdout
    found = functions(demangled)
    result = {}
    for probe in ("position_probe", "position_probe_loop"):
        plain = found[(probe, "plain")]
        for design in ("relaxed", "acq_rel", "seq_cst", "rmw"):
            other = found[(probe, design)]
            added = collections.Counter(other) - collections.Counter(plain)
            removed = collections.Counter(plain) - collections.Counter(other)
            result["%s/%s" % (probe, design)] = {
                "instructions_plain": len(plain), "instructions_design": len(other),
                "added": dict(added), "removed": dict(removed),
                "diff": list(difflib.unified_diff(plain, other, "plain", design, n=1, lineterm=""))}
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiler", default="c++")
    parser.add_argument("--out", help="keep the assembly here")
    parser.add_argument("--verbose", action="store_true", help="also print the unified diffs")
    args = parser.parse_args()
    for name, entry in diffs(args.compiler, args.out).items():
        print("== %s: %d static instructions (plain: %d)" % (name, entry["instructions_design"], entry["instructions_plain"]))
        print("   added:   " + (", ".join("%dx %s" % (n, i.replace("\t", " ")) for i, n in entry["added"].items()) or "-"))
        print("   removed: " + (", ".join("%dx %s" % (n, i.replace("\t", " ")) for i, n in entry["removed"].items()) or "-"))
        if args.verbose:
            print("\n".join(entry["diff"][2:]) if entry["diff"] else "   (identical to plain)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
