"""ring (seed 004's hand-off claim; the Benchmarks Game's thread-ring): R rings of W tasks pass a
token H times, one asyncio Task per ring member (docs/contract.md, "ring").

The hand-off primitive is a Future: a member that waits makes a fresh Future, publishes it as its
inbox and awaits it; the previous member hands the token on with set_result(count). set_result
only schedules the waiting Task's wake-up (loop.call_soon), so a hand-off is one turn of the
event loop, not a thread switch. A Future is the primitive asyncio's own hand-offs are built on:
Queue.get() on an empty queue parks on a Future that put() resolves, adding a deque and its
getter/putter bookkeeping that a ring, with one token in flight, has no use for.

Task 1 of every ring holds the token first: it waits on the release Future that the timer
resolves with H (shared by every ring), and that release is not counted as a received pass.
The final holder (the task receiving 0) stops its ring's clock; after the clock stops every ring
is shut down by a stop value passed round (negative, counting up to -1, so each member gets it
once).
"""

from __future__ import annotations

import asyncio
import math
from array import array
from typing import Any

from .common import Params, clock_read_ns, cpu_ns, now_ns, own_cpu

PARAMS = ["rings", "size", "passes", "sample-every"]


def nearest_rank(ordered: list[int], percent: float) -> int:
    """The percentile of sorted values by the nearest-rank method."""
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]


def handoff_stats(stamps: array, every: int) -> dict[str, Any]:
    """Per-hand-off samples from ring 1's readings. stamps[m] is the reading taken at count m*k;
    counts go down, so stamps[m] is later than stamps[m + 1] by k hand-offs. Sorting the gaps
    before dividing by k picks the same samples (division by k keeps the order)."""
    if len(stamps) < 2:
        return {"handoff_samples": 0}
    gaps = sorted(stamps[m] - stamps[m + 1] for m in range(len(stamps) - 1))
    return {"handoff_p50_ns": round(nearest_rank(gaps, 50) / every),
            "handoff_p99_ns": round(nearest_rank(gaps, 99) / every),
            "handoff_samples": len(gaps)}


class Rings:
    """What one iteration's members share: the release, the readings of ring 1, the final
    holders, and the two Futures the timer waits on."""

    def __init__(self, loop: asyncio.AbstractEventLoop, rings: int, size: int, passes: int,
                 every: int):
        self.loop, self.size, self.every = loop, size, every
        self.release = loop.create_future()  # set to H by the timer: task 1's first token
        self.all_waiting = loop.create_future()  # set by the last member to reach its first wait
        self.all_done = loop.create_future()  # set by the last ring's final holder
        self.holders = [0] * rings
        # ring 1 only, preallocated; none at every = 0 (no clock read in the passes)
        self.stamps = array("q", bytes(8 * (passes // every + 1 if every else 0)))
        self.not_waiting = rings * size
        self.not_done = rings

    def arrived(self) -> None:
        self.not_waiting -= 1
        if self.not_waiting == 0:
            self.all_waiting.set_result(None)

    def finished(self, ring: int, holder: int) -> None:
        self.holders[ring] = holder
        self.not_done -= 1
        if self.not_done == 0:
            self.all_done.set_result(None)

    async def member(self, ring: int, i: int, inboxes: list[Any]) -> int:
        """Ring member i (0-based; id i + 1). Returns the tokens it received."""
        new_future, clock, stamps, every = self.loop.create_future, now_ns, self.stamps, self.every
        nxt = (i + 1) % self.size
        timed = ring == 0 and every > 0
        received = 0
        # No await before the first wait: when the last member arrives here, every member has
        # published its inbox (task 1 publishes its own after its first pass).
        self.arrived()
        if i == 0:
            c = await self.release
            if timed and c % every == 0:
                stamps[c // every] = clock()
            inboxes[nxt].set_result(c - 1)
        while True:
            inbox = inboxes[i] = new_future()
            c = await inbox
            if c < 0:  # stop: pass it on until it has gone round once
                if c < -1:
                    inboxes[nxt].set_result(c + 1)
                return received
            received += 1
            if timed and c % every == 0:
                stamps[c // every] = clock()
            if c == 0:  # the final holder: stays in the ring until the stop comes round
                self.finished(ring, i + 1)
            else:
                inboxes[nxt].set_result(c - 1)


def setup(p: Params):
    rings, size = p.int("rings", 1), p.int("size", 2)
    passes, every = p.int("passes", 1), p.int("sample-every", 0)

    async def iteration(index: int) -> tuple[int, dict[str, Any]]:
        shared = Rings(asyncio.get_running_loop(), rings, size, passes, every)
        before = len(asyncio.all_tasks())
        async with asyncio.TaskGroup() as tg:
            ring_inboxes: list[list[Any]] = [[None] * size for _ in range(rings)]
            members = [tg.create_task(shared.member(r, i, ring_inboxes[r]))
                       for r in range(rings) for i in range(size)]
            await shared.all_waiting
            alive = len(asyncio.all_tasks()) - before  # every member, at its first wait
            cpu_start = cpu_ns()
            start = now_ns()
            shared.release.set_result(passes)
            await shared.all_done
            elapsed = now_ns() - start
            cpu = own_cpu(cpu_start)
            for r in range(rings):
                ring_inboxes[r][shared.holders[r] - 1].set_result(-size)

        holders = shared.holders
        result: dict[str, Any] = {"rings": rings, "passes": sum(m.result() for m in members),
                                  "holder_min": min(holders), "holder_max": max(holders),
                                  "tasks_alive": alive, "clock_read_ns": clock_read_ns()}
        result.update(handoff_stats(shared.stamps, every))
        return elapsed, result, cpu

    return iteration
