//! concbench contender: Rust on Tokio's multi-thread runtime.
//!
//! `concbench-tokio <workload> --<param>=<value> … --warmup=<W> --iterations=<N>`
//! prints one JSON line per iteration (and spawn-idle's mark) on stdout, flushed
//! per line, as `docs/contract.md` says; the `http-*` workloads take no
//! --warmup/--iterations and run a server instead (`server.rs`). This file:
//! argument parsing, the runtime, the iteration loop and the output. One module
//! per workload.
//!
//! The program is this library; the binaries are thin: `src/main.rs`
//! (`concbench-tokio`, the system allocator) and `src/main_mimalloc.rs`
//! (the same `main` with mimalloc as `#[global_allocator]`, for the variant
//! rust-tokio-mimalloc). Only that binary references the mimalloc crate, so only
//! it links mimalloc.

mod channel;
mod cputime;
mod fanout;
mod http_aggregate;
mod http_hello;
mod hyper_server;
mod ring;
mod server;
mod skynet;
mod sleep_tasks;
mod spawn_idle;

use std::collections::HashMap;
use std::io::Write;
use std::process::exit;
use std::time::Instant;

/// One result field: a number, or JSON `null` (pool_size for an unpooled style).
pub type Fields = Vec<(&'static str, Option<u64>)>;

/// Result fields whose value is an object of number fields (fanout's per-fetch-kind proofs).
pub type Objects = Vec<(&'static str, Fields)>;

/// Exit code 2: unknown workload, unknown/missing parameter, malformed value.
fn usage(msg: &str) -> ! {
    eprintln!("concbench-tokio: {msg}");
    eprintln!(
        "usage: concbench-tokio <fanout|sleep-tasks|spawn-idle|channel|ring|skynet> --<param>=<value>… --warmup=<W> --iterations=<N>\n       concbench-tokio [--server=axum|hyper] <http-hello|http-aggregate> --port=<P> --<param>=<value>…"
    );
    exit(2);
}

/// Exit code 1: any other failure.
pub fn fail(msg: &str) -> ! {
    eprintln!("concbench-tokio: {msg}");
    exit(1);
}

/// The `--name=value` pairs, each name given exactly once, no others allowed.
pub struct Params(HashMap<String, String>);

impl Params {
    fn parse(args: &[String], expected: &[&str]) -> Params {
        let mut map = HashMap::new();
        for arg in args {
            let Some((name, value)) = arg.strip_prefix("--").and_then(|a| a.split_once('=')) else {
                usage(&format!("argument {arg:?} is not of the form --name=value"));
            };
            if !expected.contains(&name) {
                usage(&format!("unknown parameter --{name}"));
            }
            if map.insert(name.to_string(), value.to_string()).is_some() {
                usage(&format!("parameter --{name} given twice"));
            }
        }
        for name in expected {
            if !map.contains_key(*name) {
                usage(&format!("missing parameter --{name}"));
            }
        }
        Params(map)
    }

    pub fn str(&self, name: &str) -> &str {
        &self.0[name]
    }

    /// A non-negative decimal integer: ASCII digits only (no sign, no spaces).
    pub fn u64(&self, name: &str) -> u64 {
        let v = self.str(name);
        match v.parse::<u64>() {
            Ok(n) if v.bytes().all(|b| b.is_ascii_digit()) => n,
            _ => usage(&format!("--{name}={v:?} is not a non-negative integer")),
        }
    }

    pub fn usize(&self, name: &str) -> usize {
        usize::try_from(self.u64(name)).unwrap_or_else(|_| usage(&format!("--{name} is too large")))
    }

    /// Reject a value that parses but this style cannot honour (exit 2).
    pub fn reject(&self, name: &str, why: &str) -> ! {
        usage(&format!("--{name}={}: {why}", self.str(name)))
    }
}

/// A workload set up once (long-lived objects) and run once per iteration.
enum Workload {
    Fanout(fanout::Fanout),
    SleepTasks(sleep_tasks::SleepTasks),
    SpawnIdle(spawn_idle::SpawnIdle),
    Channel(channel::Channel),
    Ring(ring::Ring),
    Skynet(skynet::Skynet),
}

/// What a workload builds before the clock starts (ring: every task spawned and waiting).
enum SetUp {
    Nothing,
    Ring(ring::Started),
}

/// What an iteration's timed part returns; `fields` builds the result after the clock stops.
enum Outcome {
    Ready(Fields),
    Fanout(fanout::Profiles),
    Ring(ring::Stopping),
}

impl Outcome {
    async fn fields(self) -> (Fields, Objects) {
        match self {
            Outcome::Ready(fields) => (fields, Vec::new()),
            Outcome::Fanout(profiles) => profiles.fields(),
            Outcome::Ring(rings) => (rings.finish().await, Vec::new()),
        }
    }
}

impl Workload {
    /// ring and skynet put the process CPU over the timer on their iteration lines.
    fn reports_cpu(&self) -> bool {
        matches!(self, Workload::Ring(_) | Workload::Skynet(_))
    }

    async fn set_up(&self) -> SetUp {
        match self {
            Workload::Ring(w) => SetUp::Ring(w.start().await),
            _ => SetUp::Nothing,
        }
    }

    async fn run(&self, index: u64, start: Instant, set_up: SetUp) -> Outcome {
        match (self, set_up) {
            (Workload::Ring(w), SetUp::Ring(started)) => Outcome::Ring(w.run(started).await),
            _ => self.run_plain(index, start).await,
        }
    }

    async fn run_plain(&self, index: u64, start: Instant) -> Outcome {
        match self {
            Workload::Fanout(w) => Outcome::Fanout(w.run().await),
            Workload::SleepTasks(w) => Outcome::Ready(w.run().await),
            Workload::SpawnIdle(w) => Outcome::Ready(w.run(index, start).await),
            Workload::Channel(w) => Outcome::Ready(w.run().await),
            Workload::Skynet(w) => Outcome::Ready(w.run().await),
            Workload::Ring(_) => unreachable!("ring runs from its set-up"),
        }
    }
}

/// Write one line to stdout and flush it at once; a closed stdout is a failure.
pub fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
        fail(&format!("writing stdout: {e}"));
    }
}

