//! `ring` (seed 004's hand-off claim; the Benchmarks Game's thread-ring): R
//! rings of W tasks pass a token H times. Every task owns the receiving half of
//! a `tokio::sync::mpsc::channel(1)` (its inbox) and the sending half of the
//! next task's; it awaits `recv()`, then `send(c - 1)` to the next task. The
//! one that receives 0 reports its id: it is the ring's final holder.
//!
//! Set-up, outside the clock: the channels, R×W `tokio::spawn`s and a barrier
//! (an atomic counter and a `Notify`, as in spawn-idle) that the spawner awaits
//! until every task has reached its first `recv()`; ring 1's clock-reading
//! slots are written once so their pages are touched. The clock starts as the
//! spawner sends each ring's task 1 its token (count H) through a `Sender` it
//! kept, and stops when it has received all R final holders' ids. It then sends
//! a stop value to every task 1, which each task forwards and leaves its loop
//! on; a task returns how many tokens it received, and the `JoinHandle`s are
//! summed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

use crate::{Fields, Params, fail, joined};

pub const PARAMS: &[&str] = &["rings", "size", "passes", "sample-every"];

/// The stop value passed round after the clock; a token's count is at most H ≤ u64::MAX - 1.
const STOP: u64 = u64::MAX;

/// A reading slot ring 1 has not written.
const UNREAD: u64 = u64::MAX;

pub struct Ring {
    rings: usize,
    size: usize,
    passes: u64,
    every: u64,
}

/// What every task of one iteration shares: the start barrier and ring 1's readings.
struct Shared {
    ready: AtomicUsize,
    all_ready: Notify,
    tasks: usize,
    every: u64,
    base: Instant,
    /// Slot c / every: ns since `base` when ring 1's token arrived with count c (c % every == 0).
    readings: Vec<AtomicU64>,
}

impl Shared {
    /// Called once by every task before its first `recv()`; the last wakes the spawner.
    fn arrived(&self) {
        if self.ready.fetch_add(1, Ordering::AcqRel) + 1 == self.tasks {
            self.all_ready.notify_one(); // a stored permit if the spawner is not waiting yet
        }
    }

    /// Ring 1's holder at count c: one clock reading every `every` counts. Relaxed
    /// stores suffice: the channel hand-offs order the holders, the join orders the reader.
    fn sample(&self, c: u64) {
        if c % self.every == 0 {
            let ns = self.base.elapsed().as_nanos() as u64;
            self.readings[(c / self.every) as usize].store(ns, Ordering::Relaxed);
        }
    }
}

/// One task's place in its ring.
struct Seat {
    id: u64,
    inbox: mpsc::Receiver<u64>,
    next: mpsc::Sender<u64>,
    shared: Arc<Shared>,
    sampled: bool, // ring 1 only
    holders: mpsc::UnboundedSender<u64>,
}

impl Ring {
    pub fn new(p: &Params) -> Ring {
        let ring = Ring {
            rings: p.usize("rings"),
            size: p.usize("size"),
            passes: p.u64("passes"),
            every: p.u64("sample-every"),
        };
        if ring.rings == 0 {
            p.reject("rings", "at least one ring");
        }
        if ring.size < 2 {
            p.reject("size", "a ring has at least 2 tasks");
        }
        if ring.passes == 0 || ring.passes == STOP {
            p.reject("passes", "from 1 to 2^64 - 2");
        }
        ring
    }

    /// Before the clock: channels, tasks and the barrier; returns once every task
    /// awaits its first token.
    pub async fn start(&self) -> Started {
        // every = 0: no reading slot, and no clock read in the passes
        let slots = self.passes.checked_div(self.every).map_or(0, |n| n as usize + 1);
        let metrics = tokio::runtime::Handle::current().metrics();
        let shared = Arc::new(Shared {
            ready: AtomicUsize::new(0),
            all_ready: Notify::new(),
            tasks: self.rings * self.size,
            every: self.every,
            base: Instant::now(),
            readings: (0..slots).map(|_| AtomicU64::new(UNREAD)).collect(),
        });
        let (holders_tx, holders) = mpsc::unbounded_channel();
        let mut kicks = Vec::with_capacity(self.rings);
        let mut handles = Vec::with_capacity(self.rings * self.size);
        for r in 0..self.rings {
            let (senders, inboxes): (Vec<_>, Vec<_>) =
                (0..self.size).map(|_| mpsc::channel::<u64>(1)).unzip();
            kicks.push(senders[0].clone());
            for (i, inbox) in inboxes.into_iter().enumerate() {
                let seat = Seat {
                    id: i as u64 + 1,
                    inbox,
                    next: senders[(i + 1) % self.size].clone(),
                    shared: Arc::clone(&shared),
                    sampled: r == 0 && self.every > 0,
                    holders: holders_tx.clone(),
                };
                handles.push(tokio::spawn(seat.task()));
            }
        }
        shared.all_ready.notified().await;
        Started {
            kicks,
            handles,
            holders,
            shared,
            // every task, at its first recv(); not less the count before the spawns: the
            // previous iteration's tasks, joined, may still be counted then and not now
            alive: metrics.num_alive_tasks(),
        }
    }

