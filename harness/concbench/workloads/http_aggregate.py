"""http-aggregate (seed 003): GET /user/{id} after base, then detail ∥ extra downstream calls."""

from __future__ import annotations

import json

from concbench.workloads.base import Param, Params, WorkloadSpec
from concbench.workloads.server import Bounds, Response, ServerSpec, header_problems, load_params

FIXED_FIELDS = {"age": 25, "sex": 1, "phone": "13800138000", "level": "VIP会员"}


def expected_user(user_id: int) -> dict[str, object]:
    return {"id": user_id, "name": f"User-{user_id}", **FIXED_FIELDS}


def latency_floor_ms(p: Params, bounds: Bounds) -> float:
    """base + max(detail, extra); base + detail + extra for sequential designs."""
    if bounds.sequential:
        return float(p["base-ms"] + p["detail-ms"] + p["extra-ms"])
    return float(p["base-ms"] + max(p["detail-ms"], p["extra-ms"]))


def _check(p: Params, resp: Response, user_id: int) -> list[str]:
    problems = header_problems(resp, "application/json", None)
    if problems:
        return problems
    try:
        got = json.loads(resp.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        return [f"body is not UTF-8 JSON: {err}: {resp.body[:80]!r}"]
    want = expected_user(user_id)
    if not isinstance(got, dict):
        return [f"body is not a JSON object: {resp.body[:80]!r}"]
    for key, value in want.items():
        if got.get(key) != value or type(got.get(key)) is not type(value):
            problems.append(f"{key}={got.get(key)!r}, expected {value!r}")
    extra = sorted(set(got) - set(want))
    if extra:
        problems.append(f"unexpected fields {extra}")
    return problems


SPEC = WorkloadSpec(
    name="http-aggregate",
    summary="server: GET /user/{id} → JSON after base, then detail ∥ extra (in-process waits "
            "or HTTP calls to a latency backend)",
    params=(
        # A fixed 15 s: the rate here is set by the downstream waits (Little's law), not by the
        # CPU, and seed 003's figures (suite spring-async) were measured so.
        *load_params(connections=150, warmup_s=15, steady_pct=0),
        Param("base-ms", 100, "wait of the base call in ms", 0, 60_000),
        Param("detail-ms", 300, "wait of the detail call in ms", 0, 60_000),
        Param("extra-ms", 500, "wait of the extra call in ms", 0, 60_000),
        Param("downstream", "inproc", "inproc: waits inside the server; http: GET "
              "/delay/<ms> on the harness's latency backend", choices=("inproc", "http")),
        Param("pool-size", 200, "threads of the fixed pools (pooled styles only)", 1, 30_000),
    ),
    expected=lambda p: {},
    ideal_s=lambda p, budget: None,
    throughput_unit="requests",
    units_per_iteration=lambda p: 1,
    # verify checks the answers, in and after a 1 s window; no warm-up (http-hello's first
    # verify case takes the warm-up path)
    verify_params=tuple(
        {"connections": 8, "duration-s": 1, "warmup-s": 0, "base-ms": 20, "detail-ms": 30,
         "extra-ms": 50, "downstream": mode} for mode in ("inproc", "http")),
    pool_param=None,
    server=ServerSpec(
        contender_params=("base-ms", "detail-ms", "extra-ms", "downstream", "pool-size"),
        path=lambda user_id: f"/user/{user_id}", check=_check,
        latency_floor_ms=latency_floor_ms, uses_backend=lambda p: p["downstream"] == "http",
        varied_ids=True, downstream_calls=3,
        downstream_ms=lambda p: p["base-ms"] + p["detail-ms"] + p["extra-ms"],
        id_bytes_per_digit=2),  # "id": <id> and "name": "User-<id>"
)
