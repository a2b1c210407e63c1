"""skynet (atemerev/skynet): a root task spawns `branch` children, recursively, down to `size`
leaves; each leaf returns its ordinal (0..size-1), each parent the sum of its children's.

Every task also returns how many tasks its subtree ran (1 for a leaf, 1 + Σ children for a
parent), so a program that returns the closed-form sum without spawning fails on `tasks`; one that
recurses without spawning gets `tasks` right and fails on `tasks_alive`, the runtime's own
count of the tasks alive when the first leaf runs."""

from __future__ import annotations

from typing import Any

from concbench.workloads import proofs
from concbench.workloads.base import Param, Params, WorkloadSpec


def levels(size: int, branch: int) -> int | None:
    """d with branch**d == size, or None when size is not a power of branch."""
    d, n = 0, 1
    while n < size:
        n *= branch
        d += 1
    return d if n == size else None


def tasks_in_tree(p: Params) -> int:
    """1 + b + b² + … + size: every task of the tree, leaves and the root included."""
    return sum(p["branch"] ** i for i in range((levels(p["size"], p["branch"]) or 0) + 1))


def _expected(p: Params) -> dict[str, int]:
    return {"sum": p["size"] * (p["size"] - 1) // 2, "tasks": tasks_in_tree(p)}


def alive_at_first_leaf(p: Params) -> int:
    """Tasks that must be alive when the first leaf (ordinal 0) runs: it and every ancestor,
    each waiting on the child on its path (root to leaf: levels + 1). A plain recursion
    spawns none, so its runtime counts none above what ran before the tree."""
    return (levels(p["size"], p["branch"]) or 0) + 1


def _result_problems(p: Params, result: dict[str, Any]) -> list[str]:
    found = proofs.at_least(result, "tasks_alive", alive_at_first_leaf(p),
                            "the runtime's live tasks when the first leaf runs, above those "
                            "before the tree")
    return [found] if found else []


def _problems(p: Params) -> list[str]:
    if levels(p["size"], p["branch"]) is None:
        return [f"size {p['size']:,} is not a power of branch {p['branch']} "
                f"(for branch 10: 10, 100, …, 1 000 000)"]
    return []


SPEC = WorkloadSpec(
    name="skynet",
    summary="a tree of tasks, branch children each, down to size leaves; leaves return their "
            "ordinal, parents sum",
    params=(
        Param("size", 1_000_000, "leaves (a power of branch)", 1, 100_000_000),
        Param("branch", 10, "children of every inner task", 2, 1_000),
    ),
    expected=_expected,
    ideal_s=lambda p, budget: None,
    throughput_unit="tasks",
    units_per_iteration=tasks_in_tree,
    verify_params=({"size": 10_000, "branch": 10}, {"size": 4096, "branch": 4}),
    pool_param=None,
    result_problems=_result_problems,
    own_cpu=True,
    growth_per_unit=True,
    param_problems=_problems,
)
