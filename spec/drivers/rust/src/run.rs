// SPDX-License-Identifier: MIT OR Apache-2.0
//! Running one program (docs/drivers.md, "2." and "3."): the setup on the calling thread, then
//! one std::thread per call list, each owning the handles it uses; the answers are returned, to
//! be written once every thread has ended.

use std::any::Any;
use std::collections::HashMap;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use crate::program::{Call, Op, Program};
use crate::{json_string, Channel, Error, Received, Sent, Wait};

/// docs/drivers.md: the waker waits at most 50 ms for the others.
const WAKER_PATIENCE: Duration = Duration::from_millis(50);
/// How often the waker looks at the others while it waits for them.
const WAKER_POLL: Duration = Duration::from_micros(50);

// A thread's first call, as the waker sees it: not invoked yet, over (returned, or the thread
// ended), invoked and unseen (its thread id is unknown), or else the thread id while it runs.
const NOT_YET: i64 = -1;
const OVER: i64 = 0;
const UNSEEN: i64 = i64::MAX;

/// One program's answer lines, the `end` (or `error`) line last, and the operations the glue
/// answered unsupported.
#[derive(Default)]
pub(crate) struct Ran {
    pub answers: Vec<String>,
    pub unsupported: Vec<Op>,
}

/// How a list of calls ended.
enum Ended {
    AllRan,
    /// A `broadcast` or `recv` returned after its bound or later: the thread makes no more calls.
    UsedBound,
    /// Answered unsupported: the thread makes no more calls (a later one may need a handle
    /// this one would have made).
    Unsupported(Op),
    Failed(String),
}

/// What a call returned, before it becomes its result object.
enum Reply<H> {
    Sent(Sent),
    Received(Received),
    Count(usize),
    Flag(bool),
    Done,
    Made(H),
}

/// The setup or one thread: its calls, the handles it holds, its answers so far.
struct Lane<'p, H> {
    thread: i64, // -1: the setup
    calls: &'p [Call],
    handles: HashMap<usize, H>,
    answers: Vec<String>,
}

/// What every lane of one program reads.
struct Shared<'a> {
    number: u64,
    start: Instant, // the origin of invoked_ns and returned_ns
    bound: Duration,
    first_calls: &'a [AtomicI64], // per thread: NOT_YET, OVER, UNSEEN or its thread id
}

