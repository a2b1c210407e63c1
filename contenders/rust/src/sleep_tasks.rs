//! `sleep-tasks` (seed 001): N tasks, one `tokio::spawn` each; a task times
//! its own `tokio::time::sleep`, then runs K steps of a 32-bit chain seeded
//! with `cpu-seed` (docs/contract.md). Each task returns what it proves (1 for
//! "finished", its chain's sum, its measured sleep) and the joiner reduces them.

use std::time::{Duration, Instant};

use tokio::time::sleep;

use crate::{Fields, Params, joined};

pub const PARAMS: &[&str] = &["tasks", "sleep-ms", "cpu-iters", "cpu-seed", "pool-size"];

pub struct SleepTasks {
    tasks: u64,
    sleep: Duration,
    cpu_iters: u64,
    cpu_seed: u32,
}

/// The CPU work: K steps of x = x·1664525 + 1013904223, s += x, mod 2³². Each
/// step needs the x before it, so LLVM keeps it a scalar multiply-add chain
/// with no hint needed (the seed's Σ i % 2 needed `black_box`).
fn cpu_chain(seed: u32, k: u64) -> u32 {
    let (mut x, mut s) = (seed, 0u32);
    for _ in 0..k {
        x = x.wrapping_mul(1664525).wrapping_add(1013904223);
        s = s.wrapping_add(x);
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
            cpu_seed: u32::try_from(p.u64("cpu-seed"))
                .unwrap_or_else(|_| p.reject("cpu-seed", "must be below 2^32")),
        }
    }

    pub async fn run(&self) -> Fields {
        let mut handles = Vec::with_capacity(self.tasks as usize);
        for _ in 0..self.tasks {
            let (pause, k, seed) = (self.sleep, self.cpu_iters, self.cpu_seed);
            // A task returns (1, s, slept ns): "I finished", its chain's sum, its own sleep.
            handles.push(tokio::spawn(async move {
                let before = Instant::now();
                sleep(pause).await;
                let slept = before.elapsed().as_nanos() as u64;
                (1u64, cpu_chain(seed, k), slept)
            }));
        }
        let (mut tasks, mut cpu_sum, mut slept_min) = (0u64, 0u64, u64::MAX);
        for handle in handles {
            let (done, s, slept) = joined(handle.await);
            tasks += done;
            cpu_sum += u64::from(s);
            slept_min = slept_min.min(slept);
        }
        vec![
            ("tasks", Some(tasks)),
            ("cpu_sum", Some(cpu_sum)),
            ("slept_min_ns", Some(if tasks == 0 { 0 } else { slept_min })),
            ("pool_size", None),
        ]
    }
}
