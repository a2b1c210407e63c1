"""A cell's figures from its runs' cgroups (runs under --cpus / --memory): throttling, per run
and per unit of work, and the cgroup's peak memory; and the limits among its parameters.

Scope: a batch run's counters cover the whole process (start-up and warm-up iterations
included), so per unit they divide by every iteration it ran, like ctx_switches_per_unit; a
server's cover the measured load window alone (window_cpu), per request of that window.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from concbench.resultset.model import CellResult, RunResult, Summary
from concbench.stats.summary import summarize
from concbench.workloads import WorkloadSpec


def _cpu_scope(run: RunResult, server: bool) -> dict[str, Any] | None:
    record = run.cgroup or {}
    return record.get("window_cpu") if server else record.get("cpu")


def _units(run: RunResult, spec: WorkloadSpec, params: dict[str, Any]) -> float:
    if spec.server is not None:
        return float((run.load or {}).get("requests") or 0)
    return spec.units_per_iteration(params) * len(run.iterations)


def cgroup_stats(spec: WorkloadSpec, params: dict[str, Any],
                 runs: tuple[RunResult, ...]) -> dict[str, Summary]:
    """cgroup_throttled_s, cgroup_throttled_percent (throttled periods ÷ periods),
    cgroup_throttled_ns_per_unit and cgroup_peak_bytes over the ok runs that had a cgroup."""
    server = spec.server is not None
    ok = [r for r in runs if r.status == "ok" and r.cgroup]
    scoped = [(r, c) for r in ok if (c := _cpu_scope(r, server))]
    per_unit = [c["throttled_s"] * 1e9 / units for r, c in scoped
                if (units := _units(r, spec, params)) > 0]
    found = {
        "cgroup_throttled_s": summarize([c["throttled_s"] for _, c in scoped]),
        "cgroup_throttled_percent": summarize([100.0 * c["throttled_periods"] / c["periods"]
                                               for _, c in scoped if c["periods"]]),
        "cgroup_throttled_ns_per_unit": summarize(per_unit),
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
