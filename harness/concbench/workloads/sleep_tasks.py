"""sleep-tasks (seed 001): N tasks that sleep, then do a little CPU work.

The CPU work is a chain seeded at run time (`cpu-seed`): x ← a·x + c, s ← s + x (mod 2³²),
K steps from x = seed. Each step needs the one before it, so no compiler vectorises it, and
it has no closed form a compiler finds (Σ i % 2, the seed's loop, folds or vectorises: 4 to 8
steps per instruction). The harness gets the expected sum in O(log K) by composing the
step's affine map with itself. Each task also times its own sleep (`slept_min_ns`), so tasks
woken by a timer they did not arm themselves fall short.
"""

from __future__ import annotations

import math
from typing import Any

from concbench.workloads.base import Param, Params, WorkloadSpec
from concbench.workloads.budget import ThreadBudget
from concbench.workloads.proofs import missing, short_sleep

LCG_A, LCG_C = 1664525, 1013904223
"""Numerical Recipes' 32-bit linear congruential step (full period mod 2³²)."""
MASK = 0xFFFFFFFF
Affine = tuple[int, int, int, int]
"""(A, C, B, D): the map (x, s) → (A·x + C, s + B·x + D) mod 2³²."""


def _then(first: Affine, second: Affine) -> Affine:
    a1, c1, b1, d1 = first
    a2, c2, b2, d2 = second
    return (a2 * a1 & MASK, (a2 * c1 + c2) & MASK, (b1 + b2 * a1) & MASK,
            (d1 + b2 * c1 + d2) & MASK)


def task_cpu_sum(seed: int, k: int) -> int:
    """One task's s after K steps from x = seed, s = 0, without running the K steps."""
    total: Affine = (1, 0, 0, 0)
    power: Affine = (LCG_A, LCG_C, LCG_A, LCG_C)  # one step: s gains the new x
    while k:
        if k & 1:
            total = _then(total, power)
        power = _then(power, power)
        k >>= 1
    _, _, b, d = total
    return (b * seed + d) & MASK


def _expected(p: Params) -> dict[str, int]:
    return {"tasks": p["tasks"], "cpu_sum": p["tasks"] * task_cpu_sum(p["cpu-seed"],
                                                                      p["cpu-iters"])}


def _proof_problems(p: Params, result: dict[str, Any]) -> list[str]:
    problem = missing(result, "slept_min_ns", "the shortest sleep a task timed around its own "
                      "sleep call") or short_sleep(
        "slept_min_ns", result["slept_min_ns"], p["sleep-ms"], "a task slept",
        "tasks woke on a timer they did not arm themselves (one timer shared, armed before "
        "they started), or did not sleep")
    return [problem] if problem else []


def _ideal_s(p: Params, budget: ThreadBudget) -> float:
    """sleep × ⌈N/threads⌉ for pools, else one sleep (the CPU part is negligible by design)."""
    threads = budget.request_threads
    waves = math.ceil(p["tasks"] / threads) if threads else 1
    return waves * p["sleep-ms"] / 1000.0


SPEC = WorkloadSpec(
    name="sleep-tasks",
    summary="N tasks: sleep, then cpu-iters steps of a seeded 32-bit chain",
    params=(
        Param("tasks", 10_000, "number of tasks", 1, 2_000_000),
        Param("sleep-ms", 100, "sleep of each task in ms", 0, 60_000),
        Param("cpu-iters", 1000, "steps of the CPU loop after the sleep", 0, 1_000_000_000),
        Param("cpu-seed", 12345, "start of the CPU loop's chain, given at run time so that no "
              "build can precompute the sum", 0, MASK),
        Param("pool-size", 200, "threads of the fixed pool (pooled styles only)", 1, 30_000),
    ),
    expected=_expected,
    result_problems=_proof_problems,
    ideal_s=_ideal_s,
    lower_bound_s=_ideal_s,
    throughput_unit="tasks",
    units_per_iteration=lambda p: p["tasks"],
    verify_params=({"tasks": 500, "sleep-ms": 10, "cpu-iters": 1001, "cpu-seed": 987_654_321,
                    "pool-size": 50},),
)