/// `"k":v` for each field (v a number or null).
fn json_fields(fields: &Fields) -> Vec<String> {
    fields
        .iter()
        .map(|(k, v)| match v {
            Some(n) => format!("\"{k}\":{n}"),
            None => format!("\"{k}\":null"),
        })
        .collect()
}

fn iteration_line(
    index: u64,
    warmup: bool,
    elapsed_ns: u128,
    result: &Fields,
    objects: &Objects,
    cpu_ns: Option<u64>,
) -> String {
    let mut fields = json_fields(result);
    for (k, object) in objects {
        fields.push(format!("\"{k}\":{{{}}}", json_fields(object).join(",")));
    }
    let cpu = cpu_ns.map_or(String::new(), |ns| {
        format!(",\"cpu_ns\":{ns},\"cpu_tick_ns\":{}", cputime::cpu_tick_ns())
    });
    format!(
        "{{\"type\":\"iteration\",\"index\":{index},\"warmup\":{warmup},\"elapsed_ns\":{elapsed_ns},\"result\":{{{}}}{cpu}}}",
        fields.join(",")
    )
}

/// The whole program; each binary's `main` calls it (after choosing its allocator).
pub fn main() {
    // A panic anywhere (main thread or a worker) is "any other failure": exit 1.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        exit(1);
    }));

    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let stack = server_stack(&mut args);
    let Some(name) = args.first() else {
        usage("no workload given")
    };
    let workload_params: &[&str] = match name.as_str() {
        "fanout" => fanout::PARAMS,
        "sleep-tasks" => sleep_tasks::PARAMS,
        "spawn-idle" => spawn_idle::PARAMS,
        "channel" => channel::PARAMS,
        "ring" => ring::PARAMS,
        "skynet" => skynet::PARAMS,
        "http-hello" => {
            let p = params(&args, http_hello::PARAMS);
            return serve(Server::Hello(http_hello::HttpHello::new(&p)), stack);
        }
        "http-aggregate" => {
            let p = params(&args, http_aggregate::PARAMS);
            return serve(Server::Aggregate(http_aggregate::HttpAggregate::new(&p)), stack);
        }
        other => usage(&format!("unknown workload {other:?}")),
    };
    if stack.is_some() {
        usage("--server applies only to the http-* workloads");
    }
    let mut expected = workload_params.to_vec();
    expected.extend(["warmup", "iterations"]);
    let p = Params::parse(&args[1..], &expected);
    let warmup = p.u64("warmup");
    let iterations = p.u64("iterations");
    let workload = match name.as_str() {
        "fanout" => Workload::Fanout(fanout::Fanout::new(&p)),
        "sleep-tasks" => Workload::SleepTasks(sleep_tasks::SleepTasks::new(&p)),
        "spawn-idle" => Workload::SpawnIdle(spawn_idle::SpawnIdle::new(&p)),
        "channel" => Workload::Channel(channel::Channel::new(&p)),
        "ring" => Workload::Ring(ring::Ring::new(&p)),
        _ => Workload::Skynet(skynet::Skynet::new(&p)),
    };

    runtime().block_on(async {
        for index in 0..warmup + iterations {
            let set_up = workload.set_up().await;
            let cpu_start = cputime::process_cpu_ns();
            let start = Instant::now();
            let outcome = workload.run(index, start, set_up).await;
            let elapsed_ns = start.elapsed().as_nanos();
            let cpu_ns = cputime::process_cpu_ns() - cpu_start;
            let (mut result, objects) = outcome.fields().await; // outside the timed region
            // Informational keys (docs/contract.md): the runtime's worker threads, and the
            // tasks still alive after the iteration (0: nothing leaked into the next one).
            let metrics = tokio::runtime::Handle::current().metrics();
            result.push(("tokio_workers", Some(metrics.num_workers() as u64)));
            result.push(("tokio_alive_tasks", Some(metrics.num_alive_tasks() as u64)));
            emit(&iteration_line(
                index,
                index < warmup,
                elapsed_ns,
                &result,
                &objects,
                workload.reports_cpu().then_some(cpu_ns),
            ));
        }
    });
}

