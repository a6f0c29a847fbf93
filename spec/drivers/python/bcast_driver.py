# SPDX-License-Identifier: MIT OR Apache-2.0
"""bcast's driver library for Python (docs/drivers.md, protocol version 1; standard library only).

It says hello, reads one program a line from stdin, runs it on real threads and writes the answers
to stdout. You write the glue: an object with `channel(capacity) -> (sender, receiver)` and one
method per operation you have, named as the operation (OPERATIONS), taking the handle first:

    try_broadcast(h, message)  broadcast(h, message, timeout_s)  try_recv(h)  recv(h, timeout_s)
    clone_receiver(h) -> new handle (as every call that makes one: deactivate, activate, ...)
    set_capacity(h, n)  set_overflow(h, flag)  drop_sender(h)  close(h) -> bool  len(h) -> int ...

`broadcast` and `recv` also serve `broadcast_timed` and `recv_timed` (timeout 0: already passed).
What a method does becomes the result object (docs/traces.md, "Results"):

    a send returns None / the message it evicted  -> {"ok":true} / {"ok":true,"evicted":M}
    raise SendError(code, message)                -> {"error":code,"message":M}
                                                     code: full, closed, inactive, timed_out
    a receive returns the message                 -> {"ok":true,"message":M}
    raise RecvError(code), RecvError(code, n)     -> {"error":code}, {"error":"overflowed","missed":n}
                                                     code: empty, closed, timed_out, overflowed
    close and the queries return an int or bool   -> {"value":V}
    set_capacity(h, 0) raises ValueError          -> {"error":"invalid_argument"}
    any other operation returns                   -> {"ok":true}

A Python driver cannot see a Condition's notify, so it never answers "woken" (docs/drivers.md): bcast
then relies on the silence around a wait and on re-running a program to confirm a lost wakeup.
A missing method, or one raising NotImplementedError, makes the operation unsupported; any other
exception is a failure of the implementation ({"program":N,"error":TEXT}). Then call
`bcast_driver.serve(MyGlue(), "my-channel 1.0")` and run `bcast-trace drive -- python3 my_driver.py`;
spec/drivers/python/example_channel.py is a complete example.
"""
import json
import sys
import threading
import time

# The operations a history records (`bcast-trace operations`, rows with "recorded":true).
OPERATIONS = (
    "try_broadcast", "broadcast", "broadcast_timed", "try_recv", "recv", "recv_timed",
    "clone_receiver", "new_receiver", "drop_receiver", "drop_sender", "deactivate",
    "activate_cloned", "drop_inactive", "set_capacity", "set_overflow", "set_await_active",
    "close", "clone_sender", "new_sender", "activate", "clone_inactive", "len", "is_empty",
    "is_full", "capacity", "receiver_count", "inactive_receiver_count", "sender_count",
    "is_closed", "overflow", "await_active", "unread", "missed",
)
SENDS = {"try_broadcast", "broadcast", "broadcast_timed"}
RECEIVES = {"try_recv", "recv", "recv_timed"}
BOUNDED = {"broadcast", "recv"}  # run with the program's bound_us; a thread stops after one that used it up
CONSUMES = {"drop_sender", "drop_receiver", "drop_inactive", "deactivate", "activate"}
ANSWERS_VALUE = {"close", "len", "is_empty", "is_full", "capacity", "receiver_count",
                 "inactive_receiver_count", "sender_count", "is_closed", "overflow",
                 "await_active", "unread", "missed"}
METHOD = {"broadcast_timed": "broadcast", "recv_timed": "recv"}  # one glue method for both forms
WAKER_PATIENCE_S = 0.05  # docs/drivers.md: the waker waits at most 50 ms for the others


class SendError(Exception):
    """A failed send. code: "full", "closed", "inactive" or "timed_out"; message: handed back."""
    def __init__(self, code, message):
        super().__init__(f"send failed: {code}")
        self.code, self.message = code, message


class RecvError(Exception):
    """A failed receive. code: "empty", "closed", "timed_out" or "overflowed" (missed: how many lost)."""
    def __init__(self, code, missed=0):
        super().__init__(f"receive failed: {code}")
        self.code, self.missed = code, missed


def method_of(glue, op):
    """The glue's method for `op`, or None: only the operation names are looked up, never helpers."""
    return getattr(glue, METHOD.get(op, op), None) if op in OPERATIONS else None


def _lacking(*_):
    """Stands in for a method the glue lacks: the call is answered unsupported."""
    raise NotImplementedError


def hello(glue, implementation, profile=None):
    """The driver's first line: what is checked, and the operations the glue has no method for."""
    line = {"format": "bcast-driver", "version": 1, "implementation": implementation,
            "unsupported": [op for op in OPERATIONS if method_of(glue, op) is None]}
    if profile is not None:
        line["profile"] = profile
    return line


def arguments(call, bound_us):
    """The arguments after the handle, in the order the glue's methods take them."""
    args = [call["message"]] if "message" in call else []
    if call["op"] in BOUNDED:
        args.append(bound_us / 1e6)
    if "timeout_us" in call:
        args.append(call["timeout_us"] / 1e6)
    if "arg" in call:
        args.append(call["arg"])
    return args


