"""fanout (seed 000): fetch a user, then three sub-fetches concurrently, for R requests."""

from __future__ import annotations

import math

from concbench.workloads.base import Param, Params, WorkloadSpec

_DELAYS = ("user-ms", "orders-ms", "prefs-ms", "notifications-ms")


def _expected(p: Params) -> dict[str, int]:
    r = p["requests"]
    return {"profiles": r, "id_sum": r * (r + 1) // 2,
            "id_sq_sum": r * (r + 1) * (2 * r + 1) // 6,  # proves each id was built once
            "items": 5 * r}


def _ideal_s(p: Params, pooled: bool) -> float:
    """user + max(three sub-fetches) per wave; a wave is as many requests as may be in flight.

    For pooled styles the pool size also bounds a wave. The bound ignores that a pooled
    fan-out queues its 3·P sub-fetches on a second pool of P threads: that cost is the style's.
    """
    in_flight = p["concurrency"] or p["requests"]
    if pooled:
        in_flight = min(in_flight, p["pool-size"])
    waves = math.ceil(p["requests"] / in_flight)
    per_wave_ms = p["user-ms"] + max(p["orders-ms"], p["prefs-ms"], p["notifications-ms"])
    return waves * per_wave_ms / 1000.0


SPEC = WorkloadSpec(
    name="fanout",
    summary="R requests: fetch user, then orders ∥ preferences ∥ notifications; build a profile",
    params=(
        Param("requests", 10_000, "number of profiles to build", 1, 2_000_000),
        Param("concurrency", 0, "requests in flight at most (0 = all at once)", 0, 2_000_000),
        *(Param(name, 500, f"sleep of the {name[:-3]} fetch in ms", 0, 60_000) for name in _DELAYS),
        Param("pool-size", 200, "threads of each fixed pool (pooled styles only)", 1, 30_000),
    ),
    expected=_expected,
    ideal_s=_ideal_s,
    lower_bound_s=_ideal_s,
    throughput_unit="profiles",
    units_per_iteration=lambda p: p["requests"],
    verify_params=(
        {"requests": 300, "user-ms": 20, "orders-ms": 20, "prefs-ms": 10,
         "notifications-ms": 30, "pool-size": 50},
        {"requests": 100, "concurrency": 25, "user-ms": 5, "orders-ms": 5, "prefs-ms": 5,
         "notifications-ms": 5, "pool-size": 10},
    ),
)
