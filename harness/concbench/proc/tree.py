"""A process and its descendants, read from /proc with the standard library only (so the
remote agent needs no third-party package): one scan of /proc/<pid>/stat for parent ids, as
psutil's children(recursive=True) does."""

from __future__ import annotations

import os
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[bytes] | None:
    """The fields after the command name of /proc/<pid>/stat (state is [0], ppid [1])."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return raw[raw.rindex(b")") + 2:].split()


def _process_cpu_clock(pid: int) -> int:
    """The id of the kernel's CPU-time clock of a whole process, as clock_getcpuclockid(3)
    makes it: CPUCLOCK_SCHED (2) of the thread group, every thread's runtime in ns, exited
    threads included."""
    return (~pid << 3) | 2


def exact_cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process from its CPU-time clock (nanoseconds), or
    from /proc's utime + stime (clock ticks, 10 ms) where that clock cannot be read; 0 when
    the process is gone."""
    try:
        return time.clock_gettime(_process_cpu_clock(pid))
    except OSError:
        return cpu_s(pid)


def descendants(pid: int) -> list[int]:
    """Every live descendant of pid (children, their children, …), not pid itself."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = _stat_fields(int(name))
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = [], [pid]
    while todo:
        for kid in children.get(todo.pop(), ()):
            found.append(kid)
            todo.append(kid)
    return found


def tree(pid: int) -> list[int]:
    """pid and its descendants, or [] when pid is gone."""
    return [pid, *descendants(pid)] if os.path.exists(f"/proc/{pid}") else []


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process (0 when it is gone)."""
    fields = _stat_fields(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime: proc(5) 14, 15
