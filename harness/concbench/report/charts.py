"""Charts of the report views, drawn with matplotlib (Agg, no display) to SVG or PNG bytes.

Scans are lines over the size with 95% CI error bars, on log axes where the values span two
decades or more; cells compared side by side are grouped bars. A cell that is not ok is drawn
as a red × at the foot of the axes with its status written beside it: never as a value.
SVG text is kept as text (svg.fonttype none) so the page can be searched and tested.
"""

from __future__ import annotations

import functools
import io
import math
import re
from typing import TYPE_CHECKING, Callable, Sequence

from concbench.report import units
from concbench.report.views import Chart, Series

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@functools.cache
def _matplotlib() -> None:
    """matplotlib with our settings, imported on first use (`concbench --help` and a run
    without a chart pay nothing). Figures are made without pyplot, whose import (about
    0.4 s: every backend's machinery, a figure manager) a report drawn to bytes never needs."""
    import matplotlib

    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "concbench",
                                "font.size": 9, "axes.spines.top": False,
                                "axes.spines.right": False,
                                # named in every SVG text's style: a short list keeps them small
                                "font.sans-serif": ["DejaVu Sans", "Helvetica", "Arial"]})


def figure(figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """A new figure with one axes, drawn by Agg (PNG) or the SVG backend when saved."""
    _matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, fig.subplots()


FAILED_COLOR = "#c0392b"
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf", "#d62728", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5",
           "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#393b79", "#637939")
"""Twenty distinguishable colours; a report gives each contender one of them (palette())."""
Colors = dict[str, str]
SIZE = (6.4, 3.4)


def palette(contenders: Sequence[str]) -> Colors:
    """One colour per contender, in order of first appearance, the same in every chart."""
    found: Colors = {}
    for name in contenders:
        if name not in found:
            found[name] = PALETTE[len(found) % len(PALETTE)]
    return found


def _color(series: Series, index: int, colors: Colors | None) -> str:
    if colors and series.contender in colors:
        return colors[series.contender]
    return PALETTE[index % len(PALETTE)]


def formatter(kind: str) -> Callable[[float, int], str]:
    def fmt(v: float, _pos: int = 0) -> str:
        if kind == "s":
            return units.seconds(v)
        if kind == "B":
            return units.size(v)
        if kind == "ms":
            return units.milliseconds(v)
        if kind == "rate":
            return units.rate(v, "").replace("/s", "").strip() or "0"
        return f"{v:,.0f}" if abs(v) >= 1 or v == 0 else f"{v:.2g}"
    return fmt


def spans_decades(values: Sequence[float], decades: float = 2.0) -> bool:
    """True when the positive values span at least that many powers of ten."""
    pos = [v for v in values if v is not None and v > 0]
    return len(pos) > 1 and math.log10(max(pos) / min(pos)) >= decades


_GEOMETRY = re.compile(r'\b(d|points|x|y|x1|x2|y1|y2|width|height|viewBox)="([^"]*)"')


def _geometry(found: re.Match[str]) -> str:
    """Coordinates to a tenth of a point (matplotlib writes six decimals), on one line."""
    value = re.sub(r"(\d+\.\d)\d+", r"\1", found.group(2))
    return f'{found.group(1)}="{" ".join(value.split())}"'


def minify(svg: str) -> str:
    """matplotlib's SVG without its metadata, indentation and needless decimals (a fifth
    smaller: a report holds a few dozen charts). Text is left as it is."""
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    return re.sub(r">\s+<", "><", _GEOMETRY.sub(_geometry, svg))


def to_bytes(fig: Figure, fmt: str, tight: bool = True) -> bytes:
    buf = io.BytesIO()
    meta = {"Date": None} if fmt == "svg" else None
    fig.savefig(buf, format=fmt, bbox_inches="tight" if tight else None, metadata=meta,
                dpi=110)
    data = buf.getvalue()
    if fmt == "svg":
        data = minify(data[data.index(b"<svg"):].decode()).encode()
    return data


def mark_failed(ax: Axes, x: float, status: str) -> None:
    from matplotlib.transforms import blended_transform_factory

    where = blended_transform_factory(ax.transData, ax.transAxes)
    ax.plot([x], [0.03], marker="x", color=FAILED_COLOR, markersize=9, mew=2, transform=where,
            clip_on=False, linestyle="none")
    ax.text(x, 0.07, status, color=FAILED_COLOR, transform=where, rotation=90, ha="center",
            va="bottom", fontsize=8)


