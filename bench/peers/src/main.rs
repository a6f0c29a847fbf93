// SPDX-License-Identifier: MIT OR Apache-2.0
//! bcast-peers: the Rust rows that the C++ `bcast` benchmark prints beside its own.
//!
//! Peers: async-broadcast 0.4.1 (the semantics bcast reproduces) and tokio 1.24.2's
//! `sync::broadcast` (the usual alternative). Versions are pinned exactly in Cargo.toml,
//! so the "peer" strings below are the versions actually linked.
//!
//! Shapes:
//! * `single`: upstream's benches/broadcast_bench.rs, one thread, capacity 1, one sender and
//!   N receivers; per iteration one broadcast and N receives. Nothing ever waits.
//! * `fanout`: one sender thread, N receiver threads, M messages.
//!
//! Output: one JSON object per line on stdout (see README.md).

use futures_lite::future::block_on;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Instant;

const AB: &str = "async-broadcast-0.4.1";
const TOKIO: &str = "tokio-1.24.2";

const SINGLE_RECEIVERS: &[usize] = &[1, 2, 4, 8, 16];
const FANOUT_RECEIVERS: &[usize] = &[1, 2, 4, 8];
const FANOUT_CAPACITIES: &[usize] = &[64, 1024];

// ---------------------------------------------------------------- clocks

/// CPU time of the calling thread. Preferred for the single-thread shape: on these shared
/// 2-vCPU VMs it moves far less under outside load than wall time.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid pointer to a timespec; the clock id is supported on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// User + system CPU seconds of the whole process (all threads).
fn process_cpu_s() -> f64 {
    // SAFETY: getrusage fills the zeroed struct; RUSAGE_SELF is always valid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    assert_eq!(rc, 0, "getrusage failed");
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

// ---------------------------------------------------------------- single shape

/// One benchmark case: runs `iters` iterations of its loop. Boxed so that the cases of one
/// receiver count can be interleaved rep by rep (drift on the shared VM hits all alike).
struct Case {
    peer: &'static str,
    variant: &'static str,
    run: Box<dyn FnMut(u64)>,
}

#[inline(always)]
fn check(got: u64, want: u64) {
    // The check is part of the upstream loop and keeps the receives from being optimised away.
    assert_eq!(got, want);
}

/// The loop of the "try" and "blocking" variants: per iteration one `send` of the next
/// value (what it returns is not looked at), then one `recv` on each receiver, checked
/// against it. Generic, so that each variant's calls are compiled into its loop as if
/// written there.
fn send_then_receive_each<R: 'static, Sent>(
    mut send: impl FnMut(u64) -> Sent + 'static,
    mut rs: Vec<R>,
    mut recv: impl FnMut(&mut R) -> u64 + 'static,
) -> Box<dyn FnMut(u64)> {
    let mut x: u64 = 0;
    Box::new(move |iters| {
        for _ in 0..iters {
            send(x);
            for r in rs.iter_mut() {
                check(recv(r), x);
            }
            x += 1;
        }
    })
}

fn ab_case(n: usize, variant: &'static str) -> Case {
    let (s, r1) = async_broadcast::broadcast::<u64>(1);
    // Extra receivers are cloned from r1 while the queue is empty, as upstream does,
    // so they all sit at the tail.
    let mut rs = vec![r1];
    for _ in 1..n {
        let r = rs[0].clone();
        rs.push(r);
    }
    let mut x: u64 = 0;
    let run: Box<dyn FnMut(u64)> = match variant {
        "try" => send_then_receive_each(move |x| assert!(matches!(s.try_broadcast(x), Ok(None))), rs, |r| r.try_recv().unwrap()),
        // 0.4.1 has no broadcast_blocking / recv_blocking: one block_on per operation.
        "blocking" => send_then_receive_each(move |x| block_on(s.broadcast(x)).unwrap(), rs, |r| block_on(r.recv()).unwrap()),
        // Exactly upstream's loop body: one block_on around the whole iteration.
        "upstream" => Box::new(move |iters| {
            for _ in 0..iters {
                block_on(async {
                    s.broadcast(x).await.unwrap();
                    for r in rs.iter_mut() {
                        check(r.recv().await.unwrap(), x);
                    }
                });
                x += 1;
            }
        }),
        _ => unreachable!(),
    };
    Case { peer: AB, variant, run }
}

