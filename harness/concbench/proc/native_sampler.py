"""The C sampler (harness/sampler/cbsample.c), compiled on first use into the cache.

It writes one line per tick to a file that is read once the run is over, so sampling costs
no Python wake-ups at all; marks are still read on the spot by a Python probe. The file has
no name (O_TMPFILE): the sampler opens it through /proc/<harness>/fd/<n>, so a harness killed
mid-run leaves nothing behind in /tmp.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from concbench import paths
from concbench.proc.c_build import compiled
from concbench.proc.sampler import CLOCK_TICKS, Sample, TreeSampler

SOURCE = paths.REPO_ROOT / "harness" / "sampler" / "cbsample.c"


def binary() -> Path | None:
    """The compiled sampler, built when missing or older than its source; None without cc."""
    return compiled(SOURCE, "cbsample")


class NativeSampler:
    """Same interface as TreeSampler: start, stop, snapshot, samples and peaks."""

    kind = "native"

    def __init__(self, exe: Path, root_pid: int, started: float, interval_s: float = 0.01,
                 rss_limit: int | None = None, tmp_dir: Path | None = None):
        self._exe = exe
        self._root = root_pid
        self._t0 = started
        self._interval_us = int(interval_s * 1e6)
        self._rss_limit = rss_limit
        self._tmp_dir = tmp_dir
        """The run's own temporary directory, which the sampler removes if the harness dies."""
        self._probe = TreeSampler(root_pid, started)  # never started: reads on demand
        self._out = tempfile.TemporaryFile(mode="w+b")  # unnamed: gone with its last fd
        self._proc: subprocess.Popen | None = None
        self._offset = 0.0
        self.samples: list[Sample] = []
        self.peak_rss = self.peak_threads = self.root_hwm = self.final_threads = 0
        self.cpu_cost_s = 0.0
        self.limit_hit = False

    def start(self) -> None:
        out_path = f"/proc/{os.getpid()}/fd/{self._out.fileno()}"
        argv = [str(self._exe), str(self._root), str(self._interval_us), out_path]
        if self._rss_limit or self._tmp_dir:
            argv.append(str(self._rss_limit or 0))
        if self._tmp_dir:
            argv.append(str(self._tmp_dir))
        self._offset = time.perf_counter() - self._t0
        # close_fds=False lets Python use posix_spawn (vfork): forking this ~100 MB process
        # would delay the first sample; the harness's own pipes are close-on-exec anyway.
        self._proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, close_fds=False)

    def snapshot(self) -> Sample | None:
        return self._probe.snapshot()

    def stop(self) -> None:
        self._probe.stop()
        if self._proc is None:
            return
        try:  # not poll(): it would reap the sampler and lose its rusage
            os.kill(self._proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        _, _, usage = os.wait4(self._proc.pid, 0)
        self._proc.returncode = 0
        self.cpu_cost_s = usage.ru_utime + usage.ru_stime
        self._out.seek(0)
        self._parse(self._out.read().decode())
        self._out.close()

    def _parse(self, text: str) -> None:
        for line in text.splitlines():
            if line == "limit":
                self.limit_hit = True
                continue
            t_us, rss, threads, ticks, hwm_kb = (int(x) for x in line.split())
            self.samples.append(Sample(self._offset + t_us / 1e6, rss, threads,
                                       ticks / CLOCK_TICKS))
            self.peak_rss = max(self.peak_rss, rss)
            self.peak_threads = max(self.peak_threads, threads)
            self.root_hwm = max(self.root_hwm, hwm_kb * 1024)
            if rss > 0:
                self.final_threads = threads


def make_sampler(exe: Path | None, root_pid: int, started: float, rss_limit: int | None,
                 tmp_dir: Path | None = None):
    """The native sampler when it could be built here (exe from binary()), else Python's;
    `tmp_dir`: the run's own temporary directory, which the native one, as the contender's
    guardian, removes if the harness dies (Python's, a thread of the harness, dies with it)."""
    if exe is not None:
        return NativeSampler(exe, root_pid, started, rss_limit=rss_limit, tmp_dir=tmp_dir)
    return TreeSampler(root_pid, started, rss_limit=rss_limit)
