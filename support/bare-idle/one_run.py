"""One run of a bare program: RSS at its `spawned` mark (read as the harness reads a mark),
RSS once it has gone idle, and the kernel's peak RSS from wait4."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field

from runtimes import HERE, Runtime

from concbench.proc.sampler import TreeSampler, own_hwm  # the harness's own code

IDLE_WINDOW_S = 0.5
IDLE_MAX_CPU_S = 0.011  # at most one clock tick (10 ms) of CPU in the window
POLL_S = 0.05
KILL_AFTER_HOLD_S = 240


@dataclass
class Run:
    runtime: str
    n: int
    ok: bool = False
    problem: str | None = None
    mark_s: float | None = None
    mark_rss: int | None = None
    settled_s: float | None = None
    settled_rss: int | None = None
    peak_rss: int | None = None
    wall_s: float | None = None
    notes: list[str] = field(default_factory=list)


def stat_of(pid: int) -> tuple[int, float] | None:
    """(rss bytes, cpu seconds) of one process from /proc/<pid>/stat."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    fields = raw[raw.rindex(b")") + 2:].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[21]) * os.sysconf("SC_PAGE_SIZE"), (int(fields[11]) + int(fields[12])) / ticks


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Reaper(threading.Thread):
    """Waits for the process with wait4, for its status, rusage and end time."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid = pid
        self.status = 0
        self.rusage = None
        self.ended = 0.0

    def run(self) -> None:
        _, self.status, self.rusage = os.wait4(self.pid, 0)
        self.ended = time.perf_counter()


def _settle(out: Run, rt: Runtime, pid: int, t0: float, reaper: _Reaper) -> None:
    """Poll until the process has gone idle (its CPU still for IDLE_WINDOW_S) or until the
    first task could end, whichever comes first."""
    deadline = (out.mark_s if rt.lazy_start else 0.0) + rt.hold_ms / 1000 - 0.5
    history: list[tuple[float, float, int]] = []
    while reaper.is_alive():
        now = time.perf_counter() - t0
        if now > deadline:
            out.problem = "not idle before the first task could end"
            return
        s = stat_of(pid)
        if s is None:
            return
        history.append((now, s[1], s[0]))
        old = [h for h in history if now - h[0] >= IDLE_WINDOW_S]
        if old and s[1] - old[-1][1] <= IDLE_MAX_CPU_S:
            out.settled_s, out.settled_rss = now, s[0]
            return
        time.sleep(POLL_S)


def _watch(out: Run, rt: Runtime, proc: subprocess.Popen, t0: float, reaper: _Reaper) -> None:
    """The mark, then the settling; the process's output drained until it closes it."""
    probe = TreeSampler(proc.pid, t0)  # never started: reads on demand, as the harness's probe
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.strip() == b"spawned":
        snap = probe.snapshot()  # the moment the line arrives, as the harness's mark
        out.mark_s = time.perf_counter() - t0
        out.mark_rss = snap.rss_bytes if snap else None
        _settle(out, rt, proc.pid, t0, reaper)
    else:
        out.problem = f"first stdout line {line[:80]!r}, not 'spawned'"
    probe.stop()
    proc.stdout.read()
    reaper.join()


def _conclude(out: Run, rt: Runtime, reaper: _Reaper, t0: float, err) -> None:
    out.wall_s = reaper.ended - t0
    st = reaper.status
    if not (os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0):
        err.seek(0)
        tail = err.read().decode(errors="replace").strip().splitlines()[-3:]
        out.problem = out.problem or f"exit status {st}: {' | '.join(tail)}"
    peak = reaper.rusage.ru_maxrss * 1024
    if peak <= own_hwm():  # inherited from this process across fork+exec: tells nothing
        out.notes.append("ru_maxrss not above the runner's own VmHWM")
    else:
        out.peak_rss = peak
    if out.mark_s is not None and not rt.lazy_start and out.mark_s > rt.hold_ms / 1000:
        out.problem = out.problem or f"spawned after {out.mark_s:.1f} s > hold"
    out.ok = out.problem is None and out.mark_rss is not None and out.settled_rss is not None


def run_once(rt: Runtime, n: int) -> Run:
    out = Run(rt.name, n)
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        try:
            proc = subprocess.Popen(rt.argv(n, rt.hold_ms), cwd=HERE, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=err, start_new_session=True)
        except OSError as e:
            out.problem = f"cannot start: {e}"
            return out
        reaper = _Reaper(proc.pid)
        reaper.start()
        killer = threading.Timer(rt.hold_ms / 1000 + KILL_AFTER_HOLD_S,
                                 lambda: _killpg(proc.pid))
        killer.start()
        try:
            _watch(out, rt, proc, t0, reaper)
        finally:
            killer.cancel()
            _killpg(proc.pid)  # sweep the group: nothing outlives a run
            proc.returncode = 0  # reaped by wait4 above
            if proc.stdout:
                proc.stdout.close()
        _conclude(out, rt, reaper, t0, err)
    return out
