"""A cell against its precision goal (concbench.precision): its headline figure's interval,
whether another process is wanted, and what the cell records of it."""

from __future__ import annotations

import statistics
from typing import Any

from concbench.precision import Precision
from concbench.report.views import headline
from concbench.resultset.model import CellResult
from concbench.stats.inference import two_level
from concbench.stats.scans import process_times


def headline_stat(cell: CellResult) -> str:
    """The stat a cell is read by (see the module's docstring)."""
    if cell.workload.startswith("http-"):
        if cell.params.get("slo-p99-ms"):
            return "capacity_per_s"
        return "latency_p99_ms" if cell.params.get("rate") else "requests_per_s"
    return headline(cell.workload).key


def half_width_pct(cell: CellResult) -> float | None:
    """The headline's 95 % interval half-width in % of its mean; None without one."""
    stat = cell.stats.get(headline_stat(cell))
    if stat is None or stat.ci95 is None or not stat.mean:
        return None
    return 100 * (stat.ci95[1] - stat.ci95[0]) / 2 / abs(stat.mean)


def more_wanted(goal: Precision, cell: CellResult, runs: int) -> bool:
    """Another process would be run: the cell is ok, short of its target, below its cap."""
    if cell.status != "ok" or runs >= goal.max_runs:
        return False
    reached = half_width_pct(cell)
    return reached is None or reached > goal.target_pct


def record(goal: Precision, cell: CellResult) -> dict[str, Any]:
    """What the cell's metadata says of it: target, reached, runs, why it stopped, and the
    two-level components of its iteration times (batch cells)."""
    reached = half_width_pct(cell)
    runs = len(cell.runs)
    if reached is not None and reached <= goal.target_pct:
        why = "reached"
    elif cell.status != "ok":
        why = f"the cell is {cell.status}"
    else:
        why = f"max runs ({goal.max_runs})"
    levels = None if cell.workload.startswith("http-") else two_level(process_times(cell))
    return {**goal.to_dict(), "headline": headline_stat(cell),
            "reached_pct": None if reached is None else round(reached, 2), "runs": runs,
            "stopped": why, "two_level": levels.to_dict() if levels else None}


def overview(cells: list[CellResult] | tuple[CellResult, ...]) -> str | None:
    """How precise a result set got: the median and widest headline interval over its ok
    cells, and how many rest on one process (no interval)."""
    ok = [c for c in cells if c.status == "ok" and c.runs]
    if not ok:
        return None
    widths = [(w, c) for c in ok if (w := half_width_pct(c)) is not None]
    single = len(ok) - len(widths)
    if not widths:
        return (f"precision: none of the {len(ok)} cells has an interval (one process each); "
                "--runs 3 or --precision gives them one")
    widest, cell = max(widths, key=lambda wc: wc[0])
    median = statistics.median(w for w, _ in widths)
    text = (f"precision: each cell's headline 95 % interval is ±{median:.1f} % (median over "
            f"{len(widths)} cells), widest ±{widest:.1f} % ({cell.workload} · {cell.contender})")
    if single:
        text += f"; {single} cell(s) rest on one process, with no interval"
    return text
