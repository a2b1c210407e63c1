"""The system-call table of server workloads (cells run with syscalls=true): per request,
the calls seed 004 argues from, context switches and page faults, as plain strings for the
terminal and Markdown. Medians over a cell's ok runs (stats.syscall_cell); a call this
kernel has no tracepoint for shows "—" and the note says why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from concbench.resultset.model import CellResult
from concbench.stats import syscall_cell
from concbench.stats.syscall_cell import REPORTED as COLUMNS, key

HEADERS = ("contender", *(h for _, h in COLUMNS), "ctx switches (vol / invol)", "page faults",
           "n", "note")
TITLE = "system calls, context switches and page faults per request (perf stat, measured window)"


@dataclass(frozen=True)
class SyscallTable:
    workload: str
    fixed_params: dict[str, object]
    """Parameters shared by every row, for the title."""
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def _median(cell: CellResult, name: str) -> float | None:
    s = cell.stats.get(key(name))
    return s.median if s else None


def _figure(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:#.3g}" if value < 100 else f"{value:,.0f}"


def _ctx(cell: CellResult) -> str:
    total = _median(cell, "context-switches")
    vol, invol = _median(cell, "ctx_voluntary"), _median(cell, "ctx_involuntary")
    split = f" ({_figure(vol)} / {_figure(invol)})" if vol is not None and invol is not None \
        else ""
    return _figure(total) + split


def _row(cell: CellResult, varying: list[str]) -> tuple[str, ...]:
    name = " ".join([cell.contender, *(f"{k}={cell.params.get(k)}" for k in varying)])
    counted = cell.stats.get(key("context-switches"))
    return (name, *(_figure(_median(cell, c)) for c, _ in COLUMNS), _ctx(cell),
            _figure(_median(cell, "page-faults")), str(counted.n if counted else 0),
            syscall_cell.note(cell.runs) or ("" if cell.status == "ok" else cell.status))


def _counted(cell: CellResult) -> bool:
    return any((r.server or {}).get("syscalls") for r in cell.runs)


def counted(cells: Iterable[CellResult]) -> bool:
    """Whether some cell counted its system calls (syscalls=true)."""
    return any(_counted(c) for c in cells)


def tables(cells: Iterable[CellResult]) -> list[SyscallTable]:
    """One table per server workload that has cells counted with syscalls=true."""
    by_workload: dict[str, list[CellResult]] = {}
    for cell in cells:
        if _counted(cell):
            by_workload.setdefault(cell.workload, []).append(cell)
    found = []
    for workload, group in by_workload.items():
        keys = [k for c in group for k in c.params]
        varying = [k for k in dict.fromkeys(keys)
                   if len({repr(c.params.get(k)) for c in group}) > 1]
        fixed = {k: v for k, v in group[0].params.items() if k not in varying}
        found.append(SyscallTable(workload, fixed, HEADERS,
                                  tuple(_row(c, varying) for c in group)))
    return found


def title(table: SyscallTable) -> str:
    shown = ", ".join(f"{k}={table.fixed_params[k]}" for k in ("connections", "rate")
                      if k in table.fixed_params)
    return f"{table.workload}: {TITLE}" + (f" ({shown})" if shown else "")


def markdown(cells: Iterable[CellResult], workload: str) -> list[str]:
    """The workload's table as Markdown lines (none when nothing was counted)."""
    found = [t for t in tables(cells) if t.workload == workload]
    lines: list[str] = []
    for table in found:
        lines += [f"#### {title(table)}", "", "| " + " | ".join(table.headers) + " |",
                  "|" + "|".join("---" for _ in table.headers) + "|",
                  *("| " + " | ".join(r) + " |" for r in table.rows), ""]
    return lines
