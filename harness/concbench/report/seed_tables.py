"""Tables in the layout of the seeds' posts: one per workload × metric, contender rows and
size columns (the scanned parameter), ready to paste. A cell that is not ok shows its status.
Where another parameter varies too (channel's etype), each of its values gets its own table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from concbench.report import units
from concbench.report.views import (SERVER_PREFIX, Metric, by_workload, headline, params_label,
                                    varying)
from concbench.report.views import metrics_for as views_metrics
from concbench.resultset.model import CellResult
from concbench.stats.scans import size_param


@dataclass(frozen=True)
class SeedTable:
    workload: str
    metric: Metric
    subset: str
    """The other varying parameters of this table (e.g. "etype=str"), or ""."""
    size_param: str | None
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    cells: tuple[CellResult, ...]
    """The cells shown (for the chart beside the table)."""

    @property
    def slug(self) -> str:
        """A file-name-safe id, used for the chart beside the table."""
        raw = "-".join(x for x in (self.workload, self.metric.key, self.subset) if x)
        return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in raw)


METRICS = (Metric("elapsed_s", "time (median)", "s"),
           Metric("throughput_per_s", "throughput (median)", "rate"),
           Metric("peak_rss_bytes", "peak RSS (median)", "B"),
           Metric("peak_threads", "peak threads (median)", "count"))


def metrics_for(workload: str) -> list[Metric]:
    """The headline first, then the usual ones it does not repeat."""
    if workload.startswith(SERVER_PREFIX):
        return views_metrics(workload)
    first = headline(workload)
    return [first] + [m for m in METRICS if m.key != first.key]


def formatter(metric: Metric, unit: str) -> Callable[[float], str]:
    if metric.kind == "s":
        return units.seconds
    if metric.kind == "B":
        return units.size
    if metric.kind == "rate":
        return lambda v: units.rate(v, unit)
    if metric.kind == "ms":
        return units.milliseconds
    return units.count


def _cell_text(cell: CellResult | None, metric: Metric) -> str:
    if cell is None:
        return ""
    if cell.status != "ok":
        return cell.status
    s = cell.stats.get(metric.key)
    if s is None:
        return "—"
    return formatter(metric, cell.metadata.get("throughput_unit", ""))(s.median)


def _table(workload: str, cells: list[CellResult], metric: Metric, param: str | None,
           subset: str) -> SeedTable:
    if param:
        sizes = sorted({c.params[param] for c in cells})
        headers = (f"contender \\ {param}", *(f"{s:,}" for s in sizes))
    else:
        sizes, headers = [None], ("contender", metric.title)
    contenders: list[str] = []
    for cell in cells:
        contenders += [cell.contender] if cell.contender not in contenders else []
    rows = []
    for name in contenders:
        by_size = {c.params.get(param) if param else None: c
                   for c in cells if c.contender == name}
        rows.append((name, *(_cell_text(by_size.get(s), metric) for s in sizes)))
    return SeedTable(workload, metric, subset, param, headers, tuple(rows), tuple(cells))


def seed_tables(cells: list[CellResult]) -> list[SeedTable]:
    found = []
    for workload, group in by_workload(cells).items():
        param = size_param(group)
        others = varying(group, skip=param)
        subsets: dict[str, list[CellResult]] = {}
        for cell in group:
            subsets.setdefault(params_label(cell, others), []).append(cell)
        for metric in metrics_for(workload):
            if not any(metric.key in c.stats for c in group) and metric is not headline(workload):
                continue
            found += [_table(workload, sub, metric, param, label)
                      for label, sub in subsets.items()]
    return found


def markdown(table: SeedTable) -> list[str]:
    lines = ["| " + " | ".join(table.headers) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(table.headers) - 1)) + "|"]
    lines += ["| " + " | ".join(v.replace("|", "\\|") for v in row) + " |"
              for row in table.rows]
    return lines
