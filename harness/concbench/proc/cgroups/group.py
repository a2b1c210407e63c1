"""One run's cgroup: made before the contender starts, the contender placed in it before it
executes anything, read when it has ended, then emptied and removed.

Placement: the child writes "0" (itself) into each hierarchy's cgroup.procs between fork and
exec (`enter`, given to Popen as preexec_fn), so the runtime's first instruction already runs
under the quota and reads its own cgroup's limits (the JVM, Go ≥ 1.25, Tokio and the BEAM size
themselves from them at start). Moving the process after it has started would let the runtime
size itself from the host first; a wrapper that enters the cgroup and execs the runtime would
leave a second program in the measured process's place, which the contract forbids. `enter`
runs between fork and exec in a threaded parent, so it only makes system calls on paths
prepared beforehand (no imports, no locks).

Name: concbench-<harness pid>-<run cookie>, in the harness's own cgroup of each v1 hierarchy
(nested, so whatever limits the harness itself runs under still apply), or on v2 in its own
cgroup when controllers can be enabled below it, else at the hierarchy's root.
"""

from __future__ import annotations

import atexit
import errno
import os
import signal
import time
from pathlib import Path

from concbench.proc.cgroups.layout import Hierarchy, Layout
from concbench.proc.cgroups.limits import PERIOD_US, Limits
from concbench.proc.cgroups.stats import CgroupRecord, CpuCounters, cpu_counters, memory_counters

PREFIX = "concbench-"
EMPTY_WITHIN_S = 5.0


class CgroupError(Exception):
    """A cgroup could not be made, limited or removed (the message says which and why)."""


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as err:
        raise CgroupError(f"cannot write {text.strip()!r} to {path}: "
                          f"{err.strerror or err}") from None


def _enable_controllers(folder: Path) -> bool:
    """Let the children of a v2 cgroup have cpu and memory files; False if the kernel
    refuses (a cgroup holding processes, other than the root, cannot delegate)."""
    try:
        (folder / "cgroup.subtree_control").write_text("+cpu +memory")
        return True
    except OSError:
        return False


def base_folder(h: Hierarchy) -> Path:
    """Where a run's cgroup goes in this hierarchy (see the module's docstring)."""
    if h.version == 1:
        return h.own
    if h.own != h.mount and _enable_controllers(h.own):
        return h.own
    if not _enable_controllers(h.mount):
        raise CgroupError(f"cannot enable the cpu and memory controllers in "
                          f"{h.mount / 'cgroup.subtree_control'}")
    return h.mount


def _limit(h: Hierarchy, folder: Path, limits: Limits) -> None:
    quota = limits.quota_us
    if "cpu" in h.controllers and quota is not None:
        if h.version == 2:
            _write(folder / "cpu.max", f"{quota} {PERIOD_US}")
        else:
            _write(folder / "cpu.cfs_period_us", str(PERIOD_US))
            _write(folder / "cpu.cfs_quota_us", str(quota))
    if "memory" in h.controllers and limits.memory is not None:
        if h.version == 2:
            _write(folder / "memory.max", str(limits.memory))
            if (folder / "memory.swap.max").exists():  # no swap, as Kubernetes runs
                _write(folder / "memory.swap.max", "0")
        else:
            _write(folder / "memory.limit_in_bytes", str(limits.memory))
            if (folder / "memory.memsw.limit_in_bytes").exists():
                _write(folder / "memory.memsw.limit_in_bytes", str(limits.memory))


