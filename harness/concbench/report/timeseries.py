"""The sampled time series of one run per cell (RSS, threads, CPU seconds against time), as
compact data the HTML report draws in the browser when its section is opened.

Drawn there rather than by matplotlib: one SVG per cell made the quick suite's report 4 MB
(75 panels of 45 kB) and cost half a minute to draw; the thinned data is about 2 kB a cell.
Thinning keeps each bucket's highest RSS and thread count (a peak is what these panels are
read for) and its last CPU reading (CPU time only grows).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from concbench.report.views import representative_run
from concbench.resultset.model import CellResult

MAX_POINTS = 120
Row = tuple[float, float, float, float]


def read_samples(path: Path) -> list[Row]:
    """The sampler's CSV: rows of (t_s, rss_bytes, threads, cpu_s); [] when unreadable."""
    try:
        with path.open() as f:
            return [(float(r["t_s"]), float(r["rss_bytes"]), float(r["threads"]),
                     float(r["cpu_s"])) for r in csv.DictReader(f)]
    except (OSError, KeyError, ValueError):
        return []


def thin(rows: list[Row], points: int = MAX_POINTS) -> list[Row]:
    """At most `points` rows: per bucket of consecutive rows its first time, highest RSS and
    thread count, and last CPU time; the last row is kept as it is."""
    if len(rows) <= points:
        return rows
    size = -(-(len(rows) - 1) // (points - 1))
    found = []
    for start in range(0, len(rows) - 1, size):
        bucket = rows[start:start + size]
        found.append((bucket[0][0], max(r[1] for r in bucket), max(r[2] for r in bucket),
                      bucket[-1][3]))
    return found + [rows[-1]]


@dataclass(frozen=True)
class SeriesPanel:
    """The time series of one cell's representative run, or why there is none."""

    label: str
    note: str
    """Which run it is, or why there is no series."""
    rows: tuple[Row, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"label": self.label, "note": self.note}
        if self.rows:
            found.update(t=[round(r[0], 3) for r in self.rows],
                         rss=[round(r[1] / 2**20, 2) for r in self.rows],
                         threads=[int(r[2]) for r in self.rows],
                         cpu=[round(r[3], 3) for r in self.rows])
        return found


def panel(cell: CellResult, folder: Path | None) -> SeriesPanel:
    name = f"{cell.contender} · " + ", ".join(f"{k}={v}" for k, v in cell.params.items())
    chosen = representative_run(cell)
    if chosen is None:
        return SeriesPanel(name, f"{cell.status}: no ok run to show")
    index, run = chosen
    if folder is None or not run.samples_file:
        return SeriesPanel(name, "no samples recorded")
    rows = read_samples(folder / run.samples_file)
    if not rows:
        return SeriesPanel(name, f"samples file {run.samples_file} not found")
    note = f"run {index + 1} of {len(cell.runs)} (median wall time), {run.samples_file}"
    return SeriesPanel(name, note, tuple(thin(rows)))


def script_json(panels: list[SeriesPanel]) -> Markup:
    """The panels as JSON safe inside a <script> element (no <, > or & left to end it)."""
    text = json.dumps([p.to_dict() for p in panels], ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
