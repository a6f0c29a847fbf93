#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Checks that README.md and docs/ cannot drift from the code (ctest label docs).

  check_docs.py counts   [options]   every count the pages state ("44 typed
      conformance tests", "127 searches", "25 mutants", ...) equals the count
      derived now from the code and the built binaries, and a number before a
      counted noun (mutants, suites, searches, ...) that no phrase derives fails
      unless NOT_COUNTS says why it is not a count; a source file's length
      stated as "`path` (..., N lines)" is its line count; every source reference
      `file.hpp(N)` or `file:N` still points at what its line quotes; every rule
      ID a page names exists in spec/rules.md; the rules spec/rules.md marks
      **Divergence** are the rows of docs/semantics.md's table of deliberate
      divergences and the bullets it marks so, and docs/traces.md accounts for
      each (and for no other).
  check_docs.py commands [options]   every line of every ```sh / ```bash block
      runs, as written, from the repository root, with build/default/ mapped to
      the build tree under test; a line whose trailing comment starts with
      `# slow`, `# placeholder` or `# needs` is not run (the comment says why), nor one
      that configures, builds or installs a tree (NEVER_RUN, with the reason).

Counts come from the binaries' own listings (gtest --gtest_list_tests,
bcast_relacy --list, run_mutants.py --list): a count whose binary was not given
or not built is skipped with a SKIP line, never guessed. Run from ctest
(docs/CMakeLists.txt) or by hand from the repository root:

  python3 docs/check_docs.py counts --build build/default
  python3 docs/check_docs.py commands --build build/default
