// SPDX-License-Identifier: MIT OR Apache-2.0
//! `bcast-trace-driver record`: concurrent histories of async-broadcast 0.4.1
//! (docs/traces.md, "Histories"), for `bcast-trace check-history`.
//!
//! The recorder of bcast's own channel (spec/traces/include/bcast/trace/record.hpp)
//! ported to upstream's handles, with the same program shape:
//!  * One clock: an atomic counter, ticked just before a call (its `invoked`)
//!    and just after (its `returned`), so that call A returned before call B
//!    was invoked exactly when A.returned < B.invoked. Each tick also keeps the
//!    wall time of the latest tick, to tell when the run went quiet.
//!  * Each thread owns its handles; handle numbers (0 the first sender, 1 the
//!    first receiver, then 2..63) are claimed from one counter, never reused.
//!  * The setup (thread -1) hands out copies of the first handles; in a
//!    contention run it empties or fills the ring or deactivates every
//!    receiver, so that threads 0..n-2 start with a call that must wait, and
//!    the last thread, once they wait, runs 1-3 calls drawn four times as often
//!    from those that must wake every waiter.
//!  * A blocking `broadcast` / `recv` is its future driven by a small executor
//!    with a deadline `stall`. The executor knows when the channel notified
//!    the future's waker, which bcast's C++ recorder cannot see: a call is a
//!    STALL (recorded pending, and its thread stops) only if no notification
//!    came since its last pending poll, the bound ran out, and the clock was
//!    quiet for the last half of it. A call that timed out while others were
//!    busy is recorded as the timed call that timed out, which the checker
//!    accepts wherever it would block (sound; it proves nothing).
//!  * A run is kept only if no tick moved after a stall (nothing happened that
//!    could still have woken it); otherwise it is discarded and counted.
//!
//! 0.4.1 has no `await_active` / `set_await_active`, and bcast's extensions
//! (`unread`, `missed`, the `*_expired` calls) are not upstream's: the programs
//! never draw them (an `async-broadcast` history may not hold them).

use std::future::Future;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::thread;
use std::time::{Duration, Instant};

use async_broadcast::{broadcast, RecvError, TrySendError};
use serde_json::{json, Value};

use super::{recv_result, send_result, Handle, IMPLEMENTATION};

/// Handle numbers 0..63, as bcast::spec::max_logical_handles.
const MAX_HANDLES: u32 = 64;

pub struct Options {
    pub seed: u64,
    pub min_threads: u64,
    pub max_threads: u64,
    pub calls: u64,
    pub stall: Duration,
    pub contention_only: bool, // every run has the contention shape (else one in two)
}

#[derive(Default)]
pub struct Stats {
    pub recorded: u64,
    pub discarded: u64,
    pub stalled: u64,
}

// ---- the seeded draw (splitmix64, as record.hpp) -----------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

// ---- the clock ---------------------------------------------------------------------

struct Clock {
    ticks: AtomicU64,
    last_ns: AtomicI64,
    start: Instant,
}

impl Clock {
    fn new() -> Clock {
        Clock { ticks: AtomicU64::new(0), last_ns: AtomicI64::new(0), start: Instant::now() }
    }
    fn elapsed_ns(&self) -> i64 {
        self.start.elapsed().as_nanos() as i64
    }
    fn tick(&self) -> u64 {
        // SeqCst: every tick is one total order, the order of the calls.
        let t = self.ticks.fetch_add(1, Ordering::SeqCst) + 1;
        // Only a wall time, ordered by nothing else: relaxed.
        self.last_ns.fetch_max(self.elapsed_ns(), Ordering::Relaxed);
        t
    }
    fn now(&self) -> u64 {
        self.ticks.load(Ordering::SeqCst) // pairs with tick()'s fetch_add
    }
    fn quiet(&self) -> Duration {
        Duration::from_nanos((self.elapsed_ns() - self.last_ns.load(Ordering::Relaxed)).max(0) as u64)
    }
}

