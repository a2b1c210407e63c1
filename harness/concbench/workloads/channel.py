"""channel (seed 002, bench-of-chan): W producer→consumer pairs over bounded queues."""

from __future__ import annotations

from concbench.workloads.base import Param, Params, WorkloadSpec

ETYPES = ("int", "str", "str_ptr", "str_clone")


def _expected(p: Params) -> dict[str, int]:
    w, e = p["workers"], p["events"]
    if p["etype"] == "int":
        return {"events": w * e, "value_sum": w * e * (e - 1) // 2}
    return {"events": w * e, "bytes": w * e * p["esize"]}


SPEC = WorkloadSpec(
    name="channel",
    summary="W consumers with bounded queues of capacity Q, one producer each sending E events",
    params=(
        Param("workers", 1000, "consumers (and producers)", 1, 100_000),
        Param("events", 10_000, "events each producer sends", 1, 10_000_000),
        Param("queue", 256, "capacity of each consumer's queue", 1, 1_000_000),
        Param("etype", "int", "event kind", choices=ETYPES),
        Param("esize", 64, "string size in bytes for the string kinds", 0, 1_000_000),
    ),
    expected=_expected,
    ideal_s=lambda p, pooled: None,
    throughput_unit="events",
    units_per_iteration=lambda p: p["workers"] * p["events"],
    verify_params=tuple(
        {"workers": 20, "events": 500, "queue": 16, "etype": t, "esize": 16} for t in ETYPES
    ),
    pool_param=None,
)