fn tokio_case(n: usize, variant: &'static str) -> Case {
    // Capacity 1 is enough here: every iteration drains the channel before the next send.
    let (s, r1) = tokio::sync::broadcast::channel::<u64>(1);
    // tokio receivers are not Clone; subscribe() also starts at the tail, which is the same
    // position as a clone of an empty-queue receiver.
    let mut rs = vec![r1];
    for _ in 1..n {
        rs.push(s.subscribe());
    }
    let mut x: u64 = 0;
    let run: Box<dyn FnMut(u64)> = match variant {
        "try" => send_then_receive_each(move |x| s.send(x).unwrap(), rs, |r| r.try_recv().unwrap()),
        // tokio's send is synchronous (it never waits); only recv goes through block_on
        // (1.24's broadcast Receiver has no blocking_recv).
        "blocking" => send_then_receive_each(move |x| s.send(x).unwrap(), rs, |r| block_on(r.recv()).unwrap()),
        "upstream" => Box::new(move |iters| {
            for _ in 0..iters {
                block_on(async {
                    s.send(x).unwrap();
                    for r in rs.iter_mut() {
                        check(r.recv().await.unwrap(), x);
                    }
                });
                x += 1;
            }
        }),
        _ => unreachable!(),
    };
    Case { peer: TOKIO, variant, run }
}

/// (median, min, max) of the samples.
fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let k = v.len();
    let med = if k % 2 == 1 { v[k / 2] } else { (v[k / 2 - 1] + v[k / 2]) / 2.0 };
    (med, v[0], v[k - 1])
}

