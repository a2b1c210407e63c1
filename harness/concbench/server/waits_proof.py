"""Proof of an http-aggregate server's in-process waits (`downstream=inproc`), as the batch
workloads prove their sleeps (workloads.proofs) and the latency backend proves the HTTP calls
(server.backend): the server counts the waits it made, by kind, and the shortest of each, and
serves them at `GET /waits` (docs/contract.md):

    {"base": {"count": n, "min_us": m}, "detail": {...}, "extra": {...}}

totals since it started; `min_us` is the shortest wait of that kind measured on the monotonic
clock around the wait (null before the first). The latency floor alone passes one wait of
base + max(detail, extra) in place of three; the counts do not: each answered request owes one
wait of each kind, each at least as long as asked.

The totals are read only while the server has no load: around the verification requests, and
around a load (one continuous load, or the oha process of one open-loop window at a capacity
search's rate: from before it starts to after it stops, against its log of every response; a
closed-loop generator per window: around that window, which it starts and ends). A read in
the middle of a load would wait behind the requests queued in the server, and count at a
moment the harness does not know; and an open-loop window's requests are those due in it,
some answered in the tail after it, their waits made after its end.

A server that answers `/waits` with 404 has not implemented the proof: `invalid`, as a batch
result without its sleeps' proof is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from concbench.server import http_probe, load_checks
from concbench.workloads.server import ServerSpec

PATH = "/waits"
KINDS = ("base", "detail", "extra")
TOLERANCE_US = 1000
"""A wait may read this much shorter than asked (a timer rounded to the millisecond)."""
READ_TIMEOUT_S = 30.0
"""A server with few threads answers the read after the requests queued before it."""


class WaitsError(ValueError):
    """`/waits` answered, but not as the contract says."""


@dataclass(frozen=True)
class WaitsCount:
    """The server's wait totals at one moment, by kind (KINDS order)."""

    counts: tuple[int, int, int]
    min_us: tuple[int | None, int | None, int | None]

    def since(self, before: "WaitsCount") -> tuple[int, int, int]:
        a, b, c = (now - then for now, then in zip(self.counts, before.counts))
        return a, b, c

    def to_dict(self) -> dict[str, Any]:
        return {k: {"count": n, "min_us": m} for k, n, m in zip(KINDS, self.counts, self.min_us)}


def parse(body: bytes) -> WaitsCount:
    try:
        doc = json.loads(body)
        kinds = [doc[k] for k in KINDS]
        counts = [k["count"] for k in kinds]
        mins = [k["min_us"] for k in kinds]
    except (ValueError, KeyError, TypeError) as err:
        raise WaitsError(f"GET {PATH} is not the waits object: {body[:120]!r} ({err})") from None
    if not all(type(n) is int and n >= 0 for n in counts) or not all(
            m is None or (type(m) is int and m >= 0) for m in mins):
        raise WaitsError(f"GET {PATH}: counts must be integers ≥ 0 and min_us an integer or "
                         f"null: {body[:120]!r}")
    return WaitsCount((counts[0], counts[1], counts[2]), (mins[0], mins[1], mins[2]))


def read(target: tuple[str, int]) -> WaitsCount | None:
    """The server's totals; None when it does not serve them (404). Raises WaitsError (a
    malformed answer) or OSError."""
    resp = http_probe.get(target[1], PATH, timeout_s=READ_TIMEOUT_S, host=target[0])
    if resp.status == 404:
        return None
    if resp.status != 200:
        raise WaitsError(f"GET {PATH} answered {resp.status}")
    return parse(resp.body)


def asked_ms(params: dict[str, Any]) -> tuple[int, int, int]:
    return int(params["base-ms"]), int(params["detail-ms"]), int(params["extra-ms"])


def _short_waits(after: WaitsCount, params: dict[str, Any]) -> list[str]:
    return [f"the shortest {kind} wait took {m / 1000:.1f} ms of the {ms} ms asked"
            for kind, m, ms in zip(KINDS, after.min_us, asked_ms(params))
            if m is not None and m < ms * 1000 - TOLERANCE_US]


def verification_problem(before: WaitsCount, after: WaitsCount, requests: int,
                         params: dict[str, Any]) -> str | None:
    """`requests` verification requests, one at a time and nothing else: exactly one wait of
    each kind per request, none shorter than asked."""
    problems = [f"{n} {kind} waits for {requests} requests (one each)"
                for kind, n in zip(KINDS, after.since(before)) if n != requests]
    problems += _short_waits(after, params)
    return "; ".join(problems) or None


