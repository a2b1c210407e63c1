"""spawn-idle (seed 004, the "1M tasks" posts): N idle tasks alive at once.

Each task increments a shared counter as its first action, then sleeps; the spawner prints the
all-spawned mark when the counter reaches N. The last task therefore armed its timer just
before the mark, so no iteration can end before mark + hold-ms: a check of every task's own
timer that costs the contenders nothing (no clock read per task, which would slow the spawn
rate this workload measures).
"""

from __future__ import annotations

from concbench.workloads.base import Param, Params, WorkloadSpec


HOLD_SLACK, MARK_SLACK, SLACK_MS = 0.01, 0.10, 20.0
"""An iteration may end this much before mark + hold: 1 % of the hold for timer granularity
(Node's timers can fire 1 ms early), and 10 % of the mark plus 20 ms for the time between the
last task's increment and the spawner seeing it: a spawner made runnable by that increment
waits its turn for a CPU, which on a loaded machine takes milliseconds. A timer shared by every
task, armed at the start, ends a whole mark's time early and is still caught."""


def mark_problems(p: Params, marks: dict[str, dict], elapsed_ns: int | None = None) -> list[str]:
    """The all-spawned mark must exist and come before the first task could have ended; and
    the iteration cannot end before the last task started (just before the mark) has slept
    its hold: with one timer armed at the start, shared by every task, it would."""
    mark = marks.get("all-spawned")
    if mark is None:
        return ["no all-spawned mark"]
    mark_ms = mark["elapsed_ns"] / 1e6
    if mark_ms > p["hold-ms"]:
        return [
            f"all-spawned after {mark_ms:.0f} ms > hold-ms {p['hold-ms']}: "
            "tasks ended before the last was spawned, memory at the mark is understated"
        ]
    earliest = p["hold-ms"] * (1 - HOLD_SLACK) + mark_ms * (1 - MARK_SLACK) - SLACK_MS
    if elapsed_ns is not None and elapsed_ns / 1e6 < earliest:
        return [f"ended {elapsed_ns / 1e6 - mark_ms:.1f} ms after the all-spawned mark, "
                f"less than hold-ms {p['hold-ms']}: the last task started did not sleep its "
                "own hold (tasks share a timer armed before they all started)"]
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
    # hold long enough for 500 platform threads to start on a slow VM (~2.5k threads/s seen:
    # 0.2 s, a fifth of the hold)
    verify_params=({"tasks": 500, "hold-ms": 1000},),
    pool_param=None,
    marks=("all-spawned",),
    check_marks=mark_problems,
    rate_mark="all-spawned",
)
