"""A look at the machine before a plan, as pyperf's `system show` does: what could move the
figures (other load, frequency scaling, transparent huge pages, the environment the runtimes
read) is observed, recorded in results.json under machine.system_check, and warned about."""

from __future__ import annotations

import fnmatch
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

from concbench import steal, warnings

ENV_ALLOW = ("GO*", "TOKIO_*", "RUSTFLAGS", "CARGO_*", "MALLOC_*", "GLIBC_TUNABLES",
             "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "LD_PRELOAD",
             "UV_*", "NODE_OPTIONS", "ERL_*", "PYTHONASYNCIODEBUG")
"""Variables the contenders' runtimes read that change a figure; recorded, values as set.
(GO* also matches GOPATH and the like: harmless, and simpler than a list of every knob.)"""

BUSY_LIMIT = 10.0
"""Percent of the CPUs used by others in the probe second above which figures will move."""

SYS = Path("/sys")
PROC = Path("/proc")


@dataclass(frozen=True)
class SystemCheck:
    env: dict[str, str]
    transparent_hugepages: str | None
    """The selected mode of /sys/kernel/mm/transparent_hugepage/enabled (always, madvise, never)."""
    governors: dict[str, list[int]]
    """CPU frequency governor -> CPUs using it (empty where the kernel exposes none, as in VMs)."""
    loadavg: tuple[float, float, float]
    busy_percent: float
    """CPU time used by anything while concbench waited, as % of all usable CPUs."""
    cpus: int
    warnings: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def observed_env(environ: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in sorted(environ.items())
            if any(fnmatch.fnmatchcase(k, pattern) for pattern in ENV_ALLOW)}


def transparent_hugepages(sys_root: Path = SYS) -> str | None:
    """The bracketed choice of e.g. 'always [madvise] never'."""
    text = _read(sys_root / "kernel/mm/transparent_hugepage/enabled")
    if not text or "[" not in text:
        return None
    return text.split("[", 1)[1].split("]", 1)[0]


def governors(cpus: list[int], sys_root: Path = SYS) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for cpu in cpus:
        name = _read(sys_root / f"devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor")
        if name:
            found.setdefault(name, []).append(cpu)
    return found


def _cpu_jiffies(proc_root: Path) -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs from the first line of /proc/stat."""
    fields = steal.cpu_fields(proc_root / "stat")[:steal.STEAL_FIELD + 1] or [0, 0, 0, 0]
    idle = sum(fields[3:5])  # idle + iowait
    return sum(fields) - idle, sum(fields)


def busy_percent(seconds: float = 0.5, proc_root: Path = PROC) -> float:
    """Share of the machine's CPU time used while this process sleeps for `seconds`."""
    busy0, total0 = _cpu_jiffies(proc_root)
    time.sleep(seconds)
    busy1, total1 = _cpu_jiffies(proc_root)
    return 100.0 * (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0


def judge(busy: float, governor_map: dict[str, list[int]], cpus: int,
          has_servers: bool) -> tuple[str, ...]:
    """The closed set of system warnings (concbench.warnings), each saying what to do."""
    found = []
    if busy > BUSY_LIMIT:
        found.append(warnings.other_load(busy))
    slow = {g: c for g, c in governor_map.items() if g != "performance"}
    if slow:
        found.append(warnings.frequency_scaling(slow))
    if has_servers and cpus < 2:
        found.append(warnings.too_few_cpus_for_pinning(cpus))
    return tuple(found)


def check(has_servers: bool, environ: Mapping[str, str] = os.environ) -> SystemCheck:
    cpus = sorted(os.sched_getaffinity(0))
    busy = busy_percent()
    governor_map = governors(cpus)
    return SystemCheck(env=observed_env(environ), transparent_hugepages=transparent_hugepages(),
                       governors=governor_map, loadavg=os.getloadavg(), busy_percent=busy,
                       cpus=len(cpus), warnings=judge(busy, governor_map, len(cpus), has_servers))
