// SPDX-License-Identifier: MIT OR Apache-2.0
//! bcast-trace-driver: replays bcast's portable traces (docs/traces.md) on
//! async-broadcast 0.4.1, and shows the senders it strands.
//!
//!   bcast-trace-driver replay TRACES [RESULTS]   results in the same format (stdout without RESULTS)
//!   bcast-trace-driver stranded                  the threaded reproducers of docs/traces.md
//!   bcast-trace-driver serve                     bcast's driver protocol (docs/drivers.md), for
//!                                                `bcast-trace drive` (serve.rs): concurrent
//!                                                histories drawn and judged by bcast
//!
//! replay exits 2 with "FILE:LINE: what" on bad input (malformed JSON, an
//! unknown operation, a handle that does not exist or is of the wrong kind).
//! An operation 0.4.1 does not have is answered {"unsupported":true}.
//! A blocking call is polled once: in a single-threaded trace nothing else
//! could wake it, so a pending poll is answered {"blocked":true}.

use std::collections::HashMap;
use std::fs;
use std::future::Future;
use std::io::{self, BufWriter, Write};
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll};
use std::thread;
use std::time::{Duration, Instant};

use async_broadcast::{broadcast, InactiveReceiver, Receiver, RecvError, SendError, Sender, TryRecvError, TrySendError};
use serde_json::{json, Map, Value};

const IMPLEMENTATION: &str = "async-broadcast 0.4.1";

enum Handle {
    Sender(Sender<i64>),
    Receiver(Receiver<i64>),
    Inactive(InactiveReceiver<i64>),
}

impl Handle {
    fn kind(&self) -> &'static str {
        match self {
            Handle::Sender(_) => "a sender",
            Handle::Receiver(_) => "a receiver",
            Handle::Inactive(_) => "an inactive receiver",
        }
    }
}

// A channel-wide call on any kind of handle (R-QUERY-1).
macro_rules! on_any {
    ($handle:expr, $h:ident => $body:expr) => {
        match $handle {
            Handle::Sender($h) => $body,
            Handle::Receiver($h) => $body,
            Handle::Inactive($h) => $body,
        }
    };
}

mod serve;

/// Polls a future once with a waker that only records being called.
/// Some(output) if it completed, None if it is pending.
fn poll_once<F: Future + Unpin>(future: &mut F) -> Option<F::Output> {
    let waker = waker_fn::waker_fn(|| {});
    let mut cx = Context::from_waker(&waker);
    match Pin::new(future).poll(&mut cx) {
        Poll::Ready(output) => Some(output),
        Poll::Pending => None,
    }
}

fn ok() -> Value {
    json!({"ok": true})
}

fn send_result(r: Result<Option<i64>, TrySendError<i64>>) -> Value {
    match r {
        Ok(None) => ok(),
        Ok(Some(evicted)) => json!({"ok": true, "evicted": evicted}),
        Err(TrySendError::Full(m)) => json!({"error": "full", "message": m}),
        Err(TrySendError::Closed(m)) => json!({"error": "closed", "message": m}),
        Err(TrySendError::Inactive(m)) => json!({"error": "inactive", "message": m}),
    }
}

fn recv_result(r: Result<i64, TryRecvError>) -> Value {
    match r {
        Ok(m) => json!({"ok": true, "message": m}),
        Err(TryRecvError::Overflowed(n)) => json!({"error": "overflowed", "missed": n}),
        Err(TryRecvError::Empty) => json!({"error": "empty"}),
        Err(TryRecvError::Closed) => json!({"error": "closed"}),
    }
}

struct Replayer<'a> {
    source: &'a str,
    line: usize,
    handles: HashMap<u64, Handle>,
    in_trace: bool,
}

impl<'a> Replayer<'a> {
    fn fail<T>(&self, what: impl Into<String>) -> Result<T, String> {
        Err(format!("{}:{}: {}", self.source, self.line, what.into()))
    }

