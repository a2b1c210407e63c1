"""`list` and `build`: what contenders exist, which can run here, and building them."""

from __future__ import annotations

from rich.table import Table

from concbench import paths, toolchain_fetch, toolchains, tools, ui, workloads
from concbench.build import Builder
from concbench.manifest import Contender
from concbench.profiling import async_profiler


def _mark(contender: Contender, workload: str) -> str:
    if workload in contender.workloads:
        return "✓"
    if workload in contender.not_applicable or contender.variant_of:
        return "n/a"
    return "·"


def show(contenders: dict[str, Contender]) -> None:
    """✓ implemented, n/a not applicable to this style (why below), · not implemented."""
    table = Table(title="contenders × workloads (✓ implemented, n/a not applicable, · not yet)")
    table.add_column("contender")
    for name in workloads.WORKLOADS:
        table.add_column(name, justify="center")
    table.add_column("availability")
    reasons: list[str] = []
    for contender in contenders.values():
        tools = toolchains.resolve(contender.toolchain.requires)
        pin = contender.toolchain.pin
        if not isinstance(tools, str) and pin is not None:
            tools = toolchain_fetch.check(pin) or tools
        available = "[green]available[/]" if not isinstance(tools, str) else f"[yellow]{tools}[/]"
        marks = [_mark(contender, w) for w in workloads.WORKLOADS]
        name = contender.name
        if contender.variant_of:
            name += f" [dim](variant of {contender.variant_of})[/]"
            base = contenders.get(contender.variant_of)
            on = f" on {pin.label}" if pin is not None else \
                f" on the installed {contender.toolchain.name}" if base is not None and \
                base.toolchain.pin is not None else ""
            reasons.append(f"{contender.name}: a variant of {contender.variant_of}{on} for "
                           f"{', '.join(contender.workloads)} only (runs when named)")
        table.add_row(name, *marks, available)
        reasons += [f"{contender.name} · {w}: {why}" for w, why in
                    contender.not_applicable.items()]
    ui.out.print(table)
    for line in reasons:
        ui.out.print(f"[dim]n/a[/] {line}", highlight=False)
    for name, spec in workloads.WORKLOADS.items():
        ui.out.print(f"[bold]{name}[/]: {spec.summary}")
        for param in spec.params:
            ui.out.print(f"    {param.describe()}", highlight=False)


def build(contenders: list[Contender], force: bool, profilers: bool = False) -> bool:
    """Build each toolchain once (and the profilers, if asked); True when all built."""
    builder = Builder(paths.cache_dir(), say=_say)
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
    loaders_ok = build_load_generators()
    return (build_profilers() if profilers else True) and loaders_ok and all_ok


def _say(message: str) -> None:
    ui.err.print(f"[cyan]{message}[/]")


LOAD_GENERATORS = ("oha", "wrk")
"""What the server workloads load with (workloads.server's loadgen): installed or built with
the contenders, so that a first server run does not wait minutes for cargo."""


def build_load_generators() -> bool:
    all_ok = True
    for name in LOAD_GENERATORS:
        problem = tools.ensure(name, _say)
        if problem:
            all_ok = False
            ui.out.print(f"[red]{name}[/]: {problem}", highlight=False)
        else:
            ui.out.print(f"[green]{name}[/]: {tools.version(name)}", highlight=False)
    return all_ok


PROFILER_TOOLS = ("perf", "inferno-collapse-perf", "inferno-flamegraph")
"""What --profile runs besides async-profiler's library (perf + inferno: docs/profiling.md)."""


def build_profilers() -> bool:
    """perf, inferno (a crate: a minute or two of cargo) and async-profiler's library, which a
    first --profile would otherwise fetch or build inside its run (`build --profilers`)."""
    problems = {name: tools.ensure(name, _say) for name in PROFILER_TOOLS}
    problems["async-profiler"] = async_profiler.ensure_library()
    for name, problem in problems.items():
        if problem:
            ui.out.print(f"[red]{name}[/]: {problem}", highlight=False)
        else:
            ui.out.print(f"[green]{name}[/]: ready", highlight=False)
    return not any(problems.values())
