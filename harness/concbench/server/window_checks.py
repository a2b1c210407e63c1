"""The measured window's load checked against what the server owes (server.load_checks): some
response, some ok, none below the latency floor, every body the verified one's size, the
sampled bodies right, and over HTTP the downstream calls and delays served. What each check
measured goes to the run's `under_load` record."""

from __future__ import annotations

from typing import Any

from concbench.server import load_checks, waits_proof
from concbench.server.backend import BackendCount
from concbench.server.body_sampler import Sampled
from concbench.server.loadgen import LoadResult
from concbench.server.request import VERIFY_IDS, ServerRequest
from concbench.workloads.server import Response, ServerSpec

Failure = tuple[str, str]
WaitsSeen = tuple[tuple[int, int, int], waits_proof.WaitsCount]
"""The waits of each kind made in the window, and the totals at its end."""


def check_window(load: LoadResult, req: ServerRequest, server: ServerSpec,
                 reference: Response | None, sampled: Sampled | None,
                 backend_window: BackendCount | None, mid_load: bool,
                 under_load: dict[str, Any], waits: WaitsSeen | None = None) -> Failure | None:
    """The window's failure, or None; `under_load` filled in. `mid_load`: the window began
    inside a running load (server.continuous)."""
    if load.requests == 0 and load.errors_total == 0:
        return "timeout", (f"no response completed within the {load.duration_s:.0f} s load "
                           "window: the server is saturated beyond it; lengthen duration-s "
                           "or lower connections")
    if load.ok_requests == 0:
        return "invalid", (f"no successful response under load ({load.requests} responses, "
                           f"errors {load.errors})")
    connections = req.params["connections"]
    floor = server.latency_floor_ms(req.params, req.bounds)
    problems = [load_checks.floor_problem(load, floor)]
    under_load.update({"floor_ms": floor, "fastest_ms": load.latency_ms.get("min")})
    if reference is not None:
        record, problem = load_checks.bytes_check(
            load, reference, len(str(VERIFY_IDS[0])), server.id_bytes_per_digit, connections)
        under_load["bytes_per_response"] = record
        problems.append(problem)
    if sampled is not None:
        under_load["sampled"] = sampled.to_dict()
        problems.append(sampled.problem())
    extra = sampled.sent_in_window if sampled else 0
    if backend_window is not None:
        record, problem = load_checks.downstream_check(
            load, backend_window, server.downstream_ms(req.params), connections,
            mid_load=mid_load, sampled=extra)
        under_load["downstream"] = record
        problems.append(problem)
    if waits is not None:
        least, most = load_checks.owed_range(load, connections, mid_load, extra)
        record, problem = waits_proof.window_check(waits[0], waits[1], req.params, least, most)
        under_load["waits"] = record
        problems.append(problem)
    found = [p for p in problems if p]
    return ("invalid", "; ".join(found)) if found else None
