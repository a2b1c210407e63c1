"""The runtime's own diagnostics per cell (GC, JIT, pinned virtual threads, goroutines,
Tokio workers): the informational keys contenders add to each iteration's result
(docs/contract.md), as medians over the measured iterations, for the HTML report."""

from __future__ import annotations

from dataclasses import dataclass

from concbench.resultset.model import CellResult

KEYS = {
    "jvm_gc_count": "GC collections", "jvm_gc_ms": "GC ms", "jvm_jit_ms": "JIT ms",
    "jvm_heap_used_mib": "heap used MiB", "jvm_heap_committed_mib": "heap committed MiB",
    "jvm_vt_pinned": "VT pinned events", "jvm_vt_pinned_ms": "VT pinned ms",
    "go_gc_cycles": "GC cycles", "go_gc_pause_ms": "GC pause ms",
    "go_goroutines_at_mark": "goroutines at the mark", "go_goroutines": "goroutines after",
    "go_heap_mib": "heap MiB",
    "tokio_workers": "Tokio workers", "tokio_alive_tasks": "Tokio tasks alive after",
    "handoff_p50_ns": "hand-off p50 ns", "handoff_p99_ns": "hand-off p99 ns",
    "clock_read_ns": "clock read ns", "tasks_alive": "tasks alive (proof)",
}
OUTSIDE = {"cpu_ns_per_unit": "CPU ns per {unit}",
           "ctx_switches_per_unit": "context switches per {unit}",
           "rss_growth_bytes_per_unit": "bytes per {unit} above the RSS before"}
"""Figures the harness measures from outside, per unit of the workload's throughput."""


PER_UNIT_SHOWN = ("hand-offs", "tasks")
"""Units whose per-unit CPU and switches mean something on their own (a task is spawned and
joined, a hand-off is one wake-up); a fanout request or a channel event is shown by its time."""


def _unit(workload: str) -> str:
    from concbench import workloads  # the registry imports every spec: only when drawing

    spec = workloads.WORKLOADS.get(workload)
    return spec.throughput_unit if spec is not None else ""


@dataclass(frozen=True)
class DiagnosticsRow:
    cell: str
    figures: str


def rows(cells: tuple[CellResult, ...]) -> list[DiagnosticsRow]:
    found = []
    for cell in cells:
        shown = []
        for key, name in KEYS.items():
            s = cell.stats.get(f"result.{key}")
            if s is not None:
                shown.append(f"{name} {s.median:,.4g}")
        unit = _unit(cell.workload)
        for key, name in OUTSIDE.items():
            s = cell.stats.get(key)
            if s is not None and unit in PER_UNIT_SHOWN:
                shown.append(f"{name.format(unit=unit.rstrip('s'))} {s.median:,.4g}")
        if shown:
            params = ", ".join(f"{k}={v}" for k, v in cell.params.items())
            found.append(DiagnosticsRow(f"{cell.workload} · {cell.contender} · {params}",
                                        " · ".join(shown)))
    return found
