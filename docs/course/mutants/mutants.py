# SPDX-License-Identifier: MIT OR Apache-2.0
"""The course's seeded bugs (mutants) of the toy mailbox: the one place they
are registered. run_mutants.py applies one to a scratch copy of
docs/course/mailbox/, builds the checker named here against that copy, and
requires the checker to fail: the mutant is then KILLED.

Each entry:
  name        what you pass to run_mutants.py
  chapter     where the course uses it
  checker     "relacy" (course_relacy, the model checker's scenarios must fail)
              or "property" (course_properties, the lockstep property must fail)
  what        the bug, in words (printed when it survives)
  code        whole lines of docs/course/mailbox/mailbox.hpp that must occur there
              exactly once; compared without indentation and without a trailing
              // comment, so rewording a comment breaks nothing
  replacement the lines that take their place, as many as `code` has, so that
              every other line keeps its number and a Relacy report's line
              numbers are mailbox.hpp's. Mark the change `MUTANT:`.
  secret      True for an exercise's own answer: the runner shows neither the
              search that killed it nor its replay unless it is named on the
              command line (exercise 4's, solutions.py), and never a property
              mutant's program (exercise 5's, mystery.py)

Several lines: `code` and `replacement` hold them separated by "\n" (see
try-put-wakes-no-take). Take a line more into `code` when one line is not
unique (`return put_locked(value);` is in put and try_put). A replacement that
needs more statements than `code` has lines puts several on one line.

Adding one: a new entry, then
    python3 docs/course/mutants/run_mutants.py --check-anchors
    python3 docs/course/mutants/run_mutants.py --build build/default NAME   # must say KILLED

The entries of exercise 4's solution are in solutions.py, and exercise 5's
mutant in mystery.py, so that this file, which exercise 4 has you edit, does
not give either exercise away.
"""
import os
import sys
from collections import namedtuple

Mutant = namedtuple("Mutant", "name chapter checker what code replacement secret", defaults=(False,))

# What run_mutants.py needs to know of the structure, relative to docs/course:
# the file every mutant edits (its folder is what a mutant build copies); per
# checker, the program the build tree holds and the source it is built from;
# and the file, next to those programs, where CMake writes their compiler flags.
TARGET = "mailbox/mailbox.hpp"
CHECKERS = {"relacy": ("course_relacy", "relacy/scenarios.cpp"),
            "property": ("course_properties", "property/properties.cpp")}
CONFIG = "course_config.json"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # solutions.py and mystery.py, next to this file
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import mystery  # noqa: E402
import solutions  # noqa: E402

MUTANTS = [
    Mutant("put-wakes-no-take", "4, the walkthrough", "relacy",
           "a put stores the value but wakes no take waiting for it (MB-7)",
           code="not_empty_.notify_one();",
           replacement="// MUTANT: the put wakes nobody"),
    Mutant("take-wakes-no-put", "3, the exercise", "relacy",
           "a take frees the slot but wakes no put waiting for it (MB-7)",
           code="not_full_.notify_one();",
           replacement="// MUTANT: the take wakes nobody"),
    *solutions.exercise_4(Mutant),  # close-wakes-no-take, and its mirrors close-wakes-no-put, close-wakes-one-put
    Mutant("close-wakes-one-take", "3, the bounded scheduler", "relacy",
           "close() wakes one waiting take where every one must answer closed (MB-7)",
           code="not_empty_.notify_all();",
           replacement="not_empty_.notify_one(); // MUTANT: one take woken, the others wait on"),
    Mutant("take-if-not-while", "3, the random scheduler", "relacy",
           "take() checks its condition once, so a spurious wakeup returns `empty` (MB-5)",
           code="while (!full_.get() && !closed_.get()) not_empty_.wait(lock);",
           replacement="if (!full_.get() && !closed_.get()) not_empty_.wait(lock); // MUTANT: if, not while"),
    Mutant("try-take-unlocked", "6, why plain fields suffice", "relacy",
           "try_take() reads and writes the fields without the lock",
           code="take_result try_take() {\ntypename Model::unique_lock lock(mutex_);",
           replacement="take_result try_take() {\n// MUTANT: no lock"),
    Mutant("try-put-wakes-no-take", "4, every mutant", "relacy",
           "try_put stores the value but wakes no take waiting for it (MB-7)",
           code="typename Model::unique_lock lock(mutex_);\n"
                "return put_locked(value);",
           replacement="typename Model::unique_lock lock(mutex_);\n"
                       "if (closed_.get()) return status::closed; if (full_.get()) return status::full; "
                       "value_.set(value); full_.set(true); return status::ok; // MUTANT: put_locked without its notify"),
    Mutant("try-take-wakes-no-put", "4, every mutant", "relacy",
           "try_take frees the slot but wakes no put waiting for it (MB-7)",
           code="typename Model::unique_lock lock(mutex_);\n"
                "return take_locked();",
           replacement="typename Model::unique_lock lock(mutex_);\n"
                       "if (!full_.get()) return {closed_.get() ? status::closed : status::empty, 0}; "
                       "full_.set(false); return {status::ok, value_.get()}; // MUTANT: take_locked without its notify"),
    Mutant("close-drops-value", "5, the walkthrough", "property",
           "close() empties the slot, so a value put before the close is lost (MB-4)",
           code="closed_.set(true);",
           replacement="closed_.set(true); full_.set(false); // MUTANT: close throws the stored value away"),
    *mystery.exercise_5(Mutant),
]