"""
import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

PAGES = ["README.md", "spec/rules.md"]  # plus docs/*.md, found at run time

WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
WORDS.update({"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50})
NUM = r"(\d[\d,]*|" + "|".join(WORDS) + r")"

# How a stated count is found in prose: (regex, quantity). The regex's first
# group is the number. Only phrases that state a whole count are listed; a
# number in another phrase ("2 threads" of one scenario) is not a count.
COUNT_PHRASES = [
    (NUM + r" typed conformance tests", "conformance"),
    (NUM + r" `spec_tests` tests", "spec_tests"),
    (NUM + r" `impl_tests` tests", "impl_tests"),
    (NUM + r" `stress_tests` tests", "stress_tests"),
    (NUM + r" `async_stress_tests` tests", "async_stress_tests"),
    (NUM + r" (?:Relacy )?suites", "relacy_suites"),
    (NUM + r" (?:Relacy )?searches", "relacy_searches"),
    (NUM + r" in `bcast::fast", "fast_mutants"),  # no closing backtick: the phrase must end on a word
    (r"the " + NUM + r" of `bcast::fast", "fast_mutants"),
    (NUM + r" listed for the hand-written suites", "handwritten_mutants"),
    (r"lock's " + NUM + r" seeded bugs", "lock_mutants"),
    (NUM + r" in bcast's own lock", "lock_mutants"),
    (NUM + r" (?:seeded bugs )?that mutants\.py lists for it(?= \(HISTORIES\))", "history_mutants"),
    (NUM + r" of the channel's own concurrency mutants", "channel_concurrency_mutants"),
    (NUM + r" of the suites are on `bcast::fast", "fast_relacy_suites"),
    (NUM + r" seeded bugs caught on real threads", "history_mutants"),
    (NUM + r" (?:seeded )?mutants", "mutants"),
    (NUM + r" (?:semantic|single-threaded) mutants", "property_mutants"),
    (NUM + r" of them are observable single-threaded", "property_mutants"),
    (NUM + r" named properties", "named_properties"),
    (NUM + r" properties", "properties"),
    (NUM + r" per implementation", "properties"),
    (NUM + r" implementations", "property_implementations"),
    (NUM + r" programs per property in the sanitizer trees", "sanitizer_programs_per_property"),
    (NUM + r" programs per property", "programs_per_property"),
    (NUM + r" `property` tests", "property_ctests"),
    (NUM + r" rules", "rules"),
    (NUM + r" s (?:on every CI run|of libFuzzer)", "fuzz_seconds"),
    (r"(?:fuzzes|runs it) for " + NUM + r" s", "fuzz_seconds"),
]
# A number before one of these nouns is a count of something the code has: a
# phrase above must derive it, or NOT_COUNTS must say why it is not one. So a
# count written a new way fails the check instead of passing unread.
COUNTED_NOUNS = re.compile(r"(?i)(?<![\w.])" + NUM + r" (?:[\w`'’:-]+ ){0,2}?"
                           r"(mutants|seeded bugs|suites|searches|conformance tests|properties|rules)\b")
NOT_COUNTS = {  # the text matched, lower case: why it is not a count to derive
    "one of the mutants": "one named mutant, not a count",
    "one of bcast's mutants": "one named mutant (the walkthrough's), not a count",
    "two wake mutants": "a named pair (the programs of two named mutants)",
    "35 channel mutants": "the table of a dated run, kept as that run's figure",
    "two seeded bugs": "what the first version of a checker caught, a dated result",
    "one list of searches": "the one registry, not a count",
    "six of the mutants": "a dated finding; the six are named in the same sentence",
}
# "2–4 threads" states the range of the Relacy searches' thread counts.
RANGES = [(re.compile(r"(\d)\s*(?:–|-|to)\s*(\d) threads"), "threads", "threads"),
          (re.compile(r"(\d)\s*(?:–|-|to)\s*(\d) preemptions"), "preemptions", "preemptions")]
# "3·10^5 random" states the random scheduler's iterations per search.
POWERS = [(re.compile(r"(\d+)·10\^(\d+) (?:random|sampled)"), "random_iterations")]
UP_TO = [(re.compile(r"up to (\d) preemptions with `--thorough`"), "thorough_preemptions")]
# "`bench/tokio_driver/src/main.rs` (tokio 1.24, 99 lines)": a source file's length, stated in
# the parenthesis right after its path, equals its line count now.
FILE_LINES = re.compile(r"`(?P<path>[\w./-]+\.(?:rs|py|cpp|hpp|h))` \((?:[^()]*?, )?(?P<n>\d[\d,]*) lines\)")


def number(text):
    text = text.lower()
    return WORDS[text] if text in WORDS else int(text.replace(",", ""))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 120), **kw)


# --pages: globs (relative to the repository) that replace the default pages;
# the course checks its own pages this way (docs/course/CMakeLists.txt).
PAGE_GLOBS = []


def pages(repo):
    if PAGE_GLOBS:
        return sorted({os.path.relpath(p, repo) for g in PAGE_GLOBS for p in glob.glob(os.path.join(repo, g))})
    docs = sorted(f"docs/{n}" for n in os.listdir(os.path.join(repo, "docs")) if n.endswith(".md"))
    return PAGES[:1] + docs + PAGES[1:]


def read(repo, rel):
    with open(os.path.join(repo, rel), encoding="utf-8") as f:
        return f.read()


# ---- the counts, derived from code and binaries ------------------------------

def gtest_list(binary):
    """{suite: [test, ...]} from --gtest_list_tests; a typed suite is `name/type`."""
    out = run([binary, "--gtest_list_tests"]).stdout
    suites, current = {}, None
    for line in out.splitlines():
        if not line.strip() or line.startswith("Running main"):
            continue
        if not line.startswith(" "):
            current = line.split()[0].rstrip(".")
            suites[current] = []
        elif current is not None:
            suites[current].append(line.split()[0])
    return suites


class Counts:
    def __init__(self, args):
        self.args, self.values, self.skipped = args, {}, {}

    def skip(self, keys, why):
        for key in keys:
            self.skipped[key] = why

    def binary(self, path, keys, name):
        if not path:
            self.skip(keys, f"{name} is not part of this build")
            return None
        if not os.path.isfile(path):
            self.skip(keys, f"{name} is not built ({path})")
            return None
        return path

    def derive(self):
        a, v = self.args, self.values
        rules = set(re.findall(r"\*\*(R-[A-Z]+-\d+)\*\*", read(a.repo, "spec/rules.md")))
        v["rules"] = (len(rules), "the **R-XXX-N** markers of spec/rules.md")

        if self.binary(a.spec_tests, ["spec_tests", "conformance"], "spec_tests"):
            suites = gtest_list(a.spec_tests)
            v["spec_tests"] = (sum(map(len, suites.values())), "spec_tests --gtest_list_tests")
            typed = {t for s, ts in suites.items() if s.startswith("conformance/") for t in ts}
            v["conformance"] = (len(typed), "distinct tests of the typed suites conformance/* in spec_tests")
        for key, path in (("impl_tests", a.impl_tests), ("stress_tests", a.stress_tests),
                          ("async_stress_tests", a.async_stress_tests)):
            if self.binary(path, [key], key):
                v[key] = (sum(map(len, gtest_list(path).values())), f"{key} --gtest_list_tests")

        keys = ["properties", "named_properties", "property_implementations"]
        if self.binary(a.property_tests, keys, "bcast_property_tests"):
            suites = gtest_list(a.property_tests)
            names = {t for ts in suites.values() for t in ts}
            src = "bcast_property_tests --gtest_list_tests"
            v["properties"] = (len(names), src + " (distinct test names)")
            v["named_properties"] = (len(names - {"conformance"}), src + " (all but `conformance`)")
            v["property_implementations"] = (len(suites), src + " (suites)")
        cm = read(a.repo, "property_tests/CMakeLists.txt")
        main = re.search(r"else\(\)\s*set\(bcast_property_default_sequences (\d+)\)", cm)
        if main:
            v["programs_per_property"] = (int(main.group(1)), "property_tests/CMakeLists.txt, the main tree's default")
        sanitized = re.search(r"if\(bcast_sanitized\)\s*set\(bcast_property_default_sequences (\d+)\)", cm)
        if sanitized:
            v["sanitizer_programs_per_property"] = (int(sanitized.group(1)),
                                                    "property_tests/CMakeLists.txt, the sanitizer trees' default")

        fuzz = re.search(r"set\(BCAST_FUZZ_SECONDS (\d+)", cm)
        if fuzz:
            v["fuzz_seconds"] = (int(fuzz.group(1)), "BCAST_FUZZ_SECONDS in property_tests/CMakeLists.txt")

        keys = ["relacy_suites", "fast_relacy_suites", "relacy_searches", "threads", "preemptions",
                "thorough_preemptions"]
        if self.binary(a.relacy, keys, "bcast_relacy"):
            lines = [l for l in run([a.relacy, "--list"]).stdout.splitlines() if l.strip()]
            suites = {re.sub(r"\+(close|until)$", "", l.split()[0]) for l in lines}
            threads = [int(t) for l in lines for t in re.findall(r"threads=(\d+)", l)]
            bounds = [int(b) for l in lines for b in re.findall(r"bound=(\d+)", l) if b != "0"]
            if bounds:
                v["preemptions"] = ((min(bounds), max(bounds)), "bound= in bcast_relacy --list")
            deep = [int(b) for l in run([a.relacy, "--list", "--thorough"]).stdout.splitlines()
                    for b in re.findall(r"bound=(\d+)", l)]
            if deep:
                v["thorough_preemptions"] = (max(deep), "bound= in bcast_relacy --list --thorough")
            v["relacy_searches"] = (len(lines), "bcast_relacy --list (one line per search)")
            v["relacy_suites"] = (len(suites), "bcast_relacy --list (first word, less +close/+until)")
            v["fast_relacy_suites"] = (sum(1 for name in suites if name.startswith("fast_")),
                                       "bcast_relacy --list (suites named fast_*)")
            if threads:
                v["threads"] = ((min(threads), max(threads)), "threads= in bcast_relacy --list")

        # The random scheduler's iterations per search in the normal mode: the
        # constant the relacy sources choose by mode (quick, thorough, normal).
        for top, _, names in os.walk(os.path.join(a.repo, "model_tests/relacy")):
            for name in names:
                if name.endswith((".cpp", ".hpp")):
                    with open(os.path.join(top, name), encoding="utf-8") as f:
                        m = re.search(r"mode::thorough\s*\?\s*[\d']+\s*:\s*([\d']+)", f.read())
                    if m:
                        v["random_iterations"] = (int(m.group(1).replace("'", "")),
                                                  f"model_tests/relacy/{name}, the normal mode's iterations")
        if "random_iterations" not in v:
            self.skip(["random_iterations"], "no `mode::thorough ? N : M` iteration count in model_tests/relacy")

        mutants = run([sys.executable, os.path.join(a.repo, "model_tests/mutants/run_mutants.py"), "--list"])
        # One line per entry: name, kind (mutant or control), killers.
        rows = [l.split() for l in mutants.stdout.splitlines() if l.strip()]
        rows = [r for r in rows if len(r) >= 3 and r[1] == "mutant"]
        if mutants.returncode != 0 or not rows:
            self.skip(["mutants", "property_mutants", "fast_mutants", "lock_mutants", "handwritten_mutants",
                       "history_mutants", "channel_concurrency_mutants"],
                      "run_mutants.py --list failed: " + mutants.stderr.strip()[-200:])
        else:
            v["mutants"] = (len(rows), "run_mutants.py --list (lines of kind `mutant`)")
            prop = [r for r in rows if "property" in r[2].split(",")]
            v["property_mutants"] = (len(prop), "run_mutants.py --list (mutants a property must kill)")
            # The sub-counts the pages state, by name prefix and killers (mutants.py's families).
            fast = [r for r in rows if r[0].startswith("fast-")]
            lock = [r for r in rows if r[0].startswith(("mutex-", "cv-"))]
            v["fast_mutants"] = (len(fast), "run_mutants.py --list (fast-*)")
            v["lock_mutants"] = (len(lock), "run_mutants.py --list (mutex-*, cv-*)")
            v["handwritten_mutants"] = (
                sum(1 for r in rows if {"relacy", "property"} & set(r[2].split(","))),
                "run_mutants.py --list (killed by relacy or a property)")
            v["history_mutants"] = (sum(1 for r in rows if "histories" in r[2].split(",")),
                                    "run_mutants.py --list (killed by histories)")
            v["channel_concurrency_mutants"] = (
                sum(1 for r in rows if r not in fast and r not in lock and r[2] != "histories"),
                "run_mutants.py --list (neither fast-*, mutex-*, cv-* nor for the histories alone)")

        if a.build and shutil.which("ctest"):
            out = run(["ctest", "--test-dir", a.build, "-N", "-L", "^property$"]).stdout
            m = re.search(r"Total Tests: (\d+)", out)
            if m and int(m.group(1)) > 0:
                v["property_ctests"] = (int(m.group(1)), "ctest -N -L property in " + a.build)
            else:
                self.skip(["property_ctests"], "no `property` tests in " + a.build)
        else:
            self.skip(["property_ctests"], "no build tree given")


def check_counts(args, problems):
    counts = Counts(args)
    counts.derive()
    v, skipped = counts.values, counts.skipped
    for key, why in sorted(skipped.items()):
        print(f"SKIP {key}: {why}")
    for rel in pages(args.repo):
        fenced = False
        for n, line in enumerate(read(args.repo, rel).splitlines(), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if fenced:  # program output and code are not prose
                continue
            taken = []
            for pattern, key in COUNT_PHRASES:
                for m in re.finditer(r"(?i)(?<![\w.])" + pattern + r"\b", line):
                    if any(s <= m.start() < e or s < m.end() <= e for s, e in taken):
                        continue  # already read by a more specific phrase listed before
                    taken.append(m.span())
                    stated = number(m.group(1))
                    if key in v:
                        real, source = v[key]
                        if stated != real:
                            problems.append(f"{rel}:{n}: states {stated} ({m.group(0)!r}), "
                                            f"the code has {real} ({source})")
            for m in COUNTED_NOUNS.finditer(line):
                if any(s <= m.start() < e for s, e in taken) or m.group(0).lower() in NOT_COUNTS:
                    continue
                problems.append(f"{rel}:{n}: states a count no check derives ({m.group(0)!r}): add its phrase "
                                f"to COUNT_PHRASES with a source in check_docs.py, or to NOT_COUNTS with why")
            for regex, key, what in RANGES:
                for m in regex.finditer(line):
                    if key in v:
                        stated = (int(m.group(1)), int(m.group(2)))
                        real, source = v[key]
                        if stated != real:
                            problems.append(f"{rel}:{n}: states {stated[0]}–{stated[1]} {what}, "
                                            f"the Relacy searches use {real[0]}–{real[1]} ({source})")
            for m in FILE_LINES.finditer(line):
                path = os.path.join(args.repo, m.group("path"))
                if not os.path.isfile(path):
                    problems.append(f"{rel}:{n}: states the length of {m.group('path')}, which does not exist")
                    continue
                with open(path, encoding="utf-8") as f:
                    real = sum(1 for _ in f)
                if number(m.group("n")) != real:
                    problems.append(f"{rel}:{n}: states {m.group('n')} lines for {m.group('path')}, it has {real}")
            for regex, key in POWERS + UP_TO:
                for m in regex.finditer(line):
                    stated = int(m.group(1)) * 10 ** int(m.group(2)) if m.lastindex == 2 else int(m.group(1))
                    if key in v and stated != v[key][0]:
                        problems.append(f"{rel}:{n}: states {stated} ({m.group(0)!r}), "
                                        f"the code has {v[key][0]} ({v[key][1]})")
    checked = sorted(k for k in v if k not in skipped)
    print("counts checked:", ", ".join(f"{k}={v[k][0]}" for k in checked))


# ---- source references: file.hpp(N) and file:N ----------------------------------

def source_files(root):
    found = {}
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", "build") and not d.startswith("build")]
        for f in files:
            found.setdefault(f, []).append(os.path.relpath(os.path.join(top, f), root))
    return found


def block_end(lines, start):
    """Last line (0-based) of the brace block that begins at or after `start`,
    or None if a `;` ends the statement first (a declaration or a call)."""
    depth, opened = 0, False
    for i in range(start, min(len(lines), start + 400)):
        code = re.sub(r"//.*", "", lines[i])
        for ch in code:
            if ch == ";" and not opened and depth == 0:
                return None
            if ch == "{":
                depth, opened = depth + 1, True
            elif ch == "}":
                depth -= 1
                if opened and depth == 0:
                    return i
    return None


def inside_function(lines, index, function):
    """Whether 0-based line `index` lies in a definition of `function`."""
    name = function.split("::")[-1]
    pattern = re.compile((r"~" if name.startswith("~") else r"(?:^|[\s*&]|::)(?<!~)")
                         + re.escape(name.lstrip("~")) + r"\s*\(")
    for d in range(index, -1, -1):
        if pattern.search(re.sub(r"//.*", "", lines[d])):
            end = block_end(lines, d)
            if end is not None and end >= index:
                return True
    return False


# What the line a Relacy event points at must contain: std::source_location is
# taken at the direct caller of the traced operation, so a `var` load is a
# get(), a store a set(), a wait a wait() call, a lock a lock object.
TRACE_EVENTS = {
    "store": r"\.(set|store|fetch_\w+|exchange)\(",
    "load": r"\.(get|load|fetch_\w+|exchange)\(",
    "cond_var: wait": r"\.wait(_for|_until)?\(",
    "blocking current thread": r"\.wait(_for|_until)?\(",
    "notify": r"notify_(one|all)\(",
    "mutex:": r"lock",
}
TRACE = re.compile(r"^\[\s*\d+\]\s+\d+:\s+(?P<event>.*?)\s(?P<file>[\w./-]+\.(?:hpp|cpp|h))\((?P<line>\d+)\)")
REF = re.compile(r"(?P<file>[\w./-]+\.(?:hpp|cpp|h|py|sh|cmake|txt))(?:\((?P<p>\d+)\)|:(?P<c>\d+)\b)")


def mutant_names(repo):
    """Names of the seeded mutants: the registry's (model_tests/mutants/mutants.py)
    or, in a tree without one, the *.patch files."""
    here = os.path.join(repo, "model_tests/mutants")
    try:
        registry = load_module(os.path.join(here, "mutants.py"), "mutants")
        return {m.name for m in registry.MUTANTS}
    except (OSError, ImportError, AttributeError, SyntaxError):
        return {f[:-6] for f in os.listdir(here) if f.endswith(".patch")}


def load_module(path, name):
    import importlib.util
    if not os.path.isfile(path):
        raise ImportError(path)
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.pop(0)


def mutated_tree(repo, mutant, cache):
    """A scratch copy of impl/ with the mutant applied (by the mutant runner's
    own code, so the lines are those its Relacy build reports), or a reason."""
    if mutant in cache:
        return cache[mutant]
    root = tempfile.mkdtemp(prefix="check_docs_")
    shutil.copytree(os.path.join(repo, "impl"), os.path.join(root, "impl"))
    here = os.path.join(repo, "model_tests/mutants")
    patch = os.path.join(here, mutant + ".patch")
    try:
        runner = load_module(os.path.join(here, "run_mutants.py"), "check_docs_run_mutants")
        entry = next(m for m in runner.registry.MUTANTS if m.name == mutant)
        for file, text in runner.mutated_files(repo, entry).items():
            with open(os.path.join(root, file), "w", encoding="utf-8") as f:
                f.write(text)
        cache[mutant] = (root, None)
    except (ImportError, AttributeError, StopIteration, SyntaxError) as e:
        if os.path.isfile(patch):
            res = run(["patch", "-s", "-p1", "-d", root, "-i", patch])
            cache[mutant] = (root, None) if res.returncode == 0 else (None, "patch failed: " + res.stdout + res.stderr)
        else:
            cache[mutant] = (None, f"cannot rebuild the file with mutant {mutant} applied ({e!r})")
    return cache[mutant]


def check_references(args, problems):
    repo = args.repo
    files = source_files(repo)
    patches = mutant_names(repo)
    cache, count = {}, 0
    for rel in pages(repo):
        text = read(repo, rel).splitlines()
        mutant, fenced, recent, last_named = None, False, [], None
        for n, line in enumerate(text, 1):
            if line.lstrip().startswith("```"):
                if not fenced:
                    # A trace from a mutant: the prose right before the block says
                    # "mutated"; its lines are those of the file with the mutant
                    # named last (in that prose, else earlier on the page) applied.
                    mutant = last_named if "mutated" in " ".join(recent) else None
                fenced = not fenced
                recent = []
                continue
            recent.append(line)
            for name in re.findall(r"[\w-]+", line):
                if name in patches:
                    last_named = name
            for m in REF.finditer(line):
                token_start = max(line.rfind(c, 0, m.start()) for c in " (<[") + 1
                if "://" in line[token_start:m.end()]:
                    continue  # a URL's path, not a file of this repository
                base = os.path.basename(m.group("file"))
                target = int(m.group("p") or m.group("c"))
                candidates = [c for c in files.get(base, []) if c.endswith(m.group("file"))]
                if not candidates:
                    if "/" in m.group("file") or m.group("p"):
                        problems.append(f"{rel}:{n}: {m.group(0)} names a file that does not exist")
                    continue
                path = sorted(candidates, key=lambda c: (not c.startswith("impl/"), c))[0]
                root = repo
                if fenced and mutant and path.startswith("impl/"):
                    root, why = mutated_tree(repo, mutant, cache)
                    if root is None:
                        print(f"SKIP {rel}:{n}: {why}")
                        continue
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    src = f.read().splitlines()
                count += 1
                where = f"{rel}:{n}: {m.group(0)}" + (f" (mutant {mutant})" if root != repo else "")
                if target < 1 or target > len(src):
                    problems.append(f"{where}: {path} has only {len(src)} lines")
                    continue
                trace = TRACE.match(line.strip()) if fenced else None
                if trace:
                    event = re.sub(r"\([^)]*\)", "", trace.group("event")).strip()
                    function = event.split()[-1] if event else ""
                    if not re.fullmatch(r"~?[A-Za-z_][\w:~]*", function):
                        problems.append(f"{where}: no function named on the trace line")
                    elif not inside_function(src, target - 1, function):
                        problems.append(f"{where}: line {target} of {path} is not inside `{function}`: "
                                        f"{src[target - 1].strip()!r}")
                    else:
                        kind = next((k for k in TRACE_EVENTS if k in event), None)
                        if kind and not re.search(TRACE_EVENTS[kind], src[target - 1]):
                            problems.append(f"{where}: a `{kind}` event, but line {target} of {path} "
                                            f"does not do that: {src[target - 1].strip()!r}")
                    continue
                quoted = [q for q in re.findall(r"`([^`]+)`", line) if not REF.fullmatch(q) and q != m.group(0)]
                if not quoted:
                    problems.append(f"{where}: quotes nothing (`code` on the same line) to check line {target} against")
                elif not any(q in src[target - 1] for q in quoted):
                    problems.append(f"{where}: line {target} of {path} holds {src[target - 1].strip()!r}, "
                                    f"not {' or '.join(map(repr, quoted))}")
    for root, _ in cache.values():
        if root:
            shutil.rmtree(root, ignore_errors=True)
    print(f"source references checked: {count}")


def anchors(path):
    """The anchors GitHub gives a page's headings (lower case, punctuation
    dropped, spaces to hyphens), and those it writes itself (<a id="...">)."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
    found = set(re.findall(r'<a id="([^"]+)"></a>', text))  # an anchor of its own (spec/rules.md: one per rule)
    for heading in re.findall(r"^#+\s+(.*)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")
        found.add(slug)
    return found


