"""The contract of a batch run, checked whole (docs/contract.md "Output"): every iteration
line well-formed and typed, in index order, warm-ups first, a positive time no shorter than
the workload's physical lower bound, and the marks of every iteration.

A contender that skips or shortens a wait, reports floats or booleans for counts, or prints
its mark once for several iterations is `invalid`, never fast.
"""

from __future__ import annotations

from typing import Any

from concbench.proc.process import CPU_AT_LINE, JIT_AT_LINE
from concbench.resultset.model import Iteration
from concbench.workloads import Params, WorkloadSpec
from concbench.workloads.budget import ThreadBudget

LOWER_BOUND_SLACK = 0.01
LOWER_BOUND_SLACK_S = 0.002
"""An iteration may end this much (1% and 2 ms) before the lower bound: timer granularity."""


def _is_int(v: Any) -> bool:
    return type(v) is int


def parse_iterations(messages: list[dict[str, Any]]) -> tuple[list[Iteration], list[str]]:
    """The iteration lines, each with an int index, a bool warmup, an int elapsed_ns > 0 and
    an object result; a line that is not is a problem, not an iteration."""
    found, problems = [], []
    cpu_before: float | None = 0.0
    jit_before: float | None = 0.0
    for m in messages:
        if m.get("type") != "iteration":
            continue
        cpu_at, jit_at = m.get(CPU_AT_LINE), m.get(JIT_AT_LINE)
        cpu = cpu_at - cpu_before if cpu_at is not None and cpu_before is not None else None
        jit = max(0.0, jit_at - jit_before) if jit_at is not None and jit_before is not None \
            else None
        cpu_before, jit_before = cpu_at, jit_at
        index, warmup, elapsed, result = (m.get("index"), m.get("warmup"), m.get("elapsed_ns"),
                                          m.get("result"))
        if not (_is_int(index) and type(warmup) is bool and _is_int(elapsed)
                and isinstance(result, dict)):
            problems.append("malformed iteration line (index int, warmup bool, elapsed_ns int, "
                            f"result object): {str(m)[:200]}")
            continue
        if elapsed <= 0:
            problems.append(f"iteration {index}: elapsed_ns {elapsed} is not positive")
        own, tick, bad = _own_cpu(m)
        problems += [f"iteration {index}: {b}" for b in bad]
        found.append(Iteration(index=index, warmup=warmup, elapsed_ns=elapsed, result=result,
                               cpu_s=round(cpu, 3) if cpu is not None else None,
                               cpu_ns=own, cpu_tick_ns=tick,
                               jit_cpu_s=round(jit, 3) if jit is not None else None))
    return found, problems


def _own_cpu(m: dict[str, Any]) -> tuple[int | None, int | None, list[str]]:
    """The contender's own CPU reading of the iteration (cpu_ns ≥ 0 with cpu_tick_ns > 0, or
    neither): a half or mistyped pair is a problem, not a figure."""
    own, tick = m.get("cpu_ns"), m.get("cpu_tick_ns")
    if own is None and tick is None:
        return None, None, []
    if _is_int(own) and _is_int(tick) and own >= 0 and tick > 0:
        return own, tick, []
    return None, None, [f"cpu_ns={own!r} with cpu_tick_ns={tick!r}: expected integers, "
                        "cpu_ns ≥ 0 and cpu_tick_ns > 0 (docs/contract.md)"]


def sequence_problems(iterations: list[Iteration], warmup: int, measured: int) -> list[str]:
    """Indexes 0..W+N-1 in order, the first W flagged warm-up and the rest not."""
    want = warmup + measured
    if len(iterations) != want:
        return [f"reported {len(iterations)} iterations, expected {want}"]
    problems = []
    for position, it in enumerate(iterations):
        if it.index != position:
            problems.append(f"iteration at position {position} has index {it.index}")
        if it.warmup != (position < warmup):
            problems.append(f"iteration {it.index}: warmup={it.warmup}, expected "
                            f"{position < warmup} ({warmup} warm-up iterations come first)")
    return problems


def lower_bound_problems(spec: WorkloadSpec, params: Params, budget: ThreadBudget,
                         iterations: list[Iteration]) -> list[str]:
    """Iterations faster than physics allows for the style's thread budget (a wait was
    skipped or shortened, or the style holds more threads than its manifest declares)."""
    bound = spec.lower_bound_s(params, budget) if spec.lower_bound_s else None
    if not bound:
        return []
    floor = bound * (1 - LOWER_BOUND_SLACK) - LOWER_BOUND_SLACK_S
    return [f"iteration {it.index} took {it.elapsed_ns / 1e6:.1f} ms, below the workload's "
            f"lower bound of {bound * 1e3:.1f} ms: a wait was skipped or shortened"
            for it in iterations if it.elapsed_ns / 1e9 < floor]


def mark_problems(spec: WorkloadSpec, params: Params, messages: list[dict[str, Any]],
                  iterations: list[Iteration]) -> list[str]:
    """Every iteration printed each of the workload's marks once, and each passes its check."""
    problems = []
    for name in spec.marks:
        marks = [m for m in messages if m.get("type") == "mark" and m.get("name") == name]
        by_index = {m.get("index"): m for m in marks}
        if len(marks) != len(iterations) or len(by_index) != len(marks):
            problems.append(f"{len(marks)} '{name}' marks for {len(iterations)} iterations "
                            "(one per iteration, each with its index)")
        for it in iterations:
            mark = by_index.get(it.index)
            if mark is None:
                problems.append(f"iteration {it.index}: no '{name}' mark")
            elif not _is_int(mark.get("elapsed_ns")) or mark["elapsed_ns"] <= 0:
                problems.append(f"iteration {it.index}: '{name}' mark without a positive "
                                "integer elapsed_ns")
            elif spec.check_marks:
                problems += [f"iteration {it.index}: {p}"
                             for p in spec.check_marks(params, {name: mark}, it.elapsed_ns)]
    return problems
