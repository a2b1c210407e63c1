"""A small, fixed results document with every group of results.csv's conditional columns
(docs/contract.md "The CSV"): cells under cgroup limits (throttling, peak, an OOM kill, what the
runtime saw), server stacks, system calls counted per request, server and generator CPU per
request, an open-loop rate and a capacity search. sample_doc's document has none of them, so
its golden file cannot see one of these columns dropped or renamed; this one's can
(tests/golden/conditional.results.csv, tests/test_exports.py).

Figures are made up and distinct from column to column, so two columns swapped also change
the file. Cells go through the real aggregation (stats.cell.aggregate, then
stats.cgroup_cell.with_cgroup as the scheduler calls it).
"""

from __future__ import annotations

from typing import Any

from concbench import workloads
from concbench.proc.cgroups.limits import Limits
from concbench.resultset.model import CellResult, Iteration, ResultsDocument, RunResult
from concbench.server.syscall_counts import CALLS
from concbench.stats.cell import aggregate
from concbench.stats.cgroup_cell import with_cgroup
from concbench.workloads.budget import UNBOUNDED

SERVER_LIMITS = Limits(1.0, 512 << 20)
BATCH_LIMITS = Limits(0.5, 256 << 20)


def _cpu(periods: int, throttled: int, throttled_s: float, usage_s: float) -> dict[str, Any]:
    return {"periods": periods, "throttled_periods": throttled, "throttled_s": throttled_s,
            "usage_s": usage_s}


def _cgroup(limits: Limits, cpu: dict[str, Any], peak: int, oom_kills: int,
            **more: Any) -> dict[str, Any]:
    quota = int(limits.cpus * 100_000) if limits.cpus else None
    return {"version": 2, "paths": ["/sys/fs/cgroup/concbench/x"], "cpus": limits.cpus,
            "period_us": 100_000, "quota_us": quota, "memory_limit_bytes": limits.memory,
            "cpu": cpu, "memory": {"peak_bytes": peak, "limit_hits": oom_kills,
                                   "oom_kills": oom_kills}, **more}


def _server_run(k: float, syscalls: bool, cgroup: dict[str, Any] | None,
                open_loop: bool, runtime_cpus: int = 1) -> RunResult:
    """One server run whose figures all scale with k (two runs: medians between them)."""
    latency = {"p50": 1.1 * k, "p90": 2.2 * k, "p99": 3.3 * k, "p999": 4.4 * k,
               "max": 5.5 * k, "min": 0.5, "mean": 1.2 * k}
    load: dict[str, Any] = {
        "generator": "oha" if open_loop else "wrk", "requests": int(20_000 * k),
        "ok_requests": int(19_990 * k), "duration_s": 10.0, "requests_per_s": 1999.0 * k,
        "latency_ms": latency, "percentiles": [], "errors_total": int(3 * k),
        "errors": {"connect": int(3 * k)}, "cpu_s": 0.7 * k, "cpu_percent": 7.0 * k}
    if open_loop:
        load["open_loop"] = {"offered_per_s": 2000, "achieved_ratio": 1.049 - 0.1 * k,
                             "saturated": k > 1}
    per = {call: (i + 1) / 8 * k for i, call in enumerate(CALLS)}
    per.update({"context-switches": 2.5 * k, "page-faults": 0.03 * k,
                "ctx_voluntary": 1.75 * k, "ctx_involuntary": 0.625 * k})
    server = {
        "runtime": {"cpus": runtime_cpus},
        "window": {"window_s": 10.0, "cpu_s": 2.3 * k, "cpu_percent": 23.0 * k,
                   "peak_rss_bytes": int(30e6 * k), "peak_threads": int(9 * k)},
        "cpu_per_request": {"responses": int(20_000 * k), "server_us": 115.0 * k,
                            "server_us_without_jit": 103.5 * k,
                            "generator_us": 35.0 * k, "server_source": "cgroup"},
        "syscalls": {"per_request": per, "requests": int(20_000 * k)} if syscalls else None,
        "capacity": {"capacity_per_s": 1875.0 * k} if open_loop else None}
    return RunResult(status="ok", reason=None, wall_s=14.0, startup_s=0.4 * k,
                     peak_rss_bytes=int(31e6 * k), peak_threads=int(10 * k),
                     final_threads=int(10 * k), cpu_user_s=2.0 * k, cpu_sys_s=1.0 * k,
                     ctx_voluntary=1, ctx_involuntary=1, iterations=(), load=load,
                     server=server, cgroup=cgroup)


