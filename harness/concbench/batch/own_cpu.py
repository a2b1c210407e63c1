"""The CPU a contender reads with its own process CPU clock when its timer starts and stops
(docs/contract.md, "Output": `cpu_ns`, `cpu_tick_ns`), checked before a figure is made of it.

The harness's own reading (the tree's CPU as each iteration line arrives, from /proc in 10 ms
ticks) spans more than the timer: set-up, shutdown and whatever the contender computes after its
clock stops (percentiles, a sort of a million gaps). It stays as a cross-check only: over its
longer span it cannot have seen less CPU than the contender's clock did, give or take a tick of
each clock.
"""

from __future__ import annotations

import os

from concbench import warnings
from concbench.resultset.model import Iteration
from concbench.workloads import WorkloadSpec

HARNESS_TICK_NS = 10_000_000
"""Resolution of the harness's /proc reading (utime + stime in clock ticks of 10 ms)."""


def usable_cpus() -> int:
    """CPUs the contender may run on at once: the harness's affinity, which the child
    inherits. A CPU quota (--cpus) does not lower it: the kernel enforces a quota per 100 ms
    period, so a timer shorter than a period can see every CPU busy."""
    return len(os.sched_getaffinity(0))


def problems(spec: WorkloadSpec, iterations: list[Iteration], cpus: int) -> list[str]:
    """A workload whose CPU figure comes from the contender's clock must report it on every
    iteration; no reading may exceed the timer's wall time on every usable CPU (plus two ticks
    of its clock): such a figure is not this process's CPU over the timed region."""
    found = []
    for it in iterations:
        if it.cpu_ns is None or it.cpu_tick_ns is None:
            if spec.own_cpu:
                found.append(f"iteration {it.index}: no cpu_ns / cpu_tick_ns (the process CPU "
                             "time over the timed region, read by the contender: "
                             "docs/contract.md)")
            continue
        most = it.elapsed_ns * cpus + 2 * it.cpu_tick_ns
        if it.cpu_ns > most:
            found.append(f"iteration {it.index}: cpu_ns {it.cpu_ns / 1e6:.1f} ms over "
                         f"{it.elapsed_ns / 1e6:.1f} ms of wall time on {cpus} usable CPUs: "
                         "not this process's CPU over the timed region")
    return found


def disagreement(iterations: list[Iteration]) -> str | None:
    """A warning when the contender's clock saw more CPU than the harness's reading over the
    longer line-to-line span, beyond a tick of each clock; None when they agree."""
    worse = [it for it in iterations
             if it.cpu_ns is not None and it.cpu_tick_ns is not None and it.cpu_s is not None
             and it.cpu_ns > it.cpu_s * 1e9 + HARNESS_TICK_NS + it.cpu_tick_ns]
    if not worse:
        return None
    it = max(worse, key=lambda i: i.cpu_ns - i.cpu_s * 1e9)
    return warnings.cpu_clocks_disagree(len(worse), len(iterations), it.index,
                                        it.cpu_ns / 1e6, it.cpu_s * 1e3)
