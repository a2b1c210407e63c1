"""The CPU a contender reads with its own process CPU clock when its timer starts and stops
(docs/contract.md, "Output": `cpu_ns`, `cpu_tick_ns`), checked before a figure is made of it.

The harness's own reading (the tree's CPU as each iteration line arrives, from /proc in 10 ms
ticks) spans more than the timer: set-up, shutdown and whatever the contender computes after its
clock stops (percentiles, a sort of a million gaps). It stays as a cross-check only: over the
run it cannot have seen less CPU than the contender's clock did, give or take a tick of each.
"""

from __future__ import annotations

import os

from concbench import warnings
from concbench.resultset.model import Iteration
from concbench.workloads import WorkloadSpec

HARNESS_TICK_NS = 10_000_000
"""Resolution of the harness's /proc reading (utime + stime in clock ticks of 10 ms)."""
CLOCK_RATE_SLACK = 0.05
"""How far a process's CPU-time clock may run ahead of the wall clock it is compared with: the
kernel counts CPU time on the scheduler's clock, which in a virtual machine runs apart from the
monotonic clock by a few per cent."""
READ_SLACK_NS = 12_000_000
"""The two clocks' reads at each end of the timer: a contender reads its CPU clock just outside
its wall-clock timer, so if the reading thread loses its CPU between the two reads, the
process's other threads (a JIT compiler, a collector) run on and their CPU lands in cpu_ns
but not in the timer; on a busy CPU that gap is a time slice (a few ms, 3 ms by default in
Linux's EEVDF), at each end, plus a scheduler tick of accounting (4 ms at HZ 250)."""


def usable_cpus() -> int:
    """CPUs the contender may run on at once: the harness's affinity, which the child
    inherits. A CPU quota (--cpus) does not lower it: the kernel enforces a quota per 100 ms
    period, so a timer shorter than a period can see every CPU busy."""
    return len(os.sched_getaffinity(0))


def problems(spec: WorkloadSpec, iterations: list[Iteration], cpus: int) -> list[str]:
    """A workload whose CPU figure comes from the contender's clock must report it on every
    iteration; no reading may exceed the timer's wall time on every usable CPU (plus the
    clocks' rate difference, their reads and two ticks of the CPU clock): such a figure is not
    this process's CPU over the timed region."""
    found = []
    for it in iterations:
        if it.cpu_ns is None or it.cpu_tick_ns is None:
            if spec.own_cpu:
                found.append(f"iteration {it.index}: no cpu_ns / cpu_tick_ns (the process CPU "
                             "time over the timed region, read by the contender: "
                             "docs/contract.md)")
            continue
        most = it.elapsed_ns * cpus * (1 + CLOCK_RATE_SLACK) + READ_SLACK_NS \
            + 2 * it.cpu_tick_ns
        if it.cpu_ns > most:
            found.append(f"iteration {it.index}: cpu_ns {it.cpu_ns / 1e6:.1f} ms over "
                         f"{it.elapsed_ns / 1e6:.1f} ms of wall time on {cpus} usable CPUs: "
                         "not this process's CPU over the timed region")
    return found


def disagreement(iterations: list[Iteration], cpus: int) -> str | None:
    """A warning when the contender's readings, summed over the run, exceed the harness's
    reading over everything from the spawn to the last line by more than the ticks of both
    clocks; None when they agree. Summed, not per iteration: the harness reads each line when
    it gets to it, which on a busy machine can be after the contender's next timer started, so
    one iteration's line-to-line span can miss CPU its timer saw; over the run the spans
    telescope to spawn-to-last-line, which holds every timer. /proc's figure is truncated to a
    tick and leaves out what each running thread ran since the scheduler last accounted it (up
    to a tick per CPU: a small tokio tree read 145 ms on its own clock, 130 ms in /proc)."""
    own = [it for it in iterations if it.cpu_ns is not None and it.cpu_tick_ns is not None]
    if not own or any(it.cpu_s is None for it in iterations):
        return None
    own_ms = sum(it.cpu_ns for it in own) / 1e6
    harness_ms = sum(it.cpu_s for it in iterations) * 1e3
    slack_ms = (HARNESS_TICK_NS * (1 + cpus) + max(it.cpu_tick_ns for it in own)) / 1e6
    if own_ms <= harness_ms + slack_ms:
        return None
    return warnings.cpu_clocks_disagree(len(own), own_ms, harness_ms)
