#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""style.python: the project's Python, linted with the standard library only
(Debian's python3; no pyflakes needed). For every tracked *.py file:

  - it compiles (a syntax error names its line);
  - every import is used (a name imported and never read, except on a line
    marked `# noqa`, is named with its line);
  - no module-level function or class is defined twice (the second silently
    replaces the first).

Usage: lint_python.py SOURCE_DIR   (exit 1 and one line per problem; 0 and a summary)
"""
import ast
import os
import subprocess
import sys


def tracked_python(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "*.py"], capture_output=True, text=True, check=True)
    return sorted(out.stdout.split())


def problems_of(path, source):
    try:
        tree = ast.parse(source, path)
    except SyntaxError as e:
        return ["%s:%d: syntax error: %s" % (path, e.lineno or 0, e.msg)]
    lines = source.splitlines()
    found = []
    imported = {}  # name -> line
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if "# noqa" in lines[node.lineno - 1]:
                continue
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                if name != "*":
                    imported.setdefault(name, node.lineno)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
    exported = set()
    for node in tree.body:  # names listed in __all__ count as used
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            exported |= {e.value for e in getattr(node.value, "elts", []) if isinstance(e, ast.Constant)}
    for name, line in sorted(imported.items(), key=lambda item: item[1]):
        if name not in read and name not in exported:
            found.append("%s:%d: '%s' is imported and never used" % (path, line, name))
    defined = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in defined:
                found.append("%s:%d: '%s' is defined again (first at line %d)" % (path, node.lineno, node.name,
                                                                                  defined[node.name]))
            defined.setdefault(node.name, node.lineno)
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[-1])
    root = sys.argv[1]
    files = tracked_python(root)
    problems = []
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            problems += problems_of(rel, f.read())
    for line in problems:
        print(line)
    if problems:
        print("%d problem(s) in %d Python files" % (len(problems), len(files)))
        sys.exit(1)
    print("%d Python files: every one compiles, uses its imports and defines each name once" % len(files))


if __name__ == "__main__":
    main()
