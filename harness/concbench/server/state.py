"""What one server run records while its phases go by, read by server.result when it
becomes a RunResult."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from concbench.server.backend import BackendCount
from concbench.server.body_sampler import Sampled
from concbench.server.capacity import CapacitySearch
from concbench.server.connections_held import Held
from concbench.server.jvm_counters import JitDelta
from concbench.server.loadgen import LoadResult
from concbench.server.rate_grid import RateProbe
from concbench.server.sites import LOOPBACK
from concbench.server.steadiness import Steadiness
from concbench.server.syscall_counts import SyscallWindow
from concbench.server.waits_proof import WaitsCount
from concbench.server.warmup import WarmupOutcome


@dataclass
class RunState:
    target: tuple[str, int] = (LOOPBACK, 0)
    """Where the harness and the load generator reach the server."""
    ready: dict[str, Any] | None = None
    ready_s: float | None = None
    verification: list[dict[str, Any]] = field(default_factory=list)
    warmup: WarmupOutcome | None = None
    probe_warmup: WarmupOutcome | None = None
    """The closed-loop warm-up before a rate grid's peak probe, on a continuous load's run
    (server.run.warm_for_probe)."""
    window_jit: JitDelta | None = None
    """What a JVM server's JIT did during the measured window (its own counters)."""
    window_jit_cpu_s: float | None = None
    """CPU of the server's JIT compiler threads over the measured window (None: no JIT)."""
    window_server_cpu_s: float | None = None
    """CPU of the server's process tree over the measured window."""
    continuous: dict[str, Any] | None = None
    """The one continuous load of the run (server.continuous): None when the generator ran
    afresh for each window."""
    steadiness: Steadiness | None = None
    """The measured window's own verdict (server.steadiness), continuous loads only."""
    held: Held | None = None
    """The connections the server held at the window's end (server.connections_held)."""
    load: LoadResult | None = None
    backend_window: BackendCount | None = None
    """The backend's calls and delays served during the measured window."""
    waits: dict[str, Any] | None = None
    """In-process waits (server.waits_proof): whether the server proves them, and what its
    verification showed; None where the workload has none."""
    waits_window: tuple[int, int, int] | None = None
    """The waits of each kind the server made during the measured window."""
    waits_after: WaitsCount | None = None
    """Its totals at the window's end (the shortest waits so far)."""
    under_load: dict[str, Any] = field(default_factory=dict)
    """The checks of the measured window: what was measured, what was allowed."""
    sampled: Sampled | None = None
    """The responses the harness requested and checked itself during the window
    (server.body_sampler)."""
    kernel: dict[str, int] | None = None
    """The kernel's TCP counters over the measured window (server.kernel_counters)."""
    syscalls: SyscallWindow | None = None
    """perf stat's counts, when syscalls=true, over a window of their own just after the
    measured window (server.syscalls_window)."""
    syscalls_requests: int | None = None
    """Responses in that window."""
    syscalls_seconds: float | None = None
    after_load: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    settle_s: float | None = None
    """Seconds the server needed after the warm-up load to answer near its floor again."""
    profiles: list[dict[str, Any]] = field(default_factory=list)
    rate_probe: RateProbe | None = None
    """rate=N%: the closed-loop probe the offered rate came from (server.rate_grid)."""
    offered_per_s: int | None = None
    """The measured window's open-loop rate (None: closed loop)."""
    capacity: CapacitySearch | None = None
    """slo-p99-ms > 0: the capacity search that chose the window's rate (server.capacity)."""
    clients: Any = None
    """A load split over several client hosts: its last window (server.client_load
    .SplitWindow), whose record and logs are kept even when a client failed."""