    fn field<'v>(&self, o: &'v Map<String, Value>, key: &str) -> Result<&'v Value, String> {
        match o.get(key) {
            Some(v) => Ok(v),
            None => self.fail(format!("missing \"{key}\"")),
        }
    }

    fn number(&self, o: &Map<String, Value>, key: &str) -> Result<u64, String> {
        match self.field(o, key)?.as_u64() {
            Some(n) => Ok(n),
            None => self.fail(format!("\"{key}\" must be a non-negative integer")),
        }
    }

    fn take(&mut self, id: u64) -> Result<Handle, String> {
        match self.handles.remove(&id) {
            Some(h) => Ok(h),
            None => self.fail(format!("handle {id} does not exist (never made, or dropped)")),
        }
    }

    fn get(&self, id: u64) -> Result<&Handle, String> {
        match self.handles.get(&id) {
            Some(h) => Ok(h),
            None => self.fail(format!("handle {id} does not exist (never made, or dropped)")),
        }
    }

    fn wrong_kind<T>(&self, id: u64, h: &Handle, op: &str, wanted: &str) -> Result<T, String> {
        self.fail(format!("handle {id} is {}; \"{op}\" needs {wanted}", h.kind()))
    }

    fn sender(&self, id: u64, op: &str) -> Result<&Sender<i64>, String> {
        match self.get(id)? {
            Handle::Sender(s) => Ok(s),
            h => self.wrong_kind(id, h, op, "a sender"),
        }
    }

    fn receiver(&mut self, id: u64, op: &str) -> Result<&mut Receiver<i64>, String> {
        let kind = self.get(id)?.kind();
        if kind != "a receiver" {
            return self.fail(format!("handle {id} is {kind}; \"{op}\" needs a receiver"));
        }
        match self.handles.get_mut(&id) {
            Some(Handle::Receiver(r)) => Ok(r),
            _ => unreachable!("checked to be a receiver"),
        }
    }

    fn inactive(&self, id: u64, op: &str) -> Result<&InactiveReceiver<i64>, String> {
        match self.get(id)? {
            Handle::Inactive(i) => Ok(i),
            h => self.wrong_kind(id, h, op, "an inactive receiver"),
        }
    }

    fn add(&mut self, o: &Map<String, Value>, h: Handle) -> Result<Value, String> {
        let id = self.number(o, "new")?;
        if self.handles.contains_key(&id) {
            return self.fail(format!("\"new\" names handle {id}, which is alive"));
        }
        self.handles.insert(id, h);
        Ok(ok())
    }

    fn header(&mut self, o: &Map<String, Value>) -> Result<Value, String> {
        if o.get("format").and_then(Value::as_str) != Some("bcast-trace") {
            return self.fail("\"format\" must be \"bcast-trace\"");
        }
        if o.get("version").and_then(Value::as_i64) != Some(1) {
            return self.fail(format!("unsupported version {} (this driver reads version 1)", o.get("version").unwrap_or(&Value::Null)));
        }
        self.number(o, "trace")?;
        let capacity = self.number(o, "capacity")?;
        if capacity == 0 {
            return self.fail("\"capacity\" must be at least 1");
        }
        self.handles.clear(); // the previous trace's channel goes with its handles
        let (s, r) = broadcast::<i64>(capacity as usize);
        self.handles.insert(0, Handle::Sender(s));
        self.handles.insert(1, Handle::Receiver(r));
        self.in_trace = true;
        let mut out = o.clone();
        out.insert("implementation".into(), Value::from(IMPLEMENTATION));
        Ok(Value::Object(out))
    }

    fn step(&mut self, o: &Map<String, Value>) -> Result<Value, String> {
        if !self.in_trace {
            return self.fail("a step before any trace header");
        }
        let op = match self.field(o, "op")?.as_str() {
            Some(op) => op.to_string(),
            None => return self.fail("\"op\" must be a string"),
        };
        let id = self.number(o, "handle")?;
        let result = self.run(&op, id, o)?;
        let mut out = o.clone();
        out.insert("result".into(), result);
        Ok(Value::Object(out))
    }

    fn message(&self, o: &Map<String, Value>) -> Result<i64, String> {
        match self.field(o, "message")?.as_i64() {
            Some(m) => Ok(m),
            None => self.fail("\"message\" must be an integer"),
        }
    }

    fn flag(&self, o: &Map<String, Value>) -> Result<bool, String> {
        match self.field(o, "arg")?.as_bool() {
            Some(b) => Ok(b),
            None => self.fail("\"arg\" must be true or false"),
        }
    }

    fn run(&mut self, op: &str, id: u64, o: &Map<String, Value>) -> Result<Value, String> {
        Ok(match op {
            "try_broadcast" => {
                let m = self.message(o)?;
                send_result(self.sender(id, op)?.try_broadcast(m))
            }
            "broadcast" => {
                let m = self.message(o)?;
                let mut send = self.sender(id, op)?.broadcast(m);
                match poll_once(&mut send) {
                    Some(Ok(None)) => ok(),
                    Some(Ok(Some(evicted))) => json!({"ok": true, "evicted": evicted}),
                    Some(Err(e)) => json!({"error": "closed", "message": e.0}), // 0.4.1's SendError: closed only
                    None => json!({"blocked": true}),
                }
            }
            "try_recv" => recv_result(self.receiver(id, op)?.try_recv()),
            "recv" => {
                let mut recv = self.receiver(id, op)?.recv();
                match poll_once(&mut recv) {
                    Some(Ok(m)) => json!({"ok": true, "message": m}),
                    Some(Err(RecvError::Overflowed(n))) => json!({"error": "overflowed", "missed": n}),
                    Some(Err(RecvError::Closed)) => json!({"error": "closed"}),
                    None => json!({"blocked": true}),
                }
            }
            // Every call that makes a handle ends alike: the new handle takes the number the
            // step's "new" gives (add() refuses one still alive). deactivate and activate use
            // their own handle up, so they take it out of the table first.
            "clone_receiver" | "new_receiver" | "new_sender" | "clone_sender" | "deactivate" | "activate"
            | "activate_cloned" | "clone_inactive" => {
                let made = match op {
                    "clone_receiver" => Handle::Receiver(self.receiver(id, op)?.clone()),
                    "new_receiver" => match self.get(id)? {
                        Handle::Sender(s) => Handle::Receiver(s.new_receiver()),
                        Handle::Receiver(r) => Handle::Receiver(r.new_receiver()),
                        h => return self.wrong_kind(id, h, op, "a sender or a receiver"),
                    },
                    "new_sender" => Handle::Sender(self.receiver(id, op)?.new_sender()),
                    "clone_sender" => Handle::Sender(self.sender(id, op)?.clone()),
                    "deactivate" => {
                        self.receiver(id, op)?;
                        match self.take(id)? {
                            Handle::Receiver(r) => Handle::Inactive(r.deactivate()),
                            _ => unreachable!("checked to be a receiver"),
                        }
                    }
                    "activate" => {
                        self.inactive(id, op)?;
                        match self.take(id)? {
                            Handle::Inactive(i) => Handle::Receiver(i.activate()),
                            _ => unreachable!("checked to be an inactive receiver"),
                        }
                    }
                    "activate_cloned" => Handle::Receiver(self.inactive(id, op)?.activate_cloned()),
                    "clone_inactive" => Handle::Inactive(self.inactive(id, op)?.clone()),
                    _ => unreachable!("an operation of this arm"),
                };
                self.add(o, made)?
            }
            "drop_sender" | "drop_receiver" | "drop_inactive" => {
                let wanted = match op {
                    "drop_sender" => "a sender",
                    "drop_receiver" => "a receiver",
                    _ => "an inactive receiver",
                };
                let h = self.get(id)?;
                if h.kind() != wanted {
                    return self.wrong_kind(id, h, op, wanted);
                }
                drop(self.take(id)?);
                ok()
            }
            "set_capacity" => {
                let n = match self.field(o, "arg")?.as_u64() {
                    Some(n) => n as usize,
                    None => return self.fail("\"arg\" must be a non-negative integer"),
                };
                self.get(id)?;
                on_any!(self.handles.get_mut(&id).unwrap(), h => h.set_capacity(n));
                ok()
            }
            "set_overflow" => {
                let b = self.flag(o)?;
                self.get(id)?;
                on_any!(self.handles.get_mut(&id).unwrap(), h => h.set_overflow(b));
                ok()
            }
            "close" => json!({"value": on_any!(self.get(id)?, h => h.close())}),
            "len" => json!({"value": on_any!(self.get(id)?, h => h.len())}),
            "is_empty" => json!({"value": on_any!(self.get(id)?, h => h.is_empty())}),
            "is_full" => json!({"value": on_any!(self.get(id)?, h => h.is_full())}),
            "capacity" => json!({"value": on_any!(self.get(id)?, h => h.capacity())}),
            "receiver_count" => json!({"value": on_any!(self.get(id)?, h => h.receiver_count())}),
            "inactive_receiver_count" => json!({"value": on_any!(self.get(id)?, h => h.inactive_receiver_count())}),
            "sender_count" => json!({"value": on_any!(self.get(id)?, h => h.sender_count())}),
            "is_closed" => json!({"value": on_any!(self.get(id)?, h => h.is_closed())}),
            "overflow" => json!({"value": on_any!(self.get(id)?, h => h.overflow())}),
            // Operations 0.4.1 does not have (await_active came in 0.5.0), and
            // bcast's extensions: answered, never dropped.
            "set_await_active" | "await_active" | "broadcast_expired" | "recv_expired" | "unread" | "missed"
            | "same_channel" => {
                self.get(id)?;
                json!({"unsupported": true})
            }
            _ => return self.fail(format!("unknown operation \"{op}\"")),
        })
    }
}

