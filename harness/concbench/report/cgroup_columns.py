"""The columns of a cell run under --cpus / --memory (docs/containers.md), for the tables of
every view (terminal, Markdown, HTML) and the CSV: the limits written into its cgroups, the
throttling per unit of work, the cgroup's peak memory, the kernel's OOM kills and what the
runtime saw. A table gets them only when some cell of it ran under limits.

The figures come from the runs' `cgroup` records and the cell's `cgroup_*` stats
(concbench.stats.cgroup_cell); like every other figure, the throttling and the peak are those
of the ok runs, shown only for a cell with figures. The OOM kills are counted over every run:
they are what ended the failed ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from concbench.report import runtime_saw, units
from concbench.resultset.model import CellResult

HEADERS = ("limits", "throttled (periods)", "cgroup peak", "OOM kills",
           "runtime saw")


def applies(cells: list[CellResult] | tuple[CellResult, ...]) -> bool:
    """Whether any of the cells ran under limits (then its table gets the columns)."""
    return any(limits(c) != (None, None) for c in cells)


def limits(cell: CellResult) -> tuple[float | None, int | None]:
    """(CPUs, memory bytes): what the runs' cgroups were given, else what the plan asked
    (a cell that never ran), else (None, None)."""
    for run in cell.runs:
        if run.cgroup:
            return run.cgroup.get("cpus"), run.cgroup.get("memory_limit_bytes")
    asked = cell.metadata.get("limits") or {}
    return asked.get("cpus"), asked.get("memory_bytes")


@dataclass(frozen=True)
class OomCount:
    kills: int
    """The kernel's oom_kill events in the runs' cgroups, summed over the runs."""
    ended: int
    """Runs that ended mem-limit with OOM kills counted: the kernel ended them."""
    runs: int
    """Runs that had a cgroup."""


def oom(cell: CellResult) -> OomCount:
    found = [(r.status, ((r.cgroup or {}).get("memory") or {}).get("oom_kills") or 0)
             for r in cell.runs if r.cgroup]
    return OomCount(sum(k for _, k in found),
                    sum(1 for s, k in found if s == "mem-limit" and k > 0), len(found))


def _median(cell: CellResult, key: str) -> float | None:
    s = cell.stats.get(key)
    return s.median if s else None


def nanoseconds(v: float | None) -> str:
    if v is None:
        return "—"
    if v < 1000:
        return f"{v:.0f} ns"
    return f"{v / 1e3:.1f} µs" if v < 1e6 else units.seconds(v / 1e9)


def _limits_text(cell: CellResult) -> str:
    cpus, memory = limits(cell)
    parts = ([f"{cpus:g} CPU"] if cpus is not None else []) + \
        ([units.size(memory)] if memory is not None else [])
    return ", ".join(parts) or "none"


def _throttled(cell: CellResult, unit: str) -> str:
    """Per unit of work and the share of periods throttled; a whole run's throttled time when
    no stretch measured per unit (one iteration: the first holds the start-up)."""
    if limits(cell)[0] is None:
        return "—"
    per_unit = _median(cell, "cgroup_throttled_ns_per_unit")
    share = _median(cell, "cgroup_throttled_percent")
    if per_unit is not None:
        periods = f" ({share:.0f}%)" if share is not None else ""
        return f"{nanoseconds(per_unit)}/{unit.rstrip('s') or 'unit'}{periods}"
    whole = _median(cell, "cgroup_throttled_s")
    if whole is None:
        return "—"
    return f"{units.seconds(whole) if whole else '0 s'} per run"


def _oom_text(cell: CellResult) -> str:
    found = oom(cell)
    if not found.runs:
        return "—"
    if not found.kills:
        return "0"
    return f"{found.kills} ({found.ended} of {found.runs} runs mem-limit)"


def row(cell: CellResult) -> tuple[str, ...]:
    """The HEADERS' values of one cell."""
    unit = str(cell.metadata.get("throughput_unit") or "")
    peak = units.size(_median(cell, "cgroup_peak_bytes")) if cell.stats else "—"
    return (_limits_text(cell), _throttled(cell, unit), peak, _oom_text(cell),
            runtime_saw.text(cell))
