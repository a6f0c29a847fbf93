// SPDX-License-Identifier: MIT OR Apache-2.0
//! bcast's driver (docs/drivers.md) for tokio 1.24.2's `tokio::sync::broadcast`, checked under
//! profile P-TOKIO (spec/rules.md, "Profile P-TOKIO"). The glue only: bcast-driver
//! (spec/drivers/rust) speaks the protocol and runs the threads.
//!
//!     bcast-trace drive --histories 300 --seed 1 -- target/release/bcast-tokio-driver

use std::process::ExitCode;

use bcast_driver::{Channel, Error, Op, Options, Received, Sent, Wait};
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError, Receiver, Sender};

enum Handle {
    Tx(Sender<i64>),
    Rx(Receiver<i64>),
}

struct Tokio;

fn sender(h: &mut Handle) -> Result<&mut Sender<i64>, Error> {
    match h {
        Handle::Tx(tx) => Ok(tx),
        Handle::Rx(_) => Err(Error::failed("a sender's operation asked of a receiver")),
    }
}

fn receiver(h: &mut Handle) -> Result<&mut Receiver<i64>, Error> {
    match h {
        Handle::Rx(rx) => Ok(rx),
        Handle::Tx(_) => Err(Error::failed("a receiver's operation asked of a sender")),
    }
}

/// Every send is `send` (P-TOKIO-13: none waits). Its only error is no receiver (P-TOKIO-4,
/// -12); success says how many receivers, never what it overwrote (P-TOKIO-3).
fn send(h: &mut Handle, message: i64) -> Result<Sent, Error> {
    Ok(sender(h)?.send(message).map_or_else(|e| Sent::Inactive(e.0), |_| Sent::Ok))
}

impl Channel for Tokio {
    type Handle = Handle;
    // What tokio 1.24.2 lacks (P-TOKIO-2, -3, -4, -6, -7, -8, -11). receiver_count exists on a
    // Sender only, and the protocol cannot say "not on receivers" (P-TOKIO-8).
    const UNSUPPORTED: &'static [Op] = &[
        Op::CloneReceiver, Op::Deactivate, Op::ActivateCloned, Op::DropInactive, Op::SetCapacity,
        Op::SetOverflow, Op::SetAwaitActive, Op::Close, Op::NewSender, Op::Activate,
        Op::CloneInactive, Op::Len, Op::IsEmpty, Op::IsFull, Op::Capacity, Op::ReceiverCount,
        Op::InactiveReceiverCount, Op::SenderCount, Op::IsClosed, Op::Overflow, Op::AwaitActive,
        Op::Unread, Op::Missed,
    ];

    fn channel(&self, capacity: usize) -> Result<(Handle, Handle), Error> {
        if capacity == 0 {
            return Err(Error::failed("tokio panics on capacity 0 (P-TOKIO-1)"));
        }
        let (tx, rx) = broadcast::channel(capacity); // rounded up to a power of two (P-TOKIO-1)
        Ok((Handle::Tx(tx), Handle::Rx(rx)))
    }
    fn try_broadcast(&self, tx: &mut Handle, message: i64) -> Result<Sent, Error> {
        send(tx, message)
    }
    /// Also `broadcast_timed`: a send that never waits never times out.
    fn broadcast(&self, tx: &mut Handle, message: i64, _: &Wait) -> Result<Sent, Error> {
        send(tx, message)
    }
    fn try_recv(&self, rx: &mut Handle) -> Result<Received, Error> {
        Ok(match receiver(rx)?.try_recv() {
            Ok(m) => Received::Message(m),
            Err(TryRecvError::Empty) => Received::Empty,
            Err(TryRecvError::Closed) => Received::Closed,
            Err(TryRecvError::Lagged(n)) => Received::Overflowed(n),
        })
    }
    /// Also `recv_timed`: the `recv()` future polled until the deadline, then dropped (it is
    /// cancel safe), as `tokio::time::timeout(d, rx.recv())` does (P-TOKIO-11, -14).
    fn recv(&self, rx: &mut Handle, wait: &Wait) -> Result<Received, Error> {
        Ok(match wait.block_on(receiver(rx)?.recv()) {
            None => Received::TimedOut,
            Some(Ok(m)) => Received::Message(m),
            Some(Err(RecvError::Closed)) => Received::Closed,
            Some(Err(RecvError::Lagged(n))) => Received::Overflowed(n),
        })
    }
    /// Both start at the tail (R-LIFE-2); neither is a copy of a receiver (P-TOKIO-7).
    fn new_receiver(&self, h: &mut Handle) -> Result<Handle, Error> {
        Ok(Handle::Rx(match h {
            Handle::Tx(tx) => tx.subscribe(),
            Handle::Rx(rx) => rx.resubscribe(),
        }))
    }
    fn clone_sender(&self, tx: &mut Handle) -> Result<Handle, Error> {
        Ok(Handle::Tx(sender(tx)?.clone()))
    }
}

fn main() -> ExitCode {
    let options = Options::default().profile("P-TOKIO").target("bcast");
    bcast_driver::serve(Tokio, "tokio 1.24.2 sync::broadcast", options)
}
