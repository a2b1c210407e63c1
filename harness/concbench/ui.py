"""The terminal: progress while a plan runs, the summary tables and warnings after."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

from concbench.plan import CellPlan
from concbench.report import units
from concbench.report import scaling_table
from concbench.report.table import tables
from concbench.stats.scans import scan_fits
from concbench.resultset.model import CellResult, ResultsDocument, RunResult
from concbench.warnings import document_warnings

# Wide when not a terminal (CI logs, pipes), so tables stay one line a row.
out = Console(width=None if Console().is_terminal else 180)
err = Console(stderr=True, width=None if Console(stderr=True).is_terminal else 180)

_STATUS_STYLE = {"ok": "green", "unavailable": "yellow"}

class ProgressView:
    """Observer of a running plan (see runner.scheduler.Observer)."""

    def __init__(self, total_runs: int):
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                  MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                                  transient=True)
        self._task = self._progress.add_task("starting", total=total_runs)

    def __enter__(self) -> "ProgressView":
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def run_started(self, cell: CellPlan, run_index: int, runs: int) -> None:
        text = f"{cell.spec.name} · {cell.contender.name} · run {run_index + 1}/{runs}"
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
        style = _STATUS_STYLE.get(result.status, "red")
        params = " ".join(f"{k}={v}" for k, v in result.params.items())
        self._progress.console.print(
            f"[{style}]{result.status:>11}[/] {result.workload} · {result.contender} · "
            f"{shown}  [dim]{params}[/]")

    def say(self, message: str) -> None:
        self._progress.console.print(f"[cyan]{message}[/]")

def print_tables(doc: ResultsDocument) -> None:
    for table in tables(doc.cells, doc.plan.get("reference")):
        rich_table = RichTable(title=table.workload, title_justify="left")
        for header in table.headers:
            rich_table.add_column(header, overflow="fold",
                                  max_width=60 if header == "status" else None)
        for row in table.rows:
            style = _STATUS_STYLE.get(row[-1].split(":")[0].split(",")[0], "red")
            rich_table.add_row(*row[:-1], f"[{style}]{row[-1]}[/]")
        if table.fixed_params:
            out.print("[dim]" + ", ".join(f"{k}={v}" for k, v in table.fixed_params.items())
                      + "[/]")
        out.print(rich_table)
    print_scaling(doc)
    for where, warning in document_warnings(doc):
        err.print(f"[yellow]warning[/] {where.replace(' / ', ' · ')}: {warning}")


def print_scaling(doc: ResultsDocument) -> None:
    """Per-unit cost fitted over each scan (memory per task, time per request, ...)."""
    fits = scan_fits(doc.cells)
    if not fits:
        return
    by_workload: dict[str, list] = {}
    for fit in fits:
        by_workload.setdefault(fit.workload, []).append(fit)
    for workload, group in by_workload.items():
        rich_table = RichTable(title=f"{workload}: cost per unit, fitted over the scan "
                               "(cost = a + b·N, least squares)", title_justify="left")
        for header in scaling_table.HEADERS:
            rich_table.add_column(header, overflow="fold")
        for row in scaling_table.rows(group):
            rich_table.add_row(*row)
        out.print(rich_table)
    for warning in scaling_table.warnings(fits):
        err.print(f"[yellow]warning[/] {warning}")