fn run_single(n: usize, iters: u64, reps: usize, peers: &[&str], variants: &[&'static str]) {
    let mut cases = Vec::new();
    for &p in peers {
        for &v in variants {
            cases.push(if p == "async-broadcast" { ab_case(n, v) } else { tokio_case(n, v) });
        }
    }
    // Untimed warm-up: code and data into cache, block_on's thread-local parker created.
    for c in cases.iter_mut() {
        (c.run)((iters / 10).max(1));
    }
    let mut cpu = vec![Vec::new(); cases.len()];
    let mut wall = vec![Vec::new(); cases.len()];
    for _ in 0..reps {
        for (i, c) in cases.iter_mut().enumerate() {
            let c0 = thread_cpu_ns();
            let w0 = Instant::now();
            (c.run)(iters);
            let w = w0.elapsed().as_nanos() as f64;
            let c1 = thread_cpu_ns();
            cpu[i].push((c1 - c0) as f64 / iters as f64);
            wall[i].push(w / iters as f64);
        }
    }
    for (i, c) in cases.iter().enumerate() {
        let (cm, cl, ch) = stats(cpu[i].clone());
        let (wm, wl, wh) = stats(wall[i].clone());
        println!(
            "{{\"peer\":\"{}\",\"shape\":\"single\",\"variant\":\"{}\",\"receivers\":{},\"capacity\":1,\
             \"iters\":{},\"reps\":{},\"ns_per_iter_median\":{:.1},\"ns_per_iter_min\":{:.1},\
             \"ns_per_iter_max\":{:.1},\"wall_ns_per_iter_median\":{:.1},\"wall_ns_per_iter_min\":{:.1},\
             \"wall_ns_per_iter_max\":{:.1},\"clock\":\"thread_cpu\"}}",
            c.peer, c.variant, n, iters, reps, cm, cl, ch, wm, wl, wh
        );
    }
}

// ---------------------------------------------------------------- fanout shape

struct Fanout {
    wall_s: f64,
    cpu_s: f64,
    /// Messages received, summed over receivers.
    delivered: u64,
}

/// Runs `sender` and each receiver loop on its own thread, timing from a common start
/// (all threads already spawned and waiting) to the last join.
fn fanout_threads<R, F>(
    sender: impl FnOnce() + Send + 'static,
    receivers: Vec<R>,
    recv_loop: F,
) -> Fanout
where
    R: Send + 'static,
    F: Fn(R) -> u64 + Send + Copy + 'static,
{
    let barrier = Arc::new(Barrier::new(receivers.len() + 2));
    let rx: Vec<_> = receivers
        .into_iter()
        .map(|r| {
            let b = barrier.clone();
            thread::spawn(move || {
                b.wait();
                recv_loop(r)
            })
        })
        .collect();
    let b = barrier.clone();
    let tx = thread::spawn(move || {
        b.wait();
        sender();
    });
    // Clocks start just before the last arrival releases the barrier, so no work is missed.
    let cpu0 = process_cpu_s();
    let t0 = Instant::now();
    barrier.wait();
    tx.join().unwrap();
    let delivered = rx.into_iter().map(|h| h.join().unwrap()).sum();
    Fanout { wall_s: t0.elapsed().as_secs_f64(), cpu_s: process_cpu_s() - cpu0, delivered }
}

fn fanout_ab(n: usize, cap: usize, m: u64) -> Fanout {
    let (s, r1) = async_broadcast::broadcast::<u64>(cap);
    let mut rs = vec![r1];
    for _ in 1..n {
        let r = rs[0].clone();
        rs.push(r);
    }
    let f = fanout_threads(
        move || {
            // Default (non-overflow) mode: broadcast waits while the queue is full.
            for i in 0..m {
                block_on(s.broadcast(i)).unwrap();
            }
            // Dropping the only sender closes the channel; receivers drain, then see Closed.
        },
        rs,
        |mut r| {
            let mut next = 0u64;
            loop {
                match block_on(r.recv()) {
                    // Lossless and ordered: every value, consecutively.
                    Ok(v) => {
                        assert_eq!(v, next, "async-broadcast receiver out of order");
                        next += 1;
                    }
                    Err(async_broadcast::RecvError::Closed) => return next,
                    Err(e) => panic!("async-broadcast receiver: unexpected {:?}", e),
                }
            }
        },
    );
    assert_eq!(f.delivered, n as u64 * m, "async-broadcast lost messages");
    f
}

fn fanout_tokio(n: usize, cap: usize, m: u64) -> Fanout {
    let (s, r1) = tokio::sync::broadcast::channel::<u64>(cap);
    let mut rs = vec![r1];
    for _ in 1..n {
        rs.push(s.subscribe());
    }
    fanout_threads(
        move || {
            // tokio never makes the sender wait: a full ring overwrites the oldest value.
            for i in 0..m {
                s.send(i).unwrap();
            }
        },
        rs,
        move |mut r| {
            use tokio::sync::broadcast::error::RecvError;
            let (mut got, mut lost, mut next) = (0u64, 0u64, 0u64);
            loop {
                match block_on(r.recv()) {
                    // Strictly increasing; gaps must be accounted for by Lagged.
                    Ok(v) => {
                        assert_eq!(v, next, "tokio receiver: gap not reported as Lagged");
                        next = v + 1;
                        got += 1;
                    }
                    Err(RecvError::Lagged(k)) => {
                        lost += k;
                        next += k;
                    }
                    Err(RecvError::Closed) => break,
                }
            }
            assert_eq!(got + lost, m, "tokio receiver: received + lagged != sent");
            got
        },
    )
}

/// Runs each peer `reps` times, peers interleaved within a rep, and prints the medians
/// (wall time also with its range): multi-thread timings on the 2-vCPU VM are noisy.
fn run_fanout(n: usize, cap: usize, m: u64, reps: usize, peers: &[&str]) {
    let mut runs: Vec<Vec<Fanout>> = peers.iter().map(|_| Vec::new()).collect();
    for _ in 0..reps {
        for (i, &p) in peers.iter().enumerate() {
            runs[i].push(if p == "async-broadcast" {
                fanout_ab(n, cap, m)
            } else {
                fanout_tokio(n, cap, m)
            });
        }
    }
    for (i, &p) in peers.iter().enumerate() {
        let r = &runs[i];
        let col = |f: &dyn Fn(&Fanout) -> f64| stats(r.iter().map(f).collect());
        let (wall, wall_min, wall_max) = col(&|f| f.wall_s);
        let (cpu, _, _) = col(&|f| f.cpu_s);
        let (dps, _, _) = col(&|f| f.delivered as f64 / f.wall_s);
        let (frac, frac_min, _) = col(&|f| f.delivered as f64 / (n as u64 * m) as f64);
        println!(
            "{{\"peer\":\"{}\",\"shape\":\"fanout\",\"variant\":\"blocking\",\"receivers\":{},\
             \"capacity\":{},\"messages\":{},\"reps\":{},\"wall_s\":{:.4},\"wall_s_min\":{:.4},\
             \"wall_s_max\":{:.4},\"cpu_s\":{:.4},\"deliveries_per_s\":{:.0},\
             \"delivered_fraction\":{:.6},\"delivered_fraction_min\":{:.6}}}",
            if p == "async-broadcast" { AB } else { TOKIO },
            n, cap, m, reps, wall, wall_min, wall_max, cpu, dps, frac, frac_min
        );
    }
}

// ---------------------------------------------------------------- command line

const USAGE: &str = "usage: bcast-peers (single | fanout | --all) [options]
  single   [--receivers N[,N..]] [--iters K]
  fanout   [--receivers N[,N..]] [--capacity C[,C..]] [--messages M]
  --all    the whole matrix (single N=1,2,4,8,16; fanout N=1,2,4,8 x C=64,1024)
common:    [--quick] [--reps R] [--peer async-broadcast|tokio] [--variant try|blocking|upstream]
defaults:  iters 1000000 (quick 200000), reps 5, messages 1000000 (quick 200000)";

fn die(msg: &str) -> ! {
    eprintln!("bcast-peers: {}\n{}", msg, USAGE);
    std::process::exit(2)
}

fn list<T: std::str::FromStr>(flag: &str, v: &str) -> Vec<T> {
    v.split(',')
        .map(|x| x.parse().unwrap_or_else(|_| die(&format!("bad value for {}: {}", flag, x))))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut single, mut fanout, mut quick) = (false, false, false);
    let mut receivers: Option<Vec<usize>> = None;
    let mut capacities: Option<Vec<usize>> = None;
    let (mut iters, mut messages, mut reps): (Option<u64>, Option<u64>, Option<usize>) = (None, None, None);
    let mut peers: Vec<&str> = vec!["async-broadcast", "tokio"];
    let mut variants: Vec<&'static str> = vec!["try", "blocking", "upstream"];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().unwrap_or_else(|| die(&format!("{} needs a value", a)));
        match a.as_str() {
            "single" => single = true,
            "fanout" => fanout = true,
            "--all" => (single, fanout) = (true, true),
            "--quick" => quick = true,
            "--receivers" => receivers = Some(list(a, &val())),
            "--capacity" => capacities = Some(list(a, &val())),
            "--iters" => iters = Some(list(a, &val())[0]),
            "--messages" => messages = Some(list(a, &val())[0]),
            "--reps" => reps = Some(list(a, &val())[0]),
            "--peer" => match val().as_str() {
                "async-broadcast" => peers = vec!["async-broadcast"],
                "tokio" => peers = vec!["tokio"],
                p => die(&format!("unknown peer {}", p)),
            },
            "--variant" => match val().as_str() {
                "try" => variants = vec!["try"],
                "blocking" => variants = vec!["blocking"],
                "upstream" => variants = vec!["upstream"],
                v => die(&format!("unknown variant {}", v)),
            },
            "-h" | "--help" => {
                println!("{}", USAGE);
                return;
            }
            x => die(&format!("unknown argument {}", x)),
        }
    }
    if !single && !fanout {
        die("choose single, fanout or --all");
    }
    let iters = iters.unwrap_or(if quick { 200_000 } else { 1_000_000 });
    let messages = messages.unwrap_or(if quick { 200_000 } else { 1_000_000 });
    let reps = reps.unwrap_or(5);
    let zero = |v: &Option<Vec<usize>>| v.as_deref().map_or(false, |l| l.contains(&0));
    if iters == 0 || reps == 0 || messages == 0 || zero(&receivers) || zero(&capacities) {
        die("--iters, --reps, --messages, --receivers and --capacity must be positive");
    }

    // glibc takes single-thread shortcuts (pthread mutexes, malloc arenas) until a second
    // thread has existed. parking_lot uses its own atomics, but malloc and other libc paths
    // still notice, and the C++ rows start and join a thread first, so we do too.
    thread::spawn(|| {}).join().unwrap();

    if single {
        for &n in receivers.as_deref().unwrap_or(SINGLE_RECEIVERS) {
            run_single(n, iters, reps, &peers, &variants);
        }
    }
    if fanout {
        for &n in receivers.as_deref().unwrap_or(FANOUT_RECEIVERS) {
            for &c in capacities.as_deref().unwrap_or(FANOUT_CAPACITIES) {
                run_fanout(n, c, messages, reps, &peers);
            }
        }
    }
}
