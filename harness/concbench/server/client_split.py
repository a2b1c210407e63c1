"""The load of one window split over several client hosts: each gets its share of the
connections and of the open-loop rate, and runs one oha process long enough for a lead-in,
the window, a tail and the start skew allowed (server.client_load).

oha, because its log of every response (`--output-format csv`) lets the clients' latencies
be pooled exactly (server.client_merge); wrk's summary has percentiles only, and
percentiles of several generators cannot be merged (plan-time refusal:
server.client_load.refusal).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from concbench.server.loadgen.base import LoadError, LoadSpec, pinned
from concbench.server.loadgen.oha import target
from concbench.server.sites import Site

LEAD_IN_S = 1.0
"""Unmeasured load before the window, every client at its share..."""
OPENED_PER_LEAD_IN_S = 5000
"""...plus a second for every this many connections of one client: they all open first."""
TAIL_S = 0.5
"""Closed loop: load after the window, so no generator stops inside it."""
OPEN_LOOP_TAIL_S = 2.0
"""Open loop: requests due near the window's end may still answer (server.continuous)."""
START_SKEW_LIMIT_S = 0.25
"""The most the clients' first requests may lie apart: every client is past its own lead-in
when the window begins as long as the skew stays well inside the lead-in."""


@dataclass(frozen=True)
class ClientShare:
    """One client's part of a window's load."""

    site: Site
    connections: int
    rate: int
    """Requests/s (0: closed loop)."""
    threads: int

    @property
    def host(self) -> str:
        return self.site.name


def split(total: int, parts: int) -> list[int]:
    """`total` in `parts` shares as even as whole numbers allow (the first ones larger)."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def shares(spec: LoadSpec, threads: int, sites: tuple[Site, ...]) -> list[ClientShare]:
    """Each client's connections, rate and generator threads (`threads`: the parameter,
    0 for one per CPU the generator has there)."""
    n = len(sites)
    if spec.connections < n:
        raise LoadError(f"{spec.connections} connections cannot be split over {n} clients")
    if 0 < spec.rate < n:
        raise LoadError(f"a rate of {spec.rate}/s cannot be split over {n} clients")
    rates = split(spec.rate, n) if spec.rate > 0 else [0] * n
    return [ClientShare(site, c, r, min(threads or len(site.generator_cpus()) or 1, c))
            for site, c, r in zip(sites, split(spec.connections, n), rates)]


def lead_in_s(parts: list[ClientShare]) -> float:
    return LEAD_IN_S + max(p.connections for p in parts) / OPENED_PER_LEAD_IN_S


def tail_s(spec: LoadSpec) -> float:
    return OPEN_LOOP_TAIL_S if spec.rate > 0 else TAIL_S


def run_seconds(spec: LoadSpec, window_s: float, lead_s: float) -> int:
    """oha's -z: lead-in, the start skew allowed, the window and the tail, whole seconds."""
    return math.ceil(lead_s + START_SKEW_LIMIT_S + window_s + tail_s(spec))


def command(part: ClientShare, spec: LoadSpec, seconds: int) -> list[str]:
    """oha on the client: its share for `seconds`, its log of every response on stdout, each
    request's timeout past the run's end (none is cut short by it)."""
    argv = [part.site.tool("oha"), "-z", f"{seconds}s", "-c", str(part.connections),
            "--no-tui", "--output-format", "csv", "--worker-threads", str(part.threads),
            "-t", f"{seconds + 5}s"]
    if part.rate > 0:
        argv += ["-q", str(part.rate), "--latency-correction"]
    return pinned([*argv, *target(spec)], part.site.cpus)