def check_links(args, problems):
    """Every relative Markdown link of a page names a file or folder that exists."""
    for rel in pages(args.repo):
        base = os.path.dirname(os.path.join(args.repo, rel))
        for n, line in enumerate(read(args.repo, rel).splitlines(), 1):
            for m in re.finditer(r"\]\(([^)\s]+)\)", line):
                target = m.group(1).split("#")[0]
                path = os.path.normpath(os.path.join(base, target)) if target else os.path.join(args.repo, rel)
                if target and re.match(r"[a-z]+:", target):
                    continue  # a URL
                if not os.path.exists(path):
                    problems.append(f"{rel}:{n}: the link ({m.group(1)}) names a file that does not exist")
                elif "#" in m.group(1) and path.endswith(".md"):
                    anchor = m.group(1).split("#", 1)[1]
                    if anchor not in anchors(path):
                        problems.append(f"{rel}:{n}: the link ({m.group(1)}) names a heading that "
                                        f"{os.path.relpath(path, args.repo)} does not have")


def squash(text):
    return " ".join(re.sub(r"//.*", "", text).split())


def check_quotes(args, problems):
    """A code block whose first line names a file in a comment (`// path/of/file.hpp`)
    quotes that file: every line of it other than comments and `...` is still
    in the file (whitespace and trailing comments aside)."""
    for rel in pages(args.repo):
        lines = read(args.repo, rel).splitlines()
        for i, line in enumerate(lines):
            if not line.strip().startswith("```") or i + 1 >= len(lines):
                continue
            m = re.search(r"//\s*([\w./-]+\.(?:hpp|cpp|h))\b", lines[i + 1])
            if not m or not os.path.isfile(os.path.join(args.repo, m.group(1))):
                continue
            source = {squash(l) for l in read(args.repo, m.group(1)).splitlines()}
            source.discard("")
            for k in range(i + 1, len(lines)):
                if lines[k].strip().startswith("```"):
                    break
                quoted = squash(lines[k])
                if quoted and quoted != "..." and not any(quoted in s for s in source):
                    problems.append(f"{rel}:{k + 1}: quotes {lines[k].strip()!r}, which {m.group(1)} no longer has")


