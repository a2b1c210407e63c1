"""The machine's own speed, probed just before each run: a fixed pure-Python loop timed in the
harness (the best of three, about 20 ms in all). On a virtual machine the host's other guests
change how fast the same vCPU runs: on the 2-vCPU VM this was written on, the probe flips
between about 71 and 125 ms per million iterations in phases of tens of seconds, with almost
no steal time to show for it. The probe corrects no figure (a Python loop is no workload, and
a run's own figure does not follow the probe taken just before it: channel's moved between 21
and 46 ms whichever phase the probe saw). It is recorded beside each run, and `compare` says
when one result set ran on a machine slower on average than the other."""

from __future__ import annotations

import time

LOOP = 50_000
"""Iterations of the probe's loop (about 6 ms on a 2-vCPU EPYC VM in a fast phase)."""
TRIES = 3


def _loop(n: int) -> int:
    x = 0
    for i in range(n):
        x += i * i & 7
    return x


def probe_ms(loop: int = LOOP, tries: int = TRIES) -> float:
    """Milliseconds of the fastest of `tries` timings of the loop (higher: a slower machine)."""
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        _loop(loop)
        best = min(best, time.perf_counter() - start)
    return best * 1000.0
