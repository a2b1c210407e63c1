"""The server's CPU over one window, read at the window's edges (server.process.cpu_probe):
the process tree's and, for a JVM, its JIT compiler threads'."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from concbench.server.loadgen import LoadResult


class ServerCpuEdges:
    """A window's server CPU, read at its edges: its process tree's and its JIT compiler
    threads' (server.process.cpu_probe). The measured window's instruments read it so
    (server.instruments), and each capacity window, so that each rate of the search has its
    CPU per request beside its latency."""

    def __init__(self, probe: Callable[[], tuple[float, float | None]]):
        self.probe = probe
        self._before: tuple[float, float | None] | None = None
        self.cpu_s: float | None = None
        self.jit_cpu_s: float | None = None

    def begin(self) -> None:
        self._before = self.probe()

    def end(self) -> None:
        if self._before is None:
            return
        after = self.probe()
        self.cpu_s = max(0.0, after[0] - self._before[0])
        if after[1] is not None and self._before[1] is not None:
            self.jit_cpu_s = max(0.0, after[1] - self._before[1])

    def noted(self, load: LoadResult) -> LoadResult:
        """The window's load with its server CPU in its notes."""
        return replace(load, notes={**load.notes, "server_cpu_s": self.cpu_s,
                                    "server_jit_cpu_s": self.jit_cpu_s})
