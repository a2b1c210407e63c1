"""sleep-tasks (seed 001): N tasks; each sleeps, timing its own sleep, then runs K steps of a
32-bit chain seeded with cpu-seed on the event loop."""

from __future__ import annotations

import asyncio
from typing import Any

from .common import BadInput, Params, now_ns
from .sleep_proof import SleepProof

PARAMS = ["tasks", "sleep-ms", "cpu-iters", "cpu-seed", "pool-size"]
MASK = 0xFFFFFFFF


def cpu_chain(seed: int, iters: int) -> int:
    """K steps of x = x*1664525 + 1013904223, s = s + x from x = seed, each masked to 32 bits
    (Python ints do not wrap); a real interpreted loop, one step after the other."""
    x, s = seed, 0
    for _ in range(iters):
        x = (x * 1664525 + 1013904223) & MASK
        s = (s + x) & MASK
    return s


def setup(p: Params):
    tasks, iters, seed = p.int("tasks"), p.int("cpu-iters"), p.int("cpu-seed")
    if seed > MASK:
        raise BadInput(f"--cpu-seed={seed}: must be below 2^32")
    p.int("pool-size")  # validated, then ignored: one task per task, no pool
    sleep = p.seconds("sleep-ms")

    async def iteration(index: int) -> tuple[int, dict[str, Any]]:
        # One event loop thread runs every task: `finished += 1` has no await inside, so no
        # other task can interleave with it (no lock, no atomic needed).
        finished = cpu_sum = 0
        slept = SleepProof()

        async def task() -> None:
            nonlocal finished, cpu_sum
            await slept.sleep(sleep)
            cpu_sum += cpu_chain(seed, iters)
            finished += 1

        start = now_ns()
        async with asyncio.TaskGroup() as tg:
            for _ in range(tasks):
                tg.create_task(task())
        elapsed = now_ns() - start
        return elapsed, {"tasks": finished, "cpu_sum": cpu_sum, "slept_min_ns": slept.shortest_ns(),
                         "pool_size": None}

    return iteration
