//! `concbench-tokio-mimalloc`: the contender rust-tokio-mimalloc, the same program
//! (`src/lib.rs`) with mimalloc as the global allocator, as a Rust user would add it.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    concbench_tokio::main()
}
