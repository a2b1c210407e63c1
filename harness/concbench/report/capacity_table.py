"""The capacity table of server workloads (cells run with slo-p99-ms > 0): per cell the
capacity at the target p99, the closed-loop peak the search started from, and the search
windows it was judged from (held / missed, over every ok run), as plain strings for the HTML
and Markdown reports. The search itself: harness/concbench/server/capacity.py."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Iterable

from concbench.report import units
from concbench.report.views import by_workload, varying
from concbench.resultset.model import CellResult

STAT = "capacity_per_s"
SLO_PARAM = "slo-p99-ms"
HEADERS = ("contender", "target p99", "capacity/s", "95% CI", "closed-loop peak/s",
           "windows held / missed", "n", "note")
TITLE = "capacity at a p99 target (highest offered rate held; median of runs)"


@dataclass(frozen=True)
class CapacityTable:
    workload: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def has_capacity(cell: CellResult) -> bool:
    target = cell.params.get(SLO_PARAM)
    return STAT in cell.stats or (isinstance(target, (int, float)) and target > 0)


def records(cell: CellResult) -> list[dict[str, Any]]:
    """server.capacity of each ok run that has one."""
    return [r.server["capacity"] for r in cell.runs
            if r.status == "ok" and r.server and r.server.get("capacity")]


def _rate(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v / 1000:.1f}k" if v >= 10_000 else f"{v:,.0f}"


def _windows(found: list[dict[str, Any]]) -> str:
    windows = [w for record in found for w in record.get("windows") or ()]
    if not windows:
        return "—"
    held = sum(1 for w in windows if w.get("held"))
    return f"{held} / {len(windows) - held}"


def _note(cell: CellResult, found: list[dict[str, Any]]) -> str:
    if cell.status != "ok" and STAT not in cell.stats:
        return cell.status + (f": {cell.reason}" if cell.reason else "")
    notes = []
    none_held = [r for r in found if not r.get("capacity_per_s")]
    if none_held:
        notes.append(f"no window held in {len(none_held)} of {len(found)} runs")
    if any(r.get("at_top") for r in found):
        notes.append("every window held: the peak, not the target, bounded the search")
    return "; ".join(notes)


def row(cell: CellResult, shown: list[str]) -> tuple[str, ...]:
    name = " ".join([cell.contender, *(f"{k}={cell.params.get(k)}" for k in shown)])
    s = cell.stats.get(STAT)
    found = records(cell)
    peaks = [float(r["peak_per_s"]) for r in found if r.get("peak_per_s") is not None]
    ci = f"{_rate(s.ci95[0])}–{_rate(s.ci95[1])}" if s and s.ci95 else "—"
    target = cell.params.get(SLO_PARAM)
    return (name, units.milliseconds(float(target)) if target else "—",
            _rate(s.median if s else None), ci,
            _rate(statistics.median(peaks) if peaks else None), _windows(found),
            str(s.n if s else 0), _note(cell, found))


def tables(cells: Iterable[CellResult]) -> list[CapacityTable]:
    """One table per server workload that has capacity cells."""
    found = []
    for workload, group in by_workload([c for c in cells if has_capacity(c)]).items():
        shown = varying(group, skip=SLO_PARAM)
        found.append(CapacityTable(workload, HEADERS, tuple(row(c, shown) for c in group)))
    return found


def markdown(cells: Iterable[CellResult], workload: str) -> list[str]:
    """The workload's capacity table as Markdown lines (none without capacity cells)."""
    lines: list[str] = []
    for table in (t for t in tables(cells) if t.workload == workload):
        lines += [f"#### {workload}: {TITLE}", "", "| " + " | ".join(table.headers) + " |",
                  "|" + "|".join("---" for _ in table.headers) + "|",
                  *("| " + " | ".join(v.replace("|", "\\|") for v in r) + " |"
                    for r in table.rows), ""]
    return lines
