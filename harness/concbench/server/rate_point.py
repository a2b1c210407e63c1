"""One open-loop window at a given rate on a load of its own, every request due counted.

A capacity search tries several rates, one window each. Each window here is one oha process
(server.continuous.ContinuousLoad) at the window's own rate: a lead-in of LEAD_IN_S at that
rate opens the connections and brings the server to it, so every rate point starts from the
same state whatever ran before it (a closed-loop probe, a missed window's backlog); then the
window; then a tail in which requests due near the window's end can still answer. The window
is cut from oha's log of every response: requests due in it that never answered count as
missed, at the time from the window's end to the stop as the floor of their latency, so a
stall at the window's end shows in its p99 (server.request_log).

What is counted over the whole load rather than at the window's edges (the in-process waits'
proof: a read inside a running load would answer behind the requests queued before it, and
requests due in the window answer in the tail) is read around the oha process, with the server
idle, and checked against the log of every response (`Around`).

The generator's CPU over the window is recorded: oha schedules its requests on the CPUs it is
given, and one that used GENERATOR_BUSY_SHARE of them delays requests by its own queueing,
which the server would be blamed for (server.capacity: such a window decides nothing).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Protocol

from concbench.server import continuous as cont, request_log as rl
from concbench.server.loadgen import LoadResult
from concbench.server.loadgen.base import LoadSpec

LEAD_IN_S = 1.0
"""Unmeasured load at the window's own rate before it."""
TAIL_S = 0.5
"""After the window: requests due near its end answer in it; one still unanswered at the stop
counts at a floor of at least this, far above any p99 target it is judged against."""
GENERATOR_BUSY_SHARE = 0.9
"""A window whose generator used this share of its CPUs is the generator's, not the server's."""


class Edges(Protocol):
    """What runs at a window's edges: its instruments."""

    def begin(self) -> None: ...

    def end(self) -> None: ...


class NoEdges:
    """A window with nothing read at its edges (a capacity search's windows)."""

    def begin(self) -> None:
        return None

    def end(self) -> None:
        return None


class Around(Protocol):
    """What is read before the point load's generator starts and after it stops."""

    def begin(self) -> None: ...

    def end(self, log: rl.RequestLog) -> None: ...


class NothingAround:
    def begin(self) -> None:
        return None

    def end(self, log: rl.RequestLog) -> None:
        return None


def applies(spec: LoadSpec) -> bool:
    """Open loop, oha on this machine: what a point load needs."""
    return spec.rate > 0 and spec.runner is None


def point_spec(spec: LoadSpec, window_s: float, tail_s: float) -> LoadSpec:
    """The spec of a point load: long enough for lead-in, window and tail."""
    return replace(spec, duration_s=window_s, timeout_s=LEAD_IN_S + window_s + tail_s + 5)


def run_point(spec: LoadSpec, window_s: float, alive: cont.Alive, tail_s: float = TAIL_S,
              edges: Edges = NoEdges(), around: Around = NothingAround()
              ) -> tuple[LoadResult | None, tuple[str, str] | None]:
    """(the window's load, the server's failure); `edges` begin and end at the window's
    edges (the window's instruments), `around` before the generator starts and after it
    stopped (given its log); tail_s at least TAIL_S (longer for a window whose requests take
    longer). server.loadgen.LoadError when oha fails."""
    tail_s = max(TAIL_S, tail_s)
    around.begin()
    load = cont.ContinuousLoad(point_spec(spec, window_s, tail_s), alive, tail_s)
    try:
        failure = load.hold(max(0.0, LEAD_IN_S - (time.perf_counter() - load.stream.started)))
        if failure:
            return None, failure
        edges.begin()
        t0 = load.begin_window()
        failure = load.hold(window_s)
        t1 = load.end_window()
        edges.end()
        if failure:
            return None, failure
        log = load.stop()
    finally:
        load.close()
    around.end(log)
    return cont.window_load(log, load, t0, t1), None


def generator_share(load: LoadResult) -> float | None:
    """The generator's CPU over the window as a share of the CPUs it was given."""
    percent = load.cpu_percent()
    return None if percent is None else percent / 100


def generator_bound(load: LoadResult) -> bool:
    share = generator_share(load)
    return share is not None and share >= GENERATOR_BUSY_SHARE

