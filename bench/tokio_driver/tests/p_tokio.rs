// SPDX-License-Identifier: MIT OR Apache-2.0
//! The experiments behind spec/rules.md, "Profile P-TOKIO": one test per entry, each showing on
//! tokio 1.24.2 itself what the entry says (`cargo test --release --offline` in bench/tokio_driver).
//! What tokio lacks (P-TOKIO-2, -6, -7, -8, -11) is shown by its public API, not here: those calls
//! do not compile.

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::sync::broadcast::{self, error::RecvError, error::SendError, error::TryRecvError};

/// Polls `f` once with a waker that sets `woken`.
fn poll_once<F: Future>(f: Pin<&mut F>, woken: &Arc<AtomicBool>) -> Poll<F::Output> {
    let w = woken.clone();
    let waker = waker_fn::waker_fn(move || w.store(true, SeqCst));
    f.poll(&mut Context::from_waker(&waker))
}

/// `f()`'s panic, caught, with the panic message kept off stderr.
fn quietly<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    static HOOK: Mutex<()> = Mutex::new(());
    let _one_at_a_time = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(hook);
    result
}

#[test]
fn p_tokio_1_the_capacity_is_rounded_up_to_a_power_of_two() {
    for (asked, holds) in [(1usize, 1u32), (2, 2), (3, 4), (5, 8), (8, 8)] {
        let (tx, mut rx) = broadcast::channel(asked);
        (0..holds).for_each(|m| drop(tx.send(m)));
        assert_eq!(rx.try_recv(), Ok(0), "channel({asked}) holds {holds}");
        let (tx, mut rx) = broadcast::channel(asked);
        (0..=holds).for_each(|m| drop(tx.send(m)));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(1)), "channel({asked}) holds no more than {holds}");
    }
    // tokio's lag_uses_power_of_two_buffer_length (a test of later tokio), on 1.24.2.
    let (tx, mut rx) = broadcast::channel(3);
    (1..=4).for_each(|m| drop(tx.send(m)));
    assert_eq!((rx.len(), rx.try_recv()), (4, Ok(1)));
    tx.send(5).unwrap();
    tx.send(6).unwrap();
    let rest: Vec<_> = (0..6).map(|_| rx.try_recv()).collect();
    assert_eq!(rest, [Err(TryRecvError::Lagged(1)), Ok(3), Ok(4), Ok(5), Ok(6), Err(TryRecvError::Empty)]);
    let zero = quietly(|| broadcast::channel::<u32>(0)).unwrap_err();
    assert_eq!(zero.downcast_ref::<&str>(), Some(&"capacity is empty"));
}

#[test]
fn p_tokio_3_a_send_overwrites_and_drops_the_evicted_value_itself() {
    let (tx, mut rx) = broadcast::channel(2);
    let _other = tx.subscribe();
    let first = Arc::new(0u32);
    assert_eq!(tx.send(first.clone()).unwrap(), 2); // Ok(number of receivers), not an evicted value
    tx.send(Arc::new(1)).unwrap();
    assert_eq!(Arc::strong_count(&first), 2); // still held by the channel
    assert_eq!(tx.send(Arc::new(2)).unwrap(), 2);
    assert_eq!(Arc::strong_count(&first), 1); // dropped inside send, nobody had read it
    assert_eq!(rx.try_recv().unwrap_err(), TryRecvError::Lagged(1));
    // Never full: capacity 1, a receiver that reads nothing, and every send succeeds.
    let (tx, mut rx) = broadcast::channel(1);
    assert!((0..1000u32).all(|m| tx.send(m).is_ok()));
    assert_eq!((rx.try_recv(), rx.try_recv()), (Err(TryRecvError::Lagged(999)), Ok(999)));
}

#[test]
fn p_tokio_4_with_no_receiver_a_send_fails_at_once_and_a_subscriber_revives_it() {
    let (tx, rx) = broadcast::channel::<u32>(4);
    drop(rx);
    assert!(matches!(tx.send(7), Err(SendError(7)))); // the message handed back
    let mut rx = tx.subscribe();
    assert!(matches!(tx.send(8), Ok(1)));
    assert_eq!(rx.try_recv(), Ok(8));
}

