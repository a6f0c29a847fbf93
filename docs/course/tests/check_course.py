#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Runs the commands of the course's pages (docs/course/*.md, and the
exercises' solutions, docs/course/solutions/*.md) and checks that
they print what the pages show (the ctests course.commands, course.walkthrough
and course.all_commands; docs/course/CMakeLists.txt).

Every line of every ```sh block runs from the repository root, with
build/default/ standing for the build tree under test (--build), unless its
trailing comment says otherwise:
  # slow: ...         run only with --slow (a mutant build, a long search)
  # placeholder: ...  never run (it names something of yours)
  # needs: ...        never run (it needs something the tests do not set up)
  # ... exits N ...   must exit with status N (default 0)
A line runs as a reader's bash runs it, without pipefail: the status it must
have is the shell's, the last stage's for a pipeline (so a page cannot say
`exits 1` of a pipeline that ends in grep). A pipeline whose earlier stage
fails is a problem too: the page's command would hide that failure.
A line that configures or builds a tree (cmake --preset, cmake --build) is
never run: the tree under test exists. A line whose program (gdb, say) is not
installed is skipped with a note, and so is a gdb line where gdb may not trace
(a container without ptrace).

A ```python block whose first line is `# docs/course/FILE.py (excerpt)` quotes
that file: each of its lines must be in the file (spaces aside). (C++ blocks
that name their file the same way are checked by docs/check_docs.py, the
ctest course.pages.)

A ```text block that directly follows a ```sh block (nothing but blank lines
between) shows the output of that block's last command: each of its lines
but `...` must appear in the output, in that order (runs of blanks, tabs
included, count as one space; build/default as above; `...` inside a line
stands for anything, such as an address or a path). Where the block leaves
lines of the output out, before its first line, between two of its lines or
after its last, it must say so with a line `...` there (blank lines of the
output aside), so that a reader can tell an excerpt from the whole output
(docs/course/README.md, "How the course is checked"). A text block after
prose is an example, not checked: measured times, say.

  check_course.py --build DIR [--slow] [--match TEXT ...] [--timeout S]
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
NEVER = re.compile(r"#\s*(placeholder|needs)\b")
SLOW = re.compile(r"#\s*slow\b")
EXITS = re.compile(r"#.*\bexits (\d+)")
STAGES = "__course_pipeline_stages"  # the marker of the line that reports a pipeline's statuses
BUILDS_A_TREE = re.compile(r"^\s*(cmake\s+(-S|--preset|--build|--install)|ctest\s+--preset)")


def blocks(page):
    """(commands, expected) per sh block: commands as (line number, text);
    expected: the lines of the text block right after it, or None."""
    with open(page, encoding="utf-8") as f:
        lines = f.read().splitlines()
    i, found = 0, []
    while i < len(lines):
        if lines[i].strip() not in ("```sh", "```bash"):
            i += 1
            continue
        commands, pending = [], None
        i += 1
        while i < len(lines) and not lines[i].strip().startswith("```"):
            text = lines[i]
            if pending:
                pending = (pending[0], pending[1] + "\n" + text)
            elif text.strip() and not text.strip().startswith("#"):
                pending = (i + 1, text)
            if pending and not text.rstrip().endswith("\\"):
                commands.append(pending)
                pending = None
            i += 1
        i += 1
        j = i
        while j < len(lines) and not lines[j].strip():
            j += 1
        expected = None
        if j < len(lines) and lines[j].strip() == "```text":
            expected, j = [], j + 1
            while j < len(lines) and not lines[j].strip().startswith("```"):
                expected.append(lines[j])
                j += 1
        found.append((commands, expected))
    return found


def python_quotes(page, rel):
    """Problems with the ```python blocks that quote a file of the course."""
    with open(page, encoding="utf-8") as f:
        lines = f.read().splitlines()
    problems = []
    for i, line in enumerate(lines):
        if line.strip() != "```python" or i + 1 >= len(lines):
            continue
        named = re.match(r"\s*#\s*(docs/course/[\w./-]+\.py)\b", lines[i + 1])
        if not named:
            continue
        with open(os.path.join(REPO, named.group(1)), encoding="utf-8") as f:
            source = {squash(s) for s in f.read().splitlines()}
        for k in range(i + 2, len(lines)):
            if lines[k].strip().startswith("```"):
                break
            if squash(lines[k]) and squash(lines[k]) != "..." and squash(lines[k]) not in source:
                problems.append(f"{rel}:{k + 1}: quotes {lines[k].strip()!r}, which {named.group(1)} does not have")
    return problems


def squash(line):
    return " ".join(line.split())


def matches(want, have):
    """An expected line matches an output line: equal, or where the expected
    line has `...` inside it, anything may stand there (an address, a path)."""
    if "..." not in want:
        return want == have
    return re.fullmatch(".*".join(re.escape(part) for part in want.split("...")), have) is not None


