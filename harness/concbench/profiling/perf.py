"""perf record (the software cpu-clock event: it works in VMs without hardware counters) on
one process and its threads, folded by inferno-collapse-perf and drawn by inferno-flamegraph.
Stacks are walked by frame pointers (`-g`): Go keeps them; Rust release builds and C without
them show shallower stacks, which the flame graph then says by its shape, not by an error."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

from concbench import tools
from concbench.proc.deathsig import dies_with_us
from concbench.profiling.base import ProfileError, summary

FREQUENCY_HZ = 499
"""Samples per second per CPU: odd, so it does not beat with 10 ms timers; ~0.5% overhead."""
STOP_TIMEOUT_S = 60


class PerfProfiler:
    name = "perf"

    def __init__(self, folder: Path, stem: str):
        self.folder, self.stem = folder, stem
        self.data = folder / f"{stem}.perf.data"
        self._proc: subprocess.Popen | None = None
        self._launched = False

    def missing(self) -> str | None:
        for tool in ("perf", "inferno-collapse-perf", "inferno-flamegraph"):
            problem = tools.ensure(tool)
            if problem:
                return problem
        return None

    def _record(self, *target: str) -> list[str]:
        self.folder.mkdir(parents=True, exist_ok=True)
        return [str(tools.path("perf")), "record", "-F", str(FREQUENCY_HZ), "-e", "cpu-clock",
                "-g", "-o", str(self.data), "--quiet", *target]

    def launch(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """For a batch run: perf starts the contender, so a run shorter than perf's own
        start-up is still sampled from its first instruction (attaching by pid missed it)."""
        self._launched = True
        return self._record("--", *argv), env

    def start(self, pid: int) -> None:
        argv = self._record("-p", str(pid))
        try:
            self._proc = subprocess.Popen(dies_with_us(argv), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        except OSError as err:
            raise ProfileError(f"cannot start perf: {err}") from None

    def stop(self) -> dict[str, Any]:
        """perf ends by itself when its process exits; else SIGINT makes it write its data."""
        err = self._wait() if not self._launched else ""
        if not self.data.exists() or self.data.stat().st_size == 0:
            raise ProfileError(f"perf wrote no data: {err[-300:] or '(perf printed nothing)'}")
        folded = self.folder / f"{self.stem}.cpu.folded"
        try:
            self._fold(folded)
        finally:
            self.data.unlink(missing_ok=True)  # tens of MB; the folded stacks hold the profile
        return summary(self.name, "cpu", folded, self.folder / f"{self.stem}.cpu.svg",
                       self.folder.parent)

    def _wait(self) -> str:
        if self._proc is None:
            raise ProfileError("perf was not started")
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGINT)
        try:
            _, err = self._proc.communicate(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            raise ProfileError("perf did not stop within 60 s of SIGINT") from None
        return err.decode(errors="replace")

    def _fold(self, folded: Path) -> None:
        script = subprocess.Popen([str(tools.path("perf")), "script", "-i", str(self.data)],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        with folded.open("wb") as out:
            done = subprocess.run([str(tools.path("inferno-collapse-perf"))], stdin=script.stdout,
                                  stdout=out, stderr=subprocess.PIPE, timeout=600)
        assert script.stdout is not None
        script.stdout.close()
        script.wait(timeout=60)
        if done.returncode != 0:
            raise ProfileError(f"inferno-collapse-perf failed: {done.stderr.decode()[-300:]}")