#[test]
fn p_tokio_5_dropping_the_last_receiver_does_not_close() {
    let (tx, rx) = broadcast::channel::<u32>(4);
    tx.send(1).unwrap();
    drop(rx);
    assert_eq!(tx.receiver_count(), 0);
    let mut rx = tx.subscribe();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty)); // not Closed, and 1 is gone
    tx.send(2).unwrap();
    assert_eq!(rx.try_recv(), Ok(2));
}

#[test]
fn p_tokio_6_only_the_last_senders_drop_closes_and_wakes() {
    let (tx, mut rx) = broadcast::channel::<u32>(2);
    let tx2 = tx.clone();
    (0..5).for_each(|m| drop(tx.send(m)));
    let woken = Arc::new(AtomicBool::new(false));
    let mut waiting = rx.resubscribe(); // at the tail
    drop(tx);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(3)));
    assert_eq!((rx.try_recv(), rx.try_recv(), rx.try_recv()), (Ok(3), Ok(4), Err(TryRecvError::Empty)));
    {
        let mut pending = Box::pin(waiting.recv());
        assert!(poll_once(pending.as_mut(), &woken).is_pending());
        drop(tx2); // the last sender
        assert!(woken.load(SeqCst));
        assert_eq!(poll_once(pending.as_mut(), &woken), Poll::Ready(Err(RecvError::Closed)));
    }
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    assert_eq!(rx.resubscribe().try_recv(), Err(TryRecvError::Closed)); // a new receiver of a closed channel
    // Drained after close: a lag first, then the messages, then Closed.
    let (tx, mut rx) = broadcast::channel::<u32>(2);
    (0..5).for_each(|m| drop(tx.send(m)));
    drop(tx);
    let seq: Vec<_> = (0..4).map(|_| rx.try_recv()).collect();
    assert_eq!(seq, [Err(TryRecvError::Lagged(3)), Ok(3), Ok(4), Err(TryRecvError::Closed)]);
}

#[test]
fn p_tokio_7_new_receivers_start_at_the_tail_whatever_the_original_holds() {
    let (tx, mut rx) = broadcast::channel::<u32>(2);
    (0..5).for_each(|m| drop(tx.send(m)));
    let mut again = rx.resubscribe(); // of a lagging receiver holding 3 and 4
    let mut sub = tx.subscribe();
    assert_eq!((again.try_recv(), sub.try_recv()), (Err(TryRecvError::Empty), Err(TryRecvError::Empty)));
    tx.send(5).unwrap();
    assert_eq!((again.try_recv(), sub.try_recv()), (Ok(5), Ok(5)));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(4)));
}

#[test]
fn p_tokio_8_receiver_len_is_this_receivers_backlog_lost_messages_included() {
    let (tx, mut rx) = broadcast::channel::<u32>(2);
    (0..5).for_each(|m| drop(tx.send(m)));
    assert_eq!(rx.len(), 5); // 3 lost + 2 held: bcast's unread() + missed()
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(3)));
    assert_eq!((rx.len(), rx.is_empty()), (2, false));
    assert_eq!(tx.receiver_count(), 1); // on the sender only
}

static CLONES: AtomicUsize = AtomicUsize::new(0);
static DROPS: AtomicUsize = AtomicUsize::new(0);
#[derive(Debug, PartialEq)]
struct Counted(u32);
impl Clone for Counted {
    fn clone(&self) -> Self {
        CLONES.fetch_add(1, SeqCst);
        Counted(self.0)
    }
}
impl Drop for Counted {
    fn drop(&mut self) {
        DROPS.fetch_add(1, SeqCst);
    }
}

#[test]
fn p_tokio_9_every_reader_clones_and_the_last_drops_the_original() {
    let (tx, mut a) = broadcast::channel::<Counted>(4);
    let (mut b, mut c) = (tx.subscribe(), tx.subscribe());
    tx.send(Counted(1)).unwrap();
    let got = (a.try_recv().unwrap(), b.try_recv().unwrap());
    assert_eq!(DROPS.load(SeqCst), 0);
    let last = c.try_recv().unwrap();
    assert_eq!((CLONES.load(SeqCst), DROPS.load(SeqCst)), (3, 1)); // 3 readers, 3 clones, no move
    drop((got, last));
}

