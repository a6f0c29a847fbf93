// SPDX-License-Identifier: MIT OR Apache-2.0
//! The operations, and a program line (docs/drivers.md, "2. bcast sends a program") read into
//! plain data. Reading checks every member a call needs, so that running a program never has to.

use std::time::Duration;

use serde_json::{Map, Value};

/// An operation a history records: a row of `bcast-trace operations` with `"recorded":true`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    TryBroadcast,
    Broadcast,
    BroadcastTimed,
    TryRecv,
    Recv,
    RecvTimed,
    CloneReceiver,
    NewReceiver,
    DropReceiver,
    DropSender,
    Deactivate,
    ActivateCloned,
    DropInactive,
    SetCapacity,
    SetOverflow,
    SetAwaitActive,
    Close,
    CloneSender,
    NewSender,
    Activate,
    CloneInactive,
    Len,
    IsEmpty,
    IsFull,
    Capacity,
    ReceiverCount,
    InactiveReceiverCount,
    SenderCount,
    IsClosed,
    Overflow,
    AwaitActive,
    Unread,
    Missed,
}

/// What a call carries besides its handle (the table's `argument` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Argument {
    None,
    Message,           // "message"
    MessageAndTimeout, // "message" and "timeout_us"
    Timeout,           // "timeout_us"
    Capacity,          // "arg": an integer
    Flag,              // "arg": true or false
}

impl Op {
    /// Every operation, in the order of `bcast-trace operations`.
    pub const ALL: [Op; 33] = [
        Op::TryBroadcast,
        Op::Broadcast,
        Op::BroadcastTimed,
        Op::TryRecv,
        Op::Recv,
        Op::RecvTimed,
        Op::CloneReceiver,
        Op::NewReceiver,
        Op::DropReceiver,
        Op::DropSender,
        Op::Deactivate,
        Op::ActivateCloned,
        Op::DropInactive,
        Op::SetCapacity,
        Op::SetOverflow,
        Op::SetAwaitActive,
        Op::Close,
        Op::CloneSender,
        Op::NewSender,
        Op::Activate,
        Op::CloneInactive,
        Op::Len,
        Op::IsEmpty,
        Op::IsFull,
        Op::Capacity,
        Op::ReceiverCount,
        Op::InactiveReceiverCount,
        Op::SenderCount,
        Op::IsClosed,
        Op::Overflow,
        Op::AwaitActive,
        Op::Unread,
        Op::Missed,
    ];

    /// The operation's name in the protocol (and the `Channel` method that runs it, but for the
    /// timed forms, which `broadcast` and `recv` run).
    pub fn name(self) -> &'static str {
        match self {
            Op::TryBroadcast => "try_broadcast",
            Op::Broadcast => "broadcast",
            Op::BroadcastTimed => "broadcast_timed",
            Op::TryRecv => "try_recv",
            Op::Recv => "recv",
            Op::RecvTimed => "recv_timed",
            Op::CloneReceiver => "clone_receiver",
            Op::NewReceiver => "new_receiver",
            Op::DropReceiver => "drop_receiver",
            Op::DropSender => "drop_sender",
            Op::Deactivate => "deactivate",
            Op::ActivateCloned => "activate_cloned",
            Op::DropInactive => "drop_inactive",
            Op::SetCapacity => "set_capacity",
            Op::SetOverflow => "set_overflow",
            Op::SetAwaitActive => "set_await_active",
            Op::Close => "close",
            Op::CloneSender => "clone_sender",
            Op::NewSender => "new_sender",
            Op::Activate => "activate",
            Op::CloneInactive => "clone_inactive",
            Op::Len => "len",
            Op::IsEmpty => "is_empty",
            Op::IsFull => "is_full",
            Op::Capacity => "capacity",
            Op::ReceiverCount => "receiver_count",
            Op::InactiveReceiverCount => "inactive_receiver_count",
            Op::SenderCount => "sender_count",
            Op::IsClosed => "is_closed",
            Op::Overflow => "overflow",
            Op::AwaitActive => "await_active",
            Op::Unread => "unread",
            Op::Missed => "missed",
        }
    }

    /// The operation called `name`, if there is one.
    pub fn named(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == name)
    }

    /// `broadcast` and `recv`: run with the program's bound, and a thread stops after one that
    /// used it up (the timed forms have their own timeout).
    pub fn is_bounded(self) -> bool {
        matches!(self, Op::Broadcast | Op::Recv)
    }

    /// The call makes a handle, kept under the number in its "new" member.
    pub fn makes_handle(self) -> bool {
        matches!(
            self,
            Op::CloneReceiver
                | Op::NewReceiver
                | Op::Deactivate
                | Op::ActivateCloned
                | Op::CloneSender
                | Op::NewSender
                | Op::Activate
                | Op::CloneInactive
        )
    }

    /// The call uses its handle up: the handle is gone afterwards (and the Channel method
    /// takes it by value).
    pub fn consumes_handle(self) -> bool {
        matches!(self, Op::DropReceiver | Op::DropSender | Op::Deactivate | Op::DropInactive | Op::Activate)
    }

    fn argument(self) -> Argument {
        match self {
            Op::TryBroadcast | Op::Broadcast => Argument::Message,
            Op::BroadcastTimed => Argument::MessageAndTimeout,
            Op::RecvTimed => Argument::Timeout,
            Op::SetCapacity => Argument::Capacity,
            Op::SetOverflow | Op::SetAwaitActive => Argument::Flag,
            _ => Argument::None,
        }
    }
}