pub(crate) fn run_program<G: Channel>(glue: &G, program: &Program) -> Ran {
    let start = Instant::now();
    let first_calls: Vec<AtomicI64> = program.threads.iter().map(|_| AtomicI64::new(NOT_YET)).collect();
    let shared = Shared { number: program.number, start, bound: program.bound, first_calls: &first_calls };
    let mut ran = Ran::default();
    let error_line = |text: &str| format!("{{\"program\":{},\"error\":{}}}", program.number, json_string(text));

    let (sender, receiver) = match panic::catch_unwind(AssertUnwindSafe(|| glue.channel(program.capacity))) {
        Ok(Ok(pair)) => pair,
        Ok(Err(error)) => return Ran { answers: vec![error_line(&format!("channel({}): {error:?}", program.capacity))], unsupported: vec![] },
        Err(panic) => return Ran { answers: vec![error_line(&format!("channel({}): panicked: {}", program.capacity, panic_text(&*panic)))], unsupported: vec![] },
    };
    let mut setup = Lane { thread: -1, calls: &program.setup, handles: HashMap::from([(0, sender), (1, receiver)]), answers: vec![] };
    let setup_ended = run_calls(glue, &mut setup, &shared, UNSEEN);
    ran.answers.append(&mut setup.answers);
    match setup_ended {
        Ended::AllRan | Ended::UsedBound => {}
        Ended::Unsupported(op) => {
            // bcast drops the program: the threads need not run.
            ran.unsupported.push(op);
            ran.answers.push(format!("{{\"program\":{},\"end\":true}}", program.number));
            return ran;
        }
        Ended::Failed(text) => {
            ran.answers.push(error_line(&text));
            return ran;
        }
    }

    // Each thread gets the setup's handles it uses: a handle is used by one thread only, so
    // no handle is shared and none needs a lock.
    let lanes: Vec<Lane<G::Handle>> = program
        .threads
        .iter()
        .enumerate()
        .map(|(t, calls)| Lane {
            thread: t as i64,
            calls,
            handles: calls.iter().filter_map(|c| setup.handles.remove_entry(&c.handle)).collect(),
            answers: vec![],
        })
        .collect();
    let start_together = Barrier::new(lanes.len());
    let finished: Vec<(Option<Lane<G::Handle>>, Ended)> = thread::scope(|scope| {
        let running: Vec<_> = lanes
            .into_iter()
            .map(|mut lane| {
                let (shared, start_together) = (&shared, &start_together);
                scope.spawn(move || {
                    let t = lane.thread as usize;
                    let tid = own_thread_id().unwrap_or(UNSEEN);
                    start_together.wait(); // without a waker, the threads start together
                    if program.waker == Some(t) {
                        wait_for_the_others(t, shared.first_calls);
                    }
                    let ended = run_calls(glue, &mut lane, shared, tid);
                    shared.first_calls[t].store(OVER, Ordering::Release); // a thread that has ended waits no more
                    (lane, ended)
                })
            })
            .collect();
        // Panics of the glue are caught call by call; one here is the library's own.
        running
            .into_iter()
            .enumerate()
            .map(|(t, thread)| match thread.join() {
                Ok((lane, ended)) => (Some(lane), ended),
                Err(panic) => (None, Ended::Failed(format!("thread {t}: the driver library panicked: {}", panic_text(&*panic)))),
            })
            .collect()
    });

    let mut failures = Vec::new();
    for (lane, ended) in finished.iter() {
        if let Some(lane) = lane {
            ran.answers.extend(lane.answers.iter().cloned());
        }
        match ended {
            Ended::Unsupported(op) => ran.unsupported.push(*op),
            Ended::Failed(text) => failures.push(text.clone()),
            Ended::AllRan | Ended::UsedBound => {}
        }
    }
    ran.answers.push(if failures.is_empty() { format!("{{\"program\":{},\"end\":true}}", program.number) } else { error_line(&failures.join("; ")) });
    // The handles still alive are dropped here, once every call has returned: a drop that
    // closes the channel comes after the whole program.
    drop(finished);
    drop(setup);
    ran
}

/// Runs a lane's calls in order, answering each, until one stops it.
fn run_calls<G: Channel>(glue: &G, lane: &mut Lane<G::Handle>, shared: &Shared, tid: i64) -> Ended {
    for (index, call) in lane.calls.iter().enumerate() {
        let whose = match lane.thread {
            -1 => format!("setup call {index} ({})", call.op.name()),
            t => format!("thread {t} call {index} ({})", call.op.name()),
        };
        let handle = match lane.handles.remove(&call.handle) {
            Some(handle) => handle,
            None => return Ended::Failed(format!("{whose}: handle {} is not this thread's (never made, used up, or another thread's)", call.handle)),
        };
        let first = lane.thread >= 0 && index == 0;
        let timeout = if call.op.is_bounded() { shared.bound } else { call.timeout };

        let invoked = Instant::now(); // nothing but the call between the two clock reads...
        let wait = Wait::new(invoked, timeout);
        if first {
            shared.first_calls[lane.thread as usize].store(tid, Ordering::Release); // ...but this: the waker may go once it is invoked
        }
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| invoke(glue, call, handle, &wait)));
        let returned = Instant::now();
        if first {
            shared.first_calls[lane.thread as usize].store(OVER, Ordering::Release);
        }

        let (reply, kept) = match outcome {
            Ok(done) => done,
            Err(panic) => return Ended::Failed(format!("{whose}: panicked: {}", panic_text(&*panic))),
        };
        if let Some(handle) = kept {
            lane.handles.insert(call.handle, handle);
        }
        let where_ = format!("\"program\":{},\"thread\":{},\"call\":{index}", shared.number, lane.thread);
        let result = match reply {
            Ok(Reply::Made(made)) => {
                lane.handles.insert(call.new.expect("read_program checks that a call that makes a handle has \"new\""), made);
                result_json::<()>(&Reply::Done)
            }
            Ok(reply) => result_json(&reply),
            Err(Error::InvalidArgument) if call.op == Op::SetCapacity => "{\"error\":\"invalid_argument\"}".to_string(),
            Err(Error::InvalidArgument) => return Ended::Failed(format!("{whose}: Error::InvalidArgument is set_capacity's answer only")),
            Err(Error::Unsupported) => {
                lane.answers.push(format!("{{{where_},\"unsupported\":true}}"));
                return Ended::Unsupported(call.op);
            }
            Err(Error::Failed(text)) => return Ended::Failed(format!("{whose}: {text}")),
        };
        let (invoked_ns, returned_ns) = (invoked.duration_since(shared.start).as_nanos(), returned.duration_since(shared.start).as_nanos());
        let woken = if call.op.is_bounded() && wait.woken() { ",\"woken\":true" } else { "" };
        lane.answers.push(format!("{{{where_},\"invoked_ns\":{invoked_ns},\"returned_ns\":{returned_ns},\"result\":{result}{woken}}}"));
        if lane.thread >= 0 && call.op.is_bounded() && returned - invoked >= shared.bound {
            return Ended::UsedBound; // it may have been stuck (bcast decides): no more calls
        }
    }
    Ended::AllRan
}

