#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Chapter 2's claim, checked: compiles docs/course/tests/zero_cost.cpp to
assembly (-O2) and compares every template_* function with its hand_* twin,
instruction by instruction (local label names aside). Prints one line per
pair; exit status 1 if one pair differs (with the difference).

  compare_asm.py [--cxx COMPILER] [--model NAME] [--summary] [FLAG ...]

--model std_atomic_model compares the atomic build instead (exercise 6):
then the pairs differ, and the line says how many full barriers each has.
--summary prints those lines without the instructions that differ.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

COURSE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def instructions(asm, function):
    """The instructions of one function: its label up to its `.size` line,
    without directives and comments, local labels renamed in order of use."""
    m = re.search(r"^(_Z\w*" + function + r"\w*):[^\n]*\n(.*?)^\s*\.size\s+\1,", asm, re.S | re.M)
    if not m:
        return None
    names = {}
    out = []
    for line in m.group(2).splitlines():
        line = re.sub(r"#.*", "", line).strip()
        if not line or line.startswith("."):
            continue  # a directive or a local label: not an instruction
        out.append(re.sub(r"\.L\w+", lambda x: names.setdefault(x.group(0), f".L{len(names)}"), line))
    return out


def barriers(code):
    """Instructions that order every earlier memory access before every later
    one on x86-64: an xchg with memory (implicitly locked), any lock-prefixed
    instruction, mfence. A seq_cst store compiles to one of them."""
    return sum(1 for line in code if re.match(r"(xchg\w*\s+.*\(|lock\b|mfence)", line))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    ap.add_argument("--model", default="std_model", help="the Model of the templated build (std_model.hpp)")
    ap.add_argument("--summary", action="store_true", help="one line per pair, without the differing instructions")
    ap.add_argument("flags", nargs="*", help="extra compiler flags")
    args = ap.parse_args()
    version = subprocess.run([args.cxx, "--version"], capture_output=True, text=True).stdout
    # g++ merges identical functions at -O2 (one becomes a jump to the other): keep both.
    no_merge = [] if "clang" in version else ["-fno-ipa-icf"]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "zero_cost.s")
        cmd = [args.cxx, "-std=c++20", "-O2", "-S", *no_merge, "-fno-asynchronous-unwind-tables",
               f"-DCOURSE_MODEL={args.model}", *args.flags,
               "-I", COURSE, os.path.join(COURSE, "tests", "zero_cost.cpp"), "-o", out]
        subprocess.run(cmd, check=True)
        with open(out, encoding="utf-8") as f:
            asm = f.read()
    print(f"{version.splitlines()[0]}, -O2, mailbox<{args.model}> against the hand-written mailbox:")
    differ = 0
    for call in ("try_put", "try_take", "close"):
        templated, hand = instructions(asm, "template_" + call), instructions(asm, "hand_" + call)
        if templated is None or hand is None:
            print(f"  {call}: not found in the assembly")
            differ += 1
        elif templated == hand:
            print(f"  {call:<9} identical ({len(hand)} instructions)")
        else:
            differ += 1
            print(f"  {call:<9} DIFFERENT: {len(hand)} and {len(templated)} instructions; full barriers "
                  f"(xchg, lock-prefixed, mfence): hand {barriers(hand)}, template {barriers(templated)}")
            if not args.summary:
                print("\n".join("    " + d for d in difflib.unified_diff(hand, templated, "hand", "template",
                                                                       lineterm="")))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