/// Handle numbers are 0..63 (bcast::spec::max_logical_handles).
const HANDLE_NUMBERS: u64 = 64;

/// One call of a program, its members checked against its operation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Call {
    pub op: Op,
    pub handle: usize,
    /// The number of the handle it makes (`Op::makes_handle` only).
    pub new: Option<usize>,
    /// Sends: the message (0 for the others).
    pub message: i64,
    /// `set_capacity`'s argument (0 for the others).
    pub capacity: usize,
    /// `set_overflow`'s and `set_await_active`'s argument (false for the others).
    pub flag: bool,
    /// The timed forms' timeout (zero for the others; zero for them too means already passed).
    pub timeout: Duration,
}

/// One program, as bcast sent it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Program {
    pub number: u64,
    pub capacity: usize,
    /// How long a `broadcast` or `recv` may wait ("bound_us").
    pub bound: Duration,
    pub setup: Vec<Call>,
    pub threads: Vec<Vec<Call>>,
    /// The thread that starts last, once the others wait ("waker").
    pub waker: Option<usize>,
}

/// A program line that could not be read: the program's number (0 where even that is
/// unreadable) and what is wrong, for the `{"program":N,"error":TEXT}` answer.
#[derive(Debug, PartialEq)]
pub(crate) struct ProgramError {
    pub number: u64,
    pub text: String,
}

/// Reads one program line.
pub(crate) fn read_program(line: &str) -> Result<Program, ProgramError> {
    let value: Value = serde_json::from_str(line).map_err(|e| ProgramError { number: 0, text: format!("a program line that is not JSON: {e}") })?;
    let object = value.as_object().ok_or_else(|| ProgramError { number: 0, text: "a program line must be a JSON object".into() })?;
    let number = object.get("program").and_then(Value::as_u64).unwrap_or(0);
    read_members(object).map_err(|text| ProgramError { number, text: format!("program line: {text}") })
}

fn read_members(o: &Map<String, Value>) -> Result<Program, String> {
    only(o, &["program", "capacity", "bound_us", "setup", "threads", "waker"])?;
    let number = counter(o, "program")?;
    let capacity = counter(o, "capacity")?;
    if capacity == 0 {
        return Err("\"capacity\" must be at least 1 (R-CAP-1)".into());
    }
    let bound = Duration::from_micros(counter(o, "bound_us")?);
    let setup = calls(member(o, "setup")?).map_err(|e| format!("setup: {e}"))?;
    let lists = member(o, "threads")?.as_array().ok_or("\"threads\" must be an array of call lists")?;
    let mut threads = Vec::new();
    for (t, list) in lists.iter().enumerate() {
        threads.push(calls(list).map_err(|e| format!("thread {t}: {e}"))?);
    }
    let waker = match o.get("waker") {
        None => None,
        Some(w) => match w.as_u64() {
            Some(w) if (w as usize) < threads.len() => Some(w as usize),
            _ => return Err(format!("\"waker\" must name a thread, 0..{}", threads.len().saturating_sub(1))),
        },
    };
    Ok(Program { number, capacity: capacity as usize, bound, setup, threads, waker })
}

