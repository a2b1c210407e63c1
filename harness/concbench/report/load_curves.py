"""Latency against offered load, as plain data: the open-loop cells of a server workload
grouped into curves, for the latency–load chart (report.latency_load_chart).

A curve is one set of parameters apart from `rate` and the capacity search's (cells that
differ only in the rate they were offered, and the search at those parameters); it has one line per contender, a point per cell at the cell's median offered
rate (`offered_per_s`) and median p99, marked when the server fell behind that rate (the
`saturated` stat: the majority verdict of its runs). A capacity-search cell (slo-p99-ms > 0)
adds the windows its search tried (server.capacity.windows of every ok run), each held or
missed, and its curve carries the target.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from concbench.report.views import params_label, varying
from concbench.resultset.model import CellResult

SWEPT = "rate"
SLO_PARAM = "slo-p99-ms"
SEARCH_PARAMS = (SLO_PARAM, "capacity-steps", "capacity-window-s")
"""A capacity search of the same other parameters joins its rate scan's curve: its windows
and its target draw the curve's upper part, around the knee."""


@dataclass(frozen=True)
class LoadPoint:
    offered_per_s: float
    p99_ms: float | None
    """None for a cell without a figure (its status says why)."""
    saturated: bool
    status: str = "ok"


@dataclass(frozen=True)
class SearchWindow:
    """One window of a capacity search: offered rate, its p99 and whether it held."""

    offered_per_s: float
    p99_ms: float
    held: bool


@dataclass(frozen=True)
class LoadLine:
    contender: str
    points: tuple[LoadPoint, ...]
    """In order of the offered rate."""
    windows: tuple[SearchWindow, ...] = ()


@dataclass(frozen=True)
class LoadCurve:
    workload: str
    case: str
    """The parameters that tell this curve from the workload's others ("" when alone)."""
    target_ms: float | None
    """slo-p99-ms when the cells carry one (> 0), else None."""
    lines: tuple[LoadLine, ...]


def _median(cell: CellResult, key: str) -> float | None:
    s = cell.stats.get(key)
    return s.median if s else None


def is_open_loop(cell: CellResult) -> bool:
    return "offered_per_s" in cell.stats or bool(cell.params.get(SWEPT))


def _offered(cell: CellResult) -> float | None:
    offered = _median(cell, "offered_per_s")
    if offered is None and isinstance(cell.params.get(SWEPT), int):
        return float(cell.params[SWEPT])
    return offered


def _point(cell: CellResult) -> LoadPoint | None:
    offered = _offered(cell)
    if offered is None:
        return None
    p99 = _median(cell, "latency_p99_ms")
    status = "ok" if p99 is not None else (cell.status if cell.status != "ok" else "no data")
    return LoadPoint(offered, p99, bool(_median(cell, "saturated")), status)


def search_windows(cell: CellResult) -> tuple[SearchWindow, ...]:
    """The capacity search's windows of every ok run that have a p99."""
    found = []
    for run in cell.runs:
        capacity = (run.server or {}).get("capacity") if run.status == "ok" else None
        for w in (capacity or {}).get("windows") or ():
            if w.get("p99_ms") is not None:
                found.append(SearchWindow(float(w["offered_per_s"]), float(w["p99_ms"]),
                                          bool(w.get("held"))))
    return tuple(sorted(found, key=lambda w: w.offered_per_s))


def _target(cells: list[CellResult]) -> float | None:
    targets = [c.params.get(SLO_PARAM) for c in cells]
    found = [float(t) for t in targets if isinstance(t, (int, float)) and t > 0]
    return found[0] if found else None


def _case_key(params: dict[str, Any]) -> str:
    return repr(sorted((k, repr(v)) for k, v in params.items()
                       if k != SWEPT and k not in SEARCH_PARAMS))


def _case_label(group: list[CellResult], groups: list[list[CellResult]]) -> str:
    """The parameters, apart from the rate, that differ among the workload's curves."""
    keys = varying([c for g in groups for c in g], skip=SWEPT)
    return params_label(group[0], [k for k in keys if k not in SEARCH_PARAMS])


def _line(contender: str, cells: list[CellResult]) -> LoadLine:
    points = [p for p in map(_point, cells) if p is not None]
    windows = tuple(w for c in cells for w in search_windows(c))
    return LoadLine(contender, tuple(sorted(points, key=lambda p: p.offered_per_s)), windows)


def _worth_a_chart(lines: list[LoadLine], target: float | None) -> bool:
    """A curve needs two rates on some line, or a target to hold the points against."""
    return target is not None or any(len(ln.points) + len(ln.windows) > 1 for ln in lines)


def curves(cells: list[CellResult] | tuple[CellResult, ...]) -> list[LoadCurve]:
    """The latency–load curves of the open-loop cells, per workload and case."""
    grouped: dict[tuple[str, str], list[CellResult]] = {}
    for cell in cells:
        if is_open_loop(cell):
            grouped.setdefault((cell.workload, _case_key(cell.params)), []).append(cell)
    found = []
    for (workload, _), group in grouped.items():
        by_contender: dict[str, list[CellResult]] = {}
        for cell in group:
            by_contender.setdefault(cell.contender, []).append(cell)
        lines = [_line(name, members) for name, members in by_contender.items()]
        target = _target(group)
        if _worth_a_chart(lines, target):
            siblings = [g for (w, _), g in grouped.items() if w == workload]
            found.append(LoadCurve(workload, _case_label(group, siblings), target,
                                   tuple(lines)))
    return found
