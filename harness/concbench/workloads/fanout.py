"""fanout (seed 000): fetch a user, then three sub-fetches concurrently, for R requests."""

from __future__ import annotations

import math

from typing import Any

from concbench.workloads.base import Param, Params, WorkloadSpec
from concbench.workloads.budget import ThreadBudget
from concbench.workloads.proofs import missing, short_sleep

FETCHES = ("user", "orders", "prefs", "notifications")
_DELAYS = tuple(f"{kind}-ms" for kind in FETCHES)


def _expected(p: Params) -> dict[str, int]:
    r = p["requests"]
    return {"profiles": r, "id_sum": r * (r + 1) // 2,
            "id_sq_sum": r * (r + 1) * (2 * r + 1) // 6,  # proves each id was built once
            "items": 5 * r}


def _proof_problems(p: Params, result: dict[str, Any]) -> list[str]:
    """Each fetch counts itself and times its own sleep: `fetched` and `slept_min_ns` per
    kind. One sleep that fills the three sub-fetches leaves two of them unslept."""
    problems = [m for m in (missing(result, "fetched", "each fetch kind's count"),
                            missing(result, "slept_min_ns", "each fetch kind's shortest sleep"))
                if m]
    if problems:
        return problems
    fetched, slept = result["fetched"], result["slept_min_ns"]
    if not isinstance(fetched, dict) or not isinstance(slept, dict):
        return ["fetched and slept_min_ns must be objects keyed by fetch kind"]
    for kind in FETCHES:
        got = fetched.get(kind)
        if got != p["requests"] or type(got) is not int:
            problems.append(f"fetched {kind}={got!r}, expected {p['requests']} (each {kind} "
                            "fetch counts itself after its own sleep)")
        problem = short_sleep(f"slept_min_ns {kind}", slept.get(kind), p[f"{kind}-ms"],
                              f"{kind} fetches slept at least",
                              "a fetch did not sleep its own wait (one sleep shared by "
                              "several fetches, or none)")
        if problem:
            problems.append(problem)
    return problems


def _ideal_s(p: Params, budget: ThreadBudget) -> float:
    """user + max(three sub-fetches) per wave; a wave is as many requests as may be in flight.

    The style's thread budget bounds it twice: request threads bound a wave; a pool that runs
    some fetches (async_waits) can hold only async_threads of them at once, so the R requests'
    waits on it take at least R · Σ waits / async_threads (e.g. java-platform's three
    sub-fetches on a second pool of pool-size threads: 1.5 × the waves' time at 500 ms each).
    """
    in_flight = p["concurrency"] or p["requests"]
    if budget.request_threads:
        in_flight = min(in_flight, budget.request_threads)
    waves = math.ceil(p["requests"] / in_flight)
    per_wave_ms = p["user-ms"] + max(p["orders-ms"], p["prefs-ms"], p["notifications-ms"])
    ideal_ms = waves * per_wave_ms
    if budget.async_threads:
        held_ms = sum(p[f"{w}-ms"] for w in budget.async_waits)
        ideal_ms = max(ideal_ms, p["requests"] * held_ms / budget.async_threads)
    return ideal_ms / 1000.0


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
    result_problems=_proof_problems,
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