// ---- one recorded call ---------------------------------------------------------------

struct Call {
    thread: i64,
    op: &'static str,
    handle: u32,
    new: Option<u32>,
    message: Option<i64>,
    arg: Option<Value>,
    timeout_us: Option<u64>,
    invoked: u64,
    returned: Option<u64>, // None: pending (stalled)
    result: Value,
}

impl Call {
    /// The call's line (docs/traces.md, "Histories"), members in the format's order.
    fn line(&self, history: u64, index: usize) -> String {
        let mut s = format!(
            "{{\"history\":{history},\"call\":{index},\"thread\":{},\"op\":\"{}\",\"handle\":{}",
            self.thread, self.op, self.handle
        );
        if let Some(n) = self.new {
            s += &format!(",\"new\":{n}");
        }
        if let Some(m) = self.message {
            s += &format!(",\"message\":{m}");
        }
        if let Some(a) = &self.arg {
            s += &format!(",\"arg\":{a}");
        }
        if let Some(t) = self.timeout_us {
            s += &format!(",\"timeout_us\":{t}");
        }
        s += &format!(",\"invoked\":{}", self.invoked);
        match self.returned {
            Some(r) => s += &format!(",\"returned\":{r},\"result\":{}}}", self.result),
            None => s += ",\"pending\":true}",
        }
        s
    }
}

// ---- bounded waits -------------------------------------------------------------------

/// What a bounded wait came to.
struct Waited<T> {
    output: Option<T>, // None: the deadline passed with the future still pending
    /// No notification reached the future's waker since its last pending poll
    /// and the deadline passed: if the future completed, it did so on the
    /// re-poll at the deadline (the re-check a timed wait makes), not because
    /// it was woken.
    unwoken_at_deadline: bool,
}

/// Drives `future` on this thread until it completes or `bound` runs out.
/// `parked` (a waiter's) is set once the future has returned Pending, so that
/// the waker thread of a contention run knows its listener is registered.
fn wait_bounded<F: Future>(future: F, bound: Duration, parked: Option<&AtomicBool>) -> Waited<F::Output> {
    let woken = Arc::new(AtomicBool::new(false));
    let me = thread::current();
    let flag = woken.clone();
    // SeqCst: the store pairs with the load below that decides whether to
    // park; an unpark before the park makes the park return at once.
    let waker = waker_fn::waker_fn(move || {
        flag.store(true, Ordering::SeqCst);
        me.unpark();
    });
    let mut cx = Context::from_waker(&waker);
    futures_lite::pin!(future);
    let deadline = Instant::now() + bound;
    loop {
        woken.store(false, Ordering::SeqCst); // a notification during the poll below counts as one
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return Waited { output: Some(v), unwoken_at_deadline: false };
        }
        if let Some(p) = parked {
            p.store(true, Ordering::Release); // pairs with the waker thread's acquire load
        }
        loop {
            if woken.load(Ordering::SeqCst) {
                break; // notified: poll again
            }
            let now = Instant::now();
            if now >= deadline {
                let unwoken = !woken.load(Ordering::SeqCst);
                let last = match future.as_mut().poll(&mut cx) {
                    Poll::Ready(v) => Some(v),
                    Poll::Pending => None,
                };
                return Waited { output: last, unwoken_at_deadline: unwoken };
            }
            thread::park_timeout(deadline - now);
        }
    }
}

// ---- threads, handles, the runner ----------------------------------------------------

struct Owned {
    logical: u32,
    handle: Handle,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Sender,
    Receiver,
    Inactive,
}

fn kind_of(h: &Handle) -> Kind {
    match h {
        Handle::Sender(_) => Kind::Sender,
        Handle::Receiver(_) => Kind::Receiver,
        Handle::Inactive(_) => Kind::Inactive,
    }
}

