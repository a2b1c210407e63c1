"""spawn-idle (seed 004, the "1M tasks" posts): N idle tasks alive at once."""

from __future__ import annotations

from concbench.workloads.base import Param, Params, WorkloadSpec


def mark_problems(p: Params, marks: dict[str, dict]) -> list[str]:
    """The all-spawned mark must exist and come before the first task could have ended."""
    mark = marks.get("all-spawned")
    if mark is None:
        return ["no all-spawned mark"]
    if mark["elapsed_ns"] / 1e6 > p["hold-ms"]:
        return [
            f"all-spawned after {mark['elapsed_ns'] / 1e6:.0f} ms > hold-ms {p['hold-ms']}: "
            "tasks ended before the last was spawned, memory at the mark is understated"
        ]
    return []


SPEC = WorkloadSpec(
    name="spawn-idle",
    summary="spawn N tasks that each sleep hold-ms; measure memory when all are alive",
    params=(
        Param("tasks", 10_000, "number of tasks", 1, 2_000_000),
        Param("hold-ms", 10_000, "how long each task sleeps, in ms", 1, 600_000),
    ),
    expected=lambda p: {"tasks": p["tasks"]},
    ideal_s=lambda p, budget: p["hold-ms"] / 1000.0,
    lower_bound_s=lambda p, budget: p["hold-ms"] / 1000.0,
    throughput_unit="tasks",
    units_per_iteration=lambda p: p["tasks"],
    # hold long enough for 1000 platform threads to start on a slow VM (~2.5k threads/s seen)
    verify_params=({"tasks": 1000, "hold-ms": 2000},),
    pool_param=None,
    marks=("all-spawned",),
    check_marks=mark_problems,
    rate_mark="all-spawned",
)