fn calls(list: &Value) -> Result<Vec<Call>, String> {
    let list = list.as_array().ok_or("a list of calls must be an array")?;
    let mut out = Vec::new();
    for (i, c) in list.iter().enumerate() {
        out.push(call(c).map_err(|e| format!("call {i}: {e}"))?);
    }
    Ok(out)
}

fn call(c: &Value) -> Result<Call, String> {
    let o = c.as_object().ok_or("a call must be an object")?;
    only(o, &["op", "handle", "new", "message", "arg", "timeout_us"])?;
    let name = member(o, "op")?.as_str().ok_or("\"op\" must be a string")?;
    let op = Op::named(name).ok_or_else(|| format!("unknown operation \"{name}\""))?;
    let mut call = Call {
        op,
        handle: handle_number(o, "handle")?,
        new: None,
        message: 0,
        capacity: 0,
        flag: false,
        timeout: Duration::ZERO,
    };
    if op.makes_handle() {
        call.new = Some(handle_number(o, "new")?);
    }
    let argument = op.argument();
    if matches!(argument, Argument::Message | Argument::MessageAndTimeout) {
        call.message = member(o, "message")?.as_i64().ok_or("\"message\" must be an integer")?;
    }
    if matches!(argument, Argument::MessageAndTimeout | Argument::Timeout) {
        call.timeout = Duration::from_micros(counter(o, "timeout_us")?);
    }
    if argument == Argument::Capacity {
        call.capacity = counter(o, "arg").map_err(|_| "\"arg\" of set_capacity must be a non-negative integer")? as usize;
    }
    if argument == Argument::Flag {
        call.flag = member(o, "arg")?.as_bool().ok_or_else(|| format!("\"arg\" of {name} must be true or false"))?;
    }
    Ok(call)
}

/// Refuses a member this version of the protocol does not have: a sign that the two sides
/// speak different versions.
fn only(o: &Map<String, Value>, known: &[&str]) -> Result<(), String> {
    match o.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(format!("unknown member \"{k}\"")),
        None => Ok(()),
    }
}

fn member<'v>(o: &'v Map<String, Value>, key: &str) -> Result<&'v Value, String> {
    o.get(key).ok_or_else(|| format!("missing \"{key}\""))
}

fn counter(o: &Map<String, Value>, key: &str) -> Result<u64, String> {
    member(o, key)?.as_u64().ok_or_else(|| format!("\"{key}\" must be a non-negative integer"))
}