#[test]
fn p_tokio_10_a_panicking_clone_loses_the_message_for_that_receiver() {
    #[derive(Debug, PartialEq)]
    struct Fragile(u32);
    impl Clone for Fragile {
        fn clone(&self) -> Self {
            assert_ne!(self.0, 0, "clone of 0");
            Fragile(self.0)
        }
    }
    let (tx, mut rx) = broadcast::channel(4);
    tx.send(Fragile(0)).unwrap();
    tx.send(Fragile(1)).unwrap();
    assert!(quietly(|| rx.try_recv()).is_err());
    assert_eq!(rx.try_recv(), Ok(Fragile(1))); // a retry does not get message 0
}

#[test]
fn p_tokio_12_errors_are_tokios_own_types_and_words() {
    let (tx, mut rx) = broadcast::channel::<u32>(1);
    let empty = rx.try_recv().unwrap_err();
    (1..=2).for_each(|m| drop(tx.send(m)));
    let lagged = rx.try_recv().unwrap_err();
    drop(rx);
    let no_receiver = tx.send(3).unwrap_err();
    let mut rx = tx.subscribe();
    drop(tx);
    let closed = rx.try_recv().unwrap_err();
    let words = [no_receiver.to_string(), empty.to_string(), lagged.to_string(), closed.to_string(), RecvError::Lagged(2).to_string()];
    assert_eq!(words, ["channel closed", "channel empty", "channel lagged by 1", "channel closed", "channel lagged by 2"]);
}

#[test]
fn p_tokio_13_no_send_waits_and_a_send_wakes_a_parked_receiver() {
    let (tx, mut rx) = broadcast::channel::<u32>(1);
    let started = Instant::now();
    (0..1000).for_each(|m| assert!(tx.send(m).is_ok()));
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(999)));
    assert_eq!(rx.try_recv(), Ok(999));
    let parked = std::thread::spawn(move || {
        let me = std::thread::current();
        let waker = waker_fn::waker_fn(move || me.unpark());
        let mut recv = Box::pin(rx.recv());
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Poll::Ready(r) = recv.as_mut().poll(&mut Context::from_waker(&waker)) {
                return Some(r);
            }
            std::thread::park_timeout(deadline.saturating_duration_since(Instant::now()));
        }
        None
    });
    std::thread::sleep(Duration::from_millis(20));
    tx.send(9).unwrap();
    assert_eq!(parked.join().unwrap(), Some(Ok(9)));
}

#[test]
fn p_tokio_14_recv_waits_at_the_tail_and_a_dropped_recv_consumes_nothing() {
    let (tx, mut rx) = broadcast::channel::<u32>(1);
    let woken = Arc::new(AtomicBool::new(false));
    {
        let mut pending = Box::pin(rx.recv());
        assert!(poll_once(pending.as_mut(), &woken).is_pending());
    } // dropped while registered: unlinked
    tx.send(1).unwrap();
    assert!(!woken.load(SeqCst));
    assert_eq!(rx.try_recv(), Ok(1));
    let mut pending = Box::pin(rx.recv());
    assert!(poll_once(pending.as_mut(), &woken).is_pending());
    tx.send(2).unwrap();
    assert!(woken.load(SeqCst));
    assert_eq!(poll_once(pending.as_mut(), &woken), Poll::Ready(Ok(2)));
}

// P-TOKIO-15: a value whose drop reads the receiver count while a receiver's drop releases it.
static PROBE_SENDER: Mutex<Option<broadcast::Sender<Probe>>> = Mutex::new(None);
static PROBING: AtomicBool = AtomicBool::new(false);
static COUNTS_SEEN: Mutex<Vec<usize>> = Mutex::new(Vec::new());
#[derive(Clone, Debug)]
struct Probe;
impl Drop for Probe {
    fn drop(&mut self) {
        if PROBING.load(SeqCst) {
            let count = PROBE_SENDER.lock().unwrap().as_ref().unwrap().receiver_count();
            COUNTS_SEEN.lock().unwrap().push(count);
        }
    }
}

#[test]
fn p_tokio_15_a_receivers_drop_leaves_the_count_before_it_releases_its_messages() {
    let (tx, rx) = broadcast::channel::<Probe>(4);
    let mut other = tx.subscribe();
    *PROBE_SENDER.lock().unwrap() = Some(tx.clone());
    tx.send(Probe).unwrap();
    drop(other.try_recv()); // rx is now the value's last reader
    PROBING.store(true, SeqCst);
    drop(rx); // its walk releases the value: the count already says 1
    PROBING.store(false, SeqCst);
    assert_eq!(*COUNTS_SEEN.lock().unwrap(), [1]);
    *PROBE_SENDER.lock().unwrap() = None;
}