def _scan(ax: Axes, chart: Chart, colors: Colors | None) -> None:
    xs_all = [p.x for s in chart.series for p in s.points]
    ys_all = [p.y for s in chart.series for p in s.points if p.y is not None]
    if spans_decades(xs_all):
        ax.set_xscale("log")
    if spans_decades(ys_all):
        ax.set_yscale("log")
    for i, series in enumerate(chart.series):
        ok = [p for p in series.points if p.y is not None]
        if ok:
            err = [[max(p.y - (p.lo if p.lo is not None else p.y), 0) for p in ok],
                   [max((p.hi if p.hi is not None else p.y) - p.y, 0) for p in ok]]
            ax.errorbar([p.x for p in ok], [p.y for p in ok], yerr=err, marker="o",
                        capsize=3, label=series.label, color=_color(series, i, colors))
        for p in series.points:
            if p.y is None:
                mark_failed(ax, p.x, f"{series.label}: {p.status}")
    ax.set_xlabel(chart.xlabel or "")


def _bars(ax: Axes, chart: Chart, colors: Colors | None) -> None:
    groups: list[str] = []
    for s in chart.series:
        groups += [p.x for p in s.points if p.x not in groups]
    width = 0.8 / max(len(chart.series), 1)
    for i, series in enumerate(chart.series):
        for p in series.points:
            x = groups.index(p.x) - 0.4 + width * (i + 0.5)
            if p.y is None:
                mark_failed(ax, x, f"{series.label}: {p.status}")
                continue
            err = None
            if p.lo is not None and p.hi is not None:
                err = [[max(p.y - p.lo, 0)], [max(p.hi - p.y, 0)]]
            ax.bar([x], [p.y], width=width * 0.9, yerr=err, capsize=3,
                   color=_color(series, i, colors),
                   label=series.label if p is series.points[0] else None)
    ax.set_xticks(range(len(groups)), groups)


def render(chart: Chart, fmt: str = "svg", colors: Colors | None = None) -> bytes:
    from matplotlib.ticker import FuncFormatter

    fig, ax = figure(SIZE)
    (_scan if chart.xlabel else _bars)(ax, chart, colors)
    ax.set_title(chart.title, loc="left")
    ax.yaxis.set_major_formatter(FuncFormatter(formatter(chart.metric.kind)))
    if ax.get_yscale() == "linear":
        ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return to_bytes(fig, fmt)


def _nines(percentile: float) -> float:
    """Position on the HdrHistogram percentile axis: 90% → 1, 99% → 2, 99.9% → 3 …"""
    return -math.log10(1 - percentile / 100)


def latency(series: Sequence[Series], fmt: str = "svg", colors: Colors | None = None) -> bytes:
    """Latency by percentile, HdrHistogram style: x is the number of nines (50%, 90%, 99%,
    99.9% …, log of 1/(1−p)), y the latency in ms (log when it spans two decades); the
    maximum is the point past the last percentile."""
    fig, ax = figure(SIZE)
    top = 0.0
    for i, s in enumerate(series):
        pts = sorted((p.x, p.y) for p in s.points if p.y is not None and p.x < 100)
        if not pts:
            continue
        xs = [_nines(x) for x, _ in pts]
        top = max(top, xs[-1])
        color = _color(s, i, colors)
        ax.plot(xs, [y for _, y in pts], marker="o", ms=3, color=color, label=s.label)
        peak = [p.y for p in s.points if p.x == 100 and p.y is not None]
        if peak:
            ax.plot([xs[-1] + 0.8], peak, marker="^", color=color, linestyle="none")
    ticks = [p for p in (50, 90, 99, 99.9, 99.99, 99.999) if _nines(p) <= top + 1e-9]
    ax.set_xticks([_nines(p) for p in ticks] + [top + 0.8],
                  [f"{p:g}%" for p in ticks] + ["max"])
    ys = [p.y for s in series for p in s.points if p.y is not None]
    if spans_decades(ys):
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_title("latency by percentile (ms; median of runs)", loc="left")
    ax.set_xlabel("percentile")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return to_bytes(fig, fmt)
