// SPDX-License-Identifier: MIT OR Apache-2.0
//! bcast's driver library for Rust (docs/drivers.md, protocol version 1).
//!
//! It says hello, reads one program a line from stdin, runs it on real threads and writes the
//! answers to stdout; bcast (`bcast-trace drive -- CMD`) does the rest. You write the glue: a
//! type implementing [`Channel`], with a `Handle` type (any handle of your channel, usually an
//! enum of sender, receiver and inactive receiver), `channel(capacity)` and one method per
//! operation you have, named as the operation ([`Op`]), taking the handle first: `&mut` for a
//! call that keeps it, by value for one that uses it up (the drops, `deactivate`, `activate`).
//!
//! ```text
//! try_broadcast(h, message) -> Sent       broadcast(h, message, &Wait) -> Sent
//! try_recv(h) -> Received                 recv(h, &Wait) -> Received
//! clone_receiver(h) -> Handle             (and every call that makes a handle)
//! set_capacity(h, n)   set_overflow(h, on)   close(h) -> bool   len(h) -> usize ...
//! ```
//!
//! Each returns `Result<_, Error>`; what it returns becomes the call's result object
//! (docs/traces.md, "Results"):
//!
//! ```text
//! Sent::Ok / Sent::Evicted(m)                 {"ok":true} / {"ok":true,"evicted":M}
//! Sent::Full(m), Closed, Inactive, TimedOut   {"error":"full","message":M} ... (handed back)
//! Received::Message(m)                        {"ok":true,"message":M}
//! Received::Empty, Closed, TimedOut           {"error":"empty"} ...
//! Received::Overflowed(n)                     {"error":"overflowed","missed":N}
//! a bool or a count (close, the queries)      {"value":V}
//! Ok(()) or a new handle                      {"ok":true}
//! Err(Error::InvalidArgument) (set_capacity)  {"error":"invalid_argument"}
//! Err(Error::Unsupported)                     the call is answered unsupported
//! Err(Error::Failed(text)), or a panic        {"program":N,"error":TEXT}: bcast stops
//! ```
//!
//! A method you leave out answers `Error::Unsupported` (the drops default to dropping the
//! handle); list the operations you lack in [`Channel::UNSUPPORTED`] too, so that bcast never
//! asks for them (the hello carries the list; Rust cannot see which methods a type overrides).
//! `broadcast` and `recv` also serve `broadcast_timed` and `recv_timed`: the [`Wait`] carries
//! the call's timeout, and [`Wait::block_on`] runs an async channel's future within it. Then
//!
//! ```text
//! fn main() -> std::process::ExitCode {
//!     bcast_driver::serve(MyGlue, "my-channel 1.0", bcast_driver::Options::default())
//! }
//! ```
//!
//! and run `bcast-trace drive -- path/to/my-driver`. bench/trace_driver/src/serve.rs, the glue
//! of async-broadcast 0.4.1, is a complete example.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

mod program;
mod run;
mod wait;

pub use program::Op;
pub use wait::Wait;

/// What a send came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sent {
    /// Sent.
    Ok,
    /// Sent in overflow mode, evicting the oldest message, handed back here.
    Evicted(i64),
    /// Not sent: the channel is full. Each error hands the message back.
    Full(i64),
    /// Not sent: the channel is closed.
    Closed(i64),
    /// Not sent: no receiver is active.
    Inactive(i64),
    /// Not sent: the blocking send's time ran out.
    TimedOut(i64),
}

/// What a receive came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// The next message.
    Message(i64),
    /// Nothing to read.
    Empty,
    /// Nothing to read, and the channel is closed.
    Closed,
    /// The blocking receive's time ran out.
    TimedOut,
    /// The receiver lagged: this many messages were evicted before it read them.
    Overflowed(u64),
}

/// A call that gave no answer of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The implementation does not have the operation: the call is answered unsupported, and
    /// bcast discards the program and never asks for the operation again.
    Unsupported,
    /// `set_capacity` refused its argument (0, R-CAP-2) and changed nothing.
    InvalidArgument,
    /// The implementation failed (or the glue was handed what it cannot run): bcast reports
    /// the text and stops.
    Failed(String),
}