def check_rule_ids(args, problems):
    rules = set(re.findall(r"\*\*(R-[A-Z]+-\d+)\*\*", read(args.repo, "spec/rules.md")))
    for rel in pages(args.repo):
        for n, line in enumerate(read(args.repo, rel).splitlines(), 1):
            for m in re.finditer(r"\bR-([A-Z]+)-(\d+)(?:\.\.(\d+))?", line):
                last = int(m.group(3) or m.group(2))
                for k in range(int(m.group(2)), last + 1):
                    if f"R-{m.group(1)}-{k}" not in rules:
                        problems.append(f"{rel}:{n}: R-{m.group(1)}-{k} is not a rule of spec/rules.md")


# ---- the divergences: one set, three pages -----------------------------------

# spec/rules.md is normative: a rule whose bullet says **Divergence** is one of
# bcast's deliberate differences from async-broadcast. docs/semantics.md's
# table ("Deliberate divergences, and why") explains each of them, no more, no
# fewer, and its bullet of the rule says **Divergence** too; docs/traces.md accounts for each, as a "divergence" row of the
# checker's table or in the paragraph after it ("The other divergences"), and
# has no "divergence" row whose rule is not marked. Each problem names a line.
# A bullet starts with its rule ID in bold: in spec/rules.md after the rule's anchor,
# `- <a id="r-ovf-2"></a>**R-OVF-2**`; in docs/semantics.md linked to it,
# `- [**R-OVF-2**](../spec/rules.md#r-ovf-2)`.
RULE_BULLET = re.compile(r'^- (?:<a id="r-[a-z]+-\d+"></a>)?\[?\*\*(R-[A-Z]+-\d+)\*\*')
RULE_ID = re.compile(r"R-[A-Z]+-\d+")


