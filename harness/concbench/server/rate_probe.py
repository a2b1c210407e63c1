"""The open-loop rate of a run's measured window: the `rate` parameter itself, or for
rate=N% that share of the grid's closed-loop peak, probed by the grid's first run
(server.rate_grid)."""

from __future__ import annotations

from typing import Callable

from concbench.server.loadgen import LoadResult
from concbench.server.rate_grid import (PROBE_S, GridKey, RateProbe, grid_key, known_peak,
                                        offered_rate, remember_peak)
from concbench.server.request import ServerRequest
from concbench.workloads.rate_forms import percent_of_peak

Failure = tuple[str, str]
Load = Callable[[float, int], "tuple[LoadResult | None, Failure | None]"]
"""Runs the generator for so many seconds at so many requests/s (0: closed loop)."""


def closed_loop_peak(load: Load) -> tuple[LoadResult | None, Failure | None]:
    """PROBE_S seconds of closed-loop load: the peak a grid's shares or a capacity search
    start from; a failure when it gave no successful response."""
    found, failure = load(PROBE_S, 0)
    if failure or found is None:
        return None, failure or ("crash", "the closed-loop probe gave no result")
    if found.ok_requests == 0:
        return None, ("invalid", f"no successful response in the {PROBE_S:g} s closed-loop "
                      f"probe ({found.requests} responses, errors {found.errors})")
    return found, None


def _key(req: ServerRequest) -> GridKey:
    return grid_key(req.contender.name, req.spec.name, {**req.params, "limits": repr(req.limits)})


def probe_pending(req: ServerRequest) -> bool:
    """rate=N% whose grid has no peak yet: this run probes it."""
    percent = percent_of_peak(req.params["rate"])
    return percent is not None and known_peak(_key(req), percent) is None


def window_rate(req: ServerRequest, load: Load, settle: Callable[[], None]
                ) -> tuple[RateProbe | None, int | None, Failure | None]:
    """(the probe the rate came from, the window's rate or None for closed loop, a failure)."""
    rate = req.params["rate"]
    percent = percent_of_peak(rate)
    if percent is None:
        return None, rate or None, None
    key = _key(req)
    probe = known_peak(key, percent)
    if probe is None:
        found, failure = closed_loop_peak(load)
        if failure or found is None:
            return None, None, failure
        probe = RateProbe(PROBE_S, found.requests_per_s, percent,
                          offered_rate(found.requests_per_s, percent))
        remember_peak(key, probe)
        settle()  # requests the probe left queued drain before the window
    return probe, probe.offered_per_s, None
