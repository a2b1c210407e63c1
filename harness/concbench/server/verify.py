"""One checked request to a server, as verification makes it before the load and once more
after it: status, headers and body (the workload's check), the latency floor, and for a
server with a latency backend the calls it made there and the delays it asked for."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from concbench.server import http_probe
from concbench.server.backend import LatencyBackend
from concbench.server.load_checks import FLOOR_TOLERANCE_MS
from concbench.workloads import Params
from concbench.workloads.server import Bounds, Response, ServerSpec

QUIET_POLL_S = 0.05


@dataclass(frozen=True)
class CheckedRequest:
    record: dict[str, Any]
    """What results.json keeps: path, status, bytes, wire_bytes, elapsed_ms, downstream."""
    problems: tuple[str, ...]
    response: Response | None


def check_request(target: tuple[str, int], spec: ServerSpec, params: Params, bounds: Bounds,
                  user_id: int, backend: LatencyBackend | None, close: bool,
                  count_calls: bool = True, wait_s: float = 30.0,
                  exact_calls: bool = True) -> CheckedRequest:
    """GET the workload's path for `user_id` on a fresh connection and check the answer;
    `close` asks `Connection: close`, as the load does without keep-alive. `count_calls`
    False: the backend is not quiet, so its count is not this request's alone. `wait_s`:
    how long the answer may wait besides twice the floor (after a load, the requests queued
    by it are served first). `exact_calls` False (after a load): the backend's count may also
    hold the last calls of a load request the server was still finishing, so only too few
    calls or too little delay is a problem (a shared or skipped call), not more."""
    floor = spec.latency_floor_ms(params, bounds)
    path = spec.path(user_id)
    counting = backend if count_calls else None
    before = counting.count() if counting else None
    try:
        resp = http_probe.get(target[1], path, timeout_s=wait_s + 2 * (floor or 0) / 1000,
                              host=target[0], close=close)
    except (OSError, ValueError) as err:
        return CheckedRequest({"path": path, "error": str(err)}, (f"GET failed: {err}",), None)
    used = counting.count().since(before) if counting and before is not None else None
    record = {"path": path, "status": resp.status, "bytes": len(resp.body),
              "wire_bytes": resp.wire_bytes, "elapsed_ms": resp.elapsed_s * 1000,
              "downstream_calls": used.requests if used else None,
              "downstream_delay_ms": used.delay_ms if used else None}
    problems = spec.check(params, resp, user_id)
    if floor is not None and resp.elapsed_s * 1000 < floor - FLOOR_TOLERANCE_MS:
        problems.append(f"answered in {resp.elapsed_s * 1000:.1f} ms, below the latency "
                        f"floor of {floor:g} ms: a downstream wait was skipped")
    if used:
        problems += downstream_problems(used.requests, used.delay_ms, spec.downstream_calls,
                                        spec.downstream_ms(params), exact_calls)
    return CheckedRequest(record, tuple(problems), resp)


def downstream_problems(calls: int, delay_ms: int, want_calls: int, want_delay_ms: int,
                        exact: bool) -> list[str]:
    """What one checked request asked of the latency backend against what the workload asks:
    exactly, or (exact False: the count may hold a load request's last calls) at least."""
    at_least = "" if exact else "at least "
    found = []
    if calls < want_calls or (exact and calls != want_calls):
        found.append(f"made {calls} downstream calls to the latency backend, expected "
                     f"{at_least}{want_calls}")
    if delay_ms < want_delay_ms or (exact and delay_ms != want_delay_ms):
        found.append(f"asked the latency backend for {delay_ms} ms of delay in all, expected "
                     f"{at_least}{want_delay_ms} (base + detail + extra)")
    return found


def wait_backend_quiet(backend: LatencyBackend, quiet_s: float, limit_s: float) -> bool:
    """Wait until the backend's request count has not moved for `quiet_s` (the requests the
    load left in flight have made their last calls), at most `limit_s`; True when quiet."""
    started = time.perf_counter()
    last, since = backend.count().requests, time.perf_counter()
    while time.perf_counter() - started < limit_s:
        time.sleep(QUIET_POLL_S)
        now = backend.count().requests
        if now != last:
            last, since = now, time.perf_counter()
        elif time.perf_counter() - since >= quiet_s:
            return True
    return False