def marked_divergences(text):
    """{rule: line} of the rules whose bullet (up to the next bullet or heading) says **Divergence."""
    marked, current = {}, None
    for n, line in enumerate(text.splitlines(), 1):
        m = RULE_BULLET.match(line)
        if m:
            current = (m.group(1), n)
        elif line.startswith(("- ", "#")):
            current = None
        if current and "**Divergence" in line:
            marked.setdefault(*current)
    return marked


def table_after(text, heading):
    """{rule: line} of the first column of the first table after the line that starts with `heading`."""
    rows, seen = {}, False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith(heading):
            seen = True
        elif seen and line.startswith("|"):
            for rule in RULE_ID.findall(line.split("|")[1]):
                rows.setdefault(rule, n)
        elif seen and rows:
            break
    return rows


def check_divergences(args, problems):
    if "spec/rules.md" not in pages(args.repo):
        return
    rules = marked_divergences(read(args.repo, "spec/rules.md"))
    semantics_text = read(args.repo, "docs/semantics.md")
    explained = table_after(semantics_text, "**Deliberate divergences, and why:**")
    if not explained:
        problems.append("docs/semantics.md: no table after '**Deliberate divergences, and why:**'")
    for rule in sorted(rules.keys() - explained.keys()):
        problems.append(f"docs/semantics.md: {rule} is a divergence (spec/rules.md:{rules[rule]}) "
                        "and has no row in the table of deliberate divergences")
    restated = marked_divergences(semantics_text)
    for n, line in enumerate(semantics_text.splitlines(), 1):
        m = RULE_BULLET.match(line)
        if m and (m.group(1) in rules) != (m.group(1) in restated):
            problems.append(f"docs/semantics.md:{n}: {m.group(1)}'s bullet "
                            + ("does not say **Divergence**, as spec/rules.md's does" if m.group(1) in rules
                               else "says **Divergence**, which spec/rules.md's does not"))
    for rule in sorted(explained.keys() - rules.keys()):
        problems.append(f"docs/semantics.md:{explained[rule]}: {rule} is in the table of deliberate divergences "
                        "but spec/rules.md does not mark it **Divergence**")
    traced = {}
    lines = read(args.repo, "docs/traces.md").splitlines()
    for n, line in enumerate(lines, 1):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 3 and RULE_ID.fullmatch(cells[1]) and cells[2] == "divergence":
            if cells[1] not in rules:
                problems.append(f"docs/traces.md:{n}: a divergence row for {cells[1]}, "
                                "which spec/rules.md does not mark **Divergence**")
            traced.setdefault(cells[1], n)
        if line.startswith("The other divergences of `spec/rules.md`"):
            for k in range(n - 1, len(lines)):
                if not lines[k].strip():
                    break
                for rule in RULE_ID.findall(lines[k]):
                    traced.setdefault(rule, k + 1)
    for rule in sorted(rules.keys() - traced.keys()):
        problems.append(f"docs/traces.md: {rule} is a divergence (spec/rules.md:{rules[rule]}) that neither "
                        "the divergence table nor 'The other divergences' paragraph accounts for")


