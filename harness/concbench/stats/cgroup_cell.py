"""A cell's figures from its runs' cgroups (runs under --cpus / --memory): throttling, per run
and per unit of work, and the cgroup's peak memory; and the limits among its parameters.

Scope: cgroup_throttled_s is a run's whole process (start-up included). The per-iteration
figures of a batch run come from the counters read as each iteration line arrived (the
first iteration, which holds the start-up, is left out, as for cpu_ns_per_unit); a server's
from the measured load window alone (window_cpu), per request of that window.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from concbench.resultset.model import CellResult, RunResult, Summary
from concbench.stats.summary import summarize
from concbench.workloads import WorkloadSpec


def _delta(after: dict[str, Any], before: dict[str, Any]) -> dict[str, float]:
    return {k: after[k] - before[k] for k in ("periods", "throttled_periods", "throttled_s")}


def _measured(run: RunResult) -> list[dict[str, float]]:
    """The cpu counters over each measured iteration after the first line of the process."""
    at = (run.cgroup or {}).get("cpu_at_iterations") or []
    if len(at) != len(run.iterations):
        return []
    return [_delta(at[i], at[i - 1]) for i, it in enumerate(run.iterations)
            if i > 0 and not it.warmup and at[i] and at[i - 1]]


def _scopes(run: RunResult, spec: WorkloadSpec,
            params: dict[str, Any]) -> list[tuple[dict[str, float], float]]:
    """(cpu counters, units of work) of each measured stretch of a run."""
    if spec.server is not None:
        window = (run.cgroup or {}).get("window_cpu")
        return [(window, float((run.load or {}).get("requests") or 0))] if window else []
    return [(d, float(spec.units_per_iteration(params))) for d in _measured(run)]


def cgroup_stats(spec: WorkloadSpec, params: dict[str, Any],
                 runs: tuple[RunResult, ...]) -> dict[str, Summary]:
    """Over the ok runs that had a cgroup: cgroup_throttled_s (per run),
    cgroup_throttled_ms (per measured iteration, or the server's window),
    cgroup_throttled_percent (throttled periods ÷ periods there), cgroup_throttled_ns_per_unit
    and cgroup_peak_bytes."""
    ok = [r for r in runs if r.status == "ok" and r.cgroup]
    scoped = [s for r in ok for s in _scopes(r, spec, params)]
    found = {
        "cgroup_throttled_s": summarize([r.cgroup["cpu"]["throttled_s"] for r in ok
                                         if r.cgroup.get("cpu")]),
        "cgroup_throttled_ms": summarize([c["throttled_s"] * 1000 for c, _ in scoped]),
        "cgroup_throttled_percent": summarize([100.0 * c["throttled_periods"] / c["periods"]
                                               for c, _ in scoped if c["periods"]]),
        "cgroup_throttled_ns_per_unit": summarize([c["throttled_s"] * 1e9 / units
                                                   for c, units in scoped if units > 0]),
        "cgroup_peak_bytes": summarize([r.cgroup["memory"]["peak_bytes"] for r in ok
                                        if (r.cgroup.get("memory") or {}).get("peak_bytes")]),
    }
    return {k: v for k, v in found.items() if v is not None}


def with_cgroup(cell: CellResult, spec: WorkloadSpec,
                recorded_params: dict[str, Any]) -> CellResult:
    """The cell with its limits among its parameters and its cgroup figures in its stats
    (unchanged when it ran without a cgroup)."""
    if recorded_params == cell.params:
        return cell
    return dataclasses.replace(cell, params=dict(recorded_params),
                               stats={**cell.stats, **cgroup_stats(spec, cell.params, cell.runs)})
