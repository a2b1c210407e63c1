"""CSV export: one row per cell, medians and spread in SI units (seconds, bytes).

Three groups of columns are there only when they have something to say (docs/contract.md,
"The CSV"): LIMIT_COLUMNS when some cell ran under --cpus / --memory, STACK_COLUMNS when some
server cell recorded its HTTP stack, SYSCALL_COLUMNS when some server cell counted its system
calls (syscalls=true); their names and order are fixed."""

from __future__ import annotations

import csv
import io
import json

from concbench.report import cgroup_columns, runtime_saw, stack, syscall_table
from concbench.resultset.model import CellResult, ResultsDocument
from concbench.stats import syscall_cell

SERVER_COLUMNS = ("requests_per_s", "latency_p50_ms", "latency_p99_ms", "latency_p999_ms",
                  "latency_max_ms", "errors_total", "server_cpu_percent",
                  "server_peak_rss_bytes", "server_peak_threads", "generator_cpu_percent",
                  "startup_s", "server_cpu_us_per_request",
                  "server_cpu_us_per_request_without_jit", "generator_cpu_us_per_request",
                  "offered_per_s", "achieved_ratio", "saturated", "capacity_per_s")
"""Medians of the server workloads' figures (empty for batch workloads; capacity_per_s only
for cells that searched their capacity at a p99 target, slo-p99-ms).
server_cpu_us_per_request_without_jit is the server's CPU per request less its JIT compiler
threads' CPU over the window (server.cpu_per_request; equal to server_cpu_us_per_request for a
server without a JIT, empty for runs recorded before it existed)."""

COLUMNS = ("workload", "contender", "params", "status", "reason", "n", "median_s", "mean_s",
           "stddev_s", "min_s", "max_s", "ci95_low_s", "ci95_high_s", "cv", "ideal_s",
           "efficiency", "throughput_per_s", "throughput_unit", "peak_rss_bytes",
           "peak_threads", "cpu_s", *SERVER_COLUMNS, "cold_median_s")

LIMIT_COLUMNS = ("limit_cpus", "limit_memory_bytes", "cgroup_throttled_ns_per_unit",
                 "cgroup_throttled_percent", "cgroup_throttled_ms", "cgroup_throttled_s",
                 "cgroup_peak_bytes", "cgroup_oom_kills", "cgroup_oom_ended_runs",
                 "cgroup_runs", "runtime_cpus", "runtime_saw")
"""Runs under limits: the limits written, the cgroup_* medians of the ok runs (the cell's
stats), the kernel's OOM kills summed over every run with the runs it ended (mem-limit) out
of the runs with a cgroup, and what the runtime saw (report.runtime_saw)."""

STACK_COLUMNS = ("server_stack",)

SYSCALL_COLUMNS = tuple(syscall_cell.key(name) for name, _ in syscall_table.COLUMNS) + (
    "ctx_switches_per_request", "ctx_voluntary_per_request", "ctx_involuntary_per_request",
    "page_faults_per_request")
"""Per request, medians over the ok runs (stats.syscall_cell): the calls and families of the
report's system-call table, then context switches (perf; voluntary and involuntary from /proc)
and page faults; empty for a call this kernel could not count."""


def _num(v: float | None, digits: int = 6) -> str:
    return "" if v is None else f"{v:.{digits}g}"


def _row(cell: CellResult) -> list[str]:
    t = cell.stats.get("elapsed_s")

    def median(metric: str, digits: int = 6) -> str:
        s = cell.stats.get(metric)
        return _num(s.median, digits) if s else ""

    return [cell.workload, cell.contender, json.dumps(cell.params, sort_keys=True), cell.status,
            cell.reason or "", str(t.n) if t else "0",
            *(_num(getattr(t, f)) if t else "" for f in ("median", "mean", "stddev", "min", "max")),
            _num(t.ci95[0]) if t and t.ci95 else "", _num(t.ci95[1]) if t and t.ci95 else "",
            _num(t.cv, 3) if t else "", _num(cell.ideal_s), _num(cell.efficiency, 4),
            median("throughput_per_s"), str(cell.metadata.get("throughput_unit", "")),
            median("peak_rss_bytes", 15), median("peak_threads", 15), median("cpu_s"),
            *(median(key) for key in SERVER_COLUMNS), median("cold_s")]


def _limit_row(cell: CellResult) -> list[str]:
    cpus, memory = cgroup_columns.limits(cell)
    oom = cgroup_columns.oom(cell)
    seen = runtime_saw.seen(cell)

    def median(metric: str) -> str:
        s = cell.stats.get(metric)
        return _num(s.median, 15) if s else ""

    return [_num(cpus), "" if memory is None else str(memory),
            *(median(k) for k in LIMIT_COLUMNS[2:7]),
            *((str(oom.kills), str(oom.ended), str(oom.runs)) if oom.runs else ("", "", "")),
            runtime_saw.cpus(cell), "; ".join(f"{k}={v}" for k, v in seen.items())]


def _syscall_row(cell: CellResult) -> list[str]:
    found = [cell.stats.get(key) for key in SYSCALL_COLUMNS]
    return [_num(s.median) if s else "" for s in found]


def serialize(doc: ResultsDocument) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    limited, stacks = cgroup_columns.applies(doc.cells), stack.applies(doc.cells)
    counted = syscall_table.counted(doc.cells)
    writer.writerow([*COLUMNS, *(LIMIT_COLUMNS if limited else ()),
                     *(STACK_COLUMNS if stacks else ()), *(SYSCALL_COLUMNS if counted else ())])
    for cell in doc.cells:
        writer.writerow([*_row(cell), *(_limit_row(cell) if limited else ()),
                         *((stack.of(cell) or "",) if stacks else ()),
                         *(_syscall_row(cell) if counted else ())])
    return out.getvalue().encode()
