"""How many threads a java.util.concurrent.ThreadPoolExecutor can run at once under a closed
load, for the Little's-law ceiling of designs that submit downstream waits to one.

The executor adds threads up to `core`, then queues, and adds threads above core (up to `max`)
only when the queue is full; a task it cannot take is rejected, and under CallerRunsPolicy the
submitting request thread runs it itself. With R requests in flight each submitting k tasks,
at most N = R·k tasks are outstanding, so (upper bounds, which is what a ceiling needs):
  N ≤ core + queue        → never more than `core` threads (the queue never fills);
  N ≤ max + queue         → at most N − queue threads;
  N > max + queue         → `max` threads, plus, under CallerRunsPolicy, up to N − max − queue
                            request threads running the overflow themselves.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PoolShape:
    core: int
    max: int
    queue: int
    caller_runs: bool


def width(pool: PoolShape, in_flight: int, tasks_per_request: int) -> tuple[int, str]:
    """Threads that can run the pool's tasks at once, and why, in one phrase."""
    outstanding = in_flight * tasks_per_request
    if outstanding <= pool.core + pool.queue:
        return pool.core, (f"{pool.core} core threads (at most {outstanding} tasks outstanding "
                           f"never fill the {pool.queue}-task queue, so the pool never grows)")
    if outstanding <= pool.max + pool.queue:
        threads = max(pool.core, outstanding - pool.queue)
        return threads, (f"{threads} pool threads ({outstanding} tasks outstanding at most, "
                         f"{pool.queue} of them queued)")
    overflow = outstanding - pool.max - pool.queue
    if not pool.caller_runs:
        return pool.max, f"{pool.max} pool threads (the overflow is rejected)"
    return pool.max + overflow, (f"{pool.max} pool threads + up to {overflow} request threads "
                                 "running the overflow (CallerRunsPolicy)")