def procs(folder: Path) -> list[int]:
    try:
        return [int(p) for p in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def empty_and_remove(folder: Path, within_s: float = EMPTY_WITHIN_S) -> None:
    """SIGKILL whatever is still in the cgroup, wait until it is empty, remove it."""
    deadline = time.monotonic() + within_s
    while True:
        for pid in procs(folder):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as err:
            if err.errno != errno.EBUSY or time.monotonic() > deadline:
                raise CgroupError(f"cannot remove cgroup {folder}: "
                                  f"{err.strerror or err}") from None
        time.sleep(0.02)


_LIVE: dict[int, "Cgroup"] = {}
"""Cgroups made by this process and not yet removed: removed at exit whatever the path."""


@atexit.register
def _remove_live() -> None:
    for group in list(_LIVE.values()):
        try:
            group.remove()
        except CgroupError:
            pass


class Cgroup:
    """A run's cgroup in every hierarchy of the layout."""

    def __init__(self, layout: Layout, limits: Limits, cookie: str):
        self.layout, self.limits = layout, limits
        name = f"{PREFIX}{os.getpid()}-{cookie}"
        self.folders: list[tuple[Hierarchy, Path]] = []
        try:
            for h in layout.hierarchies:
                folder = base_folder(h) / name
                folder.mkdir()
                self.folders.append((h, folder))
                _limit(h, folder, limits)
        except OSError as err:
            self.remove()
            raise CgroupError(f"cannot make cgroup {name}: {err.strerror or err}") from None
        except CgroupError:
            self.remove()
            raise
        self._procs_files = [str(f / "cgroup.procs").encode() for _, f in self.folders]
        self._cpu_at_window: CpuCounters | None = None
        self.window_cpu: CpuCounters | None = None
        self.at_iterations: list[CpuCounters | None] = []
        """The cpu counters when each iteration line arrived (proc.process)."""
        self._record: CgroupRecord | None = None
        _LIVE[id(self)] = self

    def enter(self) -> None:
        """In the child between fork and exec: move this process into the cgroup."""
        for path in self._procs_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def holds(self, pid: int) -> bool:
        """Whether the process is in this cgroup in every hierarchy (checked after start)."""
        return all(pid in procs(folder) for _, folder in self.folders)

    def _cpu_folder(self) -> tuple[Hierarchy, Path] | None:
        return next(((h, f) for h, f in self.folders if "cpu" in h.controllers), None)

    def cpu_now(self) -> CpuCounters | None:
        found = self._cpu_folder()
        return cpu_counters(found[1], found[0].version) if found else None

    def mark_iteration(self) -> None:
        self.at_iterations.append(self.cpu_now())

    def begin_window(self) -> None:
        self._cpu_at_window = self.cpu_now()

    def end_window(self) -> None:
        now = self.cpu_now()
        if now is not None and self._cpu_at_window is not None:
            self.window_cpu = now.since(self._cpu_at_window)

    def record(self) -> CgroupRecord:
        """The limits and the counters as they stand (read once, at release, for the run)."""
        if self._record is not None:
            return self._record
        cpu = self._cpu_folder()
        memory = next(((h, f) for h, f in self.folders if "memory" in h.controllers), None)
        return CgroupRecord(
            version=self.layout.version, paths=tuple(str(f) for _, f in self.folders),
            cpus=self.limits.cpus, period_us=PERIOD_US if self.limits.cpus else None,
            quota_us=self.limits.quota_us, memory_limit_bytes=self.limits.memory,
            cpu=cpu_counters(cpu[1], cpu[0].version) if cpu else None,
            memory=memory_counters(memory[1], memory[0].version) if memory else None,
            window_cpu=self.window_cpu, at_iterations=tuple(self.at_iterations))

    def release(self) -> CgroupRecord:
        """Read the counters, then empty and remove the cgroup (idempotent)."""
        if self._record is None:
            self._record = self.record()
        self.remove()
        return self._record

    def remove(self) -> None:
        problems = []
        for _, folder in reversed(self.folders):
            try:
                empty_and_remove(folder)
            except CgroupError as err:
                problems.append(str(err))
        self.folders = [(h, f) for h, f in self.folders if f.exists()]
        if not self.folders:
            _LIVE.pop(id(self), None)
        if problems:
            raise CgroupError("; ".join(problems))
