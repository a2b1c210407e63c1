//! `spawn-idle` (seed 004, "1M tasks"): spawn N tasks that each sleep H ms.
//! Each task's first action is to bump a shared `AtomicUsize`; the one that
//! brings it to N wakes the spawner through a `tokio::sync::Notify`, which then
//! prints the all-spawned mark and awaits every `JoinHandle`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio::time::sleep;

use crate::{Fields, Params, emit, joined};

pub const PARAMS: &[&str] = &["tasks", "hold-ms"];

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
        let started = Arc::new(AtomicUsize::new(0));
        let all_started = Arc::new(Notify::new());
        let mut handles = Vec::with_capacity(n);
        for _ in 0..n {
            let (started, all_started, hold) =
                (Arc::clone(&started), Arc::clone(&all_started), self.hold);
            handles.push(tokio::spawn(async move {
                if started.fetch_add(1, Ordering::AcqRel) + 1 == n {
                    // Stores a permit if the spawner is not waiting yet: no lost wake-up.
                    all_started.notify_one();
                }
                sleep(hold).await;
            }));
        }
        if n > 0 {
            all_started.notified().await;
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
