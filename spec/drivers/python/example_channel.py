#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""A small broadcast channel in Python, and its driver for `bcast-trace drive` (docs/drivers.md).

    python3 spec/drivers/python/example_channel.py [--lost-wakeup]

speaks the driver protocol on stdin/stdout; bcast starts it:

    build/default/spec/traces/bcast-trace drive --histories 200 --seed 3 -- \\
        python3 spec/drivers/python/example_channel.py

The channel (`channel(capacity) -> (Sender, Receiver)`) follows spec/rules.md exactly as the
executable model (spec/include/bcast/spec/model.hpp) does, every operation of a history included:
a bounded queue whose messages go to every active receiver, overflow mode (evict the oldest, report
`overflowed` with the exact count), close, inactive receivers and await_active. One lock guards
all; senders and receivers wait on two conditions of it, every wait bounded by the call's timeout.
With --lost-wakeup one line is wrong on purpose: a send wakes one waiting receiver, not all of
them, and bcast must find the lost wakeup (R-WAKE-1).

The glue, `Glue` at the end, is all a driver needs besides bcast_driver.py: one method per operation.
"""
import argparse
import collections
import threading

import bcast_driver

LOST_WAKEUP = False  # set by --lost-wakeup: the seeded bug in _Channel.queue_message_locked
# Set by --early-timeout: the seeded bug of a time conversion that truncates a timeout to whole
# milliseconds (0.7 ms becomes 0), so a timed wait gives up before its deadline. Only a history
# that records each timed call's deadline (version 2) can tell: without it a timed_out answer may
# take effect anywhere in the call, its invocation included.
EARLY_TIMEOUT = False


def _waited(timeout):
    """The timeout the waits use: the caller's, or (the seeded bug) truncated to whole milliseconds."""
    return int(timeout * 1000) / 1000 if EARLY_TIMEOUT else timeout


class SendError(Exception):
    """reason: "full", "closed", "inactive" or "timed_out"; message: the message, handed back (R-SEND-5)."""
    def __init__(self, reason, message):
        super().__init__(reason)
        self.reason, self.message = reason, message


class RecvError(Exception):
    """reason: "empty", "closed", "timed_out" or "overflowed"; missed: how many were lost (R-OVF-2)."""
    def __init__(self, reason, missed=0):
        super().__init__(reason)
        self.reason, self.missed = reason, missed


class _Channel:
    """The state all handles of one channel share. Methods named *_locked expect the lock held."""

    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")  # R-CAP-1
        self.lock = threading.Lock()
        self.room = threading.Condition(self.lock)  # senders wait here: for room or an active receiver
        self.news = threading.Condition(self.lock)  # receivers wait here: for a message or close
        self.queue = collections.deque()  # queue[k] has sequence number head + k
        self.head = 0
        self.capacity, self.overflow, self.await_active, self.closed = capacity, False, True, False
        self.receivers = set()  # the active receivers; each keeps its position (next sequence number)
        self.senders = self.inactive = 0

    def tail(self):
        return self.head + len(self.queue)

    def send_blocks_locked(self):  # R-SEND-3, R-ACT-2: the model's broadcast_would_block()
        if self.closed:
            return False
        if not self.receivers:
            return self.await_active
        return len(self.queue) >= self.capacity and not self.overflow

    def queue_message_locked(self, message):  # R-SEND-1: closed, then inactive, then full or evict
        if self.closed:
            raise SendError("closed", message)
        if not self.receivers:
            raise SendError("inactive", message)
        evicted = None
        if len(self.queue) >= self.capacity:
            if not self.overflow:
                raise SendError("full", message)
            evicted = self.queue.popleft()  # R-OVF-1: the oldest goes back to the sender
            self.head += 1
        self.queue.append(message)
        # R-WAKE-1: every waiting receiver may have a message now. SEEDED BUG (--lost-wakeup): notify()
        # wakes only one of them, and the others sleep until their timeout.
        (self.news.notify if LOST_WAKEUP else self.news.notify_all)()
        return evicted

    def forget_read_locked(self):  # R-MSG-1: keep a message only while an active receiver wants it
        freed = False
        while self.queue and not any(rx.position <= self.head for rx in self.receivers):
            self.queue.popleft()
            self.head += 1
            freed = True
        if freed:
            self.room.notify_all()  # room for a waiting sender (R-WAKE-1)

    def add_receiver_locked(self, position):
        if not self.receivers:
            self.room.notify_all()  # R-LIFE-6: senders waiting for an active receiver have one
        receiver = Receiver(self, position)
        self.receivers.add(receiver)
        return receiver

    def remove_receiver_locked(self, receiver):  # R-LIFE-3: its unread messages are released
        self.receivers.discard(receiver)
        self.forget_read_locked()  # with none left the queue empties, which wakes the senders
        self.close_if_no_receivers_locked()

    def close_if_no_receivers_locked(self):  # R-CLOSE-3
        if not self.receivers and not self.inactive:
            self.close_locked()

    def close_locked(self):  # R-CLOSE-1, R-CLOSE-6: closing wakes everyone
        was_open, self.closed = not self.closed, True
        self.room.notify_all()
        self.news.notify_all()
        return was_open


