//! `sleep-tasks` (seed 001): N tasks, one `tokio::spawn` each; a task sleeps
//! with `tokio::time::sleep`, then runs a small CPU loop `Σ_{i<K} i % 2`.
//! `tasks` is counted: each task returns 1 with its sum, the joiner adds them up.

use std::time::Duration;

use tokio::time::sleep;

use crate::{Fields, Params, joined};

pub const PARAMS: &[&str] = &["tasks", "sleep-ms", "cpu-iters", "pool-size"];

pub struct SleepTasks {
    tasks: u64,
    sleep: Duration,
    cpu_iters: u64,
}

/// The seed's "a little CPU work". `black_box` on the counter keeps it a plain
/// scalar loop of K steps, as Go and the seed's Java run it: without it LLVM
/// vectorises the loop (4 steps per SSE2 instruction group on x86-64).
fn cpu_work(k: u64) -> u64 {
    let mut s = 0u64;
    for i in 0..k {
        s += std::hint::black_box(i) % 2;
    }
    s
}

impl SleepTasks {
    pub fn new(p: &Params) -> SleepTasks {
        let _ = p.u64("pool-size"); // validated, then ignored: one task per job
        SleepTasks {
            tasks: p.u64("tasks"),
            sleep: Duration::from_millis(p.u64("sleep-ms")),
            cpu_iters: p.u64("cpu-iters"),
        }
    }

    pub async fn run(&self) -> Fields {
        let mut handles = Vec::with_capacity(self.tasks as usize);
        for _ in 0..self.tasks {
            let (pause, k) = (self.sleep, self.cpu_iters);
            // A task returns (1, s): "I finished", and its loop's sum.
            handles.push(tokio::spawn(async move {
                sleep(pause).await;
                (1u64, cpu_work(k))
            }));
        }
        let (mut tasks, mut cpu_sum) = (0u64, 0u64);
        for handle in handles {
            let (done, s) = joined(handle.await);
            tasks += done;
            cpu_sum += s;
        }
        vec![
            ("tasks", Some(tasks)),
            ("cpu_sum", Some(cpu_sum)),
            ("pool_size", None),
        ]
    }
}
