"""skynet (atemerev/skynet): a tree of asyncio Tasks, `branch` children each, down to `size`
leaves; each leaf returns (its ordinal, 1), each parent (Σ children's sums, 1 + Σ their task
counts) (docs/contract.md, "skynet")."""

from __future__ import annotations

import asyncio
from typing import Any

from .common import BadInput, Params, cpu_ns, now_ns, own_cpu

PARAMS = ["size", "branch"]


def is_power(size: int, branch: int) -> bool:
    n = 1
    while n < size:
        n *= branch
    return n == size


FIRST_LEAF = {"before": 0, "alive": 0}
"""The live Tasks before the root is spawned, and above that when leaf 0 runs (one
len(asyncio.all_tasks()) per tree: it walks the loop's set of live Tasks once)."""


async def skynet(num: int, size: int, branch: int) -> tuple[int, int]:
    """(sum of the leaves' ordinals, tasks run) of the subtree rooted at this task."""
    if size == 1:
        if num == 0:
            FIRST_LEAF["alive"] = len(asyncio.all_tasks()) - FIRST_LEAF["before"]
        return num, 1
    size //= branch
    # Each child is a Task of its own, spawned into a TaskGroup and joined by leaving it.
    async with asyncio.TaskGroup() as tg:
        children = [tg.create_task(skynet(num + i * size, size, branch)) for i in range(branch)]
    total, tasks = 0, 1
    for child in children:
        s, t = child.result()
        total += s
        tasks += t
    return total, tasks


def setup(p: Params):
    size, branch = p.int("size", 1), p.int("branch", 2)
    if not is_power(size, branch):
        raise BadInput(f"--size={size} is not a power of --branch={branch}")

    async def iteration(index: int) -> tuple[int, dict[str, Any]]:
        FIRST_LEAF["before"] = len(asyncio.all_tasks())
        cpu_start = cpu_ns()
        start = now_ns()
        total, tasks = await asyncio.create_task(skynet(0, size, branch))  # the root is a Task too
        elapsed = now_ns() - start
        cpu = own_cpu(cpu_start)
        return elapsed, {"sum": total, "tasks": tasks, "tasks_alive": FIRST_LEAF["alive"]}, cpu

    return iteration
