"""Fake results documents of open-loop and capacity runs (fixed, made-up figures, no servers):
a latency–load scan of http-hello over rate=1000,2000,4000 (node falls behind at 4000), and
capacity cells at slo-p99-ms=10 as the capacity search records them (server.capacity), with
CPU and, optionally, system calls per request."""

from __future__ import annotations

from typing import Any

from concbench import workloads
from concbench.resultset.model import CellResult, ResultsDocument, RunResult
from concbench.stats.cell import aggregate
from concbench.workloads.budget import UNBOUNDED

P99_AT = {"nginx": 1.0, "go": 2.0, "node": 6.0}
"""Made-up p99 (ms) at 1000 requests/s; it doubles with each doubling of the rate."""
CAPACITY = {"nginx": [9000.0, 9100.0, 8900.0], "go": [6000.0, 6200.0, 5900.0],
            "node": [2000.0, 2100.0, 1900.0]}
SERVER_US = {"nginx": 20.0, "go": 40.0, "node": 90.0}
FUTEX = {"nginx": 0.1, "go": 2.5, "node": 0.4}


def _syscalls(contender: str, scale: float) -> dict[str, Any]:
    per_request = {"epoll_ctl": 0.5, "epoll_wait": 1.0, "futex": FUTEX[contender] * scale,
                   "read": 1.0, "write": 1.0, "close": 0.0, "context-switches": 3.0,
                   "page-faults": 0.01, "ctx_voluntary": 2.0, "ctx_involuntary": 1.0}
    return {"counts": {}, "per_request": per_request, "requests": 10000, "missing": [],
            "note": None, "command": "perf stat …"}


def server_run(contender: str, offered: float | None, p99: float, saturated: bool = False,
               capacity: dict[str, Any] | None = None, syscalls: bool = False,
               scale: float = 1.0) -> RunResult:
    """One oha run; open loop when offered is given."""
    achieved = (offered or 5000.0) * (0.8 if saturated else 1.0)
    latency = {"p50": p99 / 3, "p90": p99 / 1.5, "p99": p99, "p999": p99 * 1.4,
               "max": p99 * 2, "min": p99 / 10, "mean": p99 / 2.5}
    load: dict[str, Any] = {
        "generator": "oha", "requests": int(achieved * 3), "ok_requests": int(achieved * 3),
        "duration_s": 3.0, "requests_per_s": achieved, "latency_ms": latency,
        "percentiles": [[50.0, latency["p50"]], [99.0, p99], [100.0, latency["max"]]],
        "errors": {}, "errors_total": 0, "cpu_s": 0.3, "wall_s": 3.0, "cpu_percent": 30.0,
        "cpus": [1], "corrected": True}
    if offered is not None:
        load["open_loop"] = {"offered_per_s": offered, "achieved_per_s": achieved,
                             "achieved_ratio": achieved / offered, "due": int(offered * 3),
                             "unsent": 0, "saturated": saturated,
                             "why": "achieved 80% of the offered rate" if saturated else None}
    window = {"window_s": 3.0, "cpu_s": 0.9, "cpu_percent": 30.0, "ctx_voluntary": 100,
              "ctx_involuntary": 5, "peak_fds": 80, "peak_rss_bytes": 20 << 20,
              "mean_rss_bytes": 18 << 20, "peak_threads": 4, "mean_threads": 4}
    server = {"cpus": [0], "ready_s": 0.2, "window": window,
              "cpu_per_request": {"responses": int(achieved * 3),
                                  "server_us": SERVER_US[contender] * scale,
                                  "generator_us": 15.0, "server_source": "proc-tree"},
              "syscalls": _syscalls(contender, scale) if syscalls else None,
              "capacity": capacity,
              "stop": {"signal": "SIGTERM", "killed": False, "exit_code": 0}}
    return RunResult(status="ok", reason=None, wall_s=5.0, startup_s=0.2,
                     peak_rss_bytes=21 << 20, peak_threads=4, final_threads=4, cpu_user_s=0.6,
                     cpu_sys_s=0.3, ctx_voluntary=200, ctx_involuntary=9, iterations=(),
                     exit_code=0, load=load, server=server)


def _cell(contender: str, params: dict[str, Any], runs: list[RunResult]) -> CellResult:
    spec = workloads.get("http-hello")
    return aggregate(spec, contender, spec.resolve(params), UNBOUNDED, runs,
                     {"throughput_unit": "requests"})


def rate_scan_cells(contenders: tuple[str, ...] = ("nginx", "go", "node")) -> list[CellResult]:
    """http-hello at rate=1000, 2000, 4000 with loadgen=oha; node falls behind at 4000."""
    cells = []
    for rate in (1000, 2000, 4000):
        for name in contenders:
            p99 = P99_AT[name] * rate / 1000
            behind = name == "node" and rate == 4000
            runs = [server_run(name, float(rate), p99, behind) for _ in range(2)]
            cells.append(_cell(name, {"loadgen": "oha", "rate": rate, "connections": 64},
                               runs))
    return cells


def capacity_record(capacity: float, peak: float, target: int = 10) -> dict[str, Any]:
    """server.capacity as the search writes it: windows halving [0, peak], some missed."""
    windows, low, high = [], 0.0, peak
    for _ in range(4):
        rate = round((low + high) / 2)
        held = rate <= capacity
        windows.append({"offered_per_s": rate, "achieved_per_s": rate * (1.0 if held else 0.8),
                        "p99_ms": target * (0.5 if held else 3.0), "errors": 0, "held": held,
                        "why": "" if held else f"p99 {target * 3} ms above the target"})
        low, high = (rate, high) if held else (low, rate)
    held_rates = [w["offered_per_s"] for w in windows if w["held"]]
    return {"target_p99_ms": target, "peak_per_s": peak,
            "capacity_per_s": float(max(held_rates, default=0)), "window_s": 3, "steps": 4,
            "at_top": all(w["held"] for w in windows), "windows": windows}


def capacity_cells(syscalls: bool = False, scale: float = 1.0,
                   contenders: tuple[str, ...] = ("node", "go", "nginx")) -> list[CellResult]:
    """http-hello with slo-p99-ms=10: three runs a contender, capacities per CAPACITY."""
    cells = []
    for name in contenders:
        runs = []
        for wanted in CAPACITY[name]:
            record = capacity_record(wanted * scale, wanted * scale * 1.9)
            rate = record["capacity_per_s"] or 1.0
            runs.append(server_run(name, rate, 4.0, capacity=record, syscalls=syscalls,
                                   scale=scale))
        cells.append(_cell(name, {"loadgen": "oha", "slo-p99-ms": 10, "connections": 64,
                                  "syscalls": "true" if syscalls else "false"}, runs))
    return cells


def document(cells: list[CellResult], run_id: str = "20260401-000000-capacity"
             ) -> ResultsDocument:
    return ResultsDocument(
        run_id=run_id, concbench_revision="abc123", created_at="2026-04-01",
        machine={"cpu_model": "Test CPU", "logical_cores": 2, "memory_bytes": 8 << 30,
                 "os": "Debian 12", "kernel": "6.1"},
        toolchains={}, plan={"name": "capacity", "runs": 3, "warmup": 0, "iterations": 1},
        cells=tuple(cells))
