"""spawn-idle (seed 004): spawn N tasks that each sleep H ms; mark the moment all of them have
started, then wait for all."""

from __future__ import annotations

import asyncio
from typing import Any

from .common import Params, emit_mark, now_ns

PARAMS = ["tasks", "hold-ms"]


def setup(p: Params):
    tasks = p.int("tasks")
    hold = p.seconds("hold-ms")

    async def iteration(index: int) -> tuple[int, dict[str, Any]]:
        started = completed = 0
        all_started = asyncio.Event()  # set by the task that brings `started` to N

        async def idle() -> None:
            nonlocal started, completed
            started += 1  # first action; one loop thread, so a plain int is the shared counter
            if started == tasks:
                all_started.set()
            await asyncio.sleep(hold)
            completed += 1

        start = now_ns()
        if tasks == 0:
            all_started.set()
        # The Tasks are kept in a list and awaited in turn, not put in a TaskGroup: a TaskGroup
        # adds per task a set entry, a bound-method done callback and the Context copy that
        # add_done_callback makes (gather: a dict entry and a callback), which is not the cost
        # of a task itself. create_task only schedules a task: the tasks take their first step
        # once this coroutine awaits the Event, and the last of them wakes it.
        spawned = [asyncio.create_task(idle()) for _ in range(tasks)]
        await all_started.wait()
        emit_mark("all-spawned", index, now_ns() - start)
        for task in spawned:
            await task
        elapsed = now_ns() - start
        return elapsed, {"tasks": completed}

    return iteration
