"""What the harness reads around a server's measured window, whatever drives its load: the
server's and the latency backend's CPU, context switches and files (server.window), the JIT's
counters and its compiler threads' CPU, the kernel's TCP counters and a profile (--profile);
system calls are counted in a window of their own after it (server.syscalls_window). Begun just before the window and ended just after
it; everything is recorded on the run's state (server.state)."""

from __future__ import annotations

from typing import Any

from concbench.profiling import ProfileError, Profiler
from concbench.server import kernel_counters, waits_proof
from concbench.server.backend import LatencyBackend
from concbench.server.body_sampler import BodySampler
from concbench.server.jvm_counters import JitProbe
from concbench.server.process import ServerProcess
from concbench.server.server_cpu import ServerCpuEdges
from concbench.server.state import RunState
from concbench.server.warmup import jit_between, window_jit_warning


class WindowInstruments:
    """Begin and end the measured window's instruments of one run."""

    def __init__(self, run: RunState, proc: ServerProcess, backend: LatencyBackend | None,
                 params: dict[str, Any], profiler: Profiler | None, local: bool,
                 jit: JitProbe, sampler: BodySampler | None = None,
                 waits_at_edges: bool = True):
        self.run, self.proc, self.backend, self.jit = run, proc, backend, jit
        self.waits_at_edges = waits_at_edges
        self.sampler = sampler
        self.params, self.profiler, self.local = params, profiler, local
        self._backend_before: Any = None
        self._waits_before: waits_proof.WaitsCount | None = None
        self._kernel_before: dict[str, int] | None = None
        self._jit_before: Any = None
        self._cpu = ServerCpuEdges(proc.cpu_probe)
        self._profiling = False

    def begin(self) -> None:
        """The backend's count last and the server's window next to last, so that they start
        as close to the load's window as can be."""
        proc = self.proc
        self._kernel_before = kernel_counters.read() if self.local else None
        self._profiling = self._start_profiler()
        self._jit_before = self.jit()
        self._cpu.begin()
        if self.backend:
            self.backend.proc.begin_window()
        proc.begin_window()
        self._backend_before = self.backend.count() if self.backend else None
        self._waits_before = self._waits()
        if self.sampler:
            self.sampler.window()

    def end(self) -> None:
        """The backend's count and the server's window first (the mirror of begin)."""
        run, proc = self.run, self.proc
        if self.sampler:
            self.sampler.stop()
        backend_after = self.backend.count() if self.backend else None
        waits_after = self._waits()
        if self._waits_before is not None and waits_after is not None:
            run.waits_window, run.waits_after = waits_after.since(self._waits_before), waits_after
        proc.end_window()
        self._cpu.end()
        run.window_jit = jit_between(self._jit_before, self.jit())
        run.window_jit_cpu_s = self._cpu.jit_cpu_s
        run.window_server_cpu_s = self._cpu.cpu_s or 0.0
        jit_warning = window_jit_warning(run.warmup, run.window_jit) \
            if not run.continuous else None
        if jit_warning:
            run.warnings.append(jit_warning)
        run.kernel = kernel_counters.delta(self._kernel_before,
                                           kernel_counters.read() if self.local else None)
        self._stop_profiler()
        if self.backend and self._backend_before is not None and backend_after is not None:
            self.backend.proc.end_window()
            run.backend_window = backend_after.since(self._backend_before)
        open_at_end = self.params["connections"] * (3 if self.backend else 1)
        warning = kernel_counters.warning(run.kernel, open_at_end)
        if warning:
            run.warnings.append(warning)
        if self.sampler:
            run.sampled = self.sampler.end()

    def _waits(self) -> waits_proof.WaitsCount | None:
        """The server's wait totals, where its verification proved them (server.waits_proof),
        around a window whose generator starts and ends with it: a continuous load's are read
        around the whole load (server.continuous_run), an open-loop point load's around its
        generator (waits_proof.WaitsAroundLoad). A read that fails leaves the window
        without the count, with a warning."""
        if self.run.continuous or not self.waits_at_edges:
            return None
        found = waits_proof.read_if_proven(self.run.waits, self.run.target)
        if isinstance(found, str):
            self.run.warnings.append(f"the server's wait totals could not be read around the "
                                     f"window: {found}")
            return None
        return found

    def jit_share(self) -> float | None:
        """The compiler threads' CPU ÷ the server's CPU over the window (None: no JIT)."""
        jit, cpu = self.run.window_jit_cpu_s, self.run.window_server_cpu_s
        if jit is None or not cpu:
            return None
        return max(0.0, jit) / cpu

    def _start_profiler(self) -> bool:
        if self.profiler is None:
            return False
        if self.proc.where is not None:
            self.run.warnings.append(f"no profile: the server runs on {self.proc.where}; "
                                     "profiling a remote server is not supported")
            return False
        try:
            self.profiler.start(self.proc.pid)
        except ProfileError as err:
            self.run.warnings.append(f"no profile: {err}")
            return False
        return True

    def _stop_profiler(self) -> None:
        if not self._profiling or self.profiler is None:
            return
        try:
            self.run.profiles.append(self.profiler.stop())
        except ProfileError as err:
            self.run.warnings.append(f"no profile: {err}")
