"""Whether a process is still alive, as the tests that hunt for survivors ask it."""

from __future__ import annotations

import time
from typing import Iterable


def alive(pid: int) -> bool:
    """True while /proc/<pid> exists and the process is not a zombie (an exited child that
    nobody has reaped yet is gone for every purpose of these tests)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def all_gone(pids: Iterable[int], within_s: float = 5.0) -> bool:
    """Whether every one of the processes is gone within the time given (killing and
    reaping a tree takes a moment after the command that killed it returned)."""
    pids = list(pids)
    deadline = time.monotonic() + within_s
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(alive(p) for p in pids)
