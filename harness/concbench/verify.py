"""`verify`: every contender × workload at small sizes, each result checked (TechEmpower's
verify mode). One process per cell with one warm-up and one measured iteration. A variant is
checked on the workloads where it differs from its base (manifest `differs_on`) unless it is
named.

`--share K/N` runs the K-th of N shares of the plan, whole contenders each, of about equal
cost: N processes at once verify everything in less time. Verification checks answers, not
speed, so the shares may share a machine, and a share's servers and load generators are not
pinned to CPUs of their own: they float over every CPU with the other shares' (pinned, every
share's servers would land on the same CPU). Run with `taskset -c`, one share to a CPU, each
share then has a CPU of its own (what tests/test_conformance.py does). More shares than CPUs
fill each other's waits and finish sooner on a quiet machine, but a JVM server just started
may then answer nothing within verify's 1 s windows."""

from __future__ import annotations

from dataclasses import replace

from concbench import ui, workloads
from concbench.manifest import Contender
from concbench.errors import UserError, unknown
from concbench.plan import CellPlan, Plan, Settings
from concbench.resultset.model import ResultsDocument

VERIFY_SETTINGS = Settings(runs=1, warmup=1, iterations=1, timeout_s=120.0,
                           share_server_starts=True)


def parse_share(text: str | None) -> tuple[int, int] | None:
    """'2/3' → (2, 3): the second of three shares; None: the whole plan."""
    if text is None:
        return None
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise UserError(f"--share {text!r}: give K/N with 1 <= K <= N, e.g. 1/2")
    return int(k), int(n)


def _cost(cell: CellPlan, shared: bool = False) -> int:
    """A rough cost: a server cell starts a server and loads it (three batch cells' worth),
    twice that on a JVM (a Spring Boot start takes seconds on one CPU); one on the server start
    of the cell before it (`shared`) only loads it."""
    if cell.spec.server is None or shared:
        return 1
    return 6 if any(r.startswith("jdk") for r in cell.contender.toolchain.requires) else 3


def _server_args(cell: CellPlan) -> tuple | None:
    assert cell.spec.server is not None
    return (cell.contender.name, cell.spec.name,
            tuple(cell.params.get(k) for k in cell.spec.server.contender_params))


def contender_cost(own: list[CellPlan]) -> int:
    """A contender's cells' cost, a cell whose server command is the one before it counted as
    sharing its start (scheduler: share_server_starts)."""
    total, before = 0, None
    for cell in own:
        args = _server_args(cell) if cell.spec.server is not None else None
        total += _cost(cell, shared=args is not None and args == before)
        before = args
    return total


def shares(cells: list[CellPlan], count: int) -> list[list[CellPlan]]:
    """The cells in `count` shares of about equal cost, a contender's cells in one share
    (heaviest contender first, each to the lightest share so far), in plan order."""
    by_contender: dict[str, list[CellPlan]] = {}
    for cell in cells:
        by_contender.setdefault(cell.contender.name, []).append(cell)
    loads, owner = [0] * count, {}
    for name, own in sorted(by_contender.items(),
                            key=lambda kv: (-contender_cost(kv[1]), kv[0])):
        lightest = loads.index(min(loads))
        owner[name] = lightest
        loads[lightest] += contender_cost(own)
    return [[c for c in cells if owner[c.contender.name] == i] for i in range(count)]


def plan(contenders: dict[str, Contender], names: list[str], wl_names: list[str],
         share: tuple[int, int] | None = None) -> Plan:
    for name in names:
        if name not in contenders:
            raise unknown("contender", name, contenders)
    for wl in wl_names:
        workloads.get(wl)
    cells = []
    for contender in contenders.values():
        if names and contender.name not in names:
            continue
        # named: everything it runs; otherwise a variant where it differs from its base
        for wl in contender.workloads if contender.name in names else contender.differs_on:
            if wl_names and wl not in wl_names:
                continue
            if wl not in workloads.WORKLOADS:
                continue  # declared by a manifest ahead of the harness: nothing to check yet
            spec = workloads.get(wl)
            cells += [CellPlan(spec, contender, spec.resolve(p)) for p in spec.verify_params]
    if share is None:
        return Plan("verify", tuple(cells), VERIFY_SETTINGS)
    return Plan("verify", tuple(shares(cells, share[1])[share[0] - 1]),
                replace(VERIFY_SETTINGS, pin_servers=False))


def report(doc: ResultsDocument, strict: bool) -> bool:
    """Print one line per cell; True when verification passed."""
    passed = True
    for cell in doc.cells:
        params = " ".join(f"{k}={v}" for k, v in cell.params.items())
        if cell.status == "ok":
            ui.out.print(f"[green]pass[/] {cell.contender} {cell.workload} [dim]{params}[/]")
            continue
        failing = cell.status != "unavailable" or strict
        passed = passed and not failing
        style = "red" if failing else "yellow"
        ui.out.print(f"[{style}]{cell.status}[/] {cell.contender} {cell.workload} "
                     f"[dim]{params}[/]: {cell.reason}", highlight=False)
    total = len(doc.cells)
    ok = sum(c.status == "ok" for c in doc.cells)
    ui.out.print(f"{ok} of {total} contender × workload checks passed")
    return passed
