"""`verify`: every contender × workload at small sizes, each result checked (TechEmpower's
verify mode). One process per cell with one warm-up and one measured iteration. A variant is
checked on the workloads where it differs from its base (manifest `differs_on`) unless it is
named."""

from __future__ import annotations

from concbench import ui, workloads
from concbench.manifest import Contender
from concbench.errors import unknown
from concbench.plan import CellPlan, Plan, Settings
from concbench.resultset.model import ResultsDocument

VERIFY_SETTINGS = Settings(runs=1, warmup=1, iterations=1, timeout_s=120.0)


def plan(contenders: dict[str, Contender], names: list[str], wl_names: list[str]) -> Plan:
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
    return Plan("verify", tuple(cells), VERIFY_SETTINGS)


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
