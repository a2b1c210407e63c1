"""What a process tree did during the measured load window, read from /proc.

CPU comes from the tree's cumulative user + system time at both ends of the window, read
from each process's CPU-time clock in nanoseconds (proc.tree.exact_cpu_s; it includes the
process's exited threads). Context switches are summed over every thread's
/proc/<pid>/task/<tid>/status at both ends (the process-level status holds only the main
thread's counts; threads that exit inside the window take theirs with them, so these are a
floor). Open file descriptors are counted every 200 ms; RSS and threads come from the
sampler's samples inside the window.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from dataclasses import dataclass
from typing import Any, Sequence

from concbench.proc import tree as proc_tree
from concbench.proc.jit_threads import tree_thread_files
from concbench.proc.sampler import Sample

FD_POLL_S = 0.2


def tree_pids(pid: int) -> list[int]:
    return proc_tree.tree(pid)


def tree_cpu_s(pid: int) -> float:
    return sum(proc_tree.exact_cpu_s(p) for p in proc_tree.tree(pid))


def tree_ctx_switches(pid: int) -> tuple[int, int]:
    """(voluntary, involuntary) summed over every thread of the tree."""
    vol = invol = 0
    for text in tree_thread_files(pid, "status"):
        for line in text.splitlines():
            if line.startswith(b"voluntary_ctxt_switches:"):
                vol += int(line.split()[1])
            elif line.startswith(b"nonvoluntary_ctxt_switches:"):
                invol += int(line.split()[1])
    return vol, invol


def tree_fds(pids: Sequence[int]) -> int:
    total = 0
    for pid in pids:
        try:
            total += len(os.listdir(f"/proc/{pid}/fd"))
        except OSError:
            pass
    return total


@dataclass(frozen=True)
class WindowMeasures:
    """One process tree over the measured window."""

    window_s: float
    cpu_s: float
    cpu_percent: float | None
    """cpu_s ÷ window ÷ the CPUs it was given × 100 (100 = all its CPUs busy)."""
    ctx_voluntary: int
    ctx_involuntary: int
    peak_fds: int
    peak_rss_bytes: int | None
    mean_rss_bytes: float | None
    peak_threads: int | None
    mean_threads: float | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Window:
    """Begin and end the measured window of one process tree."""

    def __init__(self, pid: int, started: float, cpus: tuple[int, ...]):
        self._pid = pid
        self._started = started
        self._ncpus = len(cpus) or os.cpu_count() or 1
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None
        self.peak_fds = 0
        self.t0 = self.t1 = 0.0
        self._cpu0 = self._cpu1 = 0.0
        self._ctx0 = self._ctx1 = (0, 0)

    def begin(self) -> None:
        self._ctx0 = tree_ctx_switches(self._pid)
        self._cpu0 = tree_cpu_s(self._pid)
        self.t0 = time.perf_counter() - self._started
        self._poller = threading.Thread(target=self._poll_fds, daemon=True)
        self._poller.start()

    def _poll_fds(self) -> None:
        pids = tree_pids(self._pid)
        while not self._stop.is_set():
            self.peak_fds = max(self.peak_fds, tree_fds(pids))
            self._stop.wait(FD_POLL_S)

    def end(self) -> None:
        self.t1 = time.perf_counter() - self._started
        self._cpu1 = tree_cpu_s(self._pid)
        self._ctx1 = tree_ctx_switches(self._pid)
        self._stop.set()
        if self._poller is not None:
            self._poller.join()

    def measures(self, samples: Sequence[Sample]) -> WindowMeasures:
        inside = [s for s in samples if self.t0 <= s.t_s <= self.t1 and s.rss_bytes > 0]
        span = self.t1 - self.t0
        cpu = max(0.0, self._cpu1 - self._cpu0)
        return WindowMeasures(
            window_s=span, cpu_s=cpu,
            cpu_percent=100.0 * cpu / span / self._ncpus if span > 0 else None,
            ctx_voluntary=max(0, self._ctx1[0] - self._ctx0[0]),
            ctx_involuntary=max(0, self._ctx1[1] - self._ctx0[1]),
            peak_fds=self.peak_fds,
            peak_rss_bytes=max((s.rss_bytes for s in inside), default=None),
            mean_rss_bytes=statistics.fmean(s.rss_bytes for s in inside) if inside else None,
            peak_threads=max((s.threads for s in inside), default=None),
            mean_threads=statistics.fmean(s.threads for s in inside) if inside else None)