# ---- commands: every ```sh / ```bash line runs -------------------------------

NOT_RUN = re.compile(r"#\s*(slow|placeholder|needs)\b")
# Never run, whatever the page says, with the reason: they make or replace a
# build tree, and the tree under test already exists (ctest runs this in it).
NEVER_RUN = [
    (re.compile(r"^\s*(cmake\s+(-S|--preset|--build|--install)|ctest\s+--preset)"), "configures, builds, installs or tests a tree of its own"),
    (re.compile(r"^\s*(bash\s+)?\.ci/"), "the CI scripts install packages and build everything"),
]


def shell_commands(repo):
    """(page, line, command, marker) for every command of every sh/bash block;
    a line ending in `\\` continues on the next."""
    for rel in pages(repo):
        lines, fenced, pending = read(repo, rel).splitlines(), False, None
        for n, line in enumerate(lines, 1):
            stripped = line.strip()
            if stripped.startswith("```"):
                fenced = stripped[3:].strip() in ("sh", "bash", "shell") if not fenced else False
                continue
            if not fenced or not stripped or stripped.startswith("#"):
                continue
            if pending:
                start, text = pending
                text += "\n" + line
            else:
                start, text = n, line
            if stripped.endswith("\\"):
                pending = (start, text)
                continue
            pending = None
            marker = NOT_RUN.search(text)
            yield rel, start, text.strip(), marker


