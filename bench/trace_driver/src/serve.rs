// SPDX-License-Identifier: MIT OR Apache-2.0
//! `bcast-trace-driver serve`: async-broadcast 0.4.1 on bcast's driver protocol (docs/drivers.md)
//! through the Rust driver library (spec/drivers/rust), which does the protocol, the threads and
//! the clock; bcast draws the programs and judges the answers. This file is only the glue.
//!
//! A blocking call is its future run by the library's executor until its deadline, which sees
//! the channel call the future's waker (the answer then says "woken"). The timed calls are the
//! same futures with their own timeout, as `timeout(rx.recv(), d)` in async Rust (and as
//! record.rs records them). 0.4.1 has no await_active (0.5.0); unread and missed are bcast's.

use std::process::ExitCode;

use async_broadcast::{broadcast, InactiveReceiver, Receiver, RecvError, Sender, TryRecvError, TrySendError};
use bcast_driver::{Channel, Error, Op, Options, Received, Sent, Wait};

use super::{Handle, IMPLEMENTATION};

pub fn serve() -> ExitCode {
    bcast_driver::serve(Upstream, IMPLEMENTATION, Options::default().target("async-broadcast"))
}

struct Upstream;

fn wrong(h: &Handle, wanted: &str) -> Error {
    Error::failed(format!("the handle is {}; the call needs {wanted}", h.kind()))
}
fn sender(h: &mut Handle) -> Result<&mut Sender<i64>, Error> {
    if let Handle::Sender(s) = h { Ok(s) } else { Err(wrong(h, "a sender")) }
}
fn receiver(h: &mut Handle) -> Result<&mut Receiver<i64>, Error> {
    if let Handle::Receiver(r) = h { Ok(r) } else { Err(wrong(h, "a receiver")) }
}
fn inactive(h: &mut Handle) -> Result<&mut InactiveReceiver<i64>, Error> {
    if let Handle::Inactive(i) = h { Ok(i) } else { Err(wrong(h, "an inactive receiver")) }
}

fn sent(r: Result<Option<i64>, TrySendError<i64>>) -> Sent {
    match r {
        Ok(None) => Sent::Ok,
        Ok(Some(evicted)) => Sent::Evicted(evicted),
        Err(TrySendError::Full(m)) => Sent::Full(m),
        Err(TrySendError::Closed(m)) => Sent::Closed(m),
        Err(TrySendError::Inactive(m)) => Sent::Inactive(m),
    }
}
fn received(r: Result<i64, TryRecvError>) -> Received {
    match r {
        Ok(m) => Received::Message(m),
        Err(TryRecvError::Empty) => Received::Empty,
        Err(TryRecvError::Closed) => Received::Closed,
        Err(TryRecvError::Overflowed(n)) => Received::Overflowed(n),
    }
}

// One call of 0.4.1 per operation; the drops are the library's default (the handle is dropped).
impl Channel for Upstream {
    type Handle = Handle;
    const UNSUPPORTED: &'static [Op] = &[Op::SetAwaitActive, Op::AwaitActive, Op::Unread, Op::Missed];