fn replay(input: &str, source: &str, out: &mut dyn Write) -> Result<(), String> {
    let mut r = Replayer { source, line: 0, handles: HashMap::new(), in_trace: false };
    for (n, text) in input.lines().enumerate() {
        r.line = n + 1;
        if text.trim().is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => return r.fail(format!("not JSON: {e}")),
        };
        let o = match value.as_object() {
            Some(o) => o,
            None => return r.fail("a line must be a JSON object"),
        };
        let written = if o.contains_key("format") { r.header(o)? } else { r.step(o)? };
        writeln!(out, "{written}").map_err(|e| e.to_string())?;
    }
    Ok(())
}

// ---- the stranded senders (docs/traces.md) ---------------------------------------

/// Sets `parked` once the inner future has returned Pending (its listener is registered).
struct Parked<F> {
    inner: F,
    parked: Arc<AtomicBool>,
}

impl<F: Future + Unpin> Future for Parked<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let result = Pin::new(&mut self.inner).poll(cx);
        if result.is_pending() {
            self.parked.store(true, Ordering::SeqCst); // read by the main thread before it makes the change
        }
        result
    }
}

/// How long the reproducer waits for the woken sender before calling it stranded.
const BOUND: Duration = Duration::from_secs(1);

/// `tx` sends 99 in a thread until it waits; then `change` runs; then the
/// sender has BOUND to finish. Also, without a clock: a second send, polled
/// by hand once the thread waits, says whether the change notified its waker.
/// Returns (finished in time, waker notified). `closer` closes the channel
/// afterwards so the thread always ends.
fn waits_after(tx: Sender<i64>, closer: &Sender<i64>, change: impl FnOnce()) -> (bool, bool) {
    let probe_sender = tx.clone();
    let parked = Arc::new(AtomicBool::new(false));
    let seen = parked.clone();
    let (done_tx, done_rx) = mpsc::channel();
    let worker = thread::spawn(move || {
        let result = futures_lite::future::block_on(Parked { inner: tx.broadcast(99), parked: seen });
        let _ = done_tx.send(result.is_ok());
    });
    while !parked.load(Ordering::SeqCst) {
        thread::yield_now(); // until the sender's listener is registered: no sleep decides the order
    }
    // The probe waits behind the thread (listeners are served in order), so a
    // notify(1) reaches the thread; a notify to all reaches the probe too.
    let notified = Arc::new(AtomicBool::new(false));
    let flag = notified.clone();
    let waker = waker_fn::waker_fn(move || flag.store(true, Ordering::SeqCst));
    let mut cx = Context::from_waker(&waker);
    let mut probe = probe_sender.broadcast(98);
    let probe_waits = Pin::new(&mut probe).poll(&mut cx).is_pending();
    change();
    let finished = done_rx.recv_timeout(BOUND).is_ok();
    let woken = probe_waits && notified.load(Ordering::SeqCst);
    drop(probe);
    closer.close(); // releases a stranded sender: close wakes everyone (R-CLOSE-6)
    worker.join().expect("the sender thread panicked");
    (finished, woken)
}

