// SPDX-License-Identifier: MIT OR Apache-2.0
//! A blocking call's time limit, and a small executor that runs a future within it and sees
//! whether the channel notified the future's waker.

use std::cell::Cell;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// What a blocking call (`broadcast`, `recv` and their timed forms) may wait, handed to the
/// glue's method: its timeout and its deadline (the call's invocation plus the timeout). A
/// timeout of zero is a deadline already passed: try once, and answer timed out if that fails.
///
/// The glue of an async channel runs the call's future with [`Wait::block_on`]; other glue
/// waits by itself until [`Wait::deadline`], and may call [`Wait::notified`] when it knows its
/// wait was ended by a notification (docs/drivers.md: such a call is never taken for stuck).
pub struct Wait {
    timeout: Duration,
    deadline: Instant,
    woken: Cell<bool>,
}

impl Wait {
    pub(crate) fn new(invoked: Instant, timeout: Duration) -> Wait {
        Wait { timeout, deadline: invoked + timeout, woken: Cell::new(false) }
    }

    /// How long the call may wait.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// When the call must give up: its invocation plus its timeout.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Says that the implementation notified the waiting call: its wait ended because something
    /// woke it, not because time ran out.
    pub fn notified(&self) {
        self.woken.set(true);
    }

    /// Whether the call's last wait was ended by a notification (`"woken":true`).
    pub(crate) fn woken(&self) -> bool {
        self.woken.get()
    }

    /// Runs `future` on this thread until it completes (`Some`) or the deadline passes (`None`;
    /// the future is then dropped, as a timeout drops it). It is polled, and polled again each
    /// time its waker is called; at the deadline it is polled once more, the re-check a timed
    /// wait makes. Whether a notification ended its last wait is remembered for the answer.
    pub fn block_on<F: Future>(&self, future: F) -> Option<F::Output> {
        let signal = Arc::new(Signal { notified: AtomicBool::new(false), waiter: thread::current() });
        let waker = Waker::from(signal.clone());
        let mut context = Context::from_waker(&waker);
        let mut future = Box::pin(future); // pinned on the heap: std's pin! needs Rust 1.68, Debian's is 1.63
        loop {
            // Cleared before the poll, so that a notification during the poll still counts.
            signal.notified.store(false, Ordering::SeqCst);
            if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
                return Some(output);
            }
            loop {
                // SeqCst: pairs with the store in Signal::wake_by_ref.
                if signal.notified.load(Ordering::SeqCst) {
                    self.woken.set(true);
                    break; // notified: poll again
                }
                let now = Instant::now();
                if now >= self.deadline {
                    // Nothing woke it since its last poll (or something did just now): a waiter
                    // that nobody woke may still find its message at the re-check, and bcast
                    // must be able to tell that from a woken one.
                    self.woken.set(signal.notified.load(Ordering::SeqCst));
                    return match future.as_mut().poll(&mut context) {
                        Poll::Ready(output) => Some(output),
                        Poll::Pending => None,
                    };
                }
                // Returns at once if the waker unparked this thread since the load above (the
                // park token), so no notification is lost; spurious returns loop.
                thread::park_timeout(self.deadline - now);
            }
        }
    }
}

/// The waker of [`Wait::block_on`]: records the notification and unparks the waiting thread.
struct Signal {
    notified: AtomicBool,
    waiter: Thread,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.notified.store(true, Ordering::SeqCst); // pairs with block_on's loads
        self.waiter.unpark();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::task::Poll;

    /// Pending until its flag is set; hands its waker out once, so a test can wake it.
    struct Gate {
        open: Arc<AtomicBool>,
        wakers: Option<mpsc::Sender<Waker>>,
    }

    impl Future for Gate {
        type Output = u8;
        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u8> {
            if self.open.load(Ordering::SeqCst) {
                return Poll::Ready(7);
            }
            if let Some(wakers) = self.wakers.take() {
                wakers.send(cx.waker().clone()).unwrap();
            }
            Poll::Pending
        }
    }

    #[test]
    fn a_ready_future_is_not_woken() {
        let wait = Wait::new(Instant::now(), Duration::ZERO);
        assert_eq!(wait.block_on(async { 3 }), Some(3));
        assert!(!wait.woken());
    }

    #[test]
    fn a_future_nobody_wakes_times_out_unwoken() {
        let wait = Wait::new(Instant::now(), Duration::from_millis(2));
        let gate = Gate { open: Arc::new(AtomicBool::new(false)), wakers: None };
        assert_eq!(wait.block_on(gate), None);
        assert!(!wait.woken());
        assert!(Instant::now() >= wait.deadline());
    }

    #[test]
    fn a_future_that_is_woken_completes_woken() {
        let open = Arc::new(AtomicBool::new(false));
        let (wakers, waker) = mpsc::channel();
        let opener = {
            let open = open.clone();
            thread::spawn(move || {
                let waker: Waker = waker.recv().unwrap(); // the future is pending now
                open.store(true, Ordering::SeqCst);
                waker.wake();
            })
        };
        let wait = Wait::new(Instant::now(), Duration::from_secs(60));
        assert_eq!(wait.block_on(Gate { open, wakers: Some(wakers) }), Some(7));
        assert!(wait.woken());
        opener.join().unwrap();
    }

    #[test]
    fn a_future_that_completes_unwoken_at_the_deadline_says_so() {
        // Pending at its first poll, ready at any later one, and nobody calls its waker: only
        // the re-check at the deadline finds it ready (a waiter whose wake-up was lost).
        struct Late(u8);
        impl Future for Late {
            type Output = u8;
            fn poll(mut self: std::pin::Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u8> {
                self.0 += 1;
                if self.0 == 1 {
                    Poll::Pending
                } else {
                    Poll::Ready(self.0)
                }
            }
        }
        let late = Late(0);
        let wait = Wait::new(Instant::now(), Duration::from_millis(2));
        assert_eq!(wait.block_on(late), Some(2));
        assert!(!wait.woken());
        assert!(Instant::now() >= wait.deadline());
    }
}
