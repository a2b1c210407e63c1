"""The unmeasured warm-up load before a server's measured window: fixed, or until steady.

A fixed warm-up is not fair across machines: 30 s of load left every JVM server pinned to
one CPU still compiling on one VM (spring-webflux 6.4k requests/s after 30 s, 20.1k after
120 s) while Reactor Netty had settled within 30 s on another. So by default the warm-up
runs in consecutive windows and ends when the server is steady:

- the rate has stopped moving: the best of the last two windows is at most
  `warmup-steady-pct` above the best of the two before them (still climbing otherwise), and
  the worst of the last two at most that far below the worst of the two before (falling
  otherwise). Window-to-window noise on a small VM is
  ±10-15 % (a 5 s window of a settled Go server read 18.1k-23.4k here), so "consecutive
  windows agree within 5 %" would rarely hold; a steady climb or fall of more than about half
  of `warmup-steady-pct` per window never passes; and
- the JIT is within its budget (server.steadiness.JIT_BUDGET): the JIT compiler threads
  ("C1/C2 CompilerThre…") used at most that share of the server's CPU in the last window. A
  JVM that still finishes a compilation now and then (code run once per connection, per
  second or in a timed wait) serves at its steady rate; one whose compiler threads keep a
  share of the CPU is still changing. The JVM's own counters (server.jvm_counters: methods
  compiled, given up, thrown away, compile time) are recorded per window as diagnostics.

With think-ms the rate is the generator's pace, connections ÷ (think + latency), whatever
the server does, so it says nothing about the server settling: a paced warm-up (held
connections) judges only the JIT, the rate criterion left out (`paced: true` in its record).

The warm-up ends then, or when `warmup-s` (the cap) is spent: the run is *unsettled* (`settled: false` in its
record, a warning that the report turns into the "unsettled" flag, and the summary leaves
the cell out of its rankings). Every window is recorded, so the report shows how long each
server needed. `warmup-steady-pct=0` is the seed-faithful fixed warm-up of exactly
`warmup-s`; nothing is judged then (`settled: null`), and the JIT's counters over the
measured window say whether it still compiled (`window_jit`, warnings.jit_in_window).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from concbench import warnings
from concbench.server.body_sampler import Sampled
from concbench.server.jvm_counters import JitDelta, JitProbe, JitReading, no_counters
from concbench.server.loadgen import LoadResult
from concbench.server.steadiness import JIT_BUDGET
from concbench.proc.jit_threads import jit_cpu_s
from concbench.server.window import tree_cpu_s

STEADY_WINDOWS = 4
"""Two windows compared with the two before them."""
JIT_QUIET_WINDOWS = 2
"""Paced loads: windows before the JIT alone is judged."""
JIT_SPAN_S = 3.0
"""The JIT's share is judged over at least this many seconds of the last windows: a single
compilation of 20-30 ms is 1 % of a 2-3 s window, so a shorter span would turn one late
compile into a failed window."""


@dataclass(frozen=True)
class WarmupPolicy:
    cap_s: float
    """warmup-s: the whole warm-up when fixed, the most it may last when steady."""
    window_s: float
    steady_pct: float
    """0: fixed warm-up of cap_s."""
    paced: bool = False
    """think-ms > 0: the rate is the generator's pace, not evidence of a settled server."""

    @property
    def fixed(self) -> bool:
        return self.steady_pct <= 0

    @classmethod
    def of(cls, params: dict[str, Any]) -> "WarmupPolicy":
        return cls(cap_s=float(params["warmup-s"]), window_s=float(params["warmup-window-s"]),
                   steady_pct=float(params["warmup-steady-pct"]),
                   paced=bool(params.get("think-ms")))


@dataclass(frozen=True)
class WarmupWindow:
    duration_s: float
    requests_per_s: float
    p99_ms: float | None
    errors_total: int
    server_cpu_s: float
    jit_cpu_s: float | None
    """CPU of the JIT compiler threads in this window; None when the server has none."""
    jit: JitDelta | None = None
    """What the JIT did in this window, from the JVM's counters; None without them."""
    estimated_per_s: float | None = None
    """Continuous load: the rate the window was judged on while the load ran (requests sent);
    requests_per_s is then the responses the generator logged in it."""

    def jit_share(self) -> float | None:
        if self.jit_cpu_s is None or self.server_cpu_s <= 0:
            return None
        return self.jit_cpu_s / self.server_cpu_s


@dataclass(frozen=True)
class WarmupOutcome:
    policy: WarmupPolicy
    windows: tuple[WarmupWindow, ...]
    settled: bool | None
    """None for a fixed warm-up (nothing was judged)."""
    sampled: Sampled | None = None
    """The harness's own checked requests during the warm-up (server.body_sampler)."""

    @property
    def seconds(self) -> float:
        return sum(w.duration_s for w in self.windows)

    def warning(self) -> str | None:
        if self.settled is not False:
            return None
        last = self.windows[-STEADY_WINDOWS:]
        compiled = [w.jit.work for w in last if w.jit is not None]
        share = self.windows[-1].jit_share() if self.windows else None
        return warnings.warmup_unsettled(
            self.policy.cap_s, [w.requests_per_s for w in last],
            compiled if len(compiled) == len(last) else None, share)

    def to_dict(self) -> dict[str, Any]:
        p = self.policy
        return {"mode": "fixed" if p.fixed else "steady", "cap_s": p.cap_s,
                "window_s": p.window_s, "steady_pct": p.steady_pct, "paced": p.paced,
                "settled": self.settled,
                "seconds": round(self.seconds, 3),
                "jit_evidence": _evidence(self.windows),
                "sampled": self.sampled.to_dict() if self.sampled else None,
                "windows": [_window_dict(w) for w in self.windows]}


