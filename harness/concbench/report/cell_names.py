"""Short names of a plan's cells for the progress lines: a cell is named by what varies in the
plan (the scanned parameters, or the values that differ between its cells of one workload),
not by every parameter, and a parameter that does not apply to a contender (pool-size for a
style without a pool) is left out for it. The full parameters are in the tables and
results.json."""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from concbench.manifest import Contender
from concbench.plan import CellPlan
from concbench.workloads import WorkloadSpec

POOL_SIZE = "pool-size"


def _mentions_pool(table: Mapping[str, Any] | None, pool_param: str) -> bool:
    """A manifest table with a value written in the pool size ("pool-size", "3*pool-size")."""
    written = re.compile(rf"(\d+\s*\*\s*)?{re.escape(pool_param)}")
    return any(isinstance(v, str) and written.fullmatch(v.strip())
               for v in (table or {}).values())


def pool_param(spec: WorkloadSpec) -> str | None:
    """The parameter sizing a style's pool: the spec's own (batch workloads check it in each
    result), or pool-size where a server workload passes one to its contenders."""
    if spec.pool_param:
        return spec.pool_param
    return POOL_SIZE if any(p.name == POOL_SIZE for p in spec.params) else None


def applies(contender: Contender, workload: str, pool_param: str | None, param: str) -> bool:
    """Whether the contender uses this parameter: the pool size only where it keeps a pool
    (manifest `pooled`, or a thread budget or server bound written in pool-size)."""
    if param != pool_param:
        return True
    return (contender.is_pooled(workload)
            or _mentions_pool(contender.budgets.get(workload), param)
            or (workload.startswith("http-") and _mentions_pool(contender.bounds, param)))


class CellNames:
    """Names for the cells of one plan."""

    def __init__(self, cells: Sequence[CellPlan]):
        self._varying: dict[str, list[str]] = {}
        self._contenders: dict[str, Contender] = {c.contender.name: c.contender for c in cells}
        self._pool: dict[str, str | None] = {c.spec.name: pool_param(c.spec) for c in cells}
        by_workload: dict[str, list[CellPlan]] = {}
        for cell in cells:
            by_workload.setdefault(cell.spec.name, []).append(cell)
        for workload, group in by_workload.items():
            keys: list[str] = []
            for cell in group:
                keys += [k for k in cell.params if k not in keys]
            self._varying[workload] = [
                k for k in keys if len({repr(c.params.get(k)) for c in group}) > 1]

    def params(self, workload: str, contender: str, params: Mapping[str, Any]) -> str:
        """The parameters that tell this cell from the plan's others ("" when none do)."""
        who = self._contenders.get(contender)
        shown = [k for k in self._varying.get(workload, ()) if k in params and (
            who is None or applies(who, workload, self._pool.get(workload), k))]
        return " ".join(f"{k}={params[k]}" for k in shown)

    def name(self, workload: str, contender: str, params: Mapping[str, Any]) -> str:
        varying = self.params(workload, contender, params)
        return f"{workload} · {contender}" + (f" · {varying}" if varying else "")
