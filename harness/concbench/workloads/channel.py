"""channel (seed 002, bench-of-chan): W producer→consumer pairs over bounded queues."""

from __future__ import annotations

from concbench.workloads.base import Param, Params, WorkloadSpec

ETYPES = ("int", "str", "str_ptr", "str_clone")


def _expected(p: Params) -> dict[str, int]:
    """Totals, the per-consumer spread (each consumer gets exactly E), and for strings the
    kind proof: events whose string is the same object as the previous one's (str_ptr shares
    one string, str and str_clone make a fresh one per event; an empty string has no
    allocation to tell apart, so esize 0 is not checked for kind)."""
    w, e = p["workers"], p["events"]
    spread = {"min_events": e, "max_events": e}
    if p["etype"] == "int":
        return {"events": w * e, "value_sum": w * e * (e - 1) // 2, **spread}
    found = {"events": w * e, "bytes": w * e * p["esize"], **spread}
    if p["esize"] > 0:
        found["same_as_prev"] = w * (e - 1) if p["etype"] == "str_ptr" else 0
    return found


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
    ideal_s=lambda p, budget: None,
    throughput_unit="events",
    units_per_iteration=lambda p: p["workers"] * p["events"],
    verify_params=tuple(
        {"workers": 20, "events": 500, "queue": 16, "etype": t, "esize": 16} for t in ETYPES
    ),
    pool_param=None,
)