/// What one thread did.
#[derive(Default)]
struct Lane {
    thread: i64,
    handles: Vec<Owned>,
    calls: Vec<Call>,
    stalled: bool,
    stall_tick: u64,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Op {
    TryBroadcast,
    Broadcast,
    BroadcastTimed,
    TryRecv,
    Recv,
    RecvTimed,
    CloneReceiver,
    NewReceiver,
    NewSender,
    CloneSender,
    DropSender,
    DropReceiver,
    DropInactive,
    Deactivate,
    Activate,
    ActivateCloned,
    CloneInactive,
    SetCapacity,
    SetOverflow,
    Close,
    Query(&'static str),
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::TryBroadcast => "try_broadcast",
            Op::Broadcast => "broadcast",
            Op::BroadcastTimed => "broadcast_timed",
            Op::TryRecv => "try_recv",
            Op::Recv => "recv",
            Op::RecvTimed => "recv_timed",
            Op::CloneReceiver => "clone_receiver",
            Op::NewReceiver => "new_receiver",
            Op::NewSender => "new_sender",
            Op::CloneSender => "clone_sender",
            Op::DropSender => "drop_sender",
            Op::DropReceiver => "drop_receiver",
            Op::DropInactive => "drop_inactive",
            Op::Deactivate => "deactivate",
            Op::Activate => "activate",
            Op::ActivateCloned => "activate_cloned",
            Op::CloneInactive => "clone_inactive",
            Op::SetCapacity => "set_capacity",
            Op::SetOverflow => "set_overflow",
            Op::Close => "close",
            Op::Query(name) => name,
        }
    }
    fn makes_handle(self) -> bool {
        matches!(
            self,
            Op::CloneReceiver
                | Op::NewReceiver
                | Op::NewSender
                | Op::CloneSender
                | Op::Deactivate
                | Op::Activate
                | Op::ActivateCloned
                | Op::CloneInactive
        )
    }
    /// The calls that must wake every waiter (R-CLOSE-6, R-LIFE-3, R-CAP-4,
    /// R-OVF-4, R-LIFE-6): a contention run's waker draws them four times as often.
    fn wakes_every_waiter(self) -> bool {
        matches!(
            self,
            Op::Close
                | Op::DropSender
                | Op::DropReceiver
                | Op::Deactivate
                | Op::SetCapacity
                | Op::SetOverflow
                | Op::Activate
                | Op::NewReceiver
        )
    }
}

/// The channel-wide queries 0.4.1 has (no await_active; unread and missed are bcast's).
const QUERIES: [&str; 9] =
    ["len", "is_empty", "is_full", "capacity", "receiver_count", "inactive_receiver_count", "sender_count", "is_closed", "overflow"];

struct Runner<'a> {
    clock: &'a Clock,
    next_number: &'a AtomicU32,
    stall: Duration,
}

impl<'a> Runner<'a> {
    fn claim(&self) -> Option<u32> {
        // A counter: no data is published through it (relaxed).
        let mut n = self.next_number.load(Ordering::Relaxed);
        while n < MAX_HANDLES {
            match self.next_number.compare_exchange_weak(n, n + 1, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(n),
                Err(seen) => n = seen,
            }
        }
        None
    }