    /// The timed part: the tokens go out, and the R final holders report.
    pub async fn run(&self, started: Started) -> Stopping {
        let Started {
            kicks,
            handles,
            mut holders,
            shared,
            alive,
        } = started;
        for kick in &kicks {
            kick.send(self.passes)
                .await
                .unwrap_or_else(|_| fail("ring: task 1 is gone"));
        }
        let (mut holder_min, mut holder_max) = (u64::MAX, 0);
        for _ in 0..self.rings {
            let id = holders
                .recv()
                .await
                .unwrap_or_else(|| fail("ring: a ring ended early"));
            (holder_min, holder_max) = (holder_min.min(id), holder_max.max(id));
        }
        Stopping {
            kicks,
            handles,
            shared,
            alive,
            rings: self.rings,
            holder_min,
            holder_max,
        }
    }
}

/// Every task spawned and waiting; the spawner keeps a `Sender` to each ring's task 1.
pub struct Started {
    kicks: Vec<mpsc::Sender<u64>>,
    handles: Vec<JoinHandle<u64>>,
    holders: mpsc::UnboundedReceiver<u64>,
    shared: Arc<Shared>,
    /// RuntimeMetrics::num_alive_tasks() at the barrier (the ring's tasks and any other).
    alive: usize,
}

impl Seat {
    /// Returns how many tokens this task received (task 1's first, given by the spawner, excluded).
    async fn task(mut self) -> u64 {
        self.shared.arrived();
        if self.id == 1 {
            let Some(c) = self.inbox.recv().await else {
                return 0;
            };
            if self.sampled {
                self.shared.sample(c);
            }
            self.pass(c - 1).await;
        }
        let mut received = 0;
        while let Some(c) = self.inbox.recv().await {
            if c == STOP {
                let _ = self.next.send(STOP).await; // task 1 may have left already: nothing to stop
                break;
            }
            received += 1;
            if self.sampled {
                self.shared.sample(c);
            }
            if c == 0 {
                let _ = self.holders.send(self.id);
            } else {
                self.pass(c - 1).await;
            }
        }
        received
    }

    async fn pass(&self, c: u64) {
        if self.next.send(c).await.is_err() {
            fail("ring: the next task is gone");
        }
    }
}

/// The rings once the clock has stopped, to be stopped, joined and summed.
pub struct Stopping {
    kicks: Vec<mpsc::Sender<u64>>,
    handles: Vec<JoinHandle<u64>>,
    shared: Arc<Shared>,
    alive: usize,
    rings: usize,
    holder_min: u64,
    holder_max: u64,
}

impl Stopping {
    /// After the clock: the stop value to every task 1, the tasks joined, the result built.
    pub async fn finish(self) -> Fields {
        for kick in &self.kicks {
            let _ = kick.send(STOP).await;
        }
        let mut passes = 0;
        for handle in self.handles {
            passes += joined(handle.await);
        }
        let mut fields: Fields = vec![
            ("rings", Some(self.rings as u64)),
            ("passes", Some(passes)),
            ("holder_min", Some(self.holder_min)),
            ("holder_max", Some(self.holder_max)),
            ("tasks_alive", Some(self.alive as u64)),
            ("clock_read_ns", Some(clock_read_ns(self.shared.base))),
        ];
        let mut samples = handoff_samples(&self.shared.readings, self.shared.every);
        if !samples.is_empty() {
            samples.sort_unstable();
            fields.push(("handoff_p50_ns", Some(nearest_rank(&samples, 50))));
            fields.push(("handoff_p99_ns", Some(nearest_rank(&samples, 99))));
        }
        fields.push(("handoff_samples", Some(samples.len() as u64)));
        fields
    }
}

/// Ring 1's readings (slot c / every, so the highest slot is the earliest) as
/// per-hand-off times: the gap between consecutive readings divided by every.
/// Every count c ≤ H with c % every == 0 passes through ring 1 once, so every
/// slot is written; one that is not is a bug.
fn handoff_samples(readings: &[AtomicU64], every: u64) -> Vec<u64> {
    let ns: Vec<u64> = readings.iter().map(|r| r.load(Ordering::Relaxed)).collect();
    if let Some(slot) = ns.iter().position(|&t| t == UNREAD) {
        fail(&format!("ring: ring 1 never took clock reading {slot}"));
    }
    ns.windows(2).rev().map(|w| (w[0] - w[1]) / every).collect()
}

/// The cost of one reading as ring 1 takes it (`Instant::elapsed`: a vDSO
/// `clock_gettime(CLOCK_MONOTONIC)` and a subtraction): 10 000 in a row, averaged.
fn clock_read_ns(base: Instant) -> u64 {
    const READS: u32 = 10_000;
    let start = Instant::now();
    for _ in 0..READS {
        std::hint::black_box(base.elapsed());
    }
    (start.elapsed() / READS).as_nanos() as u64
}

/// The p-th percentile of sorted samples by the nearest-rank method.
fn nearest_rank(sorted: &[u64], p: usize) -> u64 {
    let rank = (p * sorted.len()).div_ceil(100); // ≥ 1 for a non-empty slice
    sorted[rank - 1]
}
