"""channel (seed 002, bench-of-chan): W consumers, each with its own asyncio.Queue(maxsize=Q)
fed by its own producer task with E events.

Event kinds (strings are ASCII "x", so len() in code points is the length in UTF-8 bytes):

    int        the index i
    str        a new S-character string built per event: "x" * S (see new_string for S = 1)
    str_ptr    the one shared S-character string object, every event (a reference, no copy)
    str_clone  a new copy of a prototype string per event: copy_str(proto)

asyncio.Queue has no close() before Python 3.13 (Queue.shutdown), so each producer ends its
stream with the sentinel None (one extra put), which the consumer does not count.

String consumers keep the previous event's string alive until the next one arrives and compare
the two with `is` (object identity, i.e. the same allocation): same_as_prev.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .common import BadInput, Params, now_ns

PARAMS = ["workers", "events", "queue", "etype", "esize"]
ETYPES = ("int", "str", "str_ptr", "str_clone")

_NO_PREV = object()  # the "previous string" before the first event: no event's string is it


def copy_str(s: str) -> str:
    """A new str object equal to s (for len(s) >= 1): one allocation of len(s) characters and a
    memcpy. CPython's str is immutable, so its copying idioms give back s itself: s[:], str(s),
    copy.copy(s), s + "" and "".join((s,)) all return the same object; s.encode().decode() makes
    two allocations and, for one character, returns CPython's cached single-character string.
    str.join of two parts builds a new string (it returns its item unchanged only for a
    one-item sequence), so joining s with "" copies it at every length, one character included.
    The empty string is a singleton: there is nothing to copy."""
    return "".join((s, ""))


def new_string(size: int) -> str:
    """A new string of `size` x's. "x" * size allocates and fills a new one, except that CPython
    returns "x" itself for a count of 1 (a cached single-character string): copied then."""
    return "x" * size if size != 1 else copy_str("x")


def setup(p: Params):
    workers, events, size = p.int("workers"), p.int("events"), p.int("esize")
    queue = p.int("queue", 1)  # asyncio.Queue(maxsize=0) would be unbounded, not a rendezvous
    etype = p.str("etype")
    if etype not in ETYPES:
        raise BadInput(f"--etype={etype}: want int, str, str_ptr or str_clone")
    proto = "x" * size  # made once at set-up: shared by str_ptr, copied by str_clone

    async def produce_int(q: asyncio.Queue) -> None:
        for i in range(events):
            await q.put(i)
        await q.put(None)

    async def produce_str(q: asyncio.Queue) -> None:
        for _ in range(events):
            await q.put("x" * size)
        await q.put(None)

    async def produce_str_1(q: asyncio.Queue) -> None:  # str at esize 1 (see new_string)
        for _ in range(events):
            await q.put(new_string(1))
        await q.put(None)

    async def produce_str_ptr(q: asyncio.Queue) -> None:
        for _ in range(events):
            await q.put(proto)
        await q.put(None)

    async def produce_str_clone(q: asyncio.Queue) -> None:
        for _ in range(events):
            await q.put("".join((proto, "")))  # copy_str(proto), inlined
        await q.put(None)

    async def consume_int(q: asyncio.Queue) -> tuple[int, int, int]:
        count = total = 0
        while (v := await q.get()) is not None:
            count += 1
            total += v
        return count, total, 0

    async def consume_str(q: asyncio.Queue) -> tuple[int, int, int]:
        count = total = same = 0
        prev: object = _NO_PREV
        while (s := await q.get()) is not None:
            count += 1
            total += len(s)
            if s is prev:
                same += 1
            prev = s  # keeps the string alive until the next event has arrived
        return count, total, same

    if etype == "int":
        produce, consume = produce_int, consume_int
    else:
        consume = consume_str
        produce = {"str": produce_str if size != 1 else produce_str_1,
                   "str_ptr": produce_str_ptr, "str_clone": produce_str_clone}[etype]

    async def iteration(index: int) -> tuple[int, dict[str, Any]]:
        start = now_ns()
        async with asyncio.TaskGroup() as tg:
            consumers = []
            for _ in range(workers):
                q: asyncio.Queue = asyncio.Queue(maxsize=queue)
                consumers.append(tg.create_task(consume(q)))
                tg.create_task(produce(q))
        elapsed = now_ns() - start

        tallies = [c.result() for c in consumers]
        counts = [t[0] for t in tallies]
        result: dict[str, Any] = {"events": sum(counts)}
        if etype == "int":
            result["value_sum"] = sum(t[1] for t in tallies)
        else:
            result["bytes"] = sum(t[1] for t in tallies)
        result["min_events"] = min(counts, default=0)
        result["max_events"] = max(counts, default=0)
        if etype != "int":
            result["same_as_prev"] = sum(t[2] for t in tallies)
        return elapsed, result

    return iteration