impl Error {
    /// `Error::Failed` with `text`.
    pub fn failed(text: impl Into<String>) -> Error {
        Error::Failed(text.into())
    }
}

/// The glue between bcast's driver and a channel: one method per operation of [`Op`], named
/// as the operation. Handles are numbered by bcast; the library keeps them, and each is used by
/// one thread at a time, so `Handle` need only be `Send` (the glue itself is shared: `Sync`).
#[allow(unused_variables)] // the default methods ignore their arguments
pub trait Channel: Sync {
    /// Any handle of the channel: a sender, a receiver or an inactive receiver.
    type Handle: Send;

    /// The operations the implementation lacks: bcast never asks for them. An operation left
    /// out here whose method answers `Error::Unsupported` still works, at the cost of one
    /// discarded program (and a warning on stderr).
    const UNSUPPORTED: &'static [Op] = &[];

    /// A new open channel of `capacity`: its first sender (handle 0) and its first receiver (1).
    fn channel(&self, capacity: usize) -> Result<(Self::Handle, Self::Handle), Error>;

    fn try_broadcast(&self, tx: &mut Self::Handle, message: i64) -> Result<Sent, Error> {
        Err(Error::Unsupported)
    }
    /// Also `broadcast_timed`: waits at most `wait.timeout()`, then answers `Sent::TimedOut`.
    fn broadcast(&self, tx: &mut Self::Handle, message: i64, wait: &Wait) -> Result<Sent, Error> {
        Err(Error::Unsupported)
    }
    fn try_recv(&self, rx: &mut Self::Handle) -> Result<Received, Error> {
        Err(Error::Unsupported)
    }
    /// Also `recv_timed`: waits at most `wait.timeout()`, then answers `Received::TimedOut`.
    fn recv(&self, rx: &mut Self::Handle, wait: &Wait) -> Result<Received, Error> {
        Err(Error::Unsupported)
    }
    fn clone_receiver(&self, rx: &mut Self::Handle) -> Result<Self::Handle, Error> {
        Err(Error::Unsupported)
    }
    /// On a sender or a receiver.
    fn new_receiver(&self, h: &mut Self::Handle) -> Result<Self::Handle, Error> {
        Err(Error::Unsupported)
    }
    fn drop_receiver(&self, rx: Self::Handle) -> Result<(), Error> {
        drop(rx);
        Ok(())
    }
    fn drop_sender(&self, tx: Self::Handle) -> Result<(), Error> {
        drop(tx);
        Ok(())
    }
    fn deactivate(&self, rx: Self::Handle) -> Result<Self::Handle, Error> {
        Err(Error::Unsupported)
    }
    fn activate_cloned(&self, inactive: &mut Self::Handle) -> Result<Self::Handle, Error> {
        Err(Error::Unsupported)
    }
    fn drop_inactive(&self, inactive: Self::Handle) -> Result<(), Error> {
        drop(inactive);
        Ok(())
    }
    /// `Err(Error::InvalidArgument)` for a capacity the channel refuses.
    fn set_capacity(&self, h: &mut Self::Handle, capacity: usize) -> Result<(), Error> {
        Err(Error::Unsupported)
    }
    fn set_overflow(&self, h: &mut Self::Handle, on: bool) -> Result<(), Error> {
        Err(Error::Unsupported)
    }
    fn set_await_active(&self, h: &mut Self::Handle, on: bool) -> Result<(), Error> {
        Err(Error::Unsupported)
    }
    /// Whether this call closed the channel.
    fn close(&self, h: &mut Self::Handle) -> Result<bool, Error> {
        Err(Error::Unsupported)
    }
    fn clone_sender(&self, tx: &mut Self::Handle) -> Result<Self::Handle, Error> {
        Err(Error::Unsupported)
    }
    fn new_sender(&self, rx: &mut Self::Handle) -> Result<Self::Handle, Error> {
        Err(Error::Unsupported)
    }
    fn activate(&self, inactive: Self::Handle) -> Result<Self::Handle, Error> {
        Err(Error::Unsupported)
    }
    fn clone_inactive(&self, inactive: &mut Self::Handle) -> Result<Self::Handle, Error> {
        Err(Error::Unsupported)
    }
    fn len(&self, h: &mut Self::Handle) -> Result<usize, Error> {
        Err(Error::Unsupported)
    }
    fn is_empty(&self, h: &mut Self::Handle) -> Result<bool, Error> {
        Err(Error::Unsupported)
    }
    fn is_full(&self, h: &mut Self::Handle) -> Result<bool, Error> {
        Err(Error::Unsupported)
    }
    fn capacity(&self, h: &mut Self::Handle) -> Result<usize, Error> {
        Err(Error::Unsupported)
    }
    fn receiver_count(&self, h: &mut Self::Handle) -> Result<usize, Error> {
        Err(Error::Unsupported)
    }
    fn inactive_receiver_count(&self, h: &mut Self::Handle) -> Result<usize, Error> {
        Err(Error::Unsupported)
    }
    fn sender_count(&self, h: &mut Self::Handle) -> Result<usize, Error> {
        Err(Error::Unsupported)
    }
    fn is_closed(&self, h: &mut Self::Handle) -> Result<bool, Error> {
        Err(Error::Unsupported)
    }
    fn overflow(&self, h: &mut Self::Handle) -> Result<bool, Error> {
        Err(Error::Unsupported)
    }
    fn await_active(&self, h: &mut Self::Handle) -> Result<bool, Error> {
        Err(Error::Unsupported)
    }
    /// On a receiver: the messages it has yet to read (a bcast extension, R-QUERY-2).
    fn unread(&self, rx: &mut Self::Handle) -> Result<usize, Error> {
        Err(Error::Unsupported)
    }
    /// On a receiver: the messages it lost to eviction and has not been told of (R-QUERY-2).
    fn missed(&self, rx: &mut Self::Handle) -> Result<usize, Error> {
        Err(Error::Unsupported)
    }
}

