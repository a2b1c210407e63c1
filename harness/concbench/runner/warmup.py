"""The unmeasured warm-up load before a server's measured window: fixed, or until steady.

A fixed warm-up is not fair across machines: 30 s of load left every JVM server pinned to
one CPU still compiling on one VM (spring-webflux 6.4k requests/s after 30 s, 20.1k after
120 s) while Reactor Netty had settled within 30 s on another. So by default the warm-up
runs in consecutive windows and ends when the server is steady:

- the rate has stopped climbing: the best of the last two windows is at most
  `warmup-steady-pct` above the best of the two before them. Window-to-window noise on a
  small VM is ±10-15 % (a 5 s window of a settled Go server read 18.1k-23.4k here), so
  "consecutive windows agree within 5 %" would rarely hold; a climb still shows: a rate
  rising by more than about half of `warmup-steady-pct` per window never passes; and
- where the process has JIT compiler threads (HotSpot's "C1/C2 CompilerThre…"), they used
  at most JIT_QUIET_SHARE of the server's CPU in the last window: spring-webflux pinned to
  one CPU sat at 2.3-5k requests/s with C2 using 20 % of its CPU for 50 s, then jumped to
  ~16k as compilation ended (the JIT share fell to 0-5 %);

or when `warmup-s` (the cap) is spent; then the run carries a warning. Every window is
recorded, so the report shows how long each server needed. `warmup-steady-pct=0` is the
seed-faithful fixed warm-up of exactly `warmup-s`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

from concbench.runner.loadgen import LoadResult
from concbench.runner.server_window import tree_cpu_s, tree_thread_files

STEADY_WINDOWS = 4
"""Two windows compared with the two before them."""
JIT_QUIET_SHARE = 0.05
JIT_THREAD_PREFIXES = (b"C1 CompilerThre", b"C2 CompilerThre", b"JVMCI CompilerT")
_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class WarmupPolicy:
    cap_s: float
    """warmup-s: the whole warm-up when fixed, the most it may last when steady."""
    window_s: float
    steady_pct: float
    """0: fixed warm-up of cap_s."""

    @property
    def fixed(self) -> bool:
        return self.steady_pct <= 0

    @classmethod
    def of(cls, params: dict[str, Any]) -> "WarmupPolicy":
        return cls(cap_s=float(params["warmup-s"]), window_s=float(params["warmup-window-s"]),
                   steady_pct=float(params["warmup-steady-pct"]))


@dataclass(frozen=True)
class WarmupWindow:
    duration_s: float
    requests_per_s: float
    p99_ms: float | None
    errors_total: int
    server_cpu_s: float
    jit_cpu_s: float | None
    """CPU of the JIT compiler threads in this window; None when the server has none."""

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

    @property
    def seconds(self) -> float:
        return sum(w.duration_s for w in self.windows)

    def warning(self) -> str | None:
        if self.settled is not False:
            return None
        rates = ", ".join(f"{w.requests_per_s:,.0f}" for w in self.windows[-STEADY_WINDOWS:])
        jit = self.windows[-1].jit_share() if self.windows else None
        busy = f"; JIT compiler threads used {jit:.0%} of its CPU" if jit is not None else ""
        return (f"warm-up did not settle within {self.policy.cap_s:g} s (last windows "
                f"{rates} requests/s{busy}): the measured window may catch the server still "
                "warming; raise warmup-s")

    def to_dict(self) -> dict[str, Any]:
        p = self.policy
        return {"mode": "fixed" if p.fixed else "steady", "cap_s": p.cap_s,
                "window_s": p.window_s, "steady_pct": p.steady_pct, "settled": self.settled,
                "seconds": round(self.seconds, 3),
                "windows": [{**w.__dict__, "jit_share": w.jit_share()} for w in self.windows]}


def jit_cpu_s(pid: int) -> float | None:
    """User + system CPU of the JIT compiler threads in the process tree, or None if it has
    none (a launcher script may sit between the harness and the JVM)."""
    total, found = 0, False
    for stat in tree_thread_files(pid, "stat"):
        comm = stat[stat.index(b"(") + 1:stat.rindex(b")")]
        if comm.startswith(JIT_THREAD_PREFIXES):
            fields = stat[stat.rindex(b")") + 2:].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (proc(5) fields 14, 15)
            found = True
    return total / _TICKS if found else None


def is_steady(windows: list[WarmupWindow], steady_pct: float) -> bool:
    if len(windows) < STEADY_WINDOWS:
        return False
    rates = [w.requests_per_s for w in windows[-STEADY_WINDOWS:]]
    half = STEADY_WINDOWS // 2
    if max(rates[half:]) > (1 + steady_pct / 100) * max(rates[:half]):
        return False
    share = windows[-1].jit_share()
    return share is None or share <= JIT_QUIET_SHARE


LoadRun = Callable[[float], LoadResult]


CpuProbe = Callable[[], "tuple[float, float | None]"]
"""(CPU seconds of the server's process tree, of its JIT compiler threads or None)."""


def local_probe(pid: int) -> CpuProbe:
    return lambda: (tree_cpu_s(pid), jit_cpu_s(pid))


def warm_up(policy: WarmupPolicy, probe: CpuProbe, load: LoadRun,
            on_window: Callable[[WarmupWindow], None] | None = None) -> WarmupOutcome:
    """Run warm-up windows through `load(seconds)` until steady or the cap is spent.
    `load` raises (or the caller stops) on failure; windows done so far are lost then,
    which is fine: a failed warm-up ends the run."""
    if policy.fixed:
        return WarmupOutcome(policy, (_window(probe, load, policy.cap_s),), None)
    windows: list[WarmupWindow] = []
    spent = 0.0
    while spent < policy.cap_s - 1e-9:
        window = _window(probe, load, min(policy.window_s, policy.cap_s - spent))
        windows.append(window)
        spent += window.duration_s
        if on_window:
            on_window(window)
        if is_steady(windows, policy.steady_pct):
            return WarmupOutcome(policy, tuple(windows), True)
    return WarmupOutcome(policy, tuple(windows), False)


def _window(probe: CpuProbe, load: LoadRun, seconds: float) -> WarmupWindow:
    cpu0, jit0 = probe()
    result = load(seconds)
    cpu1, jit1 = probe()
    jit = max(0.0, jit1 - jit0) if jit0 is not None and jit1 is not None else None
    return WarmupWindow(duration_s=seconds, requests_per_s=result.requests_per_s,
                        p99_ms=result.latency_ms.get("p99"), errors_total=result.errors_total,
                        server_cpu_s=max(0.0, cpu1 - cpu0), jit_cpu_s=jit)
