"""The capacity bar chart: per server workload and case, one horizontal bar per contender for
its capacity at the p99 target (the median over runs of the highest offered rate that held,
with its 95% interval), the highest at the top. nginx, when present, is the ceiling (what this
machine and generator can serve at all): its bar is hatched and its capacity a dashed
vertical line across the others. A cell without a figure is a red × with its status. Bars
carry SVG ids (`capacity-bar-<contender>`) in drawing order, top first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from concbench.report import charts
from concbench.report.capacity_table import SLO_PARAM, STAT, has_capacity
from concbench.report.server_table import CEILING_CONTENDER
from concbench.report.views import by_workload, params_label, varying
from concbench.resultset.model import CellResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes


@dataclass(frozen=True)
class CapacityBar:
    contender: str
    median: float | None
    """None for a cell without a figure."""
    ci95: tuple[float, float] | None
    status: str


@dataclass(frozen=True)
class CapacityChart:
    workload: str
    case: str
    """Parameters that tell this chart from the workload's others ("" when alone)."""
    target_ms: float | None
    bars: tuple[CapacityBar, ...]
    """Highest capacity first; cells without a figure last."""

    @property
    def ceiling(self) -> CapacityBar | None:
        return next((b for b in self.bars if b.contender == CEILING_CONTENDER
                     and b.median is not None), None)


def _bar(cell: CellResult) -> CapacityBar:
    s = cell.stats.get(STAT)
    if s is None:
        return CapacityBar(cell.contender, None, None,
                           cell.status if cell.status != "ok" else "no data")
    return CapacityBar(cell.contender, s.median, s.ci95, "ok")


def capacity_charts(cells: Iterable[CellResult]) -> list[CapacityChart]:
    """One chart per workload and set of parameters among the capacity cells."""
    found = []
    for workload, group in by_workload([c for c in cells if has_capacity(c)]).items():
        keys = varying(group)
        cases: dict[str, list[CellResult]] = {}
        for cell in group:
            cases.setdefault(params_label(cell, keys), []).append(cell)
        for case, members in cases.items():
            bars = sorted(map(_bar, members), key=lambda b: -b.median
                          if b.median is not None else math.inf)
            target = members[0].params.get(SLO_PARAM)
            found.append(CapacityChart(workload, case, float(target) if target else None,
                                       tuple(bars)))
    return found


def title(chart: CapacityChart) -> str:
    target = f"p99 ≤ {chart.target_ms:g} ms" if chart.target_ms else "the p99 target"
    case = f" ({chart.case})" if chart.case else ""
    return f"{chart.workload}: capacity at {target}{case}"


def _draw_bar(ax: Axes, y: float, bar: CapacityBar, color: str) -> None:
    if bar.median is None:
        ax.plot([0], [y], marker="x", color=charts.FAILED_COLOR, markersize=9, mew=2,
                linestyle="none", gid=f"capacity-failed-{bar.contender}")
        ax.text(0, y, f"  {bar.status}", color=charts.FAILED_COLOR, va="center", fontsize=8)
        return
    err = None
    if bar.ci95:
        err = [[max(bar.median - bar.ci95[0], 0)], [max(bar.ci95[1] - bar.median, 0)]]
    ceiling = bar.contender == CEILING_CONTENDER
    ax.barh([y], [bar.median], xerr=err, capsize=3, color=color, height=0.7,
            hatch="//" if ceiling else None, edgecolor="white" if ceiling else None,
            gid=f"capacity-bar-{bar.contender}")
    if bar.median == 0:
        ax.text(0, y, "  0: no window held", va="center", fontsize=8)


def render(chart: CapacityChart, fmt: str = "svg", colors: charts.Colors | None = None) -> bytes:
    from matplotlib.ticker import FuncFormatter

    n = len(chart.bars)
    fig, ax = charts.figure((charts.SIZE[0], max(1.6, 0.3 * n + 0.9)))
    colors = colors or charts.palette([b.contender for b in chart.bars])
    for i, bar in enumerate(chart.bars):
        _draw_bar(ax, n - 1 - i, bar, colors.get(bar.contender, charts.PALETTE[0]))
    ceiling = chart.ceiling
    if ceiling is not None:
        ax.axvline(ceiling.median, color="#444444", linestyle="--", linewidth=1,
                   label=f"ceiling: {CEILING_CONTENDER}", gid="capacity-ceiling")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.set_yticks([n - 1 - i for i in range(n)],
                  [b.contender + (" (ceiling)" if b is ceiling else "") for b in chart.bars])
    ax.set_xlim(left=0)
    ax.xaxis.set_major_formatter(FuncFormatter(charts.formatter("rate")))
    ax.set_xlabel("requests/s held at the target (median of runs, 95% CI)")
    ax.set_title(title(chart), loc="left")
    ax.grid(True, axis="x", alpha=0.3)
    return charts.to_bytes(fig, fmt)
