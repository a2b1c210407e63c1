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

from concbench.errors import UserError

_SCALED = re.compile(r"^(?:(\d+)\s*\*\s*)?pool-size$")
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
    match = _SCALED.match(str(value))
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


def check_table(raw: Any, where: str) -> dict[str, dict[str, Any]]:
    """Validate `[contenders.X.budget]`: workload → {request-threads, async-threads, async-waits}."""
    if not isinstance(raw, dict):
        raise UserError(f"{where} must be a table of workload = {{ ... }}")
    from concbench import workloads

    for workload, table in raw.items():
        here = f"{where}.{workload}"
        if not isinstance(table, dict):
            raise UserError(f"{here} must be a table")
        spec = workloads.get(str(workload))
        waits = [p.name[:-3] for p in spec.params if p.name.endswith("-ms")]
        for key, value in table.items():
            if key not in KEYS:
                raise UserError(f"{here}: unknown key {key!r}; known: {', '.join(KEYS)}")
            if key == "async-waits":
                ok = isinstance(value, list) and all(w in waits for w in value)
            else:
                ok = (isinstance(value, int) and not isinstance(value, bool) and value > 0) or (
                    isinstance(value, str) and bool(_SCALED.match(value)))
            if not ok:
                want = f"a list of {', '.join(waits)}" if key == "async-waits" else \
                    'a positive number, "pool-size" or "N*pool-size"'
                raise UserError(f"{here}.{key} = {value!r} is not valid: {want}")
    return {str(k): dict(v) for k, v in raw.items()}