fn handle_number(o: &Map<String, Value>, key: &str) -> Result<usize, String> {
    match counter(o, key)? {
        n if n < HANDLE_NUMBERS => Ok(n as usize),
        n => Err(format!("\"{key}\" is {n}; handle numbers are 0..{}", HANDLE_NUMBERS - 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(line: &str) -> ProgramError {
        read_program(line).expect_err("the line must be refused")
    }

    #[test]
    fn every_operation_is_named_once_and_found_by_its_name() {
        for op in Op::ALL {
            assert_eq!(Op::named(op.name()), Some(op));
        }
        assert_eq!(Op::named("same_channel"), None); // not recorded: no driver is asked for it
    }

    #[test]
    fn the_operations_are_the_recorded_rows_of_bcast_trace_operations() {
        // The table's one source is bcast's (spec/include/bcast/spec/operations.hpp); its tool
        // prints it. Without a build of it (cmake --preset default), there is nothing to compare.
        let tool = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../build/default/spec/traces/bcast-trace");
        let out = match std::process::Command::new(&tool).arg("operations").output() {
            Ok(out) => out,
            Err(_) => return eprintln!("skipped: no {}", tool.display()),
        };
        let recorded: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|row| row["recorded"] == Value::Bool(true))
            .map(|row| row["op"].as_str().unwrap().to_string())
            .collect();
        let ours: Vec<String> = Op::ALL.iter().map(|op| op.name().to_string()).collect();
        assert_eq!(ours, recorded);
    }

    #[test]
    fn the_example_of_drivers_md_is_read() {
        let p = read_program(
            r#"{"program":4,"capacity":1,"bound_us":20000,"setup":[{"op":"clone_sender","handle":0,"new":2},{"op":"try_broadcast","handle":0,"message":900}],"threads":[[{"op":"broadcast","handle":0,"message":999}],[{"op":"recv","handle":1},{"op":"len","handle":1}]],"waker":1}"#,
        )
        .unwrap();
        assert_eq!((p.number, p.capacity, p.bound, p.waker), (4, 1, Duration::from_millis(20), Some(1)));
        assert_eq!(p.setup.len(), 2);
        assert_eq!((p.setup[0].op, p.setup[0].handle, p.setup[0].new), (Op::CloneSender, 0, Some(2)));
        assert_eq!((p.setup[1].op, p.setup[1].message), (Op::TryBroadcast, 900));
        assert_eq!(p.threads.len(), 2);
        assert_eq!((p.threads[0][0].op, p.threads[0][0].message), (Op::Broadcast, 999));
        assert_eq!(p.threads[1][1].op, Op::Len);
    }

    #[test]
    fn arguments_and_timeouts_are_read_by_operation() {
        let p = read_program(
            r#"{"program":1,"capacity":2,"bound_us":5,"setup":[],"threads":[[{"op":"set_capacity","handle":0,"arg":0},{"op":"set_overflow","handle":0,"arg":true},{"op":"broadcast_timed","handle":0,"message":-3,"timeout_us":0},{"op":"recv_timed","handle":1,"timeout_us":700}]]}"#,
        )
        .unwrap();
        let t = &p.threads[0];
        assert_eq!(t[0].capacity, 0); // R-CAP-2: the driver passes it on, the channel answers
        assert!(t[1].flag);
        assert_eq!((t[2].message, t[2].timeout), (-3, Duration::ZERO));
        assert_eq!(t[3].timeout, Duration::from_micros(700));
        assert_eq!(p.waker, None);
    }

    #[test]
    fn a_line_that_is_not_a_program_is_refused_with_its_number() {
        assert_eq!(error_of("{\"program\":3").number, 0);
        assert!(error_of("{\"program\":3").text.contains("not JSON"));
        assert!(error_of("[1]").text.contains("JSON object"));
        let e = error_of(r#"{"program":7,"capacity":1,"setup":[],"threads":[[]]}"#);
        assert_eq!(e.number, 7);
        assert!(e.text.contains("missing \"bound_us\""), "{}", e.text);
        assert!(error_of(r#"{"program":7,"capacity":0,"bound_us":1,"setup":[],"threads":[[]]}"#).text.contains("at least 1"));
        assert!(error_of(r#"{"program":7,"capacity":1,"bound_us":1,"setup":[],"threads":[[]],"extra":1}"#).text.contains("unknown member \"extra\""));
        assert!(error_of(r#"{"program":7,"capacity":1,"bound_us":1,"setup":[],"threads":[[]],"waker":1}"#).text.contains("\"waker\""));
    }

    #[test]
    fn a_call_that_lacks_what_its_operation_needs_is_refused_and_located() {
        let program = |calls: &str| format!(r#"{{"program":9,"capacity":1,"bound_us":1,"setup":[],"threads":[[],[{calls}]]}}"#);
        let refused = |calls: &str, what: &str| {
            let e = error_of(&program(calls));
            assert_eq!(e.number, 9);
            assert!(e.text.contains("thread 1: call 0") && e.text.contains(what), "{} lacks {what}", e.text);
        };
        refused(r#"{"op":"fly","handle":0}"#, "unknown operation \"fly\"");
        refused(r#"{"op":"try_broadcast","handle":0}"#, "missing \"message\"");
        refused(r#"{"op":"try_broadcast","handle":0,"message":1.5}"#, "\"message\" must be an integer");
        refused(r#"{"op":"clone_sender","handle":0}"#, "missing \"new\"");
        refused(r#"{"op":"clone_sender","handle":0,"new":64}"#, "handle numbers are 0..63");
        refused(r#"{"op":"len","handle":-1}"#, "\"handle\" must be a non-negative integer");
        refused(r#"{"op":"set_overflow","handle":0,"arg":1}"#, "true or false");
        refused(r#"{"op":"set_capacity","handle":0,"arg":true}"#, "non-negative integer");
        refused(r#"{"op":"recv_timed","handle":1}"#, "missing \"timeout_us\"");
        refused(r#"{"op":"len","handle":1,"woken":true}"#, "unknown member \"woken\"");
    }
}
