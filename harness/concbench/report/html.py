"""The self-contained HTML report: one file, every chart an inline SVG, no network needed.

First the answer: the summary of each run (concbench.report.summary: per workload the leader
and every other contender as a ratio to it, with the flags that qualify a figure), then a
table of contents. Per workload: its own summary (every size of a scan), the table (the rows
of report.table, so every view shows the same figures), charts of the headline metric, peak
RSS and threads against the scanned size, the scaling fits, latency percentiles for server
workloads, and, folded until opened, the sampled time series of RSS / threads / CPU of one
run per cell (drawn by the page from report.timeseries data). Then the runtime diagnostics
(folded), the machine, toolchains and every warning. Failed cells show their status, never a
number.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from concbench.report import capacity_chart, capacity_table, charts, diagnostics, hosts_table, \
    latency_load_chart, load_curves, scaling_table, summary, summary_text, syscall_table, \
    timeseries
from concbench.report.summary import CaseSummary
from concbench.report.table import Table, tables
from concbench.report.views import Point, Series, WorkloadView, label, varying, workload_views
from concbench.resultset.model import CellResult, ResultsDocument
from concbench.warnings import document_warnings

TEMPLATES = Path(__file__).parent / "templates"


def _svg(data: bytes) -> Markup:
    return Markup(data.decode())


def latency_series(cells: tuple[CellResult, ...]) -> list[Series]:
    """Per cell, the median over its ok runs of the latency at each recorded percentile."""
    keys = varying(list(cells))
    found = []
    for cell in cells:
        by_pct: dict[float, list[float]] = {}
        for run in cell.runs:
            if run.status == "ok" and run.load:
                for pct, ms in run.load.get("percentiles") or []:
                    by_pct.setdefault(float(pct), []).append(float(ms))
        points = tuple(Point(pct, statistics.median(v), None, None, "ok")
                       for pct, v in sorted(by_pct.items()))
        if points:
            found.append(Series(label(cell, keys), points, cell.contender))
    return sorted(found, key=_p99)


def _p99(series: Series) -> float:
    """Latency series in order of their p99 (or their highest percentile below it)."""
    below = [p for p in series.points if p.x <= 99 and p.y is not None]
    return max(below, key=lambda p: p.x).y if below else float("inf")


@dataclass(frozen=True)
class SummaryRow:
    """One case and metric of a summary, ready for the template."""

    label: str
    """The case's name on its first metric's row, else ""."""
    anchor: str
    metric: str
    leader: summary_text.Item | None
    others: tuple[summary_text.Item, ...]
    common: str
    note: str


def summary_rows(cases: list[CaseSummary], anchor_prefix: str) -> list[SummaryRow]:
    rows, previous = [], None
    for case in cases:
        items = summary_text.items(case)
        leader = items[0] if items and items[0].kind == "leader" else None
        label = summary_text.case_label(case)
        shown = label if label != previous else ""
        rows.append(SummaryRow(shown, f"{anchor_prefix}-{case.workload}",
                               summary_text.metric_label(case), leader,
                               tuple(items[1:] if leader else items),
                               summary_text.flag_words(case.common), case.note if shown else ""))
        previous = label
    return rows


@dataclass(frozen=True)
class Section:
    view: WorkloadView
    table: Table
    summary: list[SummaryRow]
    charts: tuple[Markup, ...]
    fit_rows: list[tuple[str, ...]]
    latency: Markup | None
    panels: tuple[timeseries.SeriesPanel, ...]
    panels_json: Markup
    load: tuple[Markup, ...] = ()
    """Latency–load charts of the open-loop cells (report.load_curves)."""
    capacity: tuple[Markup, ...] = ()
    capacity_tables: tuple[capacity_table.CapacityTable, ...] = ()
    syscalls: tuple[syscall_table.SyscallTable, ...] = ()


def _server_extras(view: WorkloadView, colors: charts.Colors) -> dict[str, Any]:
    """The server sections' latency–load and capacity charts, capacity and syscall tables."""
    if not view.servers:
        return {}
    return {"load": tuple(_svg(latency_load_chart.render(c, colors=colors))
                          for c in load_curves.curves(view.cells)),
            "capacity": tuple(_svg(capacity_chart.render(c, colors=colors))
                              for c in capacity_chart.capacity_charts(view.cells)),
            "capacity_tables": tuple(capacity_table.tables(view.cells)),
            "syscalls": tuple(syscall_table.tables(view.cells))}


