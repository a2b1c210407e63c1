//! `spawn-idle` (seed 004, "1M tasks"): spawn N tasks that each sleep H ms.
//! Each task's first action is to bump a shared `AtomicUsize`; the one that
//! brings it to N wakes the spawner through a `tokio::sync::Notify`, which then
//! prints the all-spawned mark and awaits every `JoinHandle`.
//!
//! The measure is the runtime's task, not our bookkeeping: a task captures one
//! `&'static` to the iteration's shared state (leaked once per iteration, a few
//! hundred bytes) instead of two `Arc` clones (16 bytes more per task future and
//! two refcount bumps per spawn on cache lines the tasks then write), and the
//! counter sits on a cache line of its own.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio::time::sleep;

use crate::{Fields, Params, emit, joined};

pub const PARAMS: &[&str] = &["tasks", "hold-ms"];

/// What every task of one iteration shares.
struct Shared {
    started: Padded,
    all_started: Notify,
    tasks: usize,
    hold: Duration,
}

/// The started counter, alone on its cache line(s).
#[repr(align(128))]
struct Padded(AtomicUsize);

pub struct SpawnIdle {
    tasks: usize,
    hold: Duration,
}

impl SpawnIdle {
    pub fn new(p: &Params) -> SpawnIdle {
        SpawnIdle {
            tasks: p.usize("tasks"),
            hold: Duration::from_millis(p.u64("hold-ms")),
        }
    }

    pub async fn run(&self, index: u64, start: Instant) -> Fields {
        let n = self.tasks;
        let shared: &'static Shared = Box::leak(Box::new(Shared {
            started: Padded(AtomicUsize::new(0)),
            all_started: Notify::new(),
            tasks: n,
            hold: self.hold,
        }));
        let mut handles = Vec::with_capacity(n);
        for _ in 0..n {
            handles.push(tokio::spawn(async move {
                if shared.started.0.fetch_add(1, Ordering::AcqRel) + 1 == shared.tasks {
                    // Stores a permit if the spawner is not waiting yet: no lost wake-up.
                    shared.all_started.notify_one();
                }
                sleep(shared.hold).await;
            }));
        }
        if n > 0 {
            shared.all_started.notified().await;
        }
        let mark_ns = start.elapsed().as_nanos();
        emit(&format!(
            "{{\"type\":\"mark\",\"name\":\"all-spawned\",\"index\":{index},\"elapsed_ns\":{mark_ns}}}"
        ));
        let mut completed = 0u64;
        for handle in handles {
            joined(handle.await);
            completed += 1;
        }
        vec![("tasks", Some(completed))]
    }
}