def missing_output(expected, output, build):
    """What is wrong with a page's output block against the real output, or
    None: an expected line not found (in order), or lines of the output left
    out where the block has no `...` line."""
    have = [squash(line) for line in output.splitlines()]
    have = [line for line in have if line]  # blank lines are layout, never a cut
    at, previous, cut = 0, None, False  # previous: the output line the last block line matched
    for line in expected:
        want = squash(map_build(line, build))
        if not want:
            continue
        if want == "...":
            cut = True
            continue
        while at < len(have) and not matches(want, have[at]):
            at += 1
        if at == len(have):
            return f"shows {line.strip()!r}, which it did not print (in that order)"
        if at > (0 if previous is None else previous + 1) and not cut:
            where = "before its first line" if previous is None else f"before {line.strip()!r}"
            return f"leaves out {at - (0 if previous is None else previous + 1)} line(s) {where} without a `...` line"
        previous, cut, at = at, False, at + 1
    if previous is not None and previous + 1 < len(have) and not cut:
        return f"leaves out {len(have) - previous - 1} line(s) after its last without a `...` line"
    return None


def map_build(text, build):
    return re.sub(r"(?<![\w/])build/default(?=/|\s|$|')", build, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="the build tree under test (build/default in the pages)")
    ap.add_argument("--slow", action="store_true", help="run the `# slow` commands too")
    ap.add_argument("--match", nargs="+", default=[], help="run only the commands that contain one of these")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per command")
    args = ap.parse_args()
    build = os.path.relpath(os.path.abspath(args.build), REPO)
    if build.startswith(".."):
        build = os.path.abspath(args.build)
    problems, ran, skipped = [], 0, 0
    pages = glob.glob(os.path.join(REPO, "docs", "course", "*.md")) + \
        glob.glob(os.path.join(REPO, "docs", "course", "solutions", "*.md"))  # the exercises' solutions
    for page in sorted(pages):
        rel = os.path.relpath(page, REPO)
        problems += python_quotes(page, rel)
        for commands, expected in blocks(page):
            for k, (n, command) in enumerate(commands):
                where = f"{rel}:{n}"
                first = command.splitlines()[0]
                program = next((w for w in command.split() if "=" not in w), "")
                why = ("marked" if NEVER.search(command) else
                       "slow" if SLOW.search(command) and not args.slow else
                       "builds a tree" if BUILDS_A_TREE.search(command) else
                       "not selected" if args.match and not any(m in command for m in args.match) else
                       f"{program} is not installed" if "/" not in program and not shutil.which(program) else None)
                if why:
                    skipped += 1
                    if why != "not selected":
                        print(f"not run ({why}): {where}: {first}")
                    continue
                mapped = map_build(command, build)
                print(f"run: {where}: {mapped.splitlines()[0]}", flush=True)
                try:
                    # The last pipeline's stages, on a line of their own; the shell's own status after it.
                    script = mapped + '\n__stages=("${PIPESTATUS[@]}"); printf "\\n%s %s\\n" ' + \
                        STAGES + ' "${__stages[*]}"; exit "${__stages[-1]}"'
                    done = subprocess.run(["bash", "-c", script], cwd=REPO, text=True,
                                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    problems.append(f"{where}: ran past {args.timeout} s: {first}")
                    continue
                if program == "gdb" and re.search(r"ptrace: Operation not permitted|Couldn't get registers",
                                                  done.stdout):
                    skipped += 1  # a container without ptrace: gdb is there but cannot trace
                    print(f"not run (gdb cannot trace processes here): {where}: {first}")
                    continue
                ran += 1
                stages = re.findall(r"^" + STAGES + r" ([\d ]+)$", done.stdout, re.M)
                stages = [int(x) for x in stages[-1].split()] if stages else []
                done.stdout = re.sub(r"\n?^" + STAGES + r" [\d ]*\n?", "", done.stdout, flags=re.M)
                if any(stages[:-1]):
                    problems.append(f"{where}: a stage of the pipeline fails (statuses {stages}), which its "
                                    f"last stage hides: {first}")
                    continue
                want_status = int(EXITS.search(command).group(1)) if EXITS.search(command) else 0
                tail = "\n      ".join(done.stdout.strip().splitlines()[-12:])
                if done.returncode != want_status:
                    problems.append(f"{where}: exit status {done.returncode}, the page says {want_status}: "
                                    f"{first}\n      {tail}")
                elif expected is not None and k == len(commands) - 1:
                    wrong = missing_output(expected, done.stdout, build)
                    if wrong is not None:
                        problems.append(f"{where}: the output block of {first!r} {wrong}. It printed (the end):"
                                        f"\n      {tail}")
    for problem in problems:
        print("FAIL " + problem)
    print(f"commands run: {ran}; not run: {skipped}; problems: {len(problems)}")
    if ran == 0 and args.match:
        print("FAIL nothing matched --match")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
