"""skynet (atemerev/skynet): a tree of asyncio Tasks, `branch` children each, down to `size`
leaves; each leaf returns (its ordinal, 1), each parent (Σ children's sums, 1 + Σ their task
counts) (docs/contract.md, "skynet")."""

from __future__ import annotations

import asyncio
from typing import Any

from .common import BadInput, Params, now_ns

PARAMS = ["size", "branch"]


def is_power(size: int, branch: int) -> bool:
    n = 1
    while n < size:
        n *= branch
    return n == size


async def skynet(num: int, size: int, branch: int) -> tuple[int, int]:
    """(sum of the leaves' ordinals, tasks run) of the subtree rooted at this task."""
    if size == 1:
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
        start = now_ns()
        total, tasks = await asyncio.create_task(skynet(0, size, branch))  # the root is a Task too
        elapsed = now_ns() - start
        return elapsed, {"sum": total, "tasks": tasks}

    return iteration