    /// Runs `op` on lane.handles[which]; false when the thread must stop (a stall).
    /// `announce`, if given, is counted down once the call is invoked;
    /// `parked`, if given, is set once a blocking call waits.
    fn perform(
        &self,
        lane: &mut Lane,
        op: Op,
        which: usize,
        arg: i64,
        timeout_us: u64,
        announce: Option<&AtomicUsize>,
        parked: Option<&AtomicBool>,
    ) -> bool {
        let made = if op.makes_handle() {
            match self.claim() {
                Some(n) => Some(n),
                None => return true, // no number left: the call is not made
            }
        } else {
            None
        };
        let mut call = Call {
            thread: lane.thread,
            op: op.name(),
            handle: lane.handles[which].logical,
            new: made,
            message: None,
            arg: None,
            timeout_us: None,
            invoked: 0,
            returned: None,
            result: json!({"ok": true}),
        };
        match op {
            Op::TryBroadcast | Op::Broadcast | Op::BroadcastTimed => call.message = Some(arg),
            Op::SetCapacity => call.arg = Some(json!(arg)),
            Op::SetOverflow => call.arg = Some(json!(arg != 0)),
            _ => {}
        }
        if op == Op::BroadcastTimed || op == Op::RecvTimed {
            call.timeout_us = Some(timeout_us);
        }
        let began = Instant::now();
        call.invoked = self.clock.tick();
        if let Some(a) = announce {
            a.fetch_sub(1, Ordering::Release); // pairs with the waker thread's acquire load
        }
        let mut new_handle: Option<Handle> = None;
        let handle = &mut lane.handles[which].handle;
        match op {
            Op::TryBroadcast => call.result = send_result(as_sender(handle).try_broadcast(arg)),
            Op::Broadcast | Op::BroadcastTimed => {
                let bound = if op == Op::Broadcast { self.stall } else { Duration::from_micros(timeout_us) };
                let waited = wait_bounded(as_sender(handle).broadcast(arg), bound, parked);
                if op == Op::Broadcast && self.stalled(lane, &mut call, began, waited.unwoken_at_deadline) {
                    return false;
                }
                call.result = match waited.output {
                    Some(r) => send_result(r.map_err(|e| TrySendError::Closed(e.0))), // 0.4.1's SendError: closed only
                    None => {
                        as_timed(&mut call, op, self.stall);
                        json!({"error": "timed_out", "message": arg})
                    }
                };
            }
            Op::TryRecv => call.result = recv_result(as_receiver(handle).try_recv()),
            Op::Recv | Op::RecvTimed => {
                let bound = if op == Op::Recv { self.stall } else { Duration::from_micros(timeout_us) };
                let waited = wait_bounded(as_receiver(handle).recv(), bound, parked);
                if op == Op::Recv && self.stalled(lane, &mut call, began, waited.unwoken_at_deadline) {
                    return false;
                }
                call.result = match waited.output {
                    Some(Ok(m)) => json!({"ok": true, "message": m}),
                    Some(Err(RecvError::Overflowed(n))) => json!({"error": "overflowed", "missed": n}),
                    Some(Err(RecvError::Closed)) => json!({"error": "closed"}),
                    None => {
                        as_timed(&mut call, op, self.stall);
                        json!({"error": "timed_out"})
                    }
                };
            }
            Op::CloneReceiver => new_handle = Some(Handle::Receiver(as_receiver(handle).clone())),
            Op::NewReceiver => {
                new_handle = Some(Handle::Receiver(match handle {
                    Handle::Sender(s) => s.new_receiver(),
                    Handle::Receiver(r) => r.new_receiver(),
                    Handle::Inactive(_) => unreachable!("drawn on a sender or a receiver only"),
                }))
            }
            Op::NewSender => new_handle = Some(Handle::Sender(as_receiver(handle).new_sender())),
            Op::CloneSender => new_handle = Some(Handle::Sender(as_sender(handle).clone())),
            Op::ActivateCloned => new_handle = Some(Handle::Receiver(as_inactive(handle).activate_cloned())),
            Op::CloneInactive => new_handle = Some(Handle::Inactive(as_inactive(handle).clone())),
            Op::DropSender | Op::DropReceiver | Op::DropInactive => {
                drop(lane.handles.remove(which));
            }
            Op::Deactivate => {
                if let Handle::Receiver(r) = lane.handles.remove(which).handle {
                    new_handle = Some(Handle::Inactive(r.deactivate()));
                }
            }
            Op::Activate => {
                if let Handle::Inactive(i) = lane.handles.remove(which).handle {
                    new_handle = Some(Handle::Receiver(i.activate()));
                }
            }
            Op::SetCapacity => on_any!(handle, h => h.set_capacity(arg as usize)),
            Op::SetOverflow => on_any!(handle, h => h.set_overflow(arg != 0)),
            Op::Close => call.result = json!({"value": on_any!(handle, h => h.close())}),
            Op::Query(name) => call.result = json!({"value": query(handle, name)}),
        }
        call.returned = Some(self.clock.tick());
        if let (Some(n), Some(h)) = (made, new_handle) {
            lane.handles.push(Owned { logical: n, handle: h });
        }
        lane.calls.push(call);
        true
    }

