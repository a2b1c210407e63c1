"""What the reports show, as plain data: per workload the charts' series, the scan fits and
the representative run of each cell. HTML and Markdown render these same views.

A cell that is not ok gives a point without a value but with its status, so every chart can
mark it as failed instead of drawing a number.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from concbench.resultset.model import CellResult, RunResult
from concbench.stats.scans import ScanFit, scan_fits, size_param

SERVER_PREFIX = "http-"


@dataclass(frozen=True)
class Metric:
    """One charted quantity: a key in a cell's stats and how to show it."""

    key: str
    title: str
    kind: str
    """s | B | count | rate: how values are formatted."""


HEADLINE: dict[str, Metric] = {
    "channel": Metric("throughput_per_s", "throughput (events/s)", "rate"),
    "spawn-idle": Metric("all-spawned_rss_bytes", "RSS with every task alive", "B"),
    "http-hello": Metric("requests_per_s", "requests/s", "rate"),
    "http-aggregate": Metric("requests_per_s", "requests/s", "rate"),
}
DEFAULT_HEADLINE = Metric("elapsed_s", "time per iteration (median)", "s")
PEAK_RSS = Metric("peak_rss_bytes", "peak RSS", "B")
THREADS = Metric("peak_threads", "peak threads", "count")
SERVER_METRICS = (Metric("latency_p99_ms", "p99 latency", "ms"),
                  Metric("server_peak_rss_bytes", "server peak RSS under load", "B"),
                  Metric("server_peak_threads", "server threads under load", "count"))
"""Server workloads chart these after requests/s (the measured window's figures)."""


def metrics_for(workload: str) -> list[Metric]:
    """The charted metrics of a workload, headline first."""
    if workload.startswith(SERVER_PREFIX):
        return [headline(workload), *SERVER_METRICS]
    return [headline(workload), PEAK_RSS, THREADS]


@dataclass(frozen=True)
class Point:
    x: Any
    """The size (scans) or the cell's label (no scan)."""
    y: float | None
    """Median; None for a cell that is not ok."""
    lo: float | None
    hi: float | None
    status: str
    """ok, or why there is no value (crash, timeout, invalid, mem-limit, unavailable)."""


@dataclass(frozen=True)
class Series:
    label: str
    points: tuple[Point, ...]
    contender: str = ""
    """Whose series it is: a contender keeps one colour throughout a report."""


@dataclass(frozen=True)
class Chart:
    title: str
    metric: Metric
    xlabel: str | None
    """The scanned parameter; None when the chart compares cells side by side."""
    series: tuple[Series, ...]


@dataclass(frozen=True)
class WorkloadView:
    workload: str
    size_param: str | None
    cells: tuple[CellResult, ...]
    charts: tuple[Chart, ...]
    fits: tuple[ScanFit, ...]
    servers: bool
    """True for server workloads (latency percentiles apply)."""


def headline(workload: str) -> Metric:
    return HEADLINE.get(workload, DEFAULT_HEADLINE)


def by_workload(cells: tuple[CellResult, ...] | list[CellResult]) -> dict[str, list[CellResult]]:
    """The cells of each workload, workloads in the order they first appear."""
    found: dict[str, list[CellResult]] = {}
    for cell in cells:
        found.setdefault(cell.workload, []).append(cell)
    return found


def varying(cells: list[CellResult], skip: str | None = None) -> list[str]:
    keys: list[str] = []
    for cell in cells:
        keys += [k for k in cell.params if k not in keys and k != skip]
    return [k for k in keys if len({repr(c.params.get(k)) for c in cells}) > 1]


def params_label(cell: CellResult, keys: list[str]) -> str:
    return " ".join(f"{k}={cell.params[k]}" for k in keys if k in cell.params)


def label(cell: CellResult, keys: list[str]) -> str:
    return f"{cell.contender} {params_label(cell, keys)}".strip()


def load_value(cell: CellResult, key: str) -> list[float]:
    """Per-run values from the load generator (server workloads)."""
    found = []
    for run in cell.runs:
        if run.status == "ok" and run.load and run.load.get(key) is not None:
            found.append(float(run.load[key]))
    return found


def value(cell: CellResult, metric: Metric) -> Point:
    """The cell's median of a metric with its 95% CI, or its status."""
    s = cell.stats.get(metric.key)
    if cell.status != "ok" and s is None:
        return Point(None, None, None, None, cell.status)
    if s is not None:
        lo, hi = s.ci95 if s.ci95 else (None, None)
        return Point(None, s.median, lo, hi, "ok")
    loaded = load_value(cell, metric.key)
    if loaded:
        return Point(None, statistics.median(loaded), min(loaded), max(loaded), "ok")
    return Point(None, None, None, None, "no data")


def chart(cells: list[CellResult], metric: Metric, param: str | None) -> Chart:
    keys = varying(cells, skip=param)
    keys = [k for k in keys if k != "contender"]
    series: dict[str, list[Point]] = {}
    owner: dict[str, str] = {}
    for cell in cells:
        p = value(cell, metric)
        if param is not None:
            name, x = label(cell, keys), cell.params.get(param)
        else:
            name, x = cell.contender, params_label(cell, keys) or cell.workload
        series.setdefault(name, []).append(Point(x, p.y, p.lo, p.hi, p.status))
        owner[name] = cell.contender
    if param is not None:
        for pts in series.values():
            pts.sort(key=lambda p: p.x)
    found = [Series(k, tuple(v), owner[k]) for k, v in series.items()]
    return Chart(metric.title, metric, param,
                 tuple(sorted(found, key=lambda s: figure_order(s, metric, param))))


def figure_order(series: Series, metric: Metric, param: str | None) -> tuple[float, float]:
    """Sort key of a chart's series: the best figure first (highest for rates, lowest for
    the rest). A scan is ordered at the largest size a series has a value for, the series
    reaching the largest sizes first; side by side, by the geometric mean of its bars. A
    series without any value comes last."""
    valued = [p for p in series.points if p.y is not None and p.y > 0]
    if not valued:
        return (math.inf, math.inf)
    sign = -1.0 if metric.kind == "rate" else 1.0
    if param is not None:
        last = max(valued, key=lambda p: p.x)
        return (-float(last.x), sign * last.y)
    return (0.0, sign * statistics.fmean(math.log(p.y) for p in valued))


def _has(cells: list[CellResult], metric: Metric) -> bool:
    return any(value(c, metric).y is not None for c in cells)


def workload_views(cells: list[CellResult]) -> list[WorkloadView]:
    by_workload: dict[str, list[CellResult]] = {}
    for cell in cells:
        by_workload.setdefault(cell.workload, []).append(cell)
    fits = scan_fits(cells)
    views = []
    for workload, group in by_workload.items():
        param = size_param(group)
        metrics = metrics_for(workload)
        charts = tuple(chart(group, m, param) for m in metrics
                       if m is metrics[0] or _has(group, m))
        views.append(WorkloadView(workload, param, tuple(group), charts,
                                  tuple(f for f in fits if f.workload == workload),
                                  workload.startswith(SERVER_PREFIX)))
    return views


def representative_run(cell: CellResult) -> tuple[int, RunResult] | None:
    """The ok run with the median wall time (the lower middle one for an even count)."""
    ok = sorted(((i, r) for i, r in enumerate(cell.runs) if r.status == "ok"),
                key=lambda ir: ir[1].wall_s)
    if not ok:
        return None
    return ok[(len(ok) - 1) // 2]