/// What a call came to, and the handle to keep (none when the call used it up).
type Invoked<H> = (Result<Reply<H>, Error>, Option<H>);

/// Calls the glue's method for `call` on its handle `h`.
fn invoke<G: Channel>(glue: &G, call: &Call, mut h: G::Handle, wait: &Wait) -> Invoked<G::Handle> {
    let reply = match call.op {
        // The calls that use their handle up.
        Op::DropReceiver => return (glue.drop_receiver(h).map(|()| Reply::Done), None),
        Op::DropSender => return (glue.drop_sender(h).map(|()| Reply::Done), None),
        Op::DropInactive => return (glue.drop_inactive(h).map(|()| Reply::Done), None),
        Op::Deactivate => return (glue.deactivate(h).map(Reply::Made), None),
        Op::Activate => return (glue.activate(h).map(Reply::Made), None),
        // The others keep it.
        Op::TryBroadcast => glue.try_broadcast(&mut h, call.message).map(Reply::Sent),
        Op::Broadcast | Op::BroadcastTimed => glue.broadcast(&mut h, call.message, wait).map(Reply::Sent),
        Op::TryRecv => glue.try_recv(&mut h).map(Reply::Received),
        Op::Recv | Op::RecvTimed => glue.recv(&mut h, wait).map(Reply::Received),
        Op::CloneReceiver => glue.clone_receiver(&mut h).map(Reply::Made),
        Op::NewReceiver => glue.new_receiver(&mut h).map(Reply::Made),
        Op::ActivateCloned => glue.activate_cloned(&mut h).map(Reply::Made),
        Op::CloneSender => glue.clone_sender(&mut h).map(Reply::Made),
        Op::NewSender => glue.new_sender(&mut h).map(Reply::Made),
        Op::CloneInactive => glue.clone_inactive(&mut h).map(Reply::Made),
        Op::SetCapacity => glue.set_capacity(&mut h, call.capacity).map(|()| Reply::Done),
        Op::SetOverflow => glue.set_overflow(&mut h, call.flag).map(|()| Reply::Done),
        Op::SetAwaitActive => glue.set_await_active(&mut h, call.flag).map(|()| Reply::Done),
        Op::Close => glue.close(&mut h).map(Reply::Flag),
        Op::Len => glue.len(&mut h).map(Reply::Count),
        Op::IsEmpty => glue.is_empty(&mut h).map(Reply::Flag),
        Op::IsFull => glue.is_full(&mut h).map(Reply::Flag),
        Op::Capacity => glue.capacity(&mut h).map(Reply::Count),
        Op::ReceiverCount => glue.receiver_count(&mut h).map(Reply::Count),
        Op::InactiveReceiverCount => glue.inactive_receiver_count(&mut h).map(Reply::Count),
        Op::SenderCount => glue.sender_count(&mut h).map(Reply::Count),
        Op::IsClosed => glue.is_closed(&mut h).map(Reply::Flag),
        Op::Overflow => glue.overflow(&mut h).map(Reply::Flag),
        Op::AwaitActive => glue.await_active(&mut h).map(Reply::Flag),
        Op::Unread => glue.unread(&mut h).map(Reply::Count),
        Op::Missed => glue.missed(&mut h).map(Reply::Count),
    };
    (reply, Some(h))
}