def _limited_server_cell() -> CellResult:
    """go under 1 CPU and 512 MiB (GOMAXPROCS 2: a runtime that sized itself to the machine):
    oha at 2000/s, system calls counted, a capacity search."""
    spec = workloads.get("http-hello")
    params = spec.resolve({"connections": 64, "loadgen": "oha", "rate": 2000,
                           "syscalls": "true", "slo-p99-ms": 50})
    runs = [_server_run(k, True, _cgroup(SERVER_LIMITS, _cpu(1500 * n, 30 * n, 0.12 * n, 9.0),
                                         int(40e6 * k), 0,
                                         window_cpu=_cpu(1000, 20 * n, 0.08 * n, 2.4 * k)),
                        True, runtime_cpus=2)
            for k, n in ((1.0, 1), (1.5, 2))]
    meta = {"throughput_unit": "requests", "toolchain": "go", "server_stack": "standard"}
    cell = aggregate(spec, "go", params, UNBOUNDED, runs, meta)
    return with_cgroup(cell, spec, {**params, **SERVER_LIMITS.as_params()})


def _minimal_server_cell() -> CellResult:
    """erlang, hand-written loop, closed loop with wrk, no limits and no system calls: its
    conditional columns are empty but for what its runtime saw."""
    spec = workloads.get("http-hello")
    params = spec.resolve({"connections": 64})
    runs = [_server_run(k, False, None, False) for k in (2.0, 3.0)]
    meta = {"throughput_unit": "requests", "toolchain": "erlang", "server_stack": "minimal"}
    return aggregate(spec, "erlang", params, UNBOUNDED, runs, meta)


def _batch_run(scale: int, status: str = "ok", oom_kills: int = 0) -> RunResult:
    """A sleep-tasks run under limits: three iterations (the first one's throttling left out)."""
    its = tuple(Iteration(index=i, warmup=False, elapsed_ns=(200 + 10 * scale + i) * 1_000_000,
                          result={"tasks": 1000, "tokio_workers": 1, "pool_size": None})
                for i in range(3)) if status == "ok" else ()
    at = [_cpu(10 * i * scale, 4 * i * scale, 0.003 * i * scale, 0.1 * i) for i in (1, 2, 4)]
    cgroup = _cgroup(BATCH_LIMITS, at[-1], (70 + scale) << 20, oom_kills,
                     **({"cpu_at_iterations": at} if status == "ok" else {}))
    return RunResult(status=status, reason=None if status == "ok" else "killed at 256M",
                     wall_s=1.0 + scale, startup_s=0.05, peak_rss_bytes=(60 + scale) << 20,
                     peak_threads=3, final_threads=3, cpu_user_s=0.3 * scale,
                     cpu_sys_s=0.1, ctx_voluntary=5, ctx_involuntary=2, iterations=its,
                     exit_code=0 if status == "ok" else None, cgroup=cgroup)


def _limited_batch_cell() -> CellResult:
    """rust-tokio under half a CPU and 256 MiB: two ok runs and one the kernel's OOM killer
    ended (mem-limit)."""
    spec = workloads.get("sleep-tasks")
    params = spec.resolve({"tasks": 1000, "sleep-ms": 100})
    runs = [_batch_run(1), _batch_run(3), _batch_run(5, "mem-limit", oom_kills=2)]
    meta = {"throughput_unit": "tasks", "toolchain": "rust"}
    cell = aggregate(spec, "rust-tokio", params, UNBOUNDED, runs, meta)
    return with_cgroup(cell, spec, {**params, **BATCH_LIMITS.as_params()})


def conditional_document() -> ResultsDocument:
    return ResultsDocument(
        run_id="20260103-000000-conditional", concbench_revision="abc123",
        created_at="2026-01-03",
        machine={"cpu_model": "Test CPU", "logical_cores": 2, "memory_bytes": 24 << 30,
                 "os": "Debian 12", "kernel": "6.1"},
        toolchains={}, plan={"name": "conditional", "reference": "go", "runs": 2, "warmup": 0,
                             "iterations": 3},
        cells=(_limited_server_cell(), _minimal_server_cell(), _limited_batch_cell()))
