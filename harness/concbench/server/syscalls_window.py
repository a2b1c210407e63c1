"""The window in which perf stat counts a server's system calls (syscalls=true): just after
the measured window, as long, at the same load, so that no figure of the measured window (its
CPU per request above all) is taken with perf attached.

perf stat makes every system call of the threads it traces take the kernel's slow path, which
raises the CPU per request it is attached for (docs/servers.md gives the overhead measured).
Counts are divided by the responses of their own window; the context switches that /proc
gives for the measured window, by that window's responses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from concbench.server import syscall_counts
from concbench.server.process import ServerProcess
from concbench.server.syscall_counts import SyscallCounter, SyscallWindow


def wanted(params: dict[str, Any]) -> bool:
    return params.get(syscall_counts.PARAM) == "true"


@dataclass
class SyscallsEdges:
    """begin() / end() around the counting window (the edges a load runner calls)."""

    proc: ServerProcess
    params: dict[str, Any]
    counter: SyscallCounter | str | None = None
    counted: SyscallWindow | None = None

    def begin(self) -> None:
        self.counter = syscall_counts.begin(self.proc.pid, self.proc.where, self.params)

    def end(self) -> None:
        self.counted = syscall_counts.end(self.counter)


def record(counted: SyscallWindow | None, requests: int | None, seconds: float | None,
           ctx: tuple[int, int] | None, measured_requests: int | None
           ) -> dict[str, Any] | None:
    """The run's `server.syscalls`: the counts over their own window, per request of it, the
    measured window's context switches per request of that window, and which window."""
    if counted is None:
        return None
    found = counted.record(requests, ctx, measured_requests)
    found["window"] = {"after_measured": True, "seconds": seconds}
    return found