/// The result object of a reply (docs/traces.md, "Results").
fn result_json<H>(reply: &Reply<H>) -> String {
    match reply {
        Reply::Sent(Sent::Ok) | Reply::Done | Reply::Made(_) => "{\"ok\":true}".to_string(),
        Reply::Sent(Sent::Evicted(m)) => format!("{{\"ok\":true,\"evicted\":{m}}}"),
        Reply::Sent(Sent::Full(m)) => format!("{{\"error\":\"full\",\"message\":{m}}}"),
        Reply::Sent(Sent::Closed(m)) => format!("{{\"error\":\"closed\",\"message\":{m}}}"),
        Reply::Sent(Sent::Inactive(m)) => format!("{{\"error\":\"inactive\",\"message\":{m}}}"),
        Reply::Sent(Sent::TimedOut(m)) => format!("{{\"error\":\"timed_out\",\"message\":{m}}}"),
        Reply::Received(Received::Message(m)) => format!("{{\"ok\":true,\"message\":{m}}}"),
        Reply::Received(Received::Empty) => "{\"error\":\"empty\"}".to_string(),
        Reply::Received(Received::Closed) => "{\"error\":\"closed\"}".to_string(),
        Reply::Received(Received::TimedOut) => "{\"error\":\"timed_out\"}".to_string(),
        Reply::Received(Received::Overflowed(n)) => format!("{{\"error\":\"overflowed\",\"missed\":{n}}}"),
        Reply::Count(n) => format!("{{\"value\":{n}}}"),
        Reply::Flag(b) => format!("{{\"value\":{b}}}"),
    }
}

/// The waker starts once every other thread has invoked its first call and sleeps in it, or
/// when WAKER_PATIENCE has passed (docs/drivers.md, "waker"); it only shapes contention.
fn wait_for_the_others(me: usize, first_calls: &[AtomicI64]) {
    let give_up = Instant::now() + WAKER_PATIENCE;
    // Acquire: pairs with the others' release stores (they only steer this wait).
    let ready = |t: usize| match first_calls[t].load(Ordering::Acquire) {
        NOT_YET => false,
        OVER | UNSEEN => true,
        tid => is_asleep(tid),
    };
    while !(0..first_calls.len()).filter(|&t| t != me).all(ready) && Instant::now() < give_up {
        thread::sleep(WAKER_POLL); // a poll of the others' states and /proc, not an order: after 50 ms the waker goes anyway
    }
}

/// This thread's id (Linux), read without libc: the first field of /proc/thread-self/stat.
fn own_thread_id() -> Option<i64> {
    let stat = fs::read_to_string("/proc/thread-self/stat").ok()?;
    stat.split(' ').next()?.parse().ok()
}

/// Whether thread `tid` of this process sleeps in the kernel (Linux: state S). Where that
/// cannot be seen (no /proc, or the thread has ended), true: the waker then waits only for the
/// others' first invocation.
fn is_asleep(tid: i64) -> bool {
    counts_as_asleep(thread_state(tid))
}

/// Asleep in the kernel (S), ending (Z, X) or not to be seen (None): the waker need not wait
/// for it. Running (R) or in an uninterruptible wait (D, a page fault's I/O): it may yet call.
fn counts_as_asleep(state: Option<char>) -> bool {
    matches!(state, None | Some('S' | 'Z' | 'X'))
}