/// What the hello says besides the implementation's name.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A conformance profile of spec/rules.md whose entries the check accepts (`"P-FAST"`).
    pub profile: Option<String>,
    /// `"bcast"` (bcast's default: every rule) or `"async-broadcast"`: checked as upstream's,
    /// where a finding that the divergence table documents is no failure.
    pub target: Option<String>,
}

impl Options {
    pub fn profile(mut self, name: impl Into<String>) -> Options {
        self.profile = Some(name.into());
        self
    }

    pub fn target(mut self, name: impl Into<String>) -> Options {
        self.target = Some(name.into());
        self
    }
}

/// Speaks the protocol on stdin and stdout until stdin ends: the hello, then the answers to
/// each program. Returns 0, or 2 when a line bcast sent could not be read (after answering it
/// with an error line, which bcast reports) or stdout failed.
pub fn serve<G: Channel>(glue: G, implementation: &str, options: Options) -> ExitCode {
    match speak(&glue, implementation, &options, io::stdin().lock(), io::stdout().lock()) {
        Ok(Ended::InputClosed) => ExitCode::SUCCESS,
        Ok(Ended::BadProgram) => ExitCode::from(2),
        Err(e) => {
            eprintln!("bcast-driver: cannot talk to bcast (stdin or stdout): {e}");
            ExitCode::from(2)
        }
    }
}

#[derive(Debug, PartialEq)]
enum Ended {
    InputClosed,
    BadProgram,
}

fn speak<G: Channel>(glue: &G, implementation: &str, options: &Options, input: impl BufRead, mut output: impl Write) -> io::Result<Ended> {
    writeln!(output, "{}", hello(G::UNSUPPORTED, implementation, options))?;
    output.flush()?;
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let program = match program::read_program(&line) {
            Ok(p) => p,
            Err(e) => {
                // As the C++ library does: say what is wrong, and stop (bcast stops too).
                writeln!(output, "{{\"program\":{},\"error\":{}}}", e.number, json_string(&e.text))?;
                output.flush()?;
                return Ok(Ended::BadProgram);
            }
        };
        let ran = run::run_program(glue, &program);
        // Only now, after the threads have ended: a write during the run would change its timing.
        for answer in &ran.answers {
            writeln!(output, "{answer}")?;
        }
        output.flush()?;
        for op in ran.unsupported.iter().filter(|op| !G::UNSUPPORTED.contains(op)) {
            eprintln!("bcast-driver: {} answered unsupported; list it in Channel::UNSUPPORTED so that bcast never asks for it", op.name());
        }
    }
    Ok(Ended::InputClosed)
}