/// What `#[tokio::main]` builds: the multi-thread scheduler with its default
/// worker count (one per usable CPU) and all drivers enabled; the iteration loop
/// (or the server) runs in `block_on` on the main thread, as the body of
/// `async fn main`. CONCBENCH_TOKIO_FLAVOR=current_thread (the variant
/// rust-tokio-current-thread) builds what `#[tokio::main(flavor = "current_thread")]`
/// does instead: every task on the one thread that runs `block_on`.
fn runtime() -> tokio::runtime::Runtime {
    let mut builder = match std::env::var("CONCBENCH_TOKIO_FLAVOR").as_deref() {
        Err(_) | Ok("multi_thread") => tokio::runtime::Builder::new_multi_thread(),
        Ok("current_thread") => tokio::runtime::Builder::new_current_thread(),
        Ok(other) => fail(&format!(
            "CONCBENCH_TOKIO_FLAVOR={other}: want multi_thread or current_thread"
        )),
    };
    builder
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&format!("building the Tokio runtime: {e}")))
}

/// A server workload's parameters: exactly its own, no --warmup/--iterations.
fn params(args: &[String], expected: &[&str]) -> Params {
    Params::parse(&args[1..], expected)
}

enum Server {
    Hello(http_hello::HttpHello),
    Aggregate(http_aggregate::HttpAggregate),
}

/// The HTTP stack of the servers, chosen by a leading `--server=` argument (the
/// manifest's `run` of the variant rust-hyper), which is removed from `args`.
#[derive(Clone, Copy, PartialEq)]
enum Stack {
    /// axum's router on hyper (rust-tokio; also the default without the argument).
    Axum,
    /// A bare hyper service with hand-matched paths (rust-hyper, `hyper_server.rs`).
    Hyper,
}

fn server_stack(args: &mut Vec<String>) -> Option<Stack> {
    let value = args.first()?.strip_prefix("--server=")?;
    let stack = match value {
        "axum" => Stack::Axum,
        "hyper" => Stack::Hyper,
        other => usage(&format!("--server={other}: want axum or hyper")),
    };
    args.remove(0);
    Some(stack)
}

/// Run a server until SIGTERM; returning from `main` then exits 0.
fn serve(server: Server, stack: Option<Stack>) {
    if stack == Some(Stack::Hyper) {
        return serve_hyper(server);
    }
    runtime().block_on(async {
        let (bind, port, router, info) = match &server {
            Server::Hello(s) => (s.bind, s.port, s.router(), Vec::new()),
            Server::Aggregate(s) => {
                let (router, info) = s.router();
                (s.bind, s.port, router, info)
            }
        };
        server::serve(bind, port, router, &info).await;
    });
}

/// rust-hyper: the same workloads and downstream as `serve`, on a bare hyper service
/// whose downstream=http calls go through hyper-util's client.
fn serve_hyper(server: Server) {
    runtime().block_on(async {
        let (bind, port, app, info) = match &server {
            Server::Hello(s) => (s.bind, s.port, hyper_server::App::Hello, Vec::new()),
            Server::Aggregate(s) => {
                let (downstream, info) = s.downstream(http_aggregate::ClientKind::Hyper);
                (s.bind, s.port, hyper_server::App::Aggregate(downstream), info)
            }
        };
        hyper_server::serve(bind, port, app, &info).await;
    });
}

/// Unwrap a task's outcome; a task that panicked or was cancelled is a failure.
pub fn joined<T>(r: Result<T, tokio::task::JoinError>) -> T {
    r.unwrap_or_else(|e| fail(&format!("task failed: {e}")))
}
