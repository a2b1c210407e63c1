"""Scans in a results document: cells of one workload and contender that differ only in a
size parameter, and the per-unit costs fitted over them (see concbench.stats.scaling).

Points of a fit: time uses every measured iteration's elapsed_s of every ok run; memory uses
each ok run's RSS at the `all-spawned` mark when the workload has one (spawn-idle: memory with
every task alive), else its peak RSS. Cells that are not ok give no points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from concbench.resultset.model import CellResult
from concbench.stats.scaling import ScalingFit, fit

SIZE_PARAMS = ("tasks", "requests", "workers", "connections", "events")
"""Parameters that count as a size, in order of preference when several vary."""

METRICS = ("time", "memory")


@dataclass(frozen=True)
class ScanFit:
    """The fit of one metric over one scan."""

    workload: str
    contender: str
    size_param: str
    """The scanned parameter (N)."""
    fixed: dict[str, Any]
    """The other parameters, equal in every cell of the scan."""
    metric: str
    """time (seconds per iteration) or memory (bytes)."""
    unit: str
    """Unit of the metric: s or B."""
    fit: ScalingFit
    sizes: tuple[int, ...]
    """The distinct sizes with ok points."""


def size_param(cells: list[CellResult]) -> str | None:
    """The size parameter that varies among these cells, if any."""
    for name in SIZE_PARAMS:
        values = {c.params.get(name) for c in cells if name in c.params}
        if len(values) > 1 and all(isinstance(v, int) for v in values):
            return name
    return None


def points(cell: CellResult, metric: str) -> list[float]:
    ok = [r for r in cell.runs if r.status == "ok"]
    if metric == "time":
        return [it.elapsed_ns / 1e9 for r in ok for it in r.measured()]
    found = []
    for run in ok:
        at_mark = next((m.get("rss_bytes") for m in run.marks.values() if m.get("rss_bytes")),
                       None)
        found.append(float(at_mark or run.peak_rss_bytes))
    return found


def _groups(cells: Iterable[CellResult], param: str) -> dict[tuple, list[CellResult]]:
    groups: dict[tuple, list[CellResult]] = {}
    for cell in cells:
        if param not in cell.params:
            continue
        rest = tuple(sorted((k, repr(v)) for k, v in cell.params.items() if k != param))
        groups.setdefault((cell.workload, cell.contender, rest), []).append(cell)
    return groups


def _fit_group(group: list[CellResult], param: str, metric: str) -> ScanFit | None:
    xs: list[float] = []
    ys: list[float] = []
    for cell in group:
        ys_cell = points(cell, metric) if cell.status == "ok" else []
        xs += [float(cell.params[param])] * len(ys_cell)
        ys += ys_cell
    found = fit(xs, ys)
    if found is None:
        return None
    first = group[0]
    fixed = {k: v for k, v in first.params.items() if k != param}
    sizes = tuple(sorted({int(x) for x in xs}))
    return ScanFit(first.workload, first.contender, param, fixed, metric,
                   "s" if metric == "time" else "B", found, sizes)


def scan_fits(cells: Iterable[CellResult]) -> list[ScanFit]:
    """Every fit of every scan with at least two sizes, grouped by workload in input order."""
    by_workload: dict[str, list[CellResult]] = {}
    for cell in cells:
        by_workload.setdefault(cell.workload, []).append(cell)
    found = []
    for group in by_workload.values():
        param = size_param(group)
        if param is None:
            continue
        for scan in _groups(group, param).values():
            for metric in METRICS:
                result = _fit_group(scan, param, metric)
                if result is not None:
                    found.append(result)
    return found
