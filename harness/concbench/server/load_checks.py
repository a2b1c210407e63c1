"""Checks of a measured window, made from counters read after it (nothing on the request path).

- **Bytes per response**: the generator's byte count ÷ its responses must match the verified
  response's size: a server that answers the verification request and then sends short or
  empty bodies (or a 204 / 304, which wrk does not count as an error) under load is caught.
  Responses cut short at the window's end are allowed for: at most the requests then in
  flight (every connection in a closed loop, far fewer with think-ms).
- **Downstream work** (http-aggregate over HTTP): the latency backend's calls and the sum of
  the delays it served in the window must cover every response: at least 3 calls and
  base + detail + extra ms each. Sharing one call among concurrent requests, or calling
  /delay/0 and sleeping in-process, falls short.
- **The latency floor**: no response under load, whatever the generator, beats the waits.
- **The runtime's CPUs**: the count in the ready line against the CPUs the server was pinned to.
"""

from __future__ import annotations

import math
from typing import Any

from concbench.server.backend import BackendCount
from concbench.server.loadgen import LoadResult
from concbench.workloads.server import Response

FLOOR_TOLERANCE_MS = 1.0
"""A response may come this much before the latency floor (clock and timer granularity)."""
SIZE_SLACK_BYTES, SIZE_SLACK_SHARE = 2.0, 0.005
"""Bytes per response may differ from the verified response's by this much: headers of
fixed width (Date) do not move the mean, a `Connection: close` every thousand responses moves
it by 0.005 bytes; a body one byte short in every response moves it by 1."""
ID_DIGITS = (1, 7)
"""The fewest and most digits of a load request's id (ids 1 to 1 000 000)."""
CALLS_PER_REQUEST = 3
IN_FLIGHT_ALLOWANCE = 2
"""Requests per connection that may have called the backend without a counted response:
one still in flight when the window ends, one left from the warm-up when it began."""


def floor_problem(load: LoadResult, floor_ms: float | None) -> str | None:
    fastest = load.latency_ms.get("min")
    if floor_ms is None or fastest is None or fastest >= floor_ms - FLOOR_TOLERANCE_MS:
        return None
    return (f"fastest response under load took {fastest:.1f} ms, below the latency floor of "
            f"{floor_ms:g} ms: a downstream wait was skipped")


IN_FLIGHT_BURST = 16
"""Requests that may start at one instant beyond the rate's share: wrk's threads start their
staggered think-time schedules together (server.loadgen.wrk)."""


def in_flight_most(load: LoadResult, connections: int) -> int:
    """The most requests in flight when the window ended: every connection in a closed loop,
    fewer when the connections pause between requests (think-ms). By Little's law a rate λ
    with each request taking at most W_max has about λ·W_max in flight at any instant; twice
    that plus a burst, and never more than the connections. Closed loop without think time
    λ·W_mean = C already, so the bound stays C there."""
    slowest_ms = load.latency_ms.get("max")
    if slowest_ms is None or load.duration_s <= 0:
        return connections
    rate = load.requests / load.duration_s
    return min(connections, math.ceil(2 * rate * slowest_ms / 1000.0) + IN_FLIGHT_BURST)


def size_range(load: LoadResult, reference: Response, reference_id_digits: int,
               id_bytes_per_digit: int, connections: int) -> tuple[float, float] | None:
    """The bytes per response a server sending the verified response to every request can
    show: its size (the whole response for wrk, the body for oha), ± the id's digits when
    the load varies the id, plus, above, responses cut short by the window's end or an error
    (their bytes are counted, they are not)."""
    size = reference.wire_bytes if load.bytes_counted == "wire" else len(reference.body)
    if size is None or load.requests == 0:
        return None
    low = high = float(size)
    if id_bytes_per_digit:
        low -= id_bytes_per_digit * (reference_id_digits - ID_DIGITS[0])
        high += id_bytes_per_digit * (ID_DIGITS[1] - reference_id_digits)
        if load.bytes_counted == "wire":  # Content-Length may gain or lose a digit
            low, high = low - 1, high + 1
    slack = SIZE_SLACK_BYTES + SIZE_SLACK_SHARE * size
    partial = (in_flight_most(load, connections) + load.errors_total) * high / load.requests
    return low - slack, high + slack + partial


def body_size_range(reference: Response, reference_id_digits: int,
                    id_bytes_per_digit: int) -> tuple[int, int]:
    """The body sizes one correct response can have: the verified body's, ± the id's digits."""
    size = len(reference.body)
    return (size - id_bytes_per_digit * (reference_id_digits - ID_DIGITS[0]),
            size + id_bytes_per_digit * (ID_DIGITS[1] - reference_id_digits))


