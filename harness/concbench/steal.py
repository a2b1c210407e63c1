"""CPU time the hypervisor withheld while a run ran ("steal", the 8th field of /proc/stat's
cpu line): on a virtual machine whose host is busy, every figure moves with it, and the run
itself cannot tell. Read for the whole machine, before and after each run (two small reads)."""

from __future__ import annotations

from pathlib import Path

PROC_STAT = Path("/proc/stat")
LIMIT = 2.0
"""Percent of the machine's CPU time stolen during a run above which it is warned about: on a
quiet host it stays near 0.2 %; at a few percent the vCPUs also share caches and cores with
the neighbours that take it, and channel's figures were seen 1.5-2x slower."""
STEAL_FIELD = 7
"""Index of steal among the cpu line's numbers (user nice system idle iowait irq softirq steal)."""


def cpu_fields(path: Path = PROC_STAT) -> list[int]:
    """The jiffies of all CPUs on /proc/stat's first line (empty when it cannot be read)."""
    try:
        first = path.read_text().split("\n", 1)[0].split()
    except OSError:
        return []
    return [int(x) for x in first[1:]] if first and first[0] == "cpu" else []


def cpu_jiffies(path: Path = PROC_STAT) -> tuple[int, int] | None:
    """(steal, total) jiffies of all CPUs; None where the kernel does not report steal.
    (guest time, the fields after steal, is already counted in user and nice.)"""
    fields = cpu_fields(path)
    if len(fields) <= STEAL_FIELD:
        return None
    return fields[STEAL_FIELD], sum(fields[:STEAL_FIELD + 1])


def steal_percent(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """Share of all CPUs' time that was stolen between two readings, in percent."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return 100.0 * (after[0] - before[0]) / (after[1] - before[1])