/// The driver's first line: what is checked, and the operations it lacks.
fn hello(unsupported: &[Op], implementation: &str, options: &Options) -> String {
    let lacking: Vec<String> = Op::ALL.iter().filter(|op| unsupported.contains(op)).map(|op| json_string(op.name())).collect();
    let mut line = format!(
        "{{\"format\":\"bcast-driver\",\"version\":1,\"implementation\":{},\"unsupported\":[{}]",
        json_string(implementation),
        lacking.join(",")
    );
    if let Some(profile) = &options.profile {
        line += &format!(",\"profile\":{}", json_string(profile));
    }
    if let Some(target) = &options.target {
        line += &format!(",\"target\":{}", json_string(target));
    }
    line + "}"
}

/// `text` as a JSON string, quoted and escaped.
fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    #[test]
    fn the_hello_lists_what_is_lacking_in_the_tables_order() {
        let options = Options::default().target("async-broadcast").profile("P-FAST");
        assert_eq!(
            hello(&[Op::Missed, Op::AwaitActive], "ring \"1\"", &options),
            r#"{"format":"bcast-driver","version":1,"implementation":"ring \"1\"","unsupported":["await_active","missed"],"profile":"P-FAST","target":"async-broadcast"}"#
        );
        assert_eq!(hello(&[], "x", &Options::default()), r#"{"format":"bcast-driver","version":1,"implementation":"x","unsupported":[]}"#);
    }

    /// A toy channel of try_broadcast and try_recv only, for one receiver: enough to see the
    /// whole exchange, from the hello to the end, through `speak`.
    struct Toy;

    impl Channel for Toy {
        type Handle = Arc<Mutex<(usize, VecDeque<i64>)>>; // capacity, messages
        const UNSUPPORTED: &'static [Op] = &[Op::Broadcast];

        fn channel(&self, capacity: usize) -> Result<(Self::Handle, Self::Handle), Error> {
            let queue = Arc::new(Mutex::new((capacity, VecDeque::new())));
            Ok((queue.clone(), queue))
        }
        fn try_broadcast(&self, tx: &mut Self::Handle, message: i64) -> Result<Sent, Error> {
            let (capacity, queue) = &mut *tx.lock().unwrap();
            if queue.len() == *capacity {
                return Ok(Sent::Full(message));
            }
            queue.push_back(message);
            Ok(Sent::Ok)
        }
        fn try_recv(&self, rx: &mut Self::Handle) -> Result<Received, Error> {
            Ok(rx.lock().unwrap().1.pop_front().map_or(Received::Empty, Received::Message))
        }
        fn set_capacity(&self, _: &mut Self::Handle, capacity: usize) -> Result<(), Error> {
            if capacity == 0 {
                return Err(Error::InvalidArgument);
            }
            Err(Error::failed("cannot resize"))
        }
        fn len(&self, _: &mut Self::Handle) -> Result<usize, Error> {
            panic!("len is broken")
        }
    }

    /// The lines `speak` writes for `input`, the hello left out, times blanked.
    fn exchange(input: &str) -> (Vec<String>, Ended) {
        let mut out = Vec::new();
        let ended = speak(&Toy, "toy 1", &Options::default(), input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut lines: Vec<String> = text.lines().map(blank_times).collect();
        assert_eq!(lines.remove(0), r#"{"format":"bcast-driver","version":1,"implementation":"toy 1","unsupported":["broadcast"]}"#);
        (lines, ended)
    }

    fn blank_times(line: &str) -> String {
        let mut out = line.to_string();
        for key in ["\"invoked_ns\":", "\"returned_ns\":"] {
            if let Some(at) = out.find(key) {
                let digits = out[at + key.len()..].find(|c: char| !c.is_ascii_digit()).unwrap();
                out.replace_range(at + key.len()..at + key.len() + digits, "T");
            }
        }
        out
    }

    #[test]
    fn a_program_is_run_and_answered_setup_first_then_each_thread() {
        let (lines, ended) = exchange(
            "{\"program\":5,\"capacity\":1,\"bound_us\":1000,\"setup\":[{\"op\":\"try_broadcast\",\"handle\":0,\"message\":900}],\"threads\":[[{\"op\":\"try_broadcast\",\"handle\":0,\"message\":1}],[{\"op\":\"try_recv\",\"handle\":1}]]}\n\n",
        );
        assert_eq!(ended, Ended::InputClosed);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], r#"{"program":5,"thread":-1,"call":0,"invoked_ns":T,"returned_ns":T,"result":{"ok":true}}"#);
        // Thread 0's send met either the full channel or, after thread 1's receive, room.
        assert!(
            [r#"{"program":5,"thread":0,"call":0,"invoked_ns":T,"returned_ns":T,"result":{"error":"full","message":1}}"#, r#"{"program":5,"thread":0,"call":0,"invoked_ns":T,"returned_ns":T,"result":{"ok":true}}"#]
                .contains(&lines[1].as_str()),
            "{}",
            lines[1]
        );
        assert_eq!(lines[2], r#"{"program":5,"thread":1,"call":0,"invoked_ns":T,"returned_ns":T,"result":{"ok":true,"message":900}}"#);
        assert_eq!(lines[3], r#"{"program":5,"end":true}"#);
    }

    #[test]
    fn an_unsupported_call_stops_its_thread_and_others_go_on() {
        let (lines, _) = exchange(
            "{\"program\":6,\"capacity\":2,\"bound_us\":1000,\"setup\":[],\"threads\":[[{\"op\":\"broadcast\",\"handle\":0,\"message\":1},{\"op\":\"try_broadcast\",\"handle\":0,\"message\":2}],[{\"op\":\"try_recv\",\"handle\":1}]]}\n",
        );
        assert_eq!(lines[0], r#"{"program":6,"thread":0,"call":0,"unsupported":true}"#);
        assert!(lines[1].starts_with(r#"{"program":6,"thread":1,"call":0,"#));
        assert_eq!(lines[2], r#"{"program":6,"end":true}"#);
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn invalid_argument_is_set_capacitys_answer_and_a_failure_ends_the_program() {
        let (lines, _) = exchange(
            "{\"program\":7,\"capacity\":1,\"bound_us\":1000,\"setup\":[{\"op\":\"set_capacity\",\"handle\":0,\"arg\":0},{\"op\":\"set_capacity\",\"handle\":0,\"arg\":2}],\"threads\":[[{\"op\":\"try_recv\",\"handle\":1}]]}\n",
        );
        assert_eq!(lines[0], r#"{"program":7,"thread":-1,"call":0,"invoked_ns":T,"returned_ns":T,"result":{"error":"invalid_argument"}}"#);
        assert_eq!(lines[1], r#"{"program":7,"error":"setup call 1 (set_capacity): cannot resize"}"#);
        assert_eq!(lines.len(), 2); // the threads never started
    }

    #[test]
    fn a_panic_is_the_programs_error() {
        let (lines, _) = exchange("{\"program\":8,\"capacity\":1,\"bound_us\":1000,\"setup\":[],\"threads\":[[{\"op\":\"len\",\"handle\":1}]]}\n");
        assert_eq!(lines, [r#"{"program":8,"error":"thread 0 call 0 (len): panicked: len is broken"}"#]);
    }

    #[test]
    fn a_handle_the_thread_does_not_hold_is_the_programs_error() {
        let (lines, _) = exchange("{\"program\":9,\"capacity\":1,\"bound_us\":1000,\"setup\":[],\"threads\":[[{\"op\":\"try_recv\",\"handle\":5}]]}\n");
        assert_eq!(lines, [r#"{"program":9,"error":"thread 0 call 0 (try_recv): handle 5 is not this thread's (never made, used up, or another thread's)"}"#]);
    }

    #[test]
    fn a_line_that_is_not_a_program_is_answered_and_ends_the_exchange() {
        let (lines, ended) = exchange("{\"program\":3,\"capacity\":1}\n{\"program\":4}\n");
        assert_eq!(ended, Ended::BadProgram);
        assert_eq!(lines, [r#"{"program":3,"error":"program line: missing \"bound_us\""}"#]);
    }
}
