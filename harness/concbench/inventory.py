"""`list` and `build`: what contenders exist, which can run here, and building them."""

from __future__ import annotations

from rich.table import Table

from concbench import paths, toolchains, ui, workloads
from concbench.build import Builder
from concbench.manifest import Contender


def show(contenders: dict[str, Contender]) -> None:
    table = Table(title="contenders × workloads")
    table.add_column("contender")
    for name in workloads.WORKLOADS:
        table.add_column(name, justify="center")
    table.add_column("availability")
    for contender in contenders.values():
        tools = toolchains.resolve(contender.toolchain.requires)
        available = "[green]available[/]" if not isinstance(tools, str) else f"[yellow]{tools}[/]"
        marks = ["✓" if w in contender.workloads else "·" for w in workloads.WORKLOADS]
        table.add_row(contender.name, *marks, available)
    ui.out.print(table)
    for name, spec in workloads.WORKLOADS.items():
        ui.out.print(f"[bold]{name}[/]: {spec.summary}")
        for param in spec.params:
            ui.out.print(f"    {param.describe()}", highlight=False)


def build(contenders: list[Contender], force: bool) -> bool:
    """Build each toolchain once; True when all built."""
    builder = Builder(paths.cache_dir(), say=lambda m: ui.err.print(f"[cyan]{m}[/]"))
    all_ok = True
    for tc in {c.toolchain.name: c.toolchain for c in contenders}.values():
        outcome = builder.ensure(tc, force=force)
        if outcome.ok:
            how = "up to date" if outcome.cached else f"built in {outcome.seconds:.0f} s"
            first = "; ".join(v.splitlines()[0] for v in outcome.versions.values() if v)
            ui.out.print(f"[green]{tc.name}[/]: {how} ({first})", highlight=False)
        else:
            all_ok = False
            ui.out.print(f"[red]{tc.name}[/]: {outcome.reason}", highlight=False)
    return all_ok
