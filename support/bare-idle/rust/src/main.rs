//! Bare idle Tokio tasks: the reference for spawn-idle's bytes per task.
//!
//!     bare-idle-tokio N HOLD_MS
//!
//! `#[tokio::main]` builds what the contender builds (`Builder::new_multi_thread()
//! .enable_all()`, one worker per usable CPU). N tasks that are only `sleep(d)`;
//! "spawned" once the spawning loop is done; then every JoinHandle is awaited.

use std::io::Write;
use std::time::Duration;

use tokio::time::sleep;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (n, ms): (usize, u64) = match (args.get(1).map(|a| a.parse()), args.get(2).map(|a| a.parse())) {
        (Some(Ok(n)), Some(Ok(ms))) if args.len() == 3 => (n, ms),
        _ => {
            eprintln!("usage: bare-idle-tokio N HOLD_MS");
            std::process::exit(2);
        }
    };
    let d = Duration::from_millis(ms);
    let handles: Vec<_> = (0..n).map(|_| tokio::spawn(sleep(d))).collect();
    let mut out = std::io::stdout().lock();
    out.write_all(b"spawned\n").unwrap();
    out.flush().unwrap();
    drop(out);
    for h in handles {
        h.await.unwrap();
    }
}
