"""Throughput ceilings of http-aggregate designs from Little's law (L = λ·W).

A closed-loop load of C connections, each waiting at least W (the latency floor) per
request, cannot exceed λ = C ÷ W. A design adds its own ceilings: T request threads each
held for the whole request allow T ÷ W; with a think time Z between a response and the
connection's next request (think-ms) each connection spends W + Z per request, so the
connections allow C ÷ (W + Z) (the design's ceilings below count threads held per request
and stay as they are: a server that parks a thread on an idle keep-alive connection would hold
more); an async pool of A threads on which each request
holds H thread-milliseconds (usually detail + extra) allows A ÷ H. The tightest ceiling is the
one a design should reach; the report names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from concbench.workloads.base import Params
from concbench.workloads.server import Bounds


@dataclass(frozen=True)
class Ceiling:
    name: str
    requests_per_s: float
    why: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "requests_per_s": self.requests_per_s, "why": self.why}


def ceilings(floor_ms: float, connections: int, p: Params, bounds: Bounds) -> list[Ceiling]:
    """Every ceiling that applies, tightest first; none when the floor is 0."""
    if floor_ms <= 0:
        return []
    floor_s = floor_ms / 1000.0
    think_ms = float(p.get("think-ms", 0) or 0)  # type: ignore[arg-type]
    per_request = f"{floor_ms:g} ms per request" + (f" + {think_ms:g} ms think time"
                                                    if think_ms else "")
    found = [Ceiling("connections", connections / (floor_s + think_ms / 1000.0),
                     f"{connections} connections ÷ ({per_request})" if think_ms
                     else f"{connections} connections ÷ {per_request}")]
    if bounds.request_threads:
        found.append(Ceiling("request threads", bounds.request_threads / floor_s,
                             f"{bounds.request_threads} request threads ÷ {floor_ms:g} ms each"))
    held_ms = bounds.async_hold_ms
    if bounds.async_threads and held_ms > 0:
        threads = bounds.async_why or f"{bounds.async_threads} async threads"
        found.append(Ceiling("async pool", bounds.async_threads / (held_ms / 1000.0),
                             f"{threads} ÷ {held_ms:g} ms of pool-thread waits per request"))
    return sorted(found, key=lambda c: c.requests_per_s)
