"""sleep-tasks (seed 001): N tasks; each sleeps, then runs a small CPU loop on the event loop."""

from __future__ import annotations

import asyncio
from typing import Any

from .common import Params, now_ns

PARAMS = ["tasks", "sleep-ms", "cpu-iters", "pool-size"]


def setup(p: Params):
    tasks, iters = p.int("tasks"), p.int("cpu-iters")
    p.int("pool-size")  # validated, then ignored: one task per task, no pool
    sleep = p.seconds("sleep-ms")

    async def iteration(index: int) -> tuple[int, dict[str, Any]]:
        # One event loop thread runs every task: `finished += 1` has no await inside, so no
        # other task can interleave with it (no lock, no atomic needed).
        finished = cpu_sum = 0

        async def task() -> None:
            nonlocal finished, cpu_sum
            await asyncio.sleep(sleep)
            s = 0
            for i in range(iters):  # a real interpreted loop, K steps
                s += i % 2
            cpu_sum += s
            finished += 1

        start = now_ns()
        async with asyncio.TaskGroup() as tg:
            for _ in range(tasks):
                tg.create_task(task())
        elapsed = now_ns() - start
        return elapsed, {"tasks": finished, "cpu_sum": cpu_sum, "pool_size": None}

    return iteration
