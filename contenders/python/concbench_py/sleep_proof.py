"""Proof that tasks slept on timers of their own (docs/contract.md, fanout and sleep-tasks): each
task reads the monotonic clock right before its sleep and right after it returns; this keeps how
many did and the shortest such sleep. Plain ints: one event-loop thread runs every task and
record() contains no await, so no other task can interleave (no lock)."""

from __future__ import annotations

import asyncio
from time import perf_counter_ns


class SleepProof:
    __slots__ = ("count", "min_ns")

    def __init__(self) -> None:
        self.count = 0
        self.min_ns: int | None = None

    async def sleep(self, seconds: float) -> None:
        """asyncio.sleep(seconds), timed with time.perf_counter_ns (CLOCK_MONOTONIC) around it."""
        before = perf_counter_ns()
        await asyncio.sleep(seconds)
        slept = perf_counter_ns() - before
        self.count += 1
        if self.min_ns is None or slept < self.min_ns:
            self.min_ns = slept

    def shortest_ns(self) -> int:
        """The shortest sleep recorded, in integer ns; 0 when nothing slept."""
        return 0 if self.min_ns is None else self.min_ns
