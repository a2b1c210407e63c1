"""ring (seed 004's hand-off claim; the Benchmarks Game's thread-ring): R rings of W tasks pass
a token H times, each task waiting on its runtime's own hand-off primitive. W = 2 is ping-pong
(the latency of one hand-off), W = 503 is thread-ring; R > 1 puts the scheduler under load.

Task ids run 1..W; task 1 holds the token first, so after H passes the token is at task
(H mod W) + 1. Each task counts the passes it received; the sums and the final holder of every
ring prove that no pass was skipped. Only the passes are timed: the rings are spawned before the
clock starts and stopped after it stops (docs/contract.md)."""

from __future__ import annotations

from concbench.workloads.base import Param, Params, WorkloadSpec


def _expected(p: Params) -> dict[str, int]:
    holder = p["passes"] % p["size"] + 1
    return {"rings": p["rings"], "passes": p["rings"] * p["passes"],
            "holder_min": holder, "holder_max": holder}


MAX_SAMPLES = 10_000_000
"""Clock readings ring 1 may keep (80 MB of 64-bit values): passes ÷ sample-every."""


def _problems(p: Params) -> list[str]:
    found = []
    if p["rings"] * p["size"] > 1_000_000:
        found.append(f"rings × size = {p['rings'] * p['size']:,} tasks; at most 1 000 000")
    if p["passes"] // p["sample-every"] > MAX_SAMPLES:
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
              "those gaps ÷ k is the hand-off distribution (handoff_p50_ns, handoff_p99_ns)",
              1, 1_000_000),
    ),
    expected=_expected,
    ideal_s=lambda p, budget: None,
    throughput_unit="hand-offs",
    units_per_iteration=lambda p: p["rings"] * p["passes"],
    verify_params=(
        {"rings": 1, "size": 2, "passes": 2001, "sample-every": 1},
        {"rings": 3, "size": 503, "passes": 5003, "sample-every": 10},
    ),
    pool_param=None,
    param_problems=_problems,
)
