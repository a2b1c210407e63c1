//! `concbench-tokio`: the contender rust-tokio (and rust-tokio-current-thread), on
//! the system allocator (glibc malloc). The program is the library (`src/lib.rs`).

fn main() {
    concbench_tokio::main()
}
