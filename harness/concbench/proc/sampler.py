"""Samples RSS, threads and CPU of a process tree from /proc every 10 ms.

This is the portable Python sampler; proc/native_sampler.py drives the C one (cheaper per
tick on a VM) and falls back to this one when no C compiler is at hand. Cheap by construction: one pread of /proc/<pid>/stat per process per tick on a descriptor
opened once (that file holds rss, num_threads, utime and stime), and the tree's membership
refreshed once a second. The thread's own CPU time is recorded so its cost can be reported.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from concbench.proc import tree as proc_tree

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
TREE_REFRESH_S = 1.0
EARLY_REFRESHES_S = (0.05, 0.2, 0.5)
"""Tree membership is re-read often in the first second, when a contender's children (a
launcher's JVM, a pool of workers) appear, then every TREE_REFRESH_S."""


def next_refresh_after(now: float) -> float:
    return next((t for t in EARLY_REFRESHES_S if t > now), now + TREE_REFRESH_S)


@dataclass(frozen=True)
class Sample:
    """The whole process tree at one moment."""

    t_s: float
    """Seconds since the process was spawned."""
    rss_bytes: int
    """Sum of the resident set sizes of the tree's processes."""
    threads: int
    """Sum of the tree's thread counts."""
    cpu_s: float
    """User + system CPU seconds the live tree has used so far."""


def read_hwm(fd: int) -> int:
    """VmHWM (peak RSS of the current program image, bytes) from an open /proc/<pid>/status."""
    raw = os.pread(fd, 8192, 0)
    at = raw.index(b"VmHWM:")
    return int(raw[at + 6:raw.index(b"kB", at)]) * 1024


def own_hwm() -> int:
    """This process's own VmHWM: the floor under which a child's ru_maxrss tells nothing."""
    fd = os.open("/proc/self/status", os.O_RDONLY)
    try:
        return read_hwm(fd)
    finally:
        os.close(fd)


def read_stat(fd: int) -> tuple[int, int, float]:
    """(rss bytes, threads, cpu seconds) from an open /proc/<pid>/stat descriptor."""
    raw = os.pread(fd, 4096, 0)
    fields = raw[raw.rindex(b")") + 2:].split()
    # fields[0] is field 3 (state) of proc(5): utime=14, stime=15, num_threads=20, rss=24
    cpu = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return int(fields[21]) * PAGE_SIZE, int(fields[17]), cpu


class TreeSampler(threading.Thread):
    """Polls a process tree until stopped; keeps every sample and the peaks."""

    kind = "python"

    def __init__(self, root_pid: int, started: float, interval_s: float = 0.01,
                 rss_limit: int | None = None):
        super().__init__(name=f"sampler-{root_pid}", daemon=True)
        self._root = root_pid
        self._t0 = started
        self._interval = interval_s
        self._rss_limit = rss_limit
        self.limit_hit = False
        self._stop_event = threading.Event()
        self._lock = threading.Lock()
        self._fds: dict[int, int] = {}
        self._status_fd: int | None = None
        self.root_hwm = 0
        """Last VmHWM read of the root process: its own peak RSS, immune to fork effects."""
        self.samples: list[Sample] = []
        self.peak_rss = 0
        self.peak_threads = 0
        self.cpu_cost_s = 0.0
        self._open(root_pid)
        try:
            self._status_fd = os.open(f"/proc/{root_pid}/status", os.O_RDONLY)
        except OSError:
            pass

    def _open(self, pid: int) -> None:
        try:
            self._fds[pid] = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        except OSError:
            pass

    def _refresh_tree(self) -> None:
        for kid in proc_tree.descendants(self._root):
            if kid not in self._fds:
                self._open(kid)

    def snapshot(self) -> Sample | None:
        """Read the tree now (also used for marks); None once every process is gone."""
        with self._lock:
            rss = threads = 0
            cpu = 0.0
            for pid, fd in list(self._fds.items()):
                try:
                    r, t, c = read_stat(fd)
                except (OSError, ValueError, IndexError):
                    os.close(self._fds.pop(pid))
                    continue
                rss, threads, cpu = rss + r, threads + t, cpu + c
            if not self._fds:
                return None
            if self._status_fd is not None:
                try:
                    self.root_hwm = max(self.root_hwm, read_hwm(self._status_fd))
                except (OSError, ValueError):  # exited: VmHWM is gone with the image
                    pass
            sample = Sample(time.perf_counter() - self._t0, rss, threads, cpu)
            self.samples.append(sample)
            self.peak_rss = max(self.peak_rss, rss)
            self.peak_threads = max(self.peak_threads, threads)
        if self._rss_limit is not None and rss > self._rss_limit and not self.limit_hit:
            self.limit_hit = True
            try:
                os.killpg(self._root, signal.SIGKILL)  # the root leads its own group
            except OSError:
                pass
        return sample

    def run(self) -> None:
        tick = 0
        next_refresh = 0.0
        while not self._stop_event.is_set():
            now = time.perf_counter() - self._t0
            if now >= next_refresh:
                self._refresh_tree()
                next_refresh = next_refresh_after(now)
            if self.snapshot() is None:
                break
            tick += 1
            delay = self._t0 + tick * self._interval - time.perf_counter()
            if delay < 0:  # fell behind (a slow read): skip ticks rather than burst
                tick += int(-delay / self._interval) + 1
                delay = self._t0 + tick * self._interval - time.perf_counter()
            time.sleep(max(delay, 0.0))  # cheaper per wake-up than Event.wait; stop within a tick
        self.cpu_cost_s = time.thread_time()

    def stop(self) -> None:
        self._stop_event.set()
        if self.is_alive():
            self.join()
        with self._lock:
            for fd in self._fds.values():
                os.close(fd)
            self._fds.clear()
            if self._status_fd is not None:
                os.close(self._status_fd)
                self._status_fd = None

    @property
    def final_threads(self) -> int:
        """Threads in the last sample taken while the process was still running."""
        live = [s for s in self.samples if s.rss_bytes > 0]  # a zombie has no RSS
        return live[-1].threads if live else 0


def write_samples(samples: list[Sample], path: Path | None) -> str | None:
    """The sampled time series as CSV; its path relative to the run folder (None: none)."""
    if path is None or not samples:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = ["t_s,rss_bytes,threads,cpu_s"]
    rows += [f"{s.t_s:.4f},{s.rss_bytes},{s.threads},{s.cpu_s:.3f}" for s in samples]
    path.write_text("\n".join(rows) + "\n")
    return str(path.relative_to(path.parents[1]))