class _Handle:
    """What every handle has: the channel-wide settings and queries (R-QUERY-1)."""

    def __init__(self, channel):
        self._ch = channel

    def _get(self, read):
        with self._ch.lock:
            return read(self._ch)

    def capacity(self): return self._get(lambda ch: ch.capacity)
    def len(self): return self._get(lambda ch: len(ch.queue))
    def is_empty(self): return self._get(lambda ch: not ch.queue)
    def is_full(self): return self._get(lambda ch: len(ch.queue) == ch.capacity)  # R-CAP-5
    def is_closed(self): return self._get(lambda ch: ch.closed)
    def overflow(self): return self._get(lambda ch: ch.overflow)
    def await_active(self): return self._get(lambda ch: ch.await_active)
    def receiver_count(self): return self._get(lambda ch: len(ch.receivers))
    def inactive_receiver_count(self): return self._get(lambda ch: ch.inactive)
    def sender_count(self): return self._get(lambda ch: ch.senders)
    def close(self): return self._get(_Channel.close_locked)

    def set_capacity(self, capacity):  # R-CAP-2, R-CAP-3, R-CAP-4
        if capacity < 1:
            raise ValueError("capacity must be at least 1")  # before anything changes
        with self._ch.lock:
            ch = self._ch
            ch.capacity = capacity
            while len(ch.queue) > capacity:  # the oldest go; receivers that had not read them lag
                ch.queue.popleft()
                ch.head += 1
            ch.room.notify_all()  # a grown channel has room

    def set_overflow(self, on):  # R-OVF-3, R-OVF-4
        with self._ch.lock:
            self._ch.overflow = on
            self._ch.room.notify_all()  # on: a full channel takes a send now

    def set_await_active(self, on):  # R-ACT-2, R-ACT-3
        with self._ch.lock:
            self._ch.await_active = on
            self._ch.room.notify_all()  # off: senders waiting for a receiver answer inactive now


class Sender(_Handle):
    def __init__(self, channel):
        super().__init__(channel)
        channel.senders += 1

    def try_broadcast(self, message):
        """Returns None, or the message evicted in overflow mode; raises SendError."""
        with self._ch.lock:
            return self._ch.queue_message_locked(message)

    def broadcast(self, message, timeout):
        """try_broadcast once the channel takes it; SendError("timed_out") after `timeout` seconds."""
        with self._ch.lock:  # wait_for re-checks once after the deadline (R-SEND-4)
            if not self._ch.room.wait_for(lambda: not self._ch.send_blocks_locked(), _waited(timeout)):
                raise SendError("timed_out", message)
            return self._ch.queue_message_locked(message)

    def clone(self):
        with self._ch.lock:
            return Sender(self._ch)

    def new_receiver(self):  # R-LIFE-2: at the tail
        with self._ch.lock:
            return self._ch.add_receiver_locked(self._ch.tail())

    def drop(self):
        with self._ch.lock:
            self._ch.senders -= 1
            if self._ch.senders == 0:
                self._ch.close_locked()  # R-CLOSE-2


class Receiver(_Handle):
    def __init__(self, channel, position):
        super().__init__(channel)
        self.position = position  # guarded by the channel's lock

    def _take_locked(self):  # R-RECV-1: overflowed, the next message, closed, empty
        ch = self._ch
        if self.position < ch.head:  # R-OVF-2: lagging
            missed, self.position = ch.head - self.position, ch.head
            raise RecvError("overflowed", missed)
        if self.position == ch.tail():
            raise RecvError("closed" if ch.closed else "empty")
        message = ch.queue[self.position - ch.head]
        self.position += 1
        ch.forget_read_locked()
        return message

    def try_recv(self):
        with self._ch.lock:
            return self._take_locked()

    def recv(self, timeout):
        """try_recv once there is something to take; RecvError("timed_out") after `timeout` seconds."""
        with self._ch.lock:  # wait_for re-checks once after the deadline (R-RECV-5)
            if not self._ch.news.wait_for(lambda: self.position != self._ch.tail() or self._ch.closed, _waited(timeout)):
                raise RecvError("timed_out")
            return self._take_locked()

    def unread(self):  # R-QUERY-2
        return self._get(lambda ch: ch.tail() - max(self.position, ch.head))

    def missed(self):
        return self._get(lambda ch: max(ch.head - self.position, 0))

    def clone(self):  # R-LIFE-1: same position
        with self._ch.lock:
            return self._ch.add_receiver_locked(self.position)

    def new_receiver(self):  # R-LIFE-2
        with self._ch.lock:
            return self._ch.add_receiver_locked(self._ch.tail())

    def new_sender(self):
        with self._ch.lock:
            return Sender(self._ch)

    def deactivate(self):  # R-LIFE-4
        with self._ch.lock:
            inactive = InactiveReceiver(self._ch)  # first, so that the channel stays open
            self._ch.remove_receiver_locked(self)
            return inactive

    def drop(self):
        with self._ch.lock:
            self._ch.remove_receiver_locked(self)


