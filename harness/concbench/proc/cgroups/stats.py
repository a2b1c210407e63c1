"""What a run's cgroup counted: CPU periods and throttling, peak memory, OOM kills.

v2: cpu.stat (nr_periods, nr_throttled, throttled_usec, usage_usec), memory.peak (kernel
5.19+; else none), memory.events (max: times the limit was hit, oom_kill: processes the OOM
killer ended). v1: cpu.stat (nr_periods, nr_throttled, throttled_time in ns),
memory.max_usage_in_bytes, memory.failcnt (times the limit was hit) and memory.oom_control's
oom_kill (kernel 4.13+).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


def keyed(text: str) -> dict[str, int]:
    """'name value' lines (cpu.stat, memory.events, memory.oom_control) as a dict."""
    found = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            found[parts[0]] = int(parts[1])
    return found


def read_text(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def read_int(path: Path) -> int | None:
    text = read_text(path)
    try:
        return int(text.split()[0]) if text else None
    except ValueError:
        return None


@dataclass(frozen=True)
class CpuCounters:
    """cpu.stat at one moment."""

    periods: int
    throttled_periods: int
    throttled_s: float
    usage_s: float | None
    """CPU the group used: v2's usage_usec, v1's cpuacct.usage when cpuacct is mounted with
    cpu (None on a v1 host that mounts cpuacct apart: the group is not in that hierarchy)."""

    def since(self, before: "CpuCounters") -> "CpuCounters":
        usage = None if self.usage_s is None or before.usage_s is None \
            else self.usage_s - before.usage_s
        return CpuCounters(self.periods - before.periods,
                           self.throttled_periods - before.throttled_periods,
                           self.throttled_s - before.throttled_s, usage)

    def to_dict(self) -> dict[str, Any]:
        return {"periods": self.periods, "throttled_periods": self.throttled_periods,
                "throttled_s": round(self.throttled_s, 6),
                "usage_s": None if self.usage_s is None else round(self.usage_s, 6)}


def cpu_counters(folder: Path, version: int) -> CpuCounters | None:
    text = read_text(folder / "cpu.stat")
    if text is None:
        return None
    stat = keyed(text)
    if version == 2:
        return CpuCounters(stat.get("nr_periods", 0), stat.get("nr_throttled", 0),
                           stat.get("throttled_usec", 0) / 1e6,
                           stat["usage_usec"] / 1e6 if "usage_usec" in stat else None)
    usage_ns = read_int(folder / "cpuacct.usage")  # v1 with cpu,cpuacct mounted together
    return CpuCounters(stat.get("nr_periods", 0), stat.get("nr_throttled", 0),
                       stat.get("throttled_time", 0) / 1e9,
                       None if usage_ns is None else usage_ns / 1e9)


@dataclass(frozen=True)
class MemoryCounters:
    peak_bytes: int | None
    """The group's highest charge (page cache included, as the limit counts it)."""
    limit_hits: int | None
    """Times the charge reached the limit (v2 memory.events max; v1 memory.failcnt, or
    memory.memsw.failcnt when memory + swap, limited alike, reached it first)."""
    oom_kills: int | None
    """Processes of the group the kernel's OOM killer ended (None: this kernel does not say)."""

    def to_dict(self) -> dict[str, Any]:
        return {"peak_bytes": self.peak_bytes, "limit_hits": self.limit_hits,
                "oom_kills": self.oom_kills}


def memory_counters(folder: Path, version: int) -> MemoryCounters | None:
    if version == 2:
        events = read_text(folder / "memory.events")
        if events is None:
            return None
        stat = keyed(events)
        return MemoryCounters(read_int(folder / "memory.peak"), stat.get("max"),
                              stat.get("oom_kill"))
    peak = read_int(folder / "memory.max_usage_in_bytes")
    if peak is None:
        return None
    oom = keyed(read_text(folder / "memory.oom_control") or "")
    hits = [read_int(folder / f) for f in ("memory.failcnt", "memory.memsw.failcnt")]
    return MemoryCounters(peak, max((h for h in hits if h is not None), default=None),
                          oom.get("oom_kill"))


@dataclass(frozen=True)
class CgroupRecord:
    """One run's cgroup: where, the limits written, and what it counted by the end."""

    version: int
    paths: tuple[str, ...]
    cpus: float | None
    period_us: int | None
    quota_us: int | None
    memory_limit_bytes: int | None
    cpu: CpuCounters | None
    memory: MemoryCounters | None
    window_cpu: CpuCounters | None = None
    """Server runs: the cpu counters over the measured load window alone."""
    problem: str | None = None
    """Why the cgroup could not be removed after the run (None: it was)."""
    at_iterations: tuple[CpuCounters | None, ...] = ()
    """Batch runs: the cpu counters as each iteration line arrived, so an iteration's own
    throttling is the difference of two (start-up and warm-up apart)."""

    @property
    def oom_killed(self) -> bool:
        return bool(self.memory and self.memory.oom_kills)

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.version, "paths": list(self.paths), "cpus": self.cpus,
                "period_us": self.period_us, "quota_us": self.quota_us,
                "memory_limit_bytes": self.memory_limit_bytes,
                "cpu": self.cpu.to_dict() if self.cpu else None,
                "memory": self.memory.to_dict() if self.memory else None,
                **({"window_cpu": self.window_cpu.to_dict()} if self.window_cpu else {}),
                **({"problem": self.problem} if self.problem else {}),
                **({"cpu_at_iterations": [c.to_dict() if c else None
                                          for c in self.at_iterations]}
                   if self.at_iterations else {})}
