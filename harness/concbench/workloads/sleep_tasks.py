"""sleep-tasks (seed 001): N tasks that sleep, then do a little CPU work."""

from __future__ import annotations

import math

from concbench.workloads.base import Param, Params, WorkloadSpec
from concbench.workloads.budget import ThreadBudget


def _expected(p: Params) -> dict[str, int]:
    return {"tasks": p["tasks"], "cpu_sum": p["tasks"] * (p["cpu-iters"] // 2)}


def _ideal_s(p: Params, budget: ThreadBudget) -> float:
    """sleep × ⌈N/threads⌉ for pools, else one sleep (the CPU part is negligible by design)."""
    threads = budget.request_threads
    waves = math.ceil(p["tasks"] / threads) if threads else 1
    return waves * p["sleep-ms"] / 1000.0


SPEC = WorkloadSpec(
    name="sleep-tasks",
    summary="N tasks: sleep, then sum i%2 for i < cpu-iters",
    params=(
        Param("tasks", 10_000, "number of tasks", 1, 2_000_000),
        Param("sleep-ms", 100, "sleep of each task in ms", 0, 60_000),
        Param("cpu-iters", 1000, "iterations of the CPU loop after the sleep", 0, 1_000_000_000),
        Param("pool-size", 200, "threads of the fixed pool (pooled styles only)", 1, 30_000),
    ),
    expected=_expected,
    ideal_s=_ideal_s,
    lower_bound_s=_ideal_s,
    throughput_unit="tasks",
    units_per_iteration=lambda p: p["tasks"],
    verify_params=({"tasks": 500, "sleep-ms": 10, "cpu-iters": 1001, "pool-size": 50},),
)