def result_of(op, outcome):
    """The result object of a call that returned `outcome` (a value, or the exception it raised);
    None when the exception is no answer of the operation: the implementation failed."""
    if isinstance(outcome, SendError):
        return {"error": outcome.code, "message": outcome.message}
    if isinstance(outcome, RecvError):
        return {"error": "overflowed", "missed": outcome.missed} if outcome.code == "overflowed" else {"error": outcome.code}
    if isinstance(outcome, ValueError) and op == "set_capacity":
        return {"error": "invalid_argument"}  # R-CAP-2
    if isinstance(outcome, Exception):
        return None
    if op in SENDS:
        return {"ok": True} if outcome is None else {"ok": True, "evicted": outcome}
    if op in RECEIVES:
        return {"ok": True, "message": outcome}
    return {"value": outcome} if op in ANSWERS_VALUE else {"ok": True}


def is_asleep(native_id):
    """Whether the thread sleeps in the kernel (Linux: state S). Where that cannot be seen (no /proc,
    or the thread has ended), True: the waker then waits only for the others' first invocation.
    A Python thread waiting for the GIL is asleep too; the look only shapes contention."""
    try:
        with open(f"/proc/self/task/{native_id}/stat") as stat:
            text = stat.read()
    except OSError:
        return True
    close = text.rfind(")")  # the thread's name, in parentheses, may hold anything
    return close == -1 or text[close + 2:close + 3] == "S"


def run_program(glue, program):
    """Runs one program; returns its answer objects, the `end` (or `error`) object last."""
    number, threads, waker, bound_us = program["program"], program["threads"], program.get("waker"), program["bound_us"]
    answers, failures = [], []  # list.append is atomic: the threads share these
    handles = {}  # number -> handle object; each number is used by one thread, never reused
    # Per thread, for the waker: None before its first call is invoked, its native id while that
    # call runs, 0 once it has returned (or the thread has ended).
    first_call = [None] * len(threads)

    def others_ready(me):
        return all(first_call[t] is not None and (first_call[t] == 0 or is_asleep(first_call[t]))
                   for t in range(len(threads)) if t != me)

    def run_calls(thread, calls):
        if thread == waker:
            give_up = time.monotonic() + WAKER_PATIENCE_S
            while not others_ready(thread) and time.monotonic() < give_up:
                time.sleep(0.0001)  # a pause, not a spin: the others need the GIL to get to sleep
        try:
            for index, call in enumerate(calls):
                op, first, me = call["op"], thread >= 0 and index == 0, threading.get_native_id()
                where = {"program": number, "thread": thread, "call": index}
                method = method_of(glue, op) or _lacking
                args = [handles[call["handle"]]] + arguments(call, bound_us)
                invoked = time.monotonic_ns()  # nothing but the call between the two clock reads...
                if first:
                    first_call[thread] = me  # ...but this: the waker may go once it is invoked
                try:
                    outcome = method(*args)
                except Exception as error:  # noqa: BLE001 -- sorted out below, after the clock
                    outcome = error
                returned = time.monotonic_ns()
                if first:
                    first_call[thread] = 0
                if isinstance(outcome, NotImplementedError):
                    answers.append({**where, "unsupported": True})
                    return  # bcast drops the program; later calls may need a handle this one would make
                result = result_of(op, outcome)
                if result is None:
                    failures.append(f"thread {thread} call {index} ({op}): {type(outcome).__name__}: {outcome}")
                    return
                if not isinstance(outcome, Exception):
                    if op in CONSUMES:
                        del handles[call["handle"]]
                    if "new" in call:
                        handles[call["new"]] = outcome
                answers.append({**where, "invoked_ns": invoked, "returned_ns": returned, "result": result})
                if thread >= 0 and op in BOUNDED and returned - invoked >= bound_us * 1000:
                    return  # it may have been stuck (bcast decides): the thread makes no more calls
        except Exception as error:  # noqa: BLE001 -- a program this library cannot run
            failures.append(f"thread {thread}: {type(error).__name__}: {error}")
        finally:
            if thread >= 0:
                first_call[thread] = 0  # a thread that has ended waits no more

    try:
        handles[0], handles[1] = glue.channel(program["capacity"])
    except Exception as error:  # noqa: BLE001
        return [{"program": number, "error": f"channel({program['capacity']}): {type(error).__name__}: {error}"}]
    run_calls(-1, program["setup"])  # on this thread, before the others start
    setup_unsupported = any(answer.get("unsupported") for answer in answers)
    if not failures and threads and not setup_unsupported:  # bcast drops such a program: the threads' handles were never made
        start = threading.Barrier(len(threads))  # without a waker, the threads start together

        def thread_main(t):
            start.wait()
            run_calls(t, threads[t])
        workers = [threading.Thread(target=thread_main, args=(t,)) for t in range(len(threads))]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    last = {"program": number, "error": "; ".join(failures)} if failures else {"program": number, "end": True}
    return answers + [last]


def write(line, out):
    """One protocol line: compact JSON and a newline."""
    out.write(json.dumps(line, separators=(",", ":")) + "\n")


def serve(glue, implementation, profile=None, stdin=None, stdout=None):
    """Speaks the protocol until stdin ends: hello, then the answers to each program."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    # Python passes the GIL every 5 ms by default; a woken waiter then runs late enough to look
    # slow next to the 20 ms bound. A shorter interval lets it run soon after it is woken.
    sys.setswitchinterval(0.0005)
    write(hello(glue, implementation, profile), stdout)
    stdout.flush()
    for line in stdin:
        if line.strip():
            for answer in run_program(glue, json.loads(line)):
                write(answer, stdout)  # only now: a write during the run would change its timing
            stdout.flush()
