"""The terminal: progress while a plan runs, the tables and warnings after, then the summary
(the answer) as the last screen."""

from __future__ import annotations

from typing import Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

from concbench import precision_check
from concbench.plan import CellPlan
from concbench.report import flags, scaling_table, summary, summary_terminal, syscall_table, units
from concbench.report.cell_names import CellNames
from concbench.report.table import OPTIONAL, tables
from concbench.resultset.model import CellResult, ResultsDocument, RunResult
from concbench.stats.scans import scan_fits
from concbench.warnings import document_warnings

# Wide when not a terminal (CI logs, pipes), so tables stay one line a row.
out = Console(width=None if Console().is_terminal else 180)
err = Console(stderr=True, width=None if Console(stderr=True).is_terminal else 180)

_STATUS_STYLE = {"ok": "green", "unavailable": "yellow"}
_wide = False


def set_wide(wide: bool) -> None:
    """--wide: every table column and every contender of the summary, however wide."""
    global _wide
    _wide = wide


class ProgressView:
    """Observer of a running plan (see scheduler.Observer). A cell is named by what
    varies in the plan (concbench.report.cell_names), not by every parameter."""

    def __init__(self, total_runs: int, cells: Sequence[CellPlan]):
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                  MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                                  transient=True)
        self._task = self._progress.add_task("starting", total=total_runs)
        self._names = CellNames(cells)

    def __enter__(self) -> "ProgressView":
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def run_started(self, cell: CellPlan, run_index: int, runs: int) -> None:
        text = (f"{self._names.name(cell.spec.name, cell.contender.name, cell.params)} · "
                f"run {run_index + 1}/{runs}")
        self._progress.update(self._task, description=text)
        if not err.is_terminal:  # no live bar in a log file: one line per run instead
            done = int(self._progress.tasks[0].completed)
            self._progress.console.print(f"[dim]  {done + 1}/{self._progress.tasks[0].total:.0f} "
                                         f"{text}[/]")

    def run_finished(self, cell: CellPlan, result: RunResult) -> None:
        self._progress.advance(self._task)

    def cell_skipped(self, cell: CellPlan, runs: int) -> None:
        self._progress.advance(self._task, runs)

    def cell_finished(self, result: CellResult) -> None:
        t = result.stats.get("elapsed_s")
        rate = result.stats.get("requests_per_s")
        shown = units.seconds(t.median) if t else \
            f"{rate.median:,.0f} requests/s" if rate else result.status
        # a figure that is not the server's steady state says so where it first appears
        unsteady = [f.label for f in flags.cell_flags(result.warnings, "requests/s")
                    if f.unranked] if rate else []
        if unsteady:
            shown += f" [yellow]\\[{', '.join(unsteady)}][/]"
        style = _STATUS_STYLE.get(result.status, "red")
        params = self._names.params(result.workload, result.contender, result.params)
        self._progress.console.print(
            f"[{style}]{result.status:>11}[/] {result.workload} · {result.contender} · "
            f"{shown}  [dim]{params}[/]")

    def say(self, message: str) -> None:
        self._progress.console.print(f"[cyan]{message}[/]")


STATUS_WIDTH = (24, 60)
"""The status column's width when a table is fitted (it folds) and at most."""


def _rich_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                keep: list[int], styled_status: bool, status_width: int,
                fold: bool = False) -> RichTable:
    """Contender names never wrap; figures neither unless `fold` (the table is too wide even
    without its optional columns); the status (a reason) always may."""
    table = RichTable(title=title, title_justify="left")
    names = max((cell_len(str(r[0])) for r in rows), default=0)
    for i in keep:
        status = styled_status and i == len(headers) - 1
        table.add_column(headers[i], overflow="fold", no_wrap=i == 0 or not (status or fold),
                         min_width=max(names, cell_len(headers[0])) if i == 0 else None,
                         max_width=status_width if status else None)
    for row in rows:
        cells = [row[i] for i in keep]
        if styled_status:
            style = _STATUS_STYLE.get(row[-1].split(":")[0].split(",")[0], "red")
            cells[-1] = f"[{style}]{row[-1]}[/]"
        table.add_row(*cells)
    return table


def _natural_width(table: RichTable) -> int:
    """The table's width with no column squeezed (measured as if the screen were unbounded)."""
    return Measurement.get(out, out.options.update_width(100_000), table).maximum


def print_fitted(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                 styled_status: bool = False) -> None:
    """A table at the terminal's width: optional columns (report.table.OPTIONAL) are left
    out, least needed first, until it fits, and the ones left out are named; --wide, or
    output that is not a terminal, keeps all of them."""
    keep = list(range(len(headers)))
    if _wide or not out.is_terminal:  # a log or a pipe has no screen to fit
        table = _rich_table(title, headers, rows, keep, styled_status, STATUS_WIDTH[1])
        screen = out.width
        out.width = max(screen, _natural_width(table))  # print() never goes past the width
        try:
            out.print(table, crop=False)
        finally:
            out.width = screen
        return
    dropped: list[str] = []
    fits = False
    for name in (*OPTIONAL, None):
        fitted = _rich_table(title, headers, rows, keep, styled_status, STATUS_WIDTH[0])
        fits = _natural_width(fitted) <= out.width
        if fits or name is None:
            break
        if name in headers and headers.index(name) in keep:
            keep.remove(headers.index(name))
            dropped.append(name)
    out.print(_rich_table(title, headers, rows, keep, styled_status, STATUS_WIDTH[1],
                          fold=not fits))
    if dropped:
        out.print(f"[dim]left out to fit {out.width} columns: {', '.join(dropped)} "
                  "(--wide shows them)[/]", highlight=False)


def print_tables(doc: ResultsDocument) -> None:
    for table in tables(doc.cells, doc.plan.get("reference")):
        if table.fixed_params:
            out.print("[dim]" + ", ".join(f"{k}={v}" for k, v in table.fixed_params.items())
                      + "[/]")
        print_fitted(table.workload, table.headers, table.rows, styled_status=True)
    print_scaling(doc)
    for found in syscall_table.tables(doc.cells):
        print_fitted(syscall_table.title(found), found.headers, found.rows)
    for where, warning in document_warnings(doc):
        err.print(f"[yellow]warning[/] {where.replace(' / ', ' · ')}: {warning}")
    print_summary(doc)


def print_summary(doc: ResultsDocument) -> None:
    """Who led each workload and by how much: the last screen, sized to fit it (the terminal's
    height shared among the rows) unless --wide or the output is not a terminal."""
    cases = summary.summaries(doc.cells, largest_only=True)
    if not cases:
        return
    height = out.size.height if out.is_terminal and not _wide else None
    out.print()
    precision = precision_check.overview(doc.cells)
    if precision:
        out.print(precision, markup=False, highlight=False)
        height = height - 1 if height else None
    for line in summary_terminal.render(cases, summary.machine_flags(doc.machine), out.width,
                                        height):
        out.print(line, soft_wrap=True)


def print_scaling(doc: ResultsDocument) -> None:
    """Per-unit cost fitted over each scan (memory per task, time per request, ...)."""
    fits = scan_fits(doc.cells)
    if not fits:
        return
    by_workload: dict[str, list] = {}
    for fit in fits:
        by_workload.setdefault(fit.workload, []).append(fit)
    for workload, group in by_workload.items():
        print_fitted(f"{workload}: cost per unit, fitted over the scan (cost = a + b·N, least "
                     "squares)", scaling_table.HEADERS, scaling_table.rows(group))
    for warning in scaling_table.warnings(fits):
        err.print(f"[yellow]warning[/] {warning}")