fn report(rule: &str, what: &str, (finished, woken): (bool, bool)) -> bool {
    let stranded = !finished && !woken;
    println!(
        "{rule}: {what}: {IMPLEMENTATION}: sender {} after {} ms, waker {}: {}",
        if finished { "finished" } else { "still waiting" },
        BOUND.as_millis(),
        if woken { "notified" } else { "not notified" },
        if stranded {
            "STRANDED, as docs/traces.md documents (the spec says it must go on)"
        } else {
            "went on: the divergence table is wrong about this version"
        }
    );
    stranded
}

/// What `senders_wait_after` saw.
struct Turns {
    /// Senders waiting in threads, and how many of them finished within BOUND.
    threads: usize,
    finished: usize,
    /// Whether anything called the waker of the sender waiting behind the
    /// threads (polled by hand) within BOUND.
    probe_notified: bool,
    /// That sender's answer once the threads are done, from the channel's
    /// state (`would_send`): whether it had to be woken (R-WAKE-1).
    answer_changed: Option<&'static str>,
    /// Only when the first thread kept its finished future: whether dropping
    /// it afterwards called the waker.
    notified_after_drop: Option<bool>,
    /// That sender polled by hand at the end: what it does.
    probe_now: Option<Result<Option<i64>, SendError<i64>>>,
}

