"""http-hello (seed 004): GET /hello → 200 text/plain, 200 bytes, under many connections."""

from __future__ import annotations

from concbench.workloads.base import Param, Params, WorkloadSpec
from concbench.workloads.server import Response, ServerSpec, header_problems, load_params

BODY = b"x" * 199 + b"\n"


def _check(p: Params, resp: Response, _id: int) -> list[str]:
    problems = header_problems(resp, "text/plain", len(BODY))
    if not problems and resp.body != BODY:
        problems.append(f"body {resp.body[:40]!r}… is not 199 × 'x' and a newline")
    return problems


SPEC = WorkloadSpec(
    name="http-hello",
    summary="server: GET /hello → 200 text/plain, a 200-byte body, under C connections",
    params=(
        # Warm by default: up to 60 s of load, ended as soon as the rate stops climbing and the
        # JIT has compiled nothing for 2 windows (server.warmup): 4 windows (20 s) for a
        # native server.
        *load_params(connections=256, warmup_s=60, steady_pct=5),
        Param("pool-size", 200, "threads of the fixed pool (pooled styles only)", 1, 30_000),
    ),
    expected=lambda p: {},
    ideal_s=lambda p, budget: None,
    throughput_unit="requests",
    units_per_iteration=lambda p: 1,
    # verify checks answers, not speed: the window follows the lead-in, whose load (every
    # connection open, a quarter of a second) is all the warming an answer needs
    verify_params=({"connections": 16, "duration-s": 1, "warmup-s": 0, "warmup-steady-pct": 0},
                   {"connections": 16, "duration-s": 1, "warmup-s": 0, "keepalive": "false"}),
    pool_param=None,
    server=ServerSpec(contender_params=("pool-size",), path=lambda _id: "/hello",
                      check=_check, latency_floor_ms=lambda p, b: None),
)
