"""A style's thread budget on a batch workload: the threads it may hold waiting at once.

The ideal and the lower bound of fanout and sleep-tasks follow from it, so a style's efficiency
says how well it uses the threads it chose, not how many it chose (its time says that). The
manifest declares it: `pooled` alone means "one pool of pool-size threads runs the tasks";
`[contenders.X.budget.WORKLOAD]` says more, e.g. java-platform's fanout, whose request threads
wait on a second pool for the three sub-fetches (docs/contract.md, "Thread budgets").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping


SCALED = re.compile(r"^(?:(\d+)\s*\*\s*)?pool-size$")
KEYS = ("request-threads", "async-threads", "async-waits")


@dataclass(frozen=True)
class ThreadBudget:
    """None: unbounded (a task, coroutine or virtual thread per wait)."""

    request_threads: int | None = None
    """Tasks / requests that may run at once, each holding its thread from start to end."""
    async_threads: int | None = None
    """A second pool on which the waits named in async_waits each hold a thread."""
    async_waits: tuple[str, ...] = ()
    """The waits (parameter names without -ms) that run on the async pool."""

    def to_dict(self) -> dict[str, Any]:
        return {"request_threads": self.request_threads, "async_threads": self.async_threads,
                "async_waits": list(self.async_waits)}


UNBOUNDED = ThreadBudget()


def _threads(value: Any, params: Mapping[str, Any]) -> int | None:
    if value is None:
        return None
    if isinstance(value, int):
        return value
    match = SCALED.match(str(value))
    scale = int(match.group(1) or 1) if match else 1
    return scale * int(params["pool-size"]) if "pool-size" in params else None


def resolve(table: Mapping[str, Any] | None, pooled: bool,
            params: Mapping[str, Any]) -> ThreadBudget:
    """The budget of a style on a workload for these parameters."""
    if table:
        return ThreadBudget(_threads(table.get("request-threads"), params),
                            _threads(table.get("async-threads"), params),
                            tuple(table.get("async-waits", ())))
    if pooled:
        return ThreadBudget(request_threads=_threads("pool-size", params))
    return UNBOUNDED