    /// A blocking call that no notification reached, that ran out its bound,
    /// with the clock quiet for the last half of it, is a STALL whatever its
    /// re-poll at the deadline found: recorded pending; its thread stops.
    fn stalled(&self, lane: &mut Lane, call: &mut Call, began: Instant, unwoken: bool) -> bool {
        if !unwoken || began.elapsed() < self.stall || self.clock.quiet() < self.stall / 2 {
            return false;
        }
        lane.stalled = true;
        lane.stall_tick = self.clock.now();
        let mut pending = std::mem::replace(call, blank());
        pending.returned = None;
        pending.timeout_us = None;
        lane.calls.push(pending);
        true
    }
}

fn blank() -> Call {
    Call {
        thread: 0,
        op: "",
        handle: 0,
        new: None,
        message: None,
        arg: None,
        timeout_us: None,
        invoked: 0,
        returned: None,
        result: Value::Null,
    }
}

/// A blocking call that timed out while others were busy: the timed call that timed out.
fn as_timed(call: &mut Call, op: Op, stall: Duration) {
    if op == Op::Broadcast {
        call.op = "broadcast_timed";
        call.timeout_us = Some(stall.as_micros() as u64);
    } else if op == Op::Recv {
        call.op = "recv_timed";
        call.timeout_us = Some(stall.as_micros() as u64);
    }
}

fn as_sender(h: &mut Handle) -> &mut async_broadcast::Sender<i64> {
    match h {
        Handle::Sender(s) => s,
        _ => unreachable!("drawn on a sender only"),
    }
}

fn as_receiver(h: &mut Handle) -> &mut async_broadcast::Receiver<i64> {
    match h {
        Handle::Receiver(r) => r,
        _ => unreachable!("drawn on a receiver only"),
    }
}

fn as_inactive(h: &mut Handle) -> &mut async_broadcast::InactiveReceiver<i64> {
    match h {
        Handle::Inactive(i) => i,
        _ => unreachable!("drawn on an inactive receiver only"),
    }
}

fn query(h: &Handle, name: &str) -> Value {
    match name {
        "len" => json!(on_any!(h, x => x.len())),
        "is_empty" => json!(on_any!(h, x => x.is_empty())),
        "is_full" => json!(on_any!(h, x => x.is_full())),
        "capacity" => json!(on_any!(h, x => x.capacity())),
        "receiver_count" => json!(on_any!(h, x => x.receiver_count())),
        "inactive_receiver_count" => json!(on_any!(h, x => x.inactive_receiver_count())),
        "sender_count" => json!(on_any!(h, x => x.sender_count())),
        "is_closed" => json!(on_any!(h, x => x.is_closed())),
        "overflow" => json!(on_any!(h, x => x.overflow())),
        _ => unreachable!("QUERIES only"),
    }
}

// ---- the program ----------------------------------------------------------------------

/// One weighted choice of a thread's next call.
struct Choice {
    op: Op,
    which: usize,
    weight: u64,
}