/// What a waiting sender would answer now (R-SEND-1, R-SEND-3; 0.4.1 always
/// waits for an active receiver): Some(why it goes on), or None if it must wait.
fn would_send(s: &Sender<i64>) -> Option<&'static str> {
    if s.is_closed() {
        Some("fail: closed")
    } else if s.receiver_count() == 0 {
        None
    } else if s.len() < s.capacity() {
        Some("send: a slot is free")
    } else if s.overflow() {
        Some("send, evicting: overflow is on")
    } else {
        None
    }
}

/// Like `waits_after`, with several waiting senders: each of `senders` sends
/// 99, 100, ... in a thread of its own until it waits, one after the other
/// (listeners are served in order, so a notify(1) reaches the first); behind
/// them a sender polled by hand sends 98. Then `change` runs and the threads
/// have BOUND to finish. With `keep_first`, the first thread keeps its
/// finished future (as a program that holds a `Send` it has awaited does) until
/// the probe has been looked at, then drops it. `closer` closes the channel
/// afterwards so every thread ends.
fn senders_wait_after(senders: Vec<Sender<i64>>, probe_sender: &Sender<i64>, closer: &Sender<i64>, keep_first: bool, change: impl FnOnce()) -> Turns {
    let threads = senders.len();
    let (done_tx, done_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let mut release_rx = Some(release_rx);
    let mut workers = Vec::new();
    for (i, tx) in senders.into_iter().enumerate() {
        let parked = Arc::new(AtomicBool::new(false));
        let seen = parked.clone();
        let done = done_tx.clone();
        let release = if keep_first && i == 0 { release_rx.take() } else { None };
        workers.push(thread::spawn(move || {
            let mut send = Parked { inner: tx.broadcast(99 + i as i64), parked: seen };
            let result = futures_lite::future::block_on(&mut send);
            let _ = done.send(result.is_ok());
            if let Some(release) = release {
                let _ = release.recv(); // the finished future, and its listener, live until then
            }
            drop(send);
        }));
        while !parked.load(Ordering::SeqCst) {
            thread::yield_now(); // this sender's listener is registered before the next one's
        }
    }
    let notified = Arc::new(AtomicBool::new(false));
    let flag = notified.clone();
    let waker = waker_fn::waker_fn(move || flag.store(true, Ordering::SeqCst));
    let mut cx = Context::from_waker(&waker);
    let mut probe = probe_sender.broadcast(98);
    assert!(Pin::new(&mut probe).poll(&mut cx).is_pending(), "the sender behind the threads must wait before the change");
    change();
    let deadline = Instant::now() + BOUND;
    let mut finished = 0;
    while finished < threads {
        match done_rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(_) => finished += 1,
            Err(_) => break,
        }
    }
    // A sender passes the turn on before its thread reports (an explicit notify
    // in poll) or when its future is dropped: give that the rest of BOUND.
    while !notified.load(Ordering::SeqCst) && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(1));
    }
    let probe_notified = notified.load(Ordering::SeqCst);
    let answer_changed = would_send(probe_sender);
    let notified_after_drop = if keep_first {
        let _ = release_tx.send(());
        let until = Instant::now() + BOUND;
        while !notified.load(Ordering::SeqCst) && Instant::now() < until {
            thread::sleep(Duration::from_millis(1));
        }
        Some(notified.load(Ordering::SeqCst))
    } else {
        None
    };
    let probe_now = match Pin::new(&mut probe).poll(&mut cx) {
        Poll::Ready(r) => Some(r),
        Poll::Pending => None,
    };
    drop(probe);
    drop(release_tx);
    closer.close(); // releases a stranded sender: close wakes everyone (R-CLOSE-6)
    for w in workers {
        w.join().expect("a sender thread panicked");
    }
    Turns { threads, finished, probe_notified, answer_changed, notified_after_drop, probe_now }
}

