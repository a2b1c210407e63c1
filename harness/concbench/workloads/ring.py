"""ring (seed 004's hand-off claim; the Benchmarks Game's thread-ring): R rings of W tasks pass
a token H times, each task waiting on its runtime's own hand-off primitive. W = 2 is ping-pong
(the latency of one hand-off), W = 503 is thread-ring; R > 1 puts the scheduler under load.

Task ids run 1..W; task 1 holds the token first, so after H passes the token is at task
(H mod W) + 1. Each task counts the passes it received; the sums and the final holder of every
ring prove that no pass was skipped, and the runtime's own count of live tasks at the barrier
proves they were R·W concurrent tasks, not a counting loop. Only the passes are timed: the rings
are spawned before the clock starts and stopped after it stops (docs/contract.md). A ring that
reads the clock inside its passes (sample-every ≥ 1) gives the latency, one that does not (0)
the throughput and CPU."""

from __future__ import annotations

from typing import Any

from concbench.workloads import proofs
from concbench.workloads.base import Param, Params, WorkloadSpec


def _expected(p: Params) -> dict[str, int]:
    holder = p["passes"] % p["size"] + 1
    return {"rings": p["rings"], "passes": p["rings"] * p["passes"],
            "holder_min": holder, "holder_max": holder}


MAX_SAMPLES = 10_000_000
"""Clock readings ring 1 may keep (80 MB of 64-bit values): passes ÷ sample-every."""


CLEAN_EVERY = 1000
"""From this k on, ring 1's clock reads cost under 0.1 ns per pass (one read of ≤ 100 ns per
k passes): the throughput is clean. Below it (k ≥ 1) the figures are the latency cells'."""
MIN_P99_SAMPLES = 1000
"""Samples a p99 needs to be more than one of the largest few (ten lie above it)."""


def samples(p: Params) -> int:
    """Per-hand-off samples ring 1 yields: gaps between its H ÷ k + 1 readings (none at k = 0)."""
    return p["passes"] // p["sample-every"] if p["sample-every"] else 0


def _unmeasured(p: Params) -> dict[str, str]:
    """What a cell cannot give: clean throughput and CPU when the passes read the clock, a p99
    from too few samples."""
    found = {}
    if 0 < p["sample-every"] < CLEAN_EVERY:
        why = f"ring 1 reads the clock every {p['sample-every']} passes"
        found |= {"throughput_per_s": why, "cpu_ns_per_unit": why}
    if samples(p) < MIN_P99_SAMPLES:
        found["result.handoff_p99_ns"] = f"{samples(p)} samples, fewer than {MIN_P99_SAMPLES}"
    return found


def _result_problems(p: Params, result: dict[str, Any]) -> list[str]:
    """The proofs beside the counts: every task alive at once at the barrier (the runtime's
    own count), the samples ring 1 must have made, percentiles in order."""
    found = [m for m in (proofs.at_least(result, "tasks_alive", p["rings"] * p["size"],
                                         "R·W tasks spawned and waiting at the barrier"),
                         proofs.at_least(result, "clock_read_ns", 0,
                                         "the cost of one clock reading"),
                         proofs.exactly(result, "handoff_samples", samples(p),
                                        "H ÷ k gaps of ring 1's readings"))
             if m]
    if samples(p) and not found:
        p50, p99 = result.get("handoff_p50_ns"), result.get("handoff_p99_ns")
        if type(p50) is not int or type(p99) is not int or not 0 <= p50 <= p99:
            found.append(f"handoff_p50_ns={p50!r}, handoff_p99_ns={p99!r}: expected integers "
                         "with 0 ≤ p50 ≤ p99")
    return found


def _problems(p: Params) -> list[str]:
    found = []
    if p["rings"] * p["size"] > 1_000_000:
        found.append(f"rings × size = {p['rings'] * p['size']:,} tasks; at most 1 000 000")
    if samples(p) > MAX_SAMPLES:
        found.append(f"passes ÷ sample-every = {p['passes'] // p['sample-every']:,} clock "
                     f"readings; at most {MAX_SAMPLES:,} (raise sample-every)")
    return found


SPEC = WorkloadSpec(
    name="ring",
    summary="R rings of W tasks pass a token H times (W=2: ping-pong; W=503: thread-ring)",
    params=(
        Param("rings", 1, "rings running at once (R)", 1, 10_000),
        Param("size", 503, "tasks per ring (W; 2 is ping-pong)", 2, 100_000),
        Param("passes", 1_000_000, "hand-offs per ring (H)", 1, 100_000_000),
        Param("sample-every", 1, "ring 1 records a clock reading every k passes; the spread of "
              "those gaps ÷ k is the hand-off distribution (handoff_p50_ns, handoff_p99_ns); "
              "0: no reading, the clean throughput", 0, 1_000_000),
    ),
    expected=_expected,
    ideal_s=lambda p, budget: None,
    throughput_unit="hand-offs",
    units_per_iteration=lambda p: p["rings"] * p["passes"],
    verify_params=(
        {"rings": 1, "size": 2, "passes": 2001, "sample-every": 1},
        {"rings": 3, "size": 503, "passes": 5003, "sample-every": 10},
        {"rings": 2, "size": 3, "passes": 3000, "sample-every": 0},
    ),
    pool_param=None,
    result_problems=_result_problems,
    own_cpu=True,
    unmeasured=_unmeasured,
    param_problems=_problems,
)
