"""A results document shaped like `concbench suite quick` (its workloads, cases, contenders and
run counts) with fixed, made-up figures: the input of the summary and report tests, without
running a benchmark. Some cells carry the troubles a real run has: a crash, a timeout, a
generator-bound server, stolen CPU, a warm-up that did not settle, a noisy cell, a cell with a
failed run. With a folder, each run's sampled time series is written there as the sampler
writes it (t_s, rss_bytes, threads, cpu_s every 10 ms)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from concbench import workloads
from concbench.resultset.model import CellResult, Iteration, ResultsDocument, RunResult
from concbench.stats.cell import aggregate
from concbench.workloads.budget import UNBOUNDED, resolve

BATCH = ("erlang", "go", "java-platform", "java-virtual", "java-structured", "java-completable",
         "java-reactor", "kotlin-coroutines", "node", "python-asyncio", "python-uvloop",
         "rust-tokio")
HELLO = ("nginx", "go", "rust-tokio", "java-platform", "java-virtual", "java-thread-per-conn",
         "kotlin-coroutines", "spring-mvc", "spring-mvc-virtual", "spring-webflux", "node",
         "python-asyncio", "python-uvloop", "erlang")
AGGREGATE = ("go", "rust-tokio", "java-platform", "java-virtual", "java-structured",
             "java-completable", "kotlin-coroutines", "spring-mvc", "spring-mvc-virtual",
             "spring-webflux", "node", "python-asyncio", "python-uvloop", "erlang")
POOLED = {"java-platform", "java-completable"}
SPEED = {name: 1.0 + 0.37 * i for i, name in enumerate(
    ("rust-tokio", "go", "java-virtual", "kotlin-coroutines", "erlang", "java-reactor",
     "java-completable", "java-structured", "java-platform", "node", "python-uvloop",
     "python-asyncio", "nginx", "spring-webflux", "spring-mvc-virtual", "spring-mvc",
     "java-thread-per-conn"))}
"""Made-up cost factors: 1 is the fastest."""
STOLEN = ("sleep-tasks", "node")
NOISY = ("fanout", "python-asyncio")
UNSETTLED = ("http-hello", "spring-mvc")
GENERATOR_BOUND = ("http-hello", "nginx")
CRASHED = ("channel", "python-uvloop", "str")
TIMED_OUT = ("fanout", "java-structured")
PART_FAILED = ("sleep-tasks", "java-reactor")
UNSETTLED_WARNING = ("warm-up did not settle within 1 s (last windows 9,000, 10,500 requests/s): "
                     "the measured window may catch the server still warming; raise warmup-s")


def _samples(folder: Path | None, name: str, seconds: float, rss: float, threads: int) -> str:
    if folder is not None:
        steps = max(2, int(seconds / 0.01))
        rows = ["t_s,rss_bytes,threads,cpu_s"]
        for i in range(steps):
            t = i * 0.01
            grow = min(1.0, 4 * t / seconds)
            rows.append(f"{t:.3f},{int(rss * (0.3 + 0.7 * grow))},{max(1, int(threads * grow))},"
                        f"{t * 0.8:.4f}")
        (folder / "samples").mkdir(parents=True, exist_ok=True)
        (folder / "samples" / name).write_text("\n".join(rows) + "\n")
    return f"samples/{name}"


def _batch_run(rng: random.Random, seconds: float, rss: float, threads: int, iterations: int,
               folder: Path | None, name: str, marks: dict[str, dict[str, Any]] | None = None,
               steal: float | None = None, spread: float = 0.03) -> RunResult:
    its = (Iteration(0, True, int(seconds * 1.4e9), {}),) + tuple(
        Iteration(i + 1, False, int(seconds * rng.uniform(1 - spread, 1 + spread) * 1e9), {})
        for i in range(iterations))
    wall = seconds * (iterations + 1.4) + 0.3
    return RunResult(status="ok", reason=None, wall_s=wall, startup_s=0.3,
                     peak_rss_bytes=int(rss * rng.uniform(0.98, 1.02)), peak_threads=threads,
                     final_threads=threads, cpu_user_s=wall * 0.6, cpu_sys_s=wall * 0.1,
                     ctx_voluntary=100, ctx_involuntary=5, iterations=its, marks=marks or {},
                     exit_code=0, samples_file=_samples(folder, name, wall, rss, threads),
                     steal_percent=steal)


def _failed(status: str, reason: str) -> RunResult:
    return RunResult(status=status, reason=reason, wall_s=2.0, startup_s=None, peak_rss_bytes=0,
                     peak_threads=0, final_threads=0, cpu_user_s=0.0, cpu_sys_s=0.0,
                     ctx_voluntary=0, ctx_involuntary=0, iterations=(), exit_code=1)


def _batch_cells(folder: Path | None, rng: random.Random, workload: str, contenders: tuple,
                 params: dict[str, Any], base_s: float, runs: int = 2, iterations: int = 2,
                 case: str = "") -> list[CellResult]:
    spec = workloads.get(workload)
    resolved = spec.resolve(params)
    cells = []
    for name in contenders:
        budget = resolve(None, True, resolved) if name in POOLED else UNBOUNDED
        meta = {"throughput_unit": spec.throughput_unit, "style": "test"}
        stem = f"{workload}-{name}-{case}".strip("-")
        if (workload, name) == TIMED_OUT:
            runs_of = [_failed("timeout", "still running after 120 s; process group killed")]
        elif (workload, name, case) == CRASHED:
            runs_of = [_failed("crash", "exit 1: Traceback … MemoryError")] * runs
        else:
            cost = SPEED[name]
            rss = 20e6 * cost + (5e6 if name.startswith("java") else 0)
            marks = None
            if spec.marks:
                marks = {m: {"elapsed_ns": int(0.2e9 * cost), "rss_bytes": int(rss * 4),
                             "threads": 1000 if name == "java-platform" else 8}
                         for m in spec.marks}
            steal = 6.5 if (workload, name) == STOLEN else None
            spread = 0.25 if (workload, name) == NOISY else 0.03
            runs_of = [_batch_run(rng, base_s * cost, rss, 8 + int(cost * 3), iterations,
                                  folder, f"{stem}-{r + 1}.csv", marks, steal, spread)
                       for r in range(runs)]
            if (workload, name) == PART_FAILED:
                runs_of[-1] = _failed("crash", "exit 134: SIGABRT")
        cells.append(aggregate(spec, name, resolved, budget, runs_of, meta))
    return cells


def _server_run(rng: random.Random, rps: float, p99: float, rss: float, threads: int,
                gen_cpu: float, folder: Path | None, name: str,
                warnings: tuple[str, ...] = ()) -> RunResult:
    rps *= rng.uniform(0.97, 1.03)
    latency = {"p50": p99 / 3, "p90": p99 / 1.5, "p99": p99, "p999": p99 * 1.4,
               "max": p99 * 2, "min": p99 / 10, "mean": p99 / 2.5}
    load = {"generator": "wrk", "requests": int(rps), "ok_requests": int(rps),
            "duration_s": 1.0, "requests_per_s": rps, "latency_ms": latency,
            "percentiles": [[50.0, latency["p50"]], [90.0, latency["p90"]], [99.0, p99],
                            [99.9, latency["p999"]], [100.0, latency["max"]]],
            "errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0, "status": 0,
                       "other": 0}, "errors_total": 0, "cpu_s": gen_cpu / 100,
            "wall_s": 1.0, "cpu_percent": gen_cpu, "cpus": [1], "corrected": False}
    window = {"window_s": 1.0, "cpu_s": 0.7, "cpu_percent": 70.0, "ctx_voluntary": 1000,
              "ctx_involuntary": 50, "peak_fds": 80, "peak_rss_bytes": int(rss),
              "mean_rss_bytes": int(rss * 0.9), "peak_threads": threads, "mean_threads": threads}
    server = {"cpus": [0], "ready_s": 0.5, "runtime": {"cpus": 1}, "window": window,
              "warmup": {"seconds": 1.0},
              "stop": {"signal": "SIGTERM", "killed": False, "exit_code": 0}}
    return RunResult(status="ok", reason=None, wall_s=4.0, startup_s=0.5,
                     peak_rss_bytes=int(rss * 1.05), peak_threads=threads, final_threads=threads,
                     cpu_user_s=1.5, cpu_sys_s=0.5, ctx_voluntary=2000, ctx_involuntary=90,
                     iterations=(), exit_code=0, load=load, server=server,
                     samples_file=_samples(folder, name, 4.0, rss, threads), warnings=warnings)


def _server_cells(folder: Path | None, rng: random.Random, workload: str, contenders: tuple,
                  params: dict[str, Any], top_rps: float, floor_ms: float) -> list[CellResult]:
    spec = workloads.get(workload)
    resolved = spec.resolve(params)
    cells = []
    for name in contenders:
        cost = SPEED[name]
        bound = (workload, name) == GENERATOR_BOUND
        notes = (UNSETTLED_WARNING,) if (workload, name) == UNSETTLED else ()
        run = _server_run(rng, top_rps / cost, floor_ms * (1 + cost / 4), 30e6 * cost,
                          4 + int(cost * 10), 97.0 if bound else 60.0, folder,
                          f"{workload}-{name}-1.csv", notes)
        meta = {"throughput_unit": "requests", "placement": {"server": [0], "client": [1]}}
        cells.append(aggregate(spec, name, resolved, UNBOUNDED, [run], meta))
    return cells


def quick_document(folder: Path | None = None) -> ResultsDocument:
    """The quick suite's shape: fanout, sleep-tasks, spawn-idle, channel (etype int and str, at
    10 000 events and, for the Python runtimes, 2 000), ring, skynet, http-hello and
    http-aggregate."""
    rng = random.Random(7)
    channel = dict(workers=100, queue=256, esize=64)
    no_channel = {"java-structured", "java-completable", "java-reactor", "node"}
    fast = tuple(c for c in BATCH if c not in no_channel and not c.startswith("python"))
    cells = [
        *_batch_cells(folder, rng, "fanout", BATCH, {"requests": 500, "user-ms": 50,
                                                     "orders-ms": 50, "prefs-ms": 50,
                                                     "notifications-ms": 50}, 0.2),
        *_batch_cells(folder, rng, "sleep-tasks", tuple(c for c in BATCH if c !=
                                                        "java-structured"),
                      {"tasks": 2000, "sleep-ms": 50, "cpu-iters": 1000}, 0.06),
        *_batch_cells(folder, rng, "spawn-idle", tuple(c for c in BATCH if c not in
                                                       ("java-structured", "java-completable")),
                      {"tasks": 1000, "hold-ms": 1000}, 1.0, iterations=1),
    ]
    for etype in ("int", "str"):
        cells += _batch_cells(folder, rng, "channel", fast,
                              {**channel, "events": 10000, "etype": etype}, 0.05,
                              iterations=5, case=etype)
        cells += _batch_cells(folder, rng, "channel", ("python-asyncio", "python-uvloop"),
                              {**channel, "events": 2000, "etype": etype}, 0.04,
                              iterations=2, case=etype)
    ringers = tuple(c for c in BATCH if not c.startswith("java-") or c in ("java-platform",
                                                                             "java-virtual"))
    cells += _batch_cells(folder, rng, "ring", ringers, {"rings": 1, "size": 503,
                                                         "passes": 50000, "sample-every": 10},
                          0.03)
    cells += _batch_cells(folder, rng, "skynet", ringers, {"size": 10000, "branch": 10}, 0.01)
    cells += _server_cells(folder, rng, "http-hello", HELLO,
                           {"connections": 64, "duration-s": 1, "warmup-s": 1,
                            "warmup-steady-pct": 0}, 60000, 1.0)
    cells += _server_cells(folder, rng, "http-aggregate", AGGREGATE,
                           {"connections": 32, "duration-s": 1, "warmup-s": 1,
                            "warmup-steady-pct": 0, "base-ms": 20, "detail-ms": 30,
                            "extra-ms": 50, "downstream": "http"}, 600, 70.0)
    return ResultsDocument(
        run_id="20260301-000000-quick", concbench_revision="abc123", created_at="2026-03-01",
        machine={"cpu_model": "Test CPU", "logical_cores": 2, "memory_bytes": 8 << 30,
                 "os": "Debian 12", "kernel": "6.1",
                 "system_check": {"warnings": ["other programs used 35% of the CPUs just "
                                               "before the plan started: their load moves every "
                                               "figure; stop them (see top) and rerun"]}},
        toolchains={"go": {"status": "built", "versions": {"go version": "go1.26"}}},
        plan={"name": "quick", "runs": 2, "warmup": 1, "iterations": 2, "interleave": True},
        cells=tuple(cells))
