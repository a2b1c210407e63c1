"""The profiled runs of one cell, after its measured runs, and the record the report shows:
each flame graph with the profiled run's figure beside the unprofiled median (the overhead)."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any, Callable

from concbench.profiling import profilers_for
from concbench.profiling.base import Profiler
from concbench.resultset.model import RunResult
from concbench.toolchains import ToolEnv
from concbench.workloads import WorkloadSpec


def figure(spec: WorkloadSpec, run: RunResult) -> float | None:
    """requests/s for a server run, the median seconds per measured iteration otherwise."""
    if spec.server is not None:
        return (run.load or {}).get("requests_per_s")
    measured = [it.elapsed_ns / 1e9 for it in run.measured()]
    return statistics.median(measured) if measured else None


def _unprofiled(spec: WorkloadSpec, runs: list[RunResult]) -> float | None:
    values = [v for v in (figure(spec, r) for r in runs if r.status == "ok") if v is not None]
    return statistics.median(values) if values else None


def profile_cell(spec: WorkloadSpec, tools: ToolEnv, folder: Path, stem: str,
                 measure_with: Callable[[Profiler], RunResult], runs: list[RunResult],
                 say: Callable[[str], None] = lambda _m: None) -> list[dict[str, Any]]:
    base = _unprofiled(spec, runs)
    unit = "requests/s" if spec.server is not None else "s per iteration"
    found = []
    for profiler in profilers_for(tools, folder, stem, server=spec.server is not None):
        entry: dict[str, Any] = {"profiler": profiler.name,
                                 "mode": getattr(profiler, "mode", "cpu")}
        problem = profiler.missing()
        if problem:
            found.append({**entry, "problem": problem})
            say(f"no {profiler.name} profile: {problem}")
            continue
        say(f"profiling with {profiler.name} ({entry['mode']}) ...")
        run = measure_with(profiler)
        if run.profiles:
            entry.update(run.profiles[0])
        else:
            notes = [w for w in run.warnings if w.startswith("no profile")]
            entry["problem"] = "; ".join(notes) or run.reason or "the profiler wrote nothing"
        value = figure(spec, run) if run.status == "ok" else None
        entry["run"] = {"status": run.status, "reason": run.reason, "figure": value,
                        "unprofiled_median": base, "unit": unit,
                        "ratio": value / base if value is not None and base else None}
        found.append(entry)
    return found