fn choices(lane: &Lane, waker: bool) -> Vec<Choice> {
    let mut out = Vec::new();
    let mut add = |op: Op, which: usize, weight: u64| {
        out.push(Choice { op, which, weight: if waker && op.wakes_every_waiter() { 4 * weight } else { weight } })
    };
    for (i, owned) in lane.handles.iter().enumerate() {
        match kind_of(&owned.handle) {
            Kind::Sender => {
                add(Op::TryBroadcast, i, 6);
                add(Op::Broadcast, i, 6);
                add(Op::BroadcastTimed, i, 2);
                add(Op::CloneSender, i, 1);
                add(Op::NewReceiver, i, 2);
                add(Op::DropSender, i, 1);
            }
            Kind::Receiver => {
                add(Op::TryRecv, i, 6);
                add(Op::Recv, i, 6);
                add(Op::RecvTimed, i, 2);
                add(Op::CloneReceiver, i, 2);
                add(Op::NewSender, i, 1);
                add(Op::NewReceiver, i, 1);
                add(Op::Deactivate, i, 2);
                add(Op::DropReceiver, i, 1);
            }
            Kind::Inactive => {
                add(Op::Activate, i, 3);
                add(Op::ActivateCloned, i, 1);
                add(Op::CloneInactive, i, 1);
                add(Op::DropInactive, i, 1);
            }
        }
        add(Op::SetCapacity, i, 1);
        add(Op::SetOverflow, i, 1);
        if i == 0 {
            add(Op::Close, i, 1); // one close per thread's draw, not per handle: a closed channel teaches little
        }
        add(Op::Query("len"), i, 2); // a query, drawn below
    }
    out
}

fn run_lane(lane: &mut Lane, mut rng: Rng, calls: u64, runner: &Runner, waker: bool) {
    let mut message = lane.thread * 1000;
    let mut n = 0;
    while n < calls && !lane.handles.is_empty() {
        n += 1;
        let options = choices(lane, waker);
        let total: u64 = options.iter().map(|c| c.weight).sum();
        let mut pick = rng.below(total);
        let mut chosen = &options[0];
        for c in &options {
            if pick < c.weight {
                chosen = c;
                break;
            }
            pick -= c.weight;
        }
        let mut op = chosen.op;
        if let Op::Query(_) = op {
            op = Op::Query(QUERIES[rng.below(QUERIES.len() as u64) as usize]);
        }
        let mut arg = 0;
        let mut timeout_us = 0;
        match op {
            Op::TryBroadcast | Op::Broadcast | Op::BroadcastTimed => {
                arg = message;
                message += 1;
            }
            Op::SetCapacity => arg = 1 + rng.below(4) as i64,
            Op::SetOverflow => arg = rng.below(2) as i64,
            _ => {}
        }
        if op == Op::BroadcastTimed || op == Op::RecvTimed {
            timeout_us = rng.below(3) * rng.below(1000);
        }
        if !runner.perform(lane, op, chosen.which, arg, timeout_us, None, None) {
            return;
        }
    }
}

/// A recorded history, its lines ready to write.
pub struct Recorded {
    pub lines: Vec<String>,
}