def _window_dict(w: WarmupWindow) -> dict[str, Any]:
    return {**w.__dict__, "jit": w.jit.to_dict() if w.jit else None,
            "jit_share": w.jit_share()}


def _evidence(windows: tuple[WarmupWindow, ...]) -> str:
    """What told whether the JIT was quiet: the JVM's counters, its compiler threads' CPU,
    or nothing (no JIT found)."""
    if windows and all(w.jit is not None for w in windows):
        return "counters"
    return "compiler threads' CPU" if any(w.jit_cpu_s is not None for w in windows) else "none"


def is_steady(windows: list[WarmupWindow], steady_pct: float, paced: bool = False) -> bool:
    """The rate neither climbs nor falls and the JIT is within budget; paced (think-ms): the
    JIT alone."""
    if paced:
        return len(windows) >= JIT_QUIET_WINDOWS and jit_quiet(windows)
    if len(windows) < STEADY_WINDOWS:
        return False
    rates = [w.requests_per_s for w in windows[-STEADY_WINDOWS:]]
    half = STEADY_WINDOWS // 2
    if max(rates[half:]) > (1 + steady_pct / 100) * max(rates[:half]):
        return False  # still climbing
    if min(rates[half:]) < (1 - steady_pct / 100) * min(rates[:half]):
        return False  # falling
    return jit_quiet(windows)


def jit_quiet(windows: list[WarmupWindow]) -> bool:
    """The JIT compiler threads used at most JIT_BUDGET of the server's CPU over the last
    windows that span at least JIT_SPAN_S (the last one when it is that long); True without a
    JIT (no compiler threads found)."""
    recent: list[WarmupWindow] = []
    for window in reversed(windows):
        recent.append(window)
        if sum(w.duration_s for w in recent) >= JIT_SPAN_S - 1e-9:
            break
    if any(w.jit_cpu_s is None for w in recent):
        share = windows[-1].jit_share()
        return share is None or share <= JIT_BUDGET
    cpu = sum(w.server_cpu_s for w in recent)
    return cpu <= 0 or sum(w.jit_cpu_s or 0.0 for w in recent) / cpu <= JIT_BUDGET


LoadRun = Callable[[float], LoadResult]


CpuProbe = Callable[[], "tuple[float, float | None]"]
"""(CPU seconds of the server's process tree, of its JIT compiler threads or None)."""


def local_probe(pid: int) -> CpuProbe:
    return lambda: (tree_cpu_s(pid), jit_cpu_s(pid))


def warm_up(policy: WarmupPolicy, probe: CpuProbe, load: LoadRun,
            on_window: Callable[[WarmupWindow], None] | None = None,
            jit: JitProbe = no_counters) -> WarmupOutcome:
    """Run warm-up windows through `load(seconds)` until steady or the cap is spent; `jit`
    reads the JVM's counters (server.jvm_counters.tree_probe) at each window's ends.
    `load` raises (or the caller stops) on failure; windows done so far are lost then,
    which is fine: a failed warm-up ends the run."""
    if policy.fixed:
        return WarmupOutcome(policy, (_window(probe, jit, load, policy.cap_s),), None)
    windows: list[WarmupWindow] = []
    spent = 0.0
    while spent < policy.cap_s - 1e-9:
        window = _window(probe, jit, load, min(policy.window_s, policy.cap_s - spent))
        windows.append(window)
        spent += window.duration_s
        if on_window:
            on_window(window)
        if is_steady(windows, policy.steady_pct, policy.paced):
            return WarmupOutcome(policy, tuple(windows), True)
    return WarmupOutcome(policy, tuple(windows), False)


def _window(probe: CpuProbe, counters: JitProbe, load: LoadRun, seconds: float) -> WarmupWindow:
    cpu0, jit0 = probe()
    before = counters()
    result = load(seconds)
    cpu1, jit1 = probe()
    after = counters()
    jit = max(0.0, jit1 - jit0) if jit0 is not None and jit1 is not None else None
    return WarmupWindow(duration_s=seconds, requests_per_s=result.requests_per_s,
                        p99_ms=result.latency_ms.get("p99"), errors_total=result.errors_total,
                        server_cpu_s=max(0.0, cpu1 - cpu0), jit_cpu_s=jit,
                        jit=jit_between(before, after))


def jit_between(before: JitReading | None, after: JitReading | None) -> JitDelta | None:
    return JitDelta.between(before, after) if before is not None and after is not None else None


def window_jit_warning(outcome: WarmupOutcome | None, delta: JitDelta | None) -> str | None:
    """The measured window's JIT work, when no steady warm-up vouched for the server (a fixed
    warm-up, or none): a JVM that still compiled during it was measured warming up."""
    if delta is None or delta.quiet or (outcome is not None and outcome.settled is not None):
        return None
    warmed = f"{outcome.seconds:g} s of fixed warm-up" if outcome else "no warm-up"
    return warnings.jit_in_window(delta.compiled, delta.failed, delta.invalidated,
                                  delta.compile_s, warmed)