def section(view: WorkloadView, table: Table, folder: Path | None, colors: charts.Colors,
            cases: list[SummaryRow]) -> Section:
    latency = None
    if view.servers:
        lat = latency_series(view.cells)
        if lat:
            latency = _svg(charts.latency(lat, colors=colors))
    panels = [timeseries.panel(c, folder) for c in view.cells]
    return Section(view, table, cases,
                   tuple(_svg(charts.render(c, colors=colors)) for c in view.charts),
                   scaling_table.rows(view.fits), latency, tuple(panels),
                   timeseries.script_json(panels), **_server_extras(view, colors))


def _warnings(doc: ResultsDocument, views: list[WorkloadView]) -> list[str]:
    found = [f"{where}: {w}" for where, w in document_warnings(doc)]
    for view in views:
        found += scaling_table.warnings(view.fits)
    return found


@dataclass(frozen=True)
class ProfileRow:
    """One flame graph of a profiled run (--profile), linked relative to the run folder."""

    cell: str
    profiler: str
    samples: int | None
    href: str | None
    note: str


def profile_rows(doc: ResultsDocument) -> list[ProfileRow]:
    rows = []
    for c in doc.cells:
        params = ", ".join(f"{k}={v}" for k, v in c.params.items())
        for p in c.metadata.get("profiles", ()):
            rows.append(ProfileRow(f"{c.workload} · {c.contender} · {params}",
                                   f"{p['profiler']} ({p['mode']})", p.get("samples"),
                                   p.get("flamegraph"), p.get("problem") or _overhead(p)))
    return rows


def _overhead(profile: dict[str, Any]) -> str:
    run = profile.get("run") or {}
    if run.get("ratio") is None:
        return f"profiled run: {run.get('status')} {run.get('reason') or ''}".strip()
    return (f"profiled run {run['figure']:.4g} {run['unit']} vs {run['unprofiled_median']:.4g} "
            f"unprofiled (×{run['ratio']:.3f})")


def document_context(doc: ResultsDocument, folder: Path | None) -> dict[str, object]:
    views = workload_views(list(doc.cells))
    by_name = {t.workload: t for t in tables(doc.cells, doc.plan.get("reference"))}
    colors = charts.palette([c.contender for c in doc.cells])
    every_size = summary_rows(summary.summaries(doc.cells), doc.run_id)
    sections = [section(v, by_name[v.workload], folder, colors,
                        [r for r in every_size if r.anchor == f"{doc.run_id}-{v.workload}"])
                for v in views]
    top = summary.summaries(doc.cells, largest_only=True)
    glance = summary_text.glance(top)
    return {"doc": doc, "sections": sections, "summary": summary_rows(top, doc.run_id),
            "glance": glance, "glance_columns": summary_text.glance_columns(glance),
            "machine_flags": summary.machine_flags(doc.machine),
            "warnings": _warnings(doc, views), "profiles": profile_rows(doc),
            "diagnostics": diagnostics.rows(doc.cells),
            "hosts": hosts_table.rows(doc), "host_headers": hosts_table.HEADERS,
            "scaling_headers": scaling_table.HEADERS, "syscall_title": syscall_table.title,
            "capacity_title": capacity_table.TITLE}


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["status_class"] = lambda s: "ok" if s == "ok" else "failed"
    return env


def render(docs: list[tuple[ResultsDocument, Path | None]]) -> str:
    """The report of one or more results documents, each with its run folder (for samples)."""
    contexts = [document_context(doc, folder) for doc, folder in docs]
    title = "concbench report: " + ", ".join(doc.run_id for doc, _ in docs)
    return _environment().get_template("report.html.j2").render(
        title=title, documents=contexts, legend=summary_text.LEGEND, method=summary_text.METHOD,
        glance_headers=summary_text.GLANCE_HEADERS)
