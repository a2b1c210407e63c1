"""The self-contained HTML report: one file, every chart an inline SVG, no network needed.

Per workload: the summary table (the rows of report.table, so every view shows the same
figures), charts of the headline metric, peak RSS and threads against the scanned size,
the scaling fits, latency percentiles for server workloads, and the sampled time series of
RSS / threads / CPU of one run per cell, chosen from a list. Then the machine, toolchains
and every warning. Failed cells show their status, never a number.
"""

from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from concbench.report import charts, diagnostics, hosts_table, scaling_table
from concbench.report.table import Table, tables
from concbench.report.views import Point, Series, WorkloadView, label, representative_run, \
    varying, workload_views
from concbench.resultset.model import CellResult, ResultsDocument
from concbench.warnings import document_warnings

TEMPLATES = Path(__file__).parent / "templates"
MAX_SAMPLES = 400


@dataclass(frozen=True)
class SeriesPanel:
    """The time series of one cell's representative run."""

    label: str
    svg: Markup | None
    note: str
    """Which run it is, or why there is none."""


def _svg(data: bytes) -> Markup:
    return Markup(data.decode())


def read_samples(path: Path) -> list[tuple[float, float, float, float]]:
    """The sampler's CSV (t_s, rss_bytes, threads, cpu_s), thinned to MAX_SAMPLES rows."""
    try:
        with path.open() as f:
            rows = [(float(r["t_s"]), float(r["rss_bytes"]), float(r["threads"]),
                     float(r["cpu_s"])) for r in csv.DictReader(f)]
    except (OSError, KeyError, ValueError):
        return []
    step = max(1, len(rows) // MAX_SAMPLES)
    return rows[::step] + ([rows[-1]] if rows and (len(rows) - 1) % step else [])


def series_panel(cell: CellResult, folder: Path | None) -> SeriesPanel:
    name = f"{cell.contender} · " + ", ".join(f"{k}={v}" for k, v in cell.params.items())
    chosen = representative_run(cell)
    if chosen is None:
        return SeriesPanel(name, None, f"{cell.status}: no ok run to show")
    index, run = chosen
    if folder is None or not run.samples_file:
        return SeriesPanel(name, None, "no samples recorded")
    rows = read_samples(folder / run.samples_file)
    if not rows:
        return SeriesPanel(name, None, f"samples file {run.samples_file} not found")
    note = f"run {index + 1} of {len(cell.runs)} (median wall time), {run.samples_file}"
    return SeriesPanel(name, _svg(charts.timeseries(rows, name)), note)


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
    return found


@dataclass(frozen=True)
class Section:
    view: WorkloadView
    table: Table
    charts: tuple[Markup, ...]
    fit_rows: list[tuple[str, ...]]
    latency: Markup | None
    panels: tuple[SeriesPanel, ...]


def section(view: WorkloadView, table: Table, folder: Path | None,
            colors: charts.Colors) -> Section:
    latency = None
    if view.servers:
        lat = latency_series(view.cells)
        if lat:
            latency = _svg(charts.latency(lat, colors=colors))
    return Section(view, table, tuple(_svg(charts.render(c, colors=colors)) for c in view.charts),
                   scaling_table.rows(view.fits), latency,
                   tuple(series_panel(c, folder) for c in view.cells))


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
    return {"doc": doc,
            "sections": [section(v, by_name[v.workload], folder, colors) for v in views],
            "warnings": _warnings(doc, views), "profiles": profile_rows(doc),
            "diagnostics": diagnostics.rows(doc.cells),
            "hosts": hosts_table.rows(doc), "host_headers": hosts_table.HEADERS,
            "scaling_headers": scaling_table.HEADERS}


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
    return _environment().get_template("report.html.j2").render(title=title, documents=contexts)