/// A waiting sender is stranded when its answer had changed (it would go on)
/// and nothing woke it.
fn turns_stranded(t: &Turns) -> bool {
    t.finished < t.threads || (!t.probe_notified && t.answer_changed.is_some())
}

fn turns_line(t: &Turns) -> String {
    let mut line = format!(
        "{} of {} sender{} in threads finished within {} ms; the sender behind them: its answer now {}, waker {}",
        t.finished,
        t.threads,
        if t.threads == 1 { "" } else { "s" },
        BOUND.as_millis(),
        t.answer_changed.unwrap_or("wait"),
        if t.probe_notified { "notified" } else { "not notified" },
    );
    if let Some(after) = t.notified_after_drop {
        line += if after {
            "; once the first sender dropped its finished future: waker notified"
        } else {
            "; once the first sender dropped its finished future: waker still not notified"
        };
    }
    line += &format!(
        "; polled by hand: {}",
        match &t.probe_now {
            None => "waits".to_string(),
            Some(Ok(None)) => "sends".to_string(),
            Some(Ok(Some(evicted))) => format!("sends, evicting {evicted}"),
            Some(Err(_)) => "fails (closed)".to_string(),
        }
    );
    line
}

/// What a several-sender scenario is expected to show on 0.4.1.
enum Expect {
    /// No sender is stranded; the text says why (a control, or a path that is
    /// not stranded on this version).
    GoesOn(&'static str),
    /// A sender is stranded; the text says what the divergence table says of it.
    Stranded(&'static str),
}

fn report_turns(rule: &str, what: &str, t: Turns, expect: Expect) -> bool {
    let stranded = turns_stranded(&t);
    let (verdict, as_expected) = match (&expect, stranded) {
        (Expect::Stranded(table), true) => (format!("STRANDED (the spec says it must go on), {table}"), true),
        (Expect::GoesOn(why), false) => (format!("went on, {why}"), true),
        (Expect::Stranded(_), false) => ("went on: this program's expectation (stranded) is wrong about this version".to_string(), false),
        (Expect::GoesOn(_), true) => ("STRANDED: this program's expectation (goes on) is wrong about this version".to_string(), false),
    };
    println!("{rule}: {what}: {IMPLEMENTATION}: {}: {verdict}", turns_line(&t));
    as_expected
}

/// A sender waits on a full channel of capacity 1 while `change` runs on
/// another sender of it.
fn changed_while_full(rule: &str, what: &str, change: impl FnOnce(&mut Sender<i64>)) -> bool {
    let (s, r) = broadcast::<i64>(1);
    s.try_broadcast(0).unwrap();
    let mut setter = s.clone();
    let documented = report(rule, what, waits_after(s.clone(), &s, || change(&mut setter)));
    drop(r);
    documented
}

/// How a reproducer makes an active receiver of the inactive one.
enum Activate {
    Cloned,
    /// activate(), which uses the inactive receiver up.
    Itself,
}

/// A several-sender reproducer (`senders_wait_after`) on a channel whose only
/// receiver is inactive, so that every sender waits for an active one until
/// the change makes one.
struct Reactivation {
    rule: &'static str,
    what: &'static str,
    capacity: usize,
    overflow: bool,
    /// Senders waiting in threads, in front of the one polled by hand.
    threads: usize,
    keep_first: bool,
    by: Activate,
    expect: Expect,
}

/// Runs and reports the case: whether it showed what `case.expect` says.
fn reactivated(case: Reactivation) -> bool {
    let (mut s, r) = broadcast::<i64>(case.capacity);
    if case.overflow {
        s.set_overflow(true);
    }
    let mut inactive = Some(r.deactivate());
    let mut made = None;
    let turns = senders_wait_after(vec![s.clone(); case.threads], &s, &s, case.keep_first, || {
        made = Some(match case.by {
            Activate::Cloned => inactive.as_ref().unwrap().activate_cloned(),
            Activate::Itself => inactive.take().unwrap().activate(),
        })
    });
    let as_expected = report_turns(case.rule, case.what, turns, case.expect);
    drop((made, inactive));
    as_expected
}

fn stranded() -> bool {
    let mut as_documented = true;
    {
        // The control: a wakeup upstream does make (a receive frees the only
        // slot, R-WAKE-1), so this harness can tell a woken sender from a stranded one.
        let (s, r) = broadcast::<i64>(1);
        s.try_broadcast(0).unwrap();
        let mut reader = r.clone();
        drop(r);
        let outcome = waits_after(s.clone(), &s, || {
            reader.try_recv().unwrap();
        });
        let went_on = outcome.0 || outcome.1;
        println!(
            "control: try_recv frees the slot of a full channel: {IMPLEMENTATION}: sender {}, waker {}: {}",
            if outcome.0 { "finished" } else { "still waiting" },
            if outcome.1 { "notified" } else { "not notified" },
            if went_on { "went on, as it must (the harness sees a wakeup)" } else { "STRANDED: the harness is broken" }
        );
        as_documented &= went_on;
    }
    // R-CAP-4: a full channel of capacity 1 grows to 2 while a sender waits.
    as_documented &= changed_while_full("R-CAP-4", "set_capacity(2) on a full channel of capacity 1", |setter| setter.set_capacity(2));
    // R-OVF-4: overflow turned on while a sender waits on a full channel.
    as_documented &= changed_while_full("R-OVF-4", "set_overflow(true) on a full channel", |setter| setter.set_overflow(true));
    {
        // R-LIFE-6: the only receiver is inactive; new_receiver() makes an active one.
        let (s, r) = broadcast::<i64>(1);
        let inactive = r.deactivate();
        let mut made = None;
        as_documented &= report("R-LIFE-6", "new_receiver() while only an inactive receiver exists", waits_after(s.clone(), &s, || made = Some(s.new_receiver())));
        drop((made, inactive));
    }
    println!("R-ACT-3: set_await_active(false) while a sender waits for an active receiver: {IMPLEMENTATION}: unsupported (no set_await_active before 0.5.0)");
    // Several waiting senders. Upstream wakes one (notify(1)); a woken sender
    // retries before it polls its listener (0.4.1 lib.rs:1456-1473), so when the
    // retry succeeds its future still holds the delivered notification, which
    // absorbs the "room left" notify(1) of lib.rs:1464-1467 (event-listener
    // counts it as notified) and is passed on to the next listener only when the
    // finished future is dropped (event-listener 2.5.3 lib.rs:707-723).
    const PASSED_ON: &str = "as the spec says: event-listener passes the first sender's notification on when its finished future is dropped \
                             (docs/traces.md's R-LIFE-6 row: the others are left waiting only while a finished future is kept: see below)";
    let reactivations = [
        Reactivation { rule: "control", what: "activate_cloned() with two senders waiting for an active receiver, capacity 2, overflow off",
            capacity: 2, overflow: false, threads: 1, keep_first: false, by: Activate::Cloned,
            expect: Expect::GoesOn("as it must (the harness sees the turn passed on)") },
        Reactivation { rule: "control", what: "activate_cloned() with two senders waiting for an active receiver, capacity 1, overflow off",
            capacity: 1, overflow: false, threads: 1, keep_first: false, by: Activate::Cloned,
            expect: Expect::GoesOn("as it must: the second sender has to wait (full); woken for nothing, it waits again") },
        Reactivation { rule: "R-LIFE-6", what: "activate_cloned() with two senders waiting for an active receiver, capacity 1, overflow on",
            capacity: 1, overflow: true, threads: 1, keep_first: false, by: Activate::Cloned, expect: Expect::GoesOn(PASSED_ON) },
        Reactivation { rule: "R-LIFE-6", what: "activate() with two senders waiting for an active receiver, capacity 1, overflow on",
            capacity: 1, overflow: true, threads: 1, keep_first: false, by: Activate::Itself, expect: Expect::GoesOn(PASSED_ON) },
        Reactivation { rule: "R-LIFE-6", what: "activate_cloned() with three senders waiting for an active receiver, capacity 2, overflow on",
            capacity: 2, overflow: true, threads: 2, keep_first: false, by: Activate::Cloned, expect: Expect::GoesOn(PASSED_ON) },
        // The same with the first sender's finished future kept: its listener
        // keeps the turn.
        Reactivation { rule: "R-LIFE-6",
            what: "activate_cloned() with two senders waiting for an active receiver, capacity 1, overflow on, the first sender's finished future kept",
            capacity: 1, overflow: true, threads: 1, keep_first: true, by: Activate::Cloned,
            expect: Expect::Stranded("while that future is kept, as docs/traces.md's R-LIFE-6 row documents") },
    ];
    for case in reactivations {
        as_documented &= reactivated(case);
    }
    {
        // R-WAKE-1 with overflow off: two receives free both slots of a full
        // channel of capacity 2; the first notify(1) reaches the first sender, the
        // second is absorbed by it, and its send leaves a slot free.
        let (s, r) = broadcast::<i64>(2);
        s.try_broadcast(0).unwrap();
        s.try_broadcast(1).unwrap();
        let mut reader = r;
        as_documented &= report_turns(
            "R-WAKE-1",
            "two try_recv() free both slots of a full channel of capacity 2 with two senders waiting, the first sender's finished future kept",
            senders_wait_after(vec![s.clone()], &s, &s, true, || {
                reader.try_recv().unwrap();
                reader.try_recv().unwrap();
            }),
            Expect::Stranded("while that future is kept, as docs/traces.md's R-WAKE-1 row \"reproducer (kept future)\" documents"),
        );
        drop(reader);
    }
    println!("R-WAKE-1: deactivate() of the last active receiver (an inactive one left) with await_active off while two senders wait on a full channel: {IMPLEMENTATION}: unsupported (no set_await_active before 0.5.0)");
    as_documented
}

const USAGE: &str = "usage: bcast-trace-driver replay TRACES [RESULTS]
       bcast-trace-driver stranded
       bcast-trace-driver serve";


fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("replay") if args.len() == 2 || args.len() == 3 => {
            let input = match fs::read_to_string(&args[1]) {
                Ok(text) => text,
                Err(e) => {
                    eprintln!("bcast-trace-driver: cannot read {}: {e}", args[1]);
                    return ExitCode::from(2);
                }
            };
            let mut out: Box<dyn Write> = match args.get(2) {
                Some(path) => match fs::File::create(path) {
                    Ok(f) => Box::new(BufWriter::new(f)),
                    Err(e) => {
                        eprintln!("bcast-trace-driver: cannot write {path}: {e}");
                        return ExitCode::from(2);
                    }
                },
                None => Box::new(BufWriter::new(io::stdout())),
            };
            if let Err(e) = replay(&input, &args[1], out.as_mut()).and_then(|()| out.flush().map_err(|e| e.to_string())) {
                eprintln!("bcast-trace-driver: {e}");
                return ExitCode::from(2);
            }
            ExitCode::SUCCESS
        }
        Some("stranded") if args.len() == 1 => {
            if stranded() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Some("serve") if args.len() == 1 => serve::serve(),
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