/// Records history `id` of the program drawn from `options.seed`; None when
/// the run was not quiescent at a stall (discarded, counted).
pub fn record_one(options: &Options, id: u64, stats: &mut Stats) -> Option<Recorded> {
    let mut rng = Rng((options.seed.wrapping_mul(0x1_0000_01b3)) ^ (id + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let threads = options.min_threads + rng.below(options.max_threads - options.min_threads + 1);
    let capacity = 1 + rng.below(3);
    let clock = Clock::new();
    let next_number = AtomicU32::new(2);
    let runner = Runner { clock: &clock, next_number: &next_number, stall: options.stall };
    let (s, r) = broadcast::<i64>(capacity as usize);
    let mut setup = Lane {
        thread: -1,
        handles: vec![Owned { logical: 0, handle: Handle::Sender(s) }, Owned { logical: 1, handle: Handle::Receiver(r) }],
        ..Lane::default()
    };
    let mut lanes: Vec<Lane> = (0..threads).map(|t| Lane { thread: t as i64, ..Lane::default() }).collect();

    // The setup makes every thread's handles, then hands them out: thread 0
    // gets the first two (or what became of them), the others copies.
    let contention = rng.one_in(2) || options.contention_only;
    let shape = rng.below(3); // 0: receivers wait on an empty ring; 1: senders on a full one; 2: senders for an active receiver
    let mut owner = [0usize; MAX_HANDLES as usize]; // which thread each handle number goes to
    let made_for = |setup: &mut Lane, owner: &mut [usize; MAX_HANDLES as usize], t: usize, op: Op, from: usize| {
        let before = next_number.load(Ordering::Relaxed); // only this thread claims numbers during the setup
        runner.perform(setup, op, from, 0, 0, None, None);
        if next_number.load(Ordering::Relaxed) != before {
            let made = setup.handles.last().expect("a call that made a handle appends it");
            owner[made.logical as usize] = t;
        }
    };
    if rng.one_in(3) && !(contention && shape == 1) {
        runner.perform(&mut setup, Op::SetOverflow, 0, 1, 0, None, None);
    }
    let threads = threads as usize;
    for t in 1..threads {
        // A waiter holds only the kind that waits; the waker also gets thread
        // 0's other handles below, so that it may hold the last of a kind.
        let waiter = contention && t + 1 < threads;
        let draw = rng.one_in(2);
        let wants_sender = if contention { if waiter { shape != 0 } else { shape != 0 && draw } } else { !rng.one_in(4) };
        let wants_receiver =
            if contention { if waiter { shape == 0 } else { shape == 0 && draw } } else { !wants_sender || !rng.one_in(4) };
        if wants_sender {
            made_for(&mut setup, &mut owner, t, Op::CloneSender, 0);
        }
        if wants_receiver {
            made_for(&mut setup, &mut owner, t, Op::CloneReceiver, 1);
        }
    }
    if contention && shape == 1 && rng.one_in(2) {
        // The waker also holds an inactive receiver: the last active receiver
        // leaving then does not close the channel (0.4.1 always awaits an
        // active receiver, R-ACT-2: the senders go on waiting, as the spec says).
        made_for(&mut setup, &mut owner, threads - 1, Op::CloneReceiver, 1);
        let last = setup.handles.len() - 1;
        made_for(&mut setup, &mut owner, threads - 1, Op::Deactivate, last);
    }
    if contention && shape == 1 {
        for m in 0..capacity {
            runner.perform(&mut setup, Op::TryBroadcast, 0, 900 + m as i64, 0, None, None);
        }
    }
    if contention && shape == 2 {
        // Every receiver goes inactive; each inactive one stays with its thread.
        let mut i = 0;
        while i < setup.handles.len() {
            if kind_of(&setup.handles[i].handle) != Kind::Receiver {
                i += 1;
                continue;
            }
            let t = owner[setup.handles[i].logical as usize];
            made_for(&mut setup, &mut owner, t, Op::Deactivate, i); // removes handles[i], appends the inactive one
        }
    }
    for o in setup.handles.drain(..) {
        lanes[owner[o.logical as usize]].handles.push(o);
    }
    if contention && threads > 1 {
        // Thread 0 is a waiter too: it keeps the kind that waits, the waker gets the rest.
        let waits = if shape == 0 { Kind::Receiver } else { Kind::Sender };
        let first: Vec<Owned> = lanes[0].handles.drain(..).collect();
        for o in first {
            if kind_of(&o.handle) == waits {
                lanes[0].handles.push(o);
            } else {
                lanes[threads - 1].handles.push(o);
            }
        }
    }

    let first_calls_due = AtomicUsize::new(if contention { threads - 1 } else { 0 });
    let parked: Vec<AtomicBool> = (0..threads).map(|_| AtomicBool::new(false)).collect();
    let is_waiter: Vec<bool> = (0..threads).map(|t| contention && t + 1 < threads && !lanes[t].handles.is_empty()).collect();
    let seed = options.seed;
    let calls = options.calls;
    thread::scope(|scope| {
        for lane in lanes.iter_mut() {
            let t = lane.thread as usize;
            let (runner, first_calls_due, parked, is_waiter) = (&runner, &first_calls_due, &parked, &is_waiter);
            scope.spawn(move || {
                let mut mine = Rng(seed ^ (id << 8) ^ (t as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                let waker = contention && t + 1 == threads;
                if waker {
                    // The waker's first call comes once every waiter has
                    // invoked its first call and is parked in it (bounded: 50 ms).
                    let give_up = Instant::now() + Duration::from_millis(50);
                    while first_calls_due.load(Ordering::Acquire) > 0 && Instant::now() < give_up {
                        thread::yield_now(); // pairs with the waiters' release fetch_sub
                    }
                    for w in 0..threads - 1 {
                        while is_waiter[w] && !parked[w].load(Ordering::Acquire) && Instant::now() < give_up {
                            thread::yield_now(); // pairs with wait_bounded's release store
                        }
                    }
                } else if contention && lane.handles.is_empty() {
                    first_calls_due.fetch_sub(1, Ordering::Release); // nothing to wait on; pairs with the waker's load
                } else if contention {
                    let sends = kind_of(&lane.handles[0].handle) == Kind::Sender;
                    let (op, arg) = if sends { (Op::Broadcast, 1000 * t as i64 + 999) } else { (Op::Recv, 0) };
                    if !runner.perform(lane, op, 0, arg, 0, Some(first_calls_due), Some(&parked[t])) {
                        return;
                    }
                }
                // The waker's program is short (1-3 calls): a long one would
                // rescue a waiter whose wake-up was lost.
                let n = if waker { calls.min(1 + mine.below(3)) } else { calls };
                run_lane(lane, mine, n, runner, waker);
            });
        }
    });

    let end = clock.now();
    let mut any_stall = false;
    for lane in &lanes {
        if lane.stalled && lane.stall_tick != end {
            stats.discarded += 1;
            return None;
        }
        any_stall |= lane.stalled;
    }
    // Handles still alive are dropped here, after the clock stopped: a drop
    // that would wake someone comes after every recorded call.
    let mut all: Vec<Call> = setup.calls;
    for lane in lanes.iter_mut() {
        all.append(&mut lane.calls);
    }
    all.sort_by_key(|c| c.invoked);
    let mut lines = vec![format!(
        "{{\"format\":\"bcast-history\",\"version\":1,\"history\":{id},\"capacity\":{capacity},\"threads\":{threads},\"target\":\"async-broadcast\",\"implementation\":\"{IMPLEMENTATION}\",\"seed\":{},\"stall_ms\":{},\"calls\":{}{}}}",
        options.seed,
        options.stall.as_millis(),
        options.calls,
        if options.contention_only { ",\"contention\":true" } else { "" }
    )];
    for (index, c) in all.iter().enumerate() {
        lines.push(c.line(id, index));
    }
    stats.recorded += 1;
    if any_stall {
        stats.stalled += 1;
    }
    Some(Recorded { lines })
}

/// `record` on the command line: histories `first`..`first+count` written to
/// `out` in id order, `parallel` recorders at once (each on its own channel
/// and clock: a run spends most of its time waiting out a stall, not on a core).
pub fn record_all(options: &Options, first: u64, count: u64, parallel: u64, out: &mut dyn Write) -> Result<Stats, String> {
    let slots: Vec<std::sync::Mutex<Option<Recorded>>> = (0..count).map(|_| std::sync::Mutex::new(None)).collect();
    let mut per_worker: Vec<Stats> = (0..parallel).map(|_| Stats::default()).collect();
    thread::scope(|scope| {
        for (w, stats) in per_worker.iter_mut().enumerate() {
            let slots = &slots;
            scope.spawn(move || {
                let mut k = w as u64;
                while k < count {
                    let h = record_one(options, first + k, stats);
                    *slots[k as usize].lock().unwrap() = h;
                    k += parallel;
                }
            });
        }
    });
    let mut total = Stats::default();
    for s in &per_worker {
        total.recorded += s.recorded;
        total.discarded += s.discarded;
        total.stalled += s.stalled;
    }
    for slot in slots {
        if let Some(h) = slot.into_inner().unwrap() {
            for line in &h.lines {
                writeln!(out, "{line}").map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(total)
}