class InactiveReceiver(_Handle):
    def __init__(self, channel):
        super().__init__(channel)
        channel.inactive += 1

    def activate_cloned(self):  # R-LIFE-5: at the tail
        with self._ch.lock:
            return self._ch.add_receiver_locked(self._ch.tail())

    def activate(self):
        with self._ch.lock:
            receiver = self._ch.add_receiver_locked(self._ch.tail())  # first: the channel stays open
            self._ch.inactive -= 1
            return receiver

    def clone(self):
        with self._ch.lock:
            return InactiveReceiver(self._ch)

    def drop(self):
        with self._ch.lock:
            self._ch.inactive -= 1
            self._ch.close_if_no_receivers_locked()


def channel(capacity):
    """A new open channel: its first sender and its first (active, at position 0) receiver."""
    shared = _Channel(capacity)
    with shared.lock:
        return Sender(shared), shared.add_receiver_locked(0)


# ---- the driver glue (bcast_driver.py's docstring says what each method returns or raises) ----

def _send(call, *args):
    try:
        return call(*args)
    except SendError as error:  # this channel's error, in the library's words
        raise bcast_driver.SendError(error.reason, error.message) from None


def _recv(call, *args):
    try:
        return call(*args)
    except RecvError as error:
        raise bcast_driver.RecvError(error.reason, error.missed) from None


class Glue:
    """What bcast_driver calls: one method per operation, each one call of the channel's API."""
    def channel(self, capacity): return channel(capacity)
    def try_broadcast(self, tx, message): return _send(tx.try_broadcast, message)
    def broadcast(self, tx, message, timeout_s): return _send(tx.broadcast, message, timeout_s)
    def try_recv(self, rx): return _recv(rx.try_recv)
    def recv(self, rx, timeout_s): return _recv(rx.recv, timeout_s)
    def clone_sender(self, tx): return tx.clone()
    def new_sender(self, rx): return rx.new_sender()
    def clone_receiver(self, rx): return rx.clone()
    def new_receiver(self, h): return h.new_receiver()
    def deactivate(self, rx): return rx.deactivate()
    def activate(self, ia): return ia.activate()
    def activate_cloned(self, ia): return ia.activate_cloned()
    def clone_inactive(self, ia): return ia.clone()
    def drop_sender(self, tx): tx.drop()
    def drop_receiver(self, rx): rx.drop()
    def drop_inactive(self, ia): ia.drop()
    def set_capacity(self, h, n): h.set_capacity(n)
    def set_overflow(self, h, on): h.set_overflow(on)
    def set_await_active(self, h, on): h.set_await_active(on)
    def close(self, h): return h.close()
    def len(self, h): return h.len()
    def is_empty(self, h): return h.is_empty()
    def is_full(self, h): return h.is_full()
    def capacity(self, h): return h.capacity()
    def receiver_count(self, h): return h.receiver_count()
    def inactive_receiver_count(self, h): return h.inactive_receiver_count()
    def sender_count(self, h): return h.sender_count()
    def is_closed(self, h): return h.is_closed()
    def overflow(self, h): return h.overflow()
    def await_active(self, h): return h.await_active()
    def unread(self, rx): return rx.unread()
    def missed(self, rx): return rx.missed()


def main():
    global LOST_WAKEUP, EARLY_TIMEOUT
    parser = argparse.ArgumentParser(description="The example channel's driver for bcast-trace drive.")
    parser.add_argument("--lost-wakeup", action="store_true", help="seed the bug: a send wakes one receiver")
    parser.add_argument("--early-timeout", action="store_true",
                        help="seed the bug: a timeout truncated to whole milliseconds")
    args = parser.parse_args()
    LOST_WAKEUP = args.lost_wakeup
    EARLY_TIMEOUT = args.early_timeout
    seeded = [name for name, on in (("lost wakeup", args.lost_wakeup), ("early timeout", args.early_timeout)) if on]
    bcast_driver.serve(Glue(), "example-channel 1.0" + (f" ({', '.join(seeded)} seeded)" if seeded else ""))


if __name__ == "__main__":
    main()