def window_check(window: tuple[int, int, int], after: WaitsCount, params: dict[str, Any],
                 least: int, most: int, where: str = "in the measured window"
                 ) -> tuple[dict[str, Any], str | None]:
    """Every ok response of the window made one wait of each kind, at most the requests in
    flight more (`least`, `most`: the bounds server.load_checks gives the backend's calls)."""
    record = {"waits": dict(zip(KINDS, window)), "waits_range": [least, most],
              "min_us": dict(zip(KINDS, after.min_us))}
    problems = [f"{n} {kind} waits {where} (expected {least}-{most}: one per "
                "response; a wait skipped, or merged into another, falls short)"
                for kind, n in zip(KINDS, window) if not least <= n <= most]
    problems += _short_waits(after, params)
    return record, "; ".join(problems) or None


def waits_apply(server: ServerSpec, params: dict[str, Any]) -> bool:
    """Whether the run's server owes in-process waits (http-aggregate, downstream=inproc)."""
    return server.downstream_calls > 0 and not server.uses_backend(params)


class WaitsVerification:
    """The totals read before the verification requests and checked after them."""

    def __init__(self, target: tuple[str, int]):
        self._target = target
        self.record: dict[str, Any] = {"proven": False}
        self._before: WaitsCount | None = None
        self._problem: str | None = None
        try:
            self._before = read(target)
        except (OSError, WaitsError) as err:
            self._problem = f"GET {PATH}: {err}"

    def end(self, requests: int, params: dict[str, Any]) -> str | None:
        """The problem (the run is then invalid), or None; `record` says what was seen."""
        if self._problem:
            return self._problem
        if self._before is None:
            self.record["why"] = f"GET {PATH} answered 404"
            return (f"GET {PATH} answered 404: the server does not prove its in-process waits "
                    "(docs/contract.md, Proof of the waits)")
        after = read_or_problem(self._target)
        if isinstance(after, str):
            return after
        problem = verification_problem(self._before, after, requests, params)
        self.record = {"proven": problem is None, "verification": after.to_dict()}
        return f"in-process waits: {problem}" if problem else None


def read_or_problem(target: tuple[str, int]) -> "WaitsCount | str":
    """The totals of a server that has served them before, or what went wrong (a str)."""
    try:
        found = read(target)
    except (OSError, WaitsError) as err:
        return f"GET {PATH}: {err}"
    return found if found is not None else f"GET {PATH} answered 404 after it had answered 200"


def read_if_proven(waits: dict[str, Any] | None,
                   target: tuple[str, int]) -> "WaitsCount | str | None":
    """The totals now, where verification proved them (None otherwise); the problem (a str)
    when the read fails."""
    return read_or_problem(target) if (waits or {}).get("proven") else None


def log_check(before: "WaitsCount | str", after: "WaitsCount | str", params: dict[str, Any],
              ok: int, responses: int, sampled: int) -> tuple[dict[str, Any], str | None]:
    """whole_load_check against a load's log: `ok` and all its `responses`, `sampled` the
    harness's own checked requests (server.body_sampler) on top."""
    most = responses + load_checks.IN_FLIGHT_ALLOWANCE * params["connections"] + sampled
    return whole_load_check(before, after, params, ok, most)


class WaitsAroundLoad:
    """The totals read before an oha process starts and after it stops, the server idle at
    both (server.rate_point.Around), checked against its log (`check`)."""

    def __init__(self, waits: dict[str, Any] | None, target: tuple[str, int]):
        self._waits, self._target = waits, target
        self._before: "WaitsCount | str | None" = None
        self._after: "WaitsCount | str | None" = None
        self._log: tuple[int, int] | None = None

    def begin(self) -> None:
        self._before = read_if_proven(self._waits, self._target)

    def end(self, log: Any) -> None:
        self._after = read_if_proven(self._waits, self._target)
        self._log = (log.ok, len(log))

    def check(self, params: dict[str, Any], sampled: int
              ) -> tuple[dict[str, Any], str | None] | None:
        """(record, problem), or None when nothing was read (not proven, or no load ran)."""
        if self._before is None or self._after is None or self._log is None:
            return None
        return log_check(self._before, self._after, params, *self._log, sampled)


def whole_load_check(before: "WaitsCount | str", after: "WaitsCount | str",
                     params: dict[str, Any], least: int, most: int
                     ) -> tuple[dict[str, Any], str | None]:
    """One continuous load, from before it started to after it stopped: one wait of each kind
    per ok response in its log, at most its responses and the requests in flight more."""
    for found in (before, after):
        if isinstance(found, str):
            return {"scope": "load"}, f"in-process waits: {found}"
    assert isinstance(before, WaitsCount) and isinstance(after, WaitsCount)
    record, problem = window_check(after.since(before), after, params, least, most,
                                   where="over the load")
    return {"scope": "load", **record}, problem
