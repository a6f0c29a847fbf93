# SPDX-License-Identifier: MIT OR Apache-2.0
"""Exercise 4's solution (docs/course/04-first-mutant.md): the mutant the
exercise has you plant, and its mirrors, which give it away as well. Kept out
of mutants.py, the file the exercise has you edit; mutants.py takes them into
its table at their place. The fields are mutants.py's; `secret`, so that a run
of every mutant does not name the scenarios that kill them (name one to see)."""


def exercise_4(Mutant):
    return [
        Mutant("close-wakes-no-take", "4, the exercise", "relacy",
               "close() wakes the waiting puts but not the waiting takes (MB-7)",
               code="not_empty_.notify_all();",
               replacement="// MUTANT: close wakes no take", secret=True),
        Mutant("close-wakes-no-put", "4, every mutant", "relacy",
               "close() wakes the waiting takes but not the waiting puts (MB-7)",
               code="not_full_.notify_all();",
               replacement="// MUTANT: close wakes no put", secret=True),
        Mutant("close-wakes-one-put", "4, every mutant", "relacy",
               "close() wakes one waiting put where every one must answer closed (MB-7)",
               code="not_full_.notify_all();",
               replacement="not_full_.notify_one(); // MUTANT: one put woken, the others wait on",
               secret=True),
    ]