/// The state letter of thread `tid` of this process (Linux, proc(5): R running, S sleeping,
/// Z or X ending), or None where it cannot be read: no /proc, or the thread is gone.
fn thread_state(tid: i64) -> Option<char> {
    let stat = fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?;
    // The state follows the thread's name, in parentheses, which may hold anything.
    stat[stat.rfind(')')? + 1..].trim_start().chars().next()
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text.to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn every_reply_has_the_history_formats_result() {
        let cases: [(Reply<()>, &str); 16] = [
            (Reply::Sent(Sent::Ok), r#"{"ok":true}"#),
            (Reply::Sent(Sent::Evicted(-4)), r#"{"ok":true,"evicted":-4}"#),
            (Reply::Sent(Sent::Full(3)), r#"{"error":"full","message":3}"#),
            (Reply::Sent(Sent::Closed(3)), r#"{"error":"closed","message":3}"#),
            (Reply::Sent(Sent::Inactive(3)), r#"{"error":"inactive","message":3}"#),
            (Reply::Sent(Sent::TimedOut(3)), r#"{"error":"timed_out","message":3}"#),
            (Reply::Received(Received::Message(900)), r#"{"ok":true,"message":900}"#),
            (Reply::Received(Received::Empty), r#"{"error":"empty"}"#),
            (Reply::Received(Received::Closed), r#"{"error":"closed"}"#),
            (Reply::Received(Received::TimedOut), r#"{"error":"timed_out"}"#),
            (Reply::Received(Received::Overflowed(2)), r#"{"error":"overflowed","missed":2}"#),
            (Reply::Count(3), r#"{"value":3}"#),
            (Reply::Flag(true), r#"{"value":true}"#),
            (Reply::Flag(false), r#"{"value":false}"#),
            (Reply::Done, r#"{"ok":true}"#),
            (Reply::Made(()), r#"{"ok":true}"#),
        ];
        for (reply, expected) in cases {
            assert_eq!(result_json(&reply), expected);
        }
    }

    #[test]
    fn a_thread_knows_its_id_and_is_awake_while_it_looks() {
        let tid = own_thread_id().expect("Linux has /proc/thread-self");
        assert_eq!(thread_state(tid), Some('R'), "a thread reading its own state is running");
        assert!(!is_asleep(tid));
    }

    #[test]
    fn an_ended_thread_is_taken_as_asleep() {
        let other = thread::spawn(own_thread_id).join().unwrap().unwrap();
        // join returns once the kernel has cleared the thread's id, which it does on the way
        // out (do_exit): the thread may still be listed a moment, running (R) its last steps,
        // then dead (X), before it is gone. A poll for its entry to go, not an order.
        let give_up = Instant::now() + Duration::from_secs(10);
        while thread_state(other).is_some() {
            assert!(Instant::now() < give_up, "thread {other} still listed 10 s after its join");
            thread::yield_now();
        }
        assert!(is_asleep(other), "an ended thread cannot be seen: taken as asleep");
    }

    #[test]
    fn a_thread_that_sleeps_ends_or_cannot_be_seen_is_not_waited_for() {
        for state in [Some('S'), Some('Z'), Some('X'), None] {
            assert!(counts_as_asleep(state), "{state:?}");
        }
        for state in [Some('R'), Some('D'), Some('T')] {
            assert!(!counts_as_asleep(state), "{state:?}");
        }
    }

    #[test]
    fn a_thread_blocked_in_the_kernel_is_seen_asleep() {
        let (to_main, from_thread) = mpsc::channel();
        let (to_thread, from_main) = mpsc::channel::<()>();
        let sleeper = thread::spawn(move || {
            to_main.send(own_thread_id().unwrap()).unwrap();
            from_main.recv().unwrap(); // blocks until the main thread has seen it asleep
        });
        let tid = from_thread.recv().unwrap();
        let give_up = Instant::now() + Duration::from_secs(10);
        while !is_asleep(tid) {
            assert!(Instant::now() < give_up, "thread {tid} never seen asleep");
            thread::yield_now(); // a poll until the sleeper is in its futex wait, not an order
        }
        to_thread.send(()).unwrap();
        sleeper.join().unwrap();
    }
}
