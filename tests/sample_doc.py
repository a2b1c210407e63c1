"""A small, fixed results document (no clocks, no machine reads) for golden-file tests."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from concbench.resultset.model import CellResult, Iteration, ResultsDocument, RunResult
from concbench.stats.cell import aggregate, unavailable
from concbench import workloads
from concbench.workloads.budget import UNBOUNDED, resolve
from concbench.workloads.server import resolve_bounds


def pooled(params):
    """The thread budget of a style that runs the tasks on one pool of pool-size threads."""
    return resolve(None, True, params)


def _run(elapsed_ms: list[float], rss_mib: int, threads: int, status: str = "ok",
         reason: str | None = None) -> RunResult:
    its = tuple(Iteration(index=i, warmup=False, elapsed_ns=int(ms * 1e6),
                          result={"tasks": 1000, "cpu_sum": 500000, "pool_size": None})
                for i, ms in enumerate(elapsed_ms))
    return RunResult(status=status, reason=reason, wall_s=sum(elapsed_ms) / 1e3 + 0.25,
                     startup_s=0.25, peak_rss_bytes=rss_mib << 20, peak_threads=threads,
                     final_threads=threads, cpu_user_s=0.5, cpu_sys_s=0.125, ctx_voluntary=100,
                     ctx_involuntary=7, iterations=its if status == "ok" else (),
                     exit_code=0 if status == "ok" else 1, samples_file=None)


def _server_run(rps: float, p50: float, p99: float, worst: float, gen_cpu: float,
                server_cpu: float, rss_mib: int, threads: int, errors: int = 0) -> RunResult:
    """One server run as the server runner records it (10 s window, fixed figures)."""
    latency = {"p50": p50, "p90": (p50 + p99) / 2, "p99": p99, "p999": (p99 + worst) / 2,
               "max": worst, "min": p50 / 2, "mean": p50 * 1.1}
    load = {"generator": "wrk", "requests": int(rps * 10) + errors, "ok_requests": int(rps * 10),
            "duration_s": 10.0, "requests_per_s": rps, "latency_ms": latency,
            "percentiles": [[50.0, p50], [90.0, latency["p90"]], [99.0, p99],
                            [99.9, latency["p999"]], [100.0, worst]],
            "errors": {"connect": errors, "read": 0, "write": 0, "timeout": 0, "status": 0,
                       "other": 0}, "errors_total": errors, "cpu_s": gen_cpu / 10,
            "wall_s": 10.0, "cpu_percent": gen_cpu, "cpus": [1], "corrected": False}
    window = {"window_s": 10.0, "cpu_s": server_cpu / 10, "cpu_percent": server_cpu,
              "ctx_voluntary": 1000, "ctx_involuntary": 50, "peak_fds": 300,
              "peak_rss_bytes": rss_mib << 20, "mean_rss_bytes": (rss_mib << 20) * 0.9,
              "peak_threads": threads, "mean_threads": threads}
    server = {"cpus": [0], "ready_s": 1.5, "runtime": {"cpus": 1}, "window": window,
              "stop": {"signal": "SIGTERM", "killed": False, "exit_code": 0}}
    return RunResult(status="ok", reason=None, wall_s=12.0, startup_s=1.5,
                     peak_rss_bytes=(rss_mib + 5) << 20, peak_threads=threads,
                     final_threads=threads, cpu_user_s=server_cpu / 20, cpu_sys_s=server_cpu / 40,
                     ctx_voluntary=2000, ctx_involuntary=90, iterations=(), exit_code=0,
                     load=load, server=server)


def _server_cells() -> tuple[CellResult, ...]:
    hello = workloads.get("http-hello")
    agg = workloads.get("http-aggregate")
    p = hello.resolve({"connections": 256})
    a = agg.resolve({})
    meta = {"throughput_unit": "requests", "placement": {"server": [0], "client": [1]}}
    async_small = resolve_bounds({"request-threads": 200, "async-threads": 12}, a)
    return (
        aggregate(hello, "nginx", p, UNBOUNDED, [_server_run(76000, 2.9, 5.1, 12, 97, 55, 4, 2),
                                             _server_run(78000, 2.8, 4.9, 11, 98, 54, 4, 2)],
                  dict(meta)),
        aggregate(hello, "go", p, UNBOUNDED, [_server_run(64000, 3.5, 8.2, 30, 80, 92, 12, 6),
                                          _server_run(66000, 3.4, 8.0, 28, 81, 93, 12, 6,
                                                      errors=3)], dict(meta)),
        aggregate(agg, "spring-mvc-async-small", a, UNBOUNDED,
                  [_server_run(14.2, 9800, 10400, 10900, 2, 8, 210, 240),
                   _server_run(14.6, 9700, 10300, 10700, 2, 8, 212, 240)], dict(meta),
                  async_small),
    )


def sample_document(servers: bool = False) -> ResultsDocument:
    """sleep-tasks cells of every kind; with servers, also http-hello and http-aggregate."""
    spec = workloads.get("sleep-tasks")
    small = spec.resolve({"tasks": 1000, "sleep-ms": 100, "pool-size": 100})
    big = spec.resolve({"tasks": 10000, "sleep-ms": 100, "pool-size": 100})
    meta = {"throughput_unit": "tasks", "style": "test"}
    cells = (
        aggregate(spec, "go", small, UNBOUNDED, [_run([101.0], 12, 5), _run([103.0], 12, 5),
                                             _run([102.0], 13, 5)], meta),
        aggregate(spec, "java-platform", small, pooled(small),
                  [_run([1005.0], 80, 120), _run([1010.0], 81, 121)], meta),
        aggregate(spec, "go", big, UNBOUNDED, [_run([120.0], 40, 5), _run([118.0], 41, 5)], meta),
        aggregate(spec, "java-platform", big, pooled(big),
                  [_run([], 0, 0, "timeout", "still running after 20 s; process group killed")],
                  meta),
        unavailable(spec, "rust-tokio", big, UNBOUNDED, "cargo not found: install Rust", meta),
        *(_server_cells() if servers else ()),
    )
    return ResultsDocument(
        run_id="20260101-000000-sample", concbench_revision="abc123", created_at="2026-01-01",
        machine={"cpu_model": "Test CPU", "logical_cores": 2, "memory_bytes": 24 << 30,
                 "os": "Debian 12", "kernel": "6.1"},
        toolchains={"go": {"status": "built", "versions": {"go version": "go1.26"}}},
        plan={"name": "sample", "reference": "go", "runs": 3, "warmup": 0, "iterations": 1}, cells=cells)


def _spawn_run(tasks: int, rss_mib: int) -> RunResult:
    """A spawn-idle run with its all-spawned mark (RSS read by the harness at the mark)."""
    mark = {"elapsed_ns": tasks * 1000, "rss_bytes": rss_mib << 20, "threads": 5}
    its = (Iteration(index=0, warmup=False, elapsed_ns=int(1.2e9), result={"tasks": tasks}),)
    return RunResult(status="ok", reason=None, wall_s=1.5, startup_s=0.1,
                     peak_rss_bytes=(rss_mib + 1) << 20, peak_threads=5, final_threads=5,
                     cpu_user_s=0.2, cpu_sys_s=0.1, ctx_voluntary=10, ctx_involuntary=1,
                     iterations=its, marks={"all-spawned": mark})


MIXED_REASON = "exit 3: naïve | pipe ✗ <b>bold</b>"


def troubled_document() -> ResultsDocument:
    """What sample_document lacks, for report tests that must be able to fail: a cell whose
    runs vary (a warning), a mixed-status cell (two ok runs, one crash whose reason has `|`,
    non-ASCII and markup), and a three-size spawn-idle scan with its marks."""
    sleep = workloads.get("sleep-tasks")
    spawn = workloads.get("spawn-idle")
    p = sleep.resolve({"tasks": 1000, "sleep-ms": 100, "pool-size": 100})
    meta = {"throughput_unit": "tasks", "style": "test"}
    mixed = aggregate(sleep, "go", p, UNBOUNDED,
                      [_run([101.0], 12, 5), _run([140.0], 12, 5),
                       _run([], 0, 0, "crash", MIXED_REASON)], meta)
    scan = tuple(aggregate(spawn, "go", spawn.resolve({"tasks": n, "hold-ms": 1000}), UNBOUNDED,
                           [_spawn_run(n, rss), _spawn_run(n, rss + 1)],
                           {"throughput_unit": "tasks"})
                 for n, rss in ((1000, 12), (10000, 34), (100000, 254)))
    return ResultsDocument(
        run_id="20260102-000000-troubled", concbench_revision="abc123", created_at="2026-01-02",
        machine={"cpu_model": "Test CPU", "logical_cores": 2, "memory_bytes": 24 << 30,
                 "os": "Debian 12", "kernel": "6.1"},
        toolchains={"go": {"status": "built", "versions": {"go version": "go1.26"}}},
        plan={"name": "troubled", "reference": "go", "runs": 3, "warmup": 0, "iterations": 1},
        cells=(mixed, *scan))


@functools.cache
def rendered(name: str) -> str:
    """The HTML report of one of these documents ("sample", "servers", "troubled"), rendered
    once per session: its charts take seconds, and many tests read the same page."""
    from concbench.report import html

    doc = {"sample": sample_document, "servers": lambda: sample_document(servers=True),
           "troubled": troubled_document}[name]()
    return html.render([(doc, None)])


GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, produced: str | bytes) -> None:
    """`produced` must equal tests/golden/<name>. With CONCBENCH_UPDATE_GOLDEN set the file is
    rewritten, and the test still fails if it changed: a changed output is reviewed (git diff)
    and the test rerun, never passed by the variable."""
    golden = GOLDEN / name
    text = produced.decode() if isinstance(produced, bytes) else produced
    before = golden.read_text() if golden.exists() else None
    if os.environ.get("CONCBENCH_UPDATE_GOLDEN"):
        golden.write_text(text)
        assert text == before, f"{golden} rewritten: review `git diff {golden}`, then rerun"
    assert text == before, f"differs from {golden}; regenerate with CONCBENCH_UPDATE_GOLDEN=1"
