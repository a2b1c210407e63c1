"""A run the kernel's OOM killer ended inside its cgroup: status mem-limit, with the cgroup's
own count of kills, apart from the harness's RSS watchdog (--mem-limit), whose reason names
the RSS it saw."""

from __future__ import annotations

from concbench.proc.cgroups.limits import memory_text
from concbench.proc.cgroups.stats import CgroupRecord


def _mib(size: int | None) -> str:
    return "unknown" if size is None else f"{size / 2**20:.0f} MiB"


def oom_failure(record: CgroupRecord | None, status: str) -> tuple[str, str] | None:
    """(mem-limit, reason) for a failed run whose cgroup counted OOM kills; else None."""
    if record is None or not record.oom_killed or status == "ok" or record.memory is None:
        return None
    limit = memory_text(record.memory_limit_bytes) if record.memory_limit_bytes else "none"
    return "mem-limit", (f"the kernel's OOM killer ended {record.memory.oom_kills} "
                         f"process(es) in the run's cgroup (memory limit {limit}, cgroup peak "
                         f"{_mib(record.memory.peak_bytes)})")


def oom_warning(record: CgroupRecord | None) -> str | None:
    """A run that ended well although the OOM killer took a process of its cgroup."""
    if record is None or not record.oom_killed or record.memory is None:
        return None
    return (f"the kernel's OOM killer ended {record.memory.oom_kills} process(es) in the "
            "run's cgroup, yet the run completed (a child process, not the runtime)")
