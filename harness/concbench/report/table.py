"""The summary table of a results document, one per workload, as plain strings.

The terminal, Markdown and any later format render these same rows, so every view of a
result shows the same figures. A failed cell shows its status and no numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from concbench.report import cgroup_columns, flags, server_table, stack, units
from concbench.resultset.model import CellResult


@dataclass(frozen=True)
class Table:
    workload: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    fixed_params: dict[str, object]
    """Parameters equal in every row (shown above the table)."""


OPTIONAL = ("limits", "JVM threads live / non-daemon", "cold (1st iteration)", "start-up", "warm-up",
            "CPU s", "p99.9", "max", "gen CPU", "p50", "peak threads", "threads",
            "efficiency", "server CPU", "throughput", "errors", "± SE", "fixed part", "sizes",
            "R²", "runtime saw", "cgroup peak")
"""Columns a narrow terminal may leave out, the first first (every other view keeps them):
the figures the summary and the other columns do not rest on."""


def _varying(cells: list[CellResult]) -> list[str]:
    keys: list[str] = []
    for cell in cells:
        keys += [k for k in cell.params if k not in keys]
    return [k for k in keys if len({repr(c.params.get(k)) for c in cells}) > 1]


def _median(cell: CellResult, metric: str) -> float | None:
    s = cell.stats.get(metric)
    return s.median if s else None


def _ci(cell: CellResult) -> str:
    s = cell.stats.get("elapsed_s")
    if not s or not s.ci95:
        return "—"
    return f"± {units.seconds((s.ci95[1] - s.ci95[0]) / 2)}"


def _reference_time(cells: list[CellResult], cell: CellResult, reference: str) -> float | None:
    for other in cells:
        if other.contender == reference and other.params == cell.params:
            return _median(other, "elapsed_s")
    return None


def _jvm_threads(cell: CellResult) -> str:
    """Seed 000's thread columns: live / non-daemon threads as the JVM sees them."""
    live = _median(cell, "result.jvm_threads")
    nondaemon = _median(cell, "result.jvm_nondaemon_threads")
    if live is None or nondaemon is None:
        return "—"
    return f"{live:.0f} / {nondaemon:.0f}"


def _row(cell: CellResult, varying: list[str], ref_time: float | None,
         with_ref: bool, with_jvm: bool, with_cold: bool) -> tuple[str, ...]:
    unit = cell.metadata.get("throughput_unit", "")
    head = [cell.contender, *(str(cell.params.get(k)) for k in varying)]
    status = cell.status if cell.status == "ok" else f"{cell.status}: {cell.reason or ''}"
    if not cell.stats:
        blanks = ["—"] * (8 + with_ref + with_jvm + with_cold)
        return (*head, *blanks, status[:160])
    time = _median(cell, "elapsed_s")
    cols = [units.seconds(time), _ci(cell),
            *((units.seconds(_median(cell, "cold_s")),) if with_cold else ()),
            units.percent(cell.efficiency),
            units.rate(_median(cell, "throughput_per_s"), unit),
            units.size(_median(cell, "peak_rss_bytes")), units.count(_median(cell, "peak_threads")),
            *((_jvm_threads(cell),) if with_jvm else ()),
            f"{_median(cell, 'cpu_s'):.2f}" if "cpu_s" in cell.stats else "—",
            str(cell.stats["elapsed_s"].n) if "elapsed_s" in cell.stats else "0"]
    if with_ref:
        cols.append(units.ratio(time / ref_time) if time and ref_time else "—")
    return (*head, *cols, status[:160])


def _with_limits(row: tuple[str, ...], cell: CellResult, limited: bool) -> tuple[str, ...]:
    """The row with the cgroup columns before its status, in a table run under limits."""
    return (*row[:-1], *cgroup_columns.row(cell), row[-1]) if limited else row


def _server_table(workload: str, group: list[CellResult], varying: list[str]) -> Table:
    with_stack, limited = stack.applies(group), cgroup_columns.applies(group)
    headers = ("contender", *((stack.HEADER,) if with_stack else ()), *varying,
               *server_table.all_headers(group), *(cgroup_columns.HEADERS if limited else ()),
               "status")
    rows = []
    for cell in group:
        head = [cell.contender, *((stack.cell(cell),) if with_stack else ()),
                *(str(cell.params.get(k)) for k in varying)]
        status = cell.status if cell.status == "ok" else f"{cell.status}: {cell.reason or ''}"
        if any(w.startswith("generator-bound") for w in cell.warnings):
            status += ", generator-bound"
        status += "".join(f", {f.label}" for f in flags.cell_flags(cell.warnings, "requests/s")
                          if f.unranked)
        rows.append(_with_limits((*head, *server_table.row(cell, group), status[:160]), cell,
                                 limited))
    fixed = {k: v for k, v in group[0].params.items() if k not in varying}
    return Table(workload, headers, tuple(rows), fixed)


def tables(cells: Iterable[CellResult], reference: str | None = None) -> list[Table]:
    by_workload: dict[str, list[CellResult]] = {}
    for cell in cells:
        by_workload.setdefault(cell.workload, []).append(cell)
    found = []
    for workload, group in by_workload.items():
        varying = _varying(group)
        if workload.startswith("http-"):
            found.append(_server_table(workload, group, varying))
            continue
        with_ref = reference is not None
        with_jvm = any("result.jvm_threads" in c.stats for c in group)
        with_cold = any("cold_s" in c.stats for c in group)
        headers = ("contender", *varying, "time (median)", "95% CI",
                   *(("cold (1st iteration)",) if with_cold else ()), "efficiency",
                   "throughput", "peak RSS", "peak threads",
                   *(("JVM threads live / non-daemon",) if with_jvm else ()), "CPU s", "n",
                   *((f"vs {reference}",) if with_ref else ()), "status")
        limited = cgroup_columns.applies(group)
        headers = (*headers[:-1], *(cgroup_columns.HEADERS if limited else ()), headers[-1])
        rows = tuple(_with_limits(_row(c, varying, _reference_time(group, c, reference)
                                       if reference else None, with_ref, with_jvm, with_cold),
                                  c, limited) for c in group)
        fixed = {k: v for k, v in group[0].params.items() if k not in varying}
        found.append(Table(workload, headers, rows, fixed))
    return found
