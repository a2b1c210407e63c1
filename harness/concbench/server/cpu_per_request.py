"""CPU time each response cost over the measured window, exactly rather than sampled.

The server's CPU is its process tree's utime + stime (every thread and child, from /proc) read
at the window's start and end (server.window); when it runs in a cgroup, the cgroup's own
usage over the same window (cpu.stat usage_usec) is used instead, as it also holds children
that left the tree. The load generator's CPU is its own rusage (wait4): the generator lives
exactly the window (a continuous load: its CPU-time clock at the window's two ends). Both are
divided by the responses the generator received in the window (any status), in microseconds
per response.

A JVM's JIT compiler threads run in the server's process, so its CPU includes theirs: a JVM
still compiling pays for it per request. The server's figure is given with that CPU and
without it (`server_us_without_jit`: the compiler threads' CPU over the window, from their
/proc stat, taken out), so a still-compiling JVM is not charged for compiling in a
per-request figure, and both are named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from concbench.server.loadgen import LoadResult
from concbench.server.window import WindowMeasures


@dataclass(frozen=True)
class CpuPerRequest:
    responses: int
    server_cpu_s: float | None
    server_source: str | None
    """"cgroup" (cpu.stat usage over the window) or "proc-tree" (/proc utime + stime)."""
    server_us: float | None
    jit_cpu_s: float | None
    """The JIT compiler threads' CPU over the window (None: the server has none)."""
    server_us_without_jit: float | None
    """server_us less the JIT compiler threads' CPU (= server_us without a JIT)."""
    generator_cpu_s: float
    generator_us: float | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def per_response_us(cpu_s: float | None, responses: int) -> float | None:
    return None if cpu_s is None or responses <= 0 else cpu_s * 1e6 / responses


def cpu_per_request(window: WindowMeasures | None, cgroup_usage_s: float | None,
                    load: LoadResult | None, jit_cpu_s: float | None = None
                    ) -> CpuPerRequest | None:
    """The window's CPU per response of server and generator (None without a load)."""
    if load is None:
        return None
    if cgroup_usage_s is not None:
        server_s, source = cgroup_usage_s, "cgroup"
    elif window is not None:
        server_s, source = window.cpu_s, "proc-tree"
    else:
        server_s, source = None, None
    without = None if server_s is None else max(0.0, server_s - (jit_cpu_s or 0.0))
    return CpuPerRequest(
        responses=load.requests, server_cpu_s=server_s, server_source=source,
        server_us=per_response_us(server_s, load.requests), jit_cpu_s=jit_cpu_s,
        server_us_without_jit=per_response_us(without, load.requests),
        generator_cpu_s=load.cpu_s,
        generator_us=per_response_us(load.cpu_s, load.requests))
