"""The latency–load chart of one curve (report.load_curves): x the offered requests/s, y the
p99 latency in ms on a log scale, one line per contender in its report colour.

A point where the server fell behind the offered rate is drawn hollow (its p99 is the latency
of a queue that kept growing, not of a rate it served); a capacity search's windows are small
dots (held) and crosses (missed); the target p99 is a dashed horizontal line. The legend names
each mark. Elements carry SVG ids (`gid`) naming what they are, so a test can find them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from concbench.report import charts
from concbench.report.load_curves import LoadCurve, LoadLine

if TYPE_CHECKING:
    from matplotlib.axes import Axes

HOLLOW_NOTE = "hollow: fell behind the offered rate"
WINDOW_HELD = "search window held"
WINDOW_MISSED = "search window missed"


def _line(ax: Axes, line: LoadLine, color: str) -> None:
    valued = [p for p in line.points if p.p99_ms is not None]
    if valued:
        ax.plot([p.offered_per_s for p in valued], [p.p99_ms for p in valued], color=color,
                marker="o", ms=5, label=line.contender, gid=f"load-line-{line.contender}")
    behind = [p for p in valued if p.saturated]
    if behind:
        ax.plot([p.offered_per_s for p in behind], [p.p99_ms for p in behind],
                linestyle="none", marker="o", ms=7, mfc="white", mec=color, mew=1.5,
                gid=f"saturated-{line.contender}")
    for held, marker in ((True, "."), (False, "x")):
        shown = [w for w in line.windows if w.held == held]
        if shown:
            ax.plot([w.offered_per_s for w in shown], [w.p99_ms for w in shown],
                    linestyle="none", marker=marker, ms=6, color=color, alpha=0.6,
                    gid=f"window-{'held' if held else 'missed'}-{line.contender}")
    for p in line.points:
        if p.p99_ms is None:
            charts.mark_failed(ax, p.offered_per_s, f"{line.contender}: {p.status}")


def _legend_marks(ax: Axes, curve: LoadCurve) -> None:
    """Grey proxy entries for the marks used, so the legend names them."""
    grey = "#555555"
    if any(p.saturated and p.p99_ms is not None for ln in curve.lines for p in ln.points):
        ax.plot([], [], linestyle="none", marker="o", ms=7, mfc="white", mec=grey,
                label=HOLLOW_NOTE)
    if any(w.held for ln in curve.lines for w in ln.windows):
        ax.plot([], [], linestyle="none", marker=".", color=grey, label=WINDOW_HELD)
    if any(not w.held for ln in curve.lines for w in ln.windows):
        ax.plot([], [], linestyle="none", marker="x", color=grey, label=WINDOW_MISSED)


def title(curve: LoadCurve) -> str:
    case = f" ({curve.case})" if curve.case else ""
    return f"{curve.workload}: p99 latency against offered load{case}"


def render(curve: LoadCurve, fmt: str = "svg", colors: charts.Colors | None = None) -> bytes:
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    fig, ax = charts.figure(charts.SIZE)
    colors = colors or charts.palette([ln.contender for ln in curve.lines])
    for line in curve.lines:
        _line(ax, line, colors.get(line.contender, charts.PALETTE[0]))
    if curve.target_ms is not None:
        ax.axhline(curve.target_ms, color="#444444", linestyle="--", linewidth=1,
                   label=f"target p99 ≤ {curve.target_ms:g} ms", gid="target-p99")
    _legend_marks(ax, curve)
    xs = [p.offered_per_s for ln in curve.lines for p in ln.points] + \
        [w.offered_per_s for ln in curve.lines for w in ln.windows]
    if charts.spans_decades(xs):
        ax.set_xscale("log")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(charts.formatter("ms")))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(FuncFormatter(charts.formatter("rate")))
    ax.set_title(title(curve), loc="left")
    ax.set_xlabel("offered requests/s (median of runs)")
    ax.set_ylabel("p99 latency")
    ax.grid(True, alpha=0.3, which="both")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return charts.to_bytes(fig, fmt)
