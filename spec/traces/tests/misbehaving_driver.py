#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""A driver that breaks the protocol on purpose, for the tests of `bcast-trace drive`'s errors.

    bcast-trace drive --histories 5 -- python3 spec/traces/tests/misbehaving_driver.py MODE

It is the example channel's driver (spec/drivers/python/example_channel.py, run through
bcast_driver.py) with one fault, chosen by MODE:

  --truncated     writes half of an answer line, no newline, then exits (status 0)
  --not-json      writes a line that is not JSON in place of an answer
  --wrong-call    adds an answer to a call that was not sent
  --missing-end   never writes an `end` line, and keeps reading
  --hang          answers program 0, then sleeps forever on the next program
  --crash         exits with status 3 half-way through the answers of the second program
  --no-hello      never says hello (answers as usual)
  --wrong-answer  answers every `len` with 99: a correct checker finds it not linearizable

Every mode but --no-hello and --wrong-answer breaks the protocol (bcast exits 2);
--wrong-answer keeps it and breaks the channel (exit 1).
"""
import json
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "drivers", "python"))
import bcast_driver  # noqa: E402 -- found through the path above
import example_channel  # noqa: E402

MODES = ("--truncated", "--not-json", "--wrong-call", "--missing-end", "--hang", "--crash",
         "--no-hello", "--wrong-answer")


class WrongLen(example_channel.Glue):
    def len(self, h):
        return 99  # the channel's real len is at most its capacity


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        print(f"usage: misbehaving_driver.py {'|'.join(MODES)}", file=sys.stderr)
        sys.exit(2)
    mode, out = sys.argv[1], sys.stdout
    glue = WrongLen() if mode == "--wrong-answer" else example_channel.Glue()
    if mode != "--no-hello":
        bcast_driver.write(bcast_driver.hello(glue, "misbehaving-driver " + mode), out)
        out.flush()
    for index, text in enumerate(text for text in sys.stdin if text.strip()):
        program = json.loads(text)
        if mode == "--hang" and index == 1:
            threading.Event().wait()  # forever: bcast must give up after --timeout-s
        answers = bcast_driver.run_program(glue, program)
        *calls, end = answers
        if mode == "--truncated":
            text = json.dumps(answers[0], separators=(",", ":"))
            out.write(text[:len(text) // 2])
            out.flush()
            sys.exit(0)
        if mode == "--not-json":
            calls = calls[1:]
            out.write("this is not JSON\n")
        if mode == "--wrong-call":  # one past the last call of thread 0 (or of the setup): never sent
            thread = 0 if program["threads"] else -1
            sent = len(program["threads"][0]) if thread == 0 else len(program["setup"])
            calls.append({"program": program["program"], "thread": thread, "call": sent,
                          "invoked_ns": 1, "returned_ns": 2, "result": {"ok": True}})
        if mode == "--crash" and index == 1:
            for answer in calls[:len(calls) // 2]:
                bcast_driver.write(answer, out)
            out.flush()
            os._exit(3)  # no clean-up, as a crash
        for answer in calls:
            bcast_driver.write(answer, out)
        if mode != "--missing-end":
            bcast_driver.write(end, out)
        out.flush()


if __name__ == "__main__":
    main()
