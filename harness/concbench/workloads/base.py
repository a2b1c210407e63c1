"""The spec of a workload: its parameters, the result it must produce, its ideal time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from concbench.errors import UserError
from concbench.workloads.budget import ThreadBudget
from concbench.workloads.params import Param, Params
from concbench.workloads.server import ServerSpec

__all__ = ["Param", "Params", "WorkloadSpec"]

@dataclass(frozen=True)
class WorkloadSpec:
    """Everything the harness knows about one workload (DESIGN.md §3)."""

    name: str
    summary: str
    params: tuple[Param, ...]
    expected: Callable[[Params], dict[str, Any]]
    """The result fields every iteration must report, computed from the parameters."""
    ideal_s: Callable[[Params, ThreadBudget], float | None]
    """Ideal wall time of one iteration given the params and the style's thread budget."""
    throughput_unit: str
    units_per_iteration: Callable[[Params], float]
    """How many `throughput_unit`s one iteration handles (requests, tasks, events)."""
    verify_params: tuple[Params, ...] = ()
    """Small sizes used by `concbench verify` and the conformance tests."""
    pool_param: str | None = "pool-size"
    marks: tuple[str, ...] = ()
    """Marks a run must print; the harness records RSS and threads at each."""
    check_marks: Callable[..., list[str]] | None = None
    """Problems with an iteration's marks, given (params, {name: mark}, the iteration's
    elapsed_ns): a mark that came too late, an iteration that ended too soon after it."""
    rate_mark: str | None = None
    """When set, throughput is units ÷ the time to this mark (spawn rate), not ÷ the iteration."""
    lower_bound_s: Callable[[Params, ThreadBudget], float | None] | None = None
    """No correct iteration can be faster (its waits alone take this long); None: no bound."""
    server: ServerSpec | None = None
    """Set for server workloads (http-*): the process serves HTTP until SIGTERM."""
    result_problems: Callable[[Params, dict[str, Any]], list[str]] | None = None
    """Problems with the proofs in a result that are bounds, not values: the sleeps its
    tasks measured, the work its sub-tasks counted (each message names the hole)."""
    own_cpu: bool = False
    """Every iteration must report its CPU from the contender's own process CPU clock
    (cpu_ns, cpu_tick_ns): the CPU per unit is then read over the timed region alone."""
    growth_per_unit: bool = False
    """Report rss_growth_bytes_per_unit: each iteration's RSS growth above the RSS just before
    it, per unit (skynet's bytes per task; batch.iteration_memory)."""
    unmeasured: Callable[[Params], dict[str, str]] | None = None
    """Cell statistics these params cannot give, each with why: a ring that reads the clock
    inside its passes has no clean throughput (stats key -> reason)."""
    param_problems: Callable[[Params], list[str]] | None = None
    """Problems with a combination of parameters that each pass their own bounds (for example
    skynet's size, which must be a power of its branch); any problem is a UserError (exit 2)."""

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        names = ", ".join(p.name for p in self.params)
        raise UserError(f"workload {self.name} has no parameter '{name}'; its parameters: {names}")

    def resolve(self, given: Params) -> dict[str, Any]:
        """All parameters, defaults filled in, in declaration order."""
        for name in given:
            self.param(name)
        resolved = {p.name: given.get(p.name, p.default) for p in self.params}
        problems = self.param_problems(resolved) if self.param_problems else []
        if problems:
            raise UserError(f"{self.name}: " + "; ".join(problems))
        return resolved

    def check(self, params: Params, result: Any, pooled: bool) -> list[str]:
        """Problems with one iteration's result; empty when it is right."""
        if not isinstance(result, dict):
            return [f"result is not an object: {result!r}"]
        problems = []
        for key, want in self.expected(params).items():
            got = result.get(key)
            if got != want or type(got) is not type(want):  # 1.0 or true is not 1
                problems.append(f"{key}={got!r}, expected {want!r}")
        if self.pool_param and self.pool_param in params:
            want_pool = params[self.pool_param] if pooled else None
            if "pool_size" not in result:
                problems.append("pool_size missing (null for unbounded styles)")
            elif result["pool_size"] != want_pool or type(result["pool_size"]) is not type(
                    want_pool):
                problems.append(f"pool_size={result['pool_size']!r}, expected {want_pool!r}")
        if self.result_problems:
            problems += self.result_problems(params, result)
        return problems