def check_commands(args, problems):
    build = os.path.abspath(args.build)
    ran = skipped = 0
    for rel, n, command, marker in shell_commands(args.repo):
        where = f"{rel}:{n}"
        never = next((why for regex, why in NEVER_RUN if regex.search(command)), None)
        if marker or never:
            skipped += 1
            print(f"not run ({marker.group(1) if marker else never}): {where}: {command.splitlines()[0]}")
            continue
        if re.search(r"<[^<>\s][^<>]*>", command):
            problems.append(f"{where}: a placeholder <...> in a command that is run; "
                            f"mark it `# placeholder: why` or make it runnable: {command}")
            continue
        # The pages use the default preset's tree; run against the tree under test.
        mapped = re.sub(r"(?<![\w/])build/default(?=/|\s|$)", build, command)
        print(f"run: {where}: {mapped.splitlines()[0]}", flush=True)
        # Its own process group, so that a command past the timeout is stopped
        # with everything it started (libFuzzer's -jobs workers, say).
        proc = subprocess.Popen(["bash", "-c", "set -o pipefail; " + mapped], cwd=args.repo, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            problems.append(f"{where}: ran past {args.timeout} s; mark it `# slow: why` or make it quicker: {command}")
            continue
        ran += 1
        if proc.returncode != 0:
            tail = out.strip().splitlines()[-8:]
            problems.append(f"{where}: exit status {proc.returncode}: {command}\n      " + "\n      ".join(tail))
    print(f"commands run: {ran}; not run (marked, or a tree of their own): {skipped}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["counts", "commands"])
    p.add_argument("--repo", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p.add_argument("--build", help="the build tree under test (build/default in the pages)")
    for name in ("spec-tests", "impl-tests", "stress-tests", "async-stress-tests", "property-tests", "relacy"):
        p.add_argument("--" + name, help=f"path of the {name} binary (default: under --build)")
    p.add_argument("--timeout", type=int, default=120, help="seconds per command (commands mode)")
    p.add_argument("--pages", nargs="+", default=[], metavar="GLOB",
                   help="check these pages (globs relative to the repository) instead of README.md, docs/*.md "
                        "and spec/rules.md")
    args = p.parse_args()
    PAGE_GLOBS[:] = args.pages
    args.repo = os.path.abspath(args.repo)
    defaults = {"spec_tests": "spec/tests/spec_tests", "impl_tests": "impl/tests/impl_tests",
                "stress_tests": "model_tests/stress/stress_tests",
                "async_stress_tests": "model_tests/stress/async_stress_tests",
                "property_tests": "property_tests/bcast_property_tests",
                "relacy": "model_tests/relacy/bcast_relacy"}
    for key, rel in defaults.items():
        if getattr(args, key) is None and args.build:
            setattr(args, key, os.path.join(args.build, rel))
    problems = []
    if args.mode == "counts":
        check_counts(args, problems)
        check_references(args, problems)
        check_rule_ids(args, problems)
        check_divergences(args, problems)
        check_links(args, problems)
        check_quotes(args, problems)
    else:
        if not args.build:
            p.error("commands needs --build")
        check_commands(args, problems)
    for problem in problems:
        print("FAIL " + problem)
    if problems:
        print(f"{len(problems)} problem(s): fix the page (or the code) so that they agree")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
