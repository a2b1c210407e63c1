"""A server (or latency backend) process as the server runner sees it, wherever it runs.

`ServerProcess` is what `server_run` needs of a long-lived process: start, the ready line,
its exit, a stop, CPU readings for the warm-up, the measured window and the listen check.
`LocalServer` is a supervised process on this machine; `concbench.remote.remote_process`
gives the same over SSH through the agent on another host.
"""

from __future__ import annotations

import dataclasses
import signal
import threading
from pathlib import Path
from typing import Any, Callable, Protocol

from concbench.proc import cgroups
from concbench.proc.process import KILL_GRACE_S, ProcessOutcome, Supervised
from concbench.server import listen_check
from concbench.server.warmup import jit_cpu_s
from concbench.server.window import Window, WindowMeasures, tree_cpu_s


class ServerProcess(Protocol):
    pid: int
    started: float
    """time.perf_counter() on this machine when the process started."""
    exited: threading.Event
    where: str | None
    """The host it runs on (None: this machine)."""

    def start(self) -> None:
        """Spawn it; raises OSError (locally) or HostError (remotely) if it cannot start."""

    def wait(self, timeout_s: float | None) -> bool: ...

    def stderr_tail(self) -> str: ...

    @property
    def limit_hit(self) -> bool:
        """The RSS limit stopped it."""

    def stop(self, sig: int = signal.SIGTERM, grace_s: float = KILL_GRACE_S) -> bool: ...

    def cpu_probe(self) -> tuple[float, float | None]:
        """(CPU seconds of the process tree, of its JIT compiler threads or None)."""

    def begin_window(self) -> None: ...

    def end_window(self) -> None: ...

    def window_measures(self, outcome: ProcessOutcome) -> WindowMeasures | None:
        """The measured window, once the process has ended (None if none was begun)."""

    def bind_problem(self, port: int) -> str | None: ...

    def outcome(self) -> ProcessOutcome: ...


class LocalServer(Supervised):
    """A server process on this machine."""

    where = None

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], cpus: tuple[int, ...],
                 bind: str, rss_limit: int | None = None,
                 on_message: Callable[[dict[str, Any]], None] | None = None,
                 limits: cgroups.Limits | None = None):
        super().__init__(argv, cwd, env, rss_limit, on_message=on_message, limits=limits)
        self._cpus, self._bind = cpus, bind
        self._windows: list[Window] = []
        """Every window begun, in order (the last is the current one; a shared start has one
        per run: window_measures_at)."""

    @property
    def limit_hit(self) -> bool:
        return bool(self.sampler and self.sampler.limit_hit)

    def cpu_probe(self) -> tuple[float, float | None]:
        return tree_cpu_s(self.pid), jit_cpu_s(self.pid)

    def begin_window(self) -> None:
        window = Window(self.pid, self.started, self._cpus)
        self._windows.append(window)
        window.begin()
        if self.cgroup is not None:  # throttling over the window alone
            self.cgroup.begin_window()

    def end_window(self) -> None:
        if self._windows:
            self._windows[-1].end()
        if self.cgroup is not None:
            self.cgroup.end_window()

    def window_measures(self, outcome: ProcessOutcome) -> WindowMeasures | None:
        """Under a CPU quota the window's CPU % is of the quota (100: all of it used)."""
        return self.window_measures_at(outcome, len(self._windows) - 1)

    def windows_begun(self) -> int:
        return len(self._windows)

    def window_measures_at(self, outcome: ProcessOutcome, index: int) -> WindowMeasures | None:
        """The index-th window begun (None when there is none such)."""
        if not 0 <= index < len(self._windows):
            return None
        found = self._windows[index].measures(outcome.samples)
        quota = self._limits.cpus if self._limits else None
        if quota and found.window_s > 0:
            found = dataclasses.replace(
                found, cpu_percent=100.0 * found.cpu_s / found.window_s / quota)
        return found

    def bind_problem(self, port: int) -> str | None:
        return listen_check.bind_problem(port, self._bind)