    fn channel(&self, capacity: usize) -> Result<(Handle, Handle), Error> {
        let (s, r) = broadcast(capacity);
        Ok((Handle::Sender(s), Handle::Receiver(r)))
    }
    fn try_broadcast(&self, h: &mut Handle, m: i64) -> Result<Sent, Error> { Ok(sent(sender(h)?.try_broadcast(m))) }
    fn broadcast(&self, h: &mut Handle, m: i64, wait: &Wait) -> Result<Sent, Error> {
        Ok(match wait.block_on(sender(h)?.broadcast(m)) {
            Some(r) => sent(r.map_err(|e| TrySendError::Closed(e.0))), // 0.4.1's SendError: closed only
            None => Sent::TimedOut(m),
        })
    }
    fn try_recv(&self, h: &mut Handle) -> Result<Received, Error> { Ok(received(receiver(h)?.try_recv())) }
    fn recv(&self, h: &mut Handle, wait: &Wait) -> Result<Received, Error> {
        Ok(match wait.block_on(receiver(h)?.recv()) {
            Some(Ok(m)) => Received::Message(m),
            Some(Err(RecvError::Overflowed(n))) => Received::Overflowed(n),
            Some(Err(RecvError::Closed)) => Received::Closed,
            None => Received::TimedOut,
        })
    }
    fn clone_receiver(&self, h: &mut Handle) -> Result<Handle, Error> { Ok(Handle::Receiver(receiver(h)?.clone())) }
    fn new_receiver(&self, h: &mut Handle) -> Result<Handle, Error> {
        match h {
            Handle::Sender(s) => Ok(Handle::Receiver(s.new_receiver())),
            Handle::Receiver(r) => Ok(Handle::Receiver(r.new_receiver())),
            other => Err(wrong(other, "a sender or a receiver")),
        }
    }
    fn deactivate(&self, h: Handle) -> Result<Handle, Error> {
        if let Handle::Receiver(r) = h { Ok(Handle::Inactive(r.deactivate())) } else { Err(wrong(&h, "a receiver")) }
    }
    fn activate(&self, h: Handle) -> Result<Handle, Error> {
        if let Handle::Inactive(i) = h { Ok(Handle::Receiver(i.activate())) } else { Err(wrong(&h, "an inactive receiver")) }
    }
    fn activate_cloned(&self, h: &mut Handle) -> Result<Handle, Error> { Ok(Handle::Receiver(inactive(h)?.activate_cloned())) }
    fn clone_inactive(&self, h: &mut Handle) -> Result<Handle, Error> { Ok(Handle::Inactive(inactive(h)?.clone())) }
    fn clone_sender(&self, h: &mut Handle) -> Result<Handle, Error> { Ok(Handle::Sender(sender(h)?.clone())) }
    fn new_sender(&self, h: &mut Handle) -> Result<Handle, Error> { Ok(Handle::Sender(receiver(h)?.new_sender())) }
    // 0 is accepted, as upstream does (R-CAP-2; bcast's programs never draw it).
    fn set_capacity(&self, h: &mut Handle, n: usize) -> Result<(), Error> {
        on_any!(h, x => x.set_capacity(n));
        Ok(())
    }
    fn set_overflow(&self, h: &mut Handle, on: bool) -> Result<(), Error> {
        on_any!(h, x => x.set_overflow(on));
        Ok(())
    }
    fn close(&self, h: &mut Handle) -> Result<bool, Error> { Ok(on_any!(h, x => x.close())) }
    fn len(&self, h: &mut Handle) -> Result<usize, Error> { Ok(on_any!(h, x => x.len())) }
    fn is_empty(&self, h: &mut Handle) -> Result<bool, Error> { Ok(on_any!(h, x => x.is_empty())) }
    fn is_full(&self, h: &mut Handle) -> Result<bool, Error> { Ok(on_any!(h, x => x.is_full())) }
    fn capacity(&self, h: &mut Handle) -> Result<usize, Error> { Ok(on_any!(h, x => x.capacity())) }
    fn receiver_count(&self, h: &mut Handle) -> Result<usize, Error> { Ok(on_any!(h, x => x.receiver_count())) }
    fn inactive_receiver_count(&self, h: &mut Handle) -> Result<usize, Error> { Ok(on_any!(h, x => x.inactive_receiver_count())) }
    fn sender_count(&self, h: &mut Handle) -> Result<usize, Error> { Ok(on_any!(h, x => x.sender_count())) }
    fn is_closed(&self, h: &mut Handle) -> Result<bool, Error> { Ok(on_any!(h, x => x.is_closed())) }
    fn overflow(&self, h: &mut Handle) -> Result<bool, Error> { Ok(on_any!(h, x => x.overflow())) }
}
