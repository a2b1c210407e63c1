"""A server's HTTP stack (manifest `server_stack`, recorded in each server cell's metadata):
"standard", the ecosystem's own HTTP stack, or "minimal", a hand-written loop that parses only
what the workloads send (docs/contract.md, "Manifest keys for servers"). The tables and the
summary name it beside the contender, so a minimal server is compared knowingly."""

from __future__ import annotations

from concbench.resultset.model import CellResult

HEADER = "stack"


def of(cell: CellResult) -> str | None:
    """The cell's stack; None for a batch cell or results recorded before it was kept."""
    found = cell.metadata.get("server_stack")
    return str(found) if found else None


def applies(cells: list[CellResult] | tuple[CellResult, ...]) -> bool:
    """Whether any of the cells recorded its stack (then its table gets the column)."""
    return any(of(c) for c in cells)


def cell(cell_: CellResult) -> str:
    return of(cell_) or "—"
