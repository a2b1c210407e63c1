//! `skynet` (atemerev/skynet): a task per tree node. A parent `tokio::spawn`s
//! its `branch` children and awaits their `JoinHandle`s in order; a leaf
//! returns (its ordinal, 1), a parent (Σ child sums, 1 + Σ child task counts),
//! so the task count is carried up the tree in the return values.
//!
//! The node is the recursive async function as Tokio users write it: a plain
//! `fn` returning a boxed `async move` block (`Pin<Box<dyn Future + Send>>`,
//! what `futures::future::BoxFuture` names), because an `async fn` that spawns
//! itself cannot prove its own future `Send`. Each node therefore allocates
//! its boxed future and the task that holds it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{Fields, Params, joined};

pub const PARAMS: &[&str] = &["size", "branch"];

/// A node's future: (Σ of its leaves' ordinals, tasks in its subtree).
type Node = Pin<Box<dyn Future<Output = (u64, u64)> + Send>>;

pub struct Skynet {
    size: u64,
    branch: u64,
}

impl Skynet {
    pub fn new(p: &Params) -> Skynet {
        let (size, branch) = (p.u64("size"), p.u64("branch"));
        if branch < 2 {
            p.reject("branch", "at least 2 children per node");
        }
        let mut n = size;
        while n > 1 && n % branch == 0 {
            n /= branch;
        }
        if n != 1 {
            p.reject("size", "must be a power of --branch (at least 1)");
        }
        Skynet { size, branch }
    }

    /// The whole tree; the root is a spawned task too.
    pub async fn run(&self) -> Fields {
        let (sum, tasks) = joined(tokio::spawn(skynet(0, self.size, self.branch)).await);
        // leaf 0's store happens before its result reaches the root's join: Relaxed suffices;
        // not less the count before the tree: the previous tree's tasks, joined, may still be
        // counted then and not at leaf 0
        let alive = ALIVE_AT_FIRST_LEAF.load(Ordering::Relaxed);
        vec![
            ("sum", Some(sum)),
            ("tasks", Some(tasks)),
            ("tasks_alive", Some(alive as u64)),
        ]
    }
}

/// RuntimeMetrics::num_alive_tasks() when leaf 0 runs (one read per tree).
static ALIVE_AT_FIRST_LEAF: AtomicUsize = AtomicUsize::new(0);

/// The node for the leaves num..num+size-1.
fn skynet(num: u64, size: u64, branch: u64) -> Node {
    Box::pin(async move {
        if size == 1 {
            if num == 0 {
                let alive = tokio::runtime::Handle::current().metrics().num_alive_tasks();
                ALIVE_AT_FIRST_LEAF.store(alive, Ordering::Relaxed);
            }
            return (num, 1);
        }
        let child = size / branch;
        let children: Vec<_> = (0..branch)
            .map(|i| tokio::spawn(skynet(num + i * child, child, branch)))
            .collect();
        let (mut sum, mut tasks) = (0, 1);
        for handle in children {
            let (s, t) = joined(handle.await);
            sum += s;
            tasks += t;
        }
        (sum, tasks)
    })
}