def each_body_problem(load: LoadResult, reference: Response, reference_id_digits: int,
                      id_bytes_per_digit: int) -> tuple[dict[str, Any] | None, str | None]:
    """Every ok response's body size (the generator logged each one) within what a correct
    body can be: one empty 200 in a hundred moves the mean by less than the slack a mean needs,
    but not past this. (the record, a problem or None)."""
    if load.ok_body_sizes is None:
        return None, None
    low, high = body_size_range(reference, reference_id_digits, id_bytes_per_digit)
    outside = {size: n for size, n in load.ok_body_sizes.items() if not low <= size <= high}
    record = {"range": [low, high], "outside": sum(outside.values())}
    if not outside:
        return record, None
    shown = ", ".join(f"{n} of {size} bytes" for size, n in sorted(outside.items())[:4])
    return record, (f"{record['outside']} of {load.ok_requests} ok responses under load had a "
                    f"body outside the {low}-{high} bytes a correct one has ({shown})")


def bytes_check(load: LoadResult, reference: Response, reference_id_digits: int,
                id_bytes_per_digit: int,
                connections: int) -> tuple[dict[str, Any] | None, str | None]:
    """The mean bytes per response, and each ok response's body size where the generator
    logged it: (the record, a problem or None)."""
    got = load.bytes_per_response
    bounds = size_range(load, reference, reference_id_digits, id_bytes_per_digit, connections)
    if got is None or bounds is None:
        return None, None
    record: dict[str, Any] = {"measured": round(got, 2), "range": [round(b, 2) for b in bounds],
                              "counted": load.bytes_counted}
    each, each_problem = each_body_problem(load, reference, reference_id_digits,
                                           id_bytes_per_digit)
    if each is not None:
        record["each_body"] = each
    problems = [each_problem] if each_problem else []
    if not bounds[0] <= got <= bounds[1]:
        what = "whole responses" if load.bytes_counted == "wire" else "bodies"
        problems.insert(0, f"{got:.1f} bytes per response under load ({what}), the verified "
                           f"response has {bounds[0]:.0f}-{bounds[1]:.0f}: short, empty or "
                           "other bodies under load (a 204 or 304 has none)")
    return record, "; ".join(problems) or None


def owed_range(load: LoadResult, connections: int, mid_load: bool,
               sampled: int) -> tuple[int, int]:
    """The fewest and most requests whose downstream work a window may hold: every ok
    response's (less one per connection whose work began before a window inside a running
    load), and at most every request's, the requests in flight and the harness's own."""
    ok = load.ok_requests
    least = max(0, ok - connections) if mid_load else ok
    return least, load.requests + IN_FLIGHT_ALLOWANCE * connections + load.errors_total + sampled


def downstream_check(load: LoadResult, window: BackendCount, per_request_ms: int,
                     connections: int, mid_load: bool = False,
                     sampled: int = 0) -> tuple[dict[str, Any], str | None]:
    """Every ok response made its calls with their delays; at most the in-flight ones more.
    `mid_load`: the window began inside a running load (server.continuous), so the requests in
    flight then, one per connection, may have made calls before it and answered inside it.
    `sampled`: requests the harness made itself in the window (server.body_sampler)."""
    ok = load.ok_requests
    least, most = owed_range(load, connections, mid_load, sampled)
    calls = (CALLS_PER_REQUEST * least, CALLS_PER_REQUEST * most)
    delay = (least * per_request_ms, most * per_request_ms)
    record = {"calls": window.requests, "calls_range": list(calls),
              "delay_ms": window.delay_ms, "delay_ms_range": list(delay)}
    problems = []
    if not calls[0] <= window.requests <= calls[1]:
        problems.append(f"{window.requests} downstream calls in the measured window for {ok} "
                        f"ok responses (expected {calls[0]}-{calls[1]}: "
                        f"{CALLS_PER_REQUEST} per response, a call shared by several requests "
                        "or skipped falls short)")
    if not delay[0] <= window.delay_ms <= delay[1]:
        problems.append(f"{window.delay_ms} milliseconds of downstream delay served in the "
                        f"measured window for {ok} ok responses (expected "
                        f"{delay[0]}-{delay[1]}: {per_request_ms} ms per response; calls to a "
                        "shorter /delay/ with the rest slept in-process fall short)")
    return record, "; ".join(problems) or None


def runtime_cpus_warning(ready: dict[str, Any] | None, pinned: tuple[int, ...]) -> str | None:
    """The CPUs the runtime says it uses (ready line) against those it was pinned to."""
    runtime = (ready or {}).get("runtime")
    seen = runtime.get("cpus") if isinstance(runtime, dict) else None
    if not pinned or type(seen) is not int or seen == len(pinned):
        return None
    consequence = ("it did not follow the affinity mask and runs more workers than CPUs"
                   if seen > len(pinned) else "it leaves some of the CPUs it was given idle")
    return (f"the server's ready line says its runtime uses {seen} CPUs, but it was pinned to "
            f"{len(pinned)} CPU(s) {list(pinned)}: {consequence}")
