"""One continuous load per server run: the warm-up and the measured window are intervals of a
single generator process on the same open connections (server.loadgen.oha_stream).

A generator started afresh for each warm-up window and again for the measured window closes
and reopens every connection every few seconds: the server keeps compiling and running its
connection set-up and teardown paths, and the measured window opens with a connection storm
(accept-queue overflows, 1 s SYN retransmits inside p99, connection set-up CPU inside the CPU
per request). Here the connections open once, in a lead-in of at least LEAD_IN_S (a quarter of
the measured window when that is shorter: `lead_in_minimum`), and (keep-alive) until
the server holds every one of them, before anything is measured, and stay open until the
window ends (unless the cell asks for a new
connection per request, keepalive=false, seed 004's short connections).

While the load runs, the warm-up is judged window by window from what can be read without
stopping it: the requests the generator has sent (its write calls), the server's CPU and its
JIT (server.warmup). Once the window is over, the generator stops and writes its log of every
response; the warm-up windows and the measured window are then cut out of it exactly
(server.request_log), and the measured window is judged on its own intervals
(server.steadiness). Open loop, the generator runs OPEN_LOOP_TAIL_S past the window so that
requests due near its end can still answer; those that did not are counted as missed, with
the time from the window's end to the stop as the floor of their latency.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from concbench.server import request_log as rl
from concbench.server.connections_held import Held, HeldTrend
from concbench.server.loadgen import LoadResult
from concbench.server.loadgen.base import LoadError, LoadSpec
from concbench.server.loadgen.oha_stream import (TOKEN_RATE_PER_S, TOKEN_RATE_SHARE, Reading,
                                                 RunningLoad)
from concbench.server.steadiness import INTERVALS, Steadiness, judge
from concbench.server.warmup import WarmupOutcome, WarmupWindow

LEAD_IN_S = 1.0
"""Unmeasured load before the first window: every connection is open before anything counts."""
LEAD_IN_WINDOW_SHARE = 0.25
LEAD_IN_POLL_S = 1.0
OPEN_LOOP_TAIL_S = 2.0
POLL_S = 0.05

Alive = Callable[[], "tuple[str, str] | None"]
"""None while the server runs; its failure (status, reason) once it has died."""


@dataclass
class Marks:
    """What the harness read of the generator while it ran, on the harness's clock."""

    spans: list[tuple[float, float]] = field(default_factory=list)
    """(start, end) of each warm-up window."""
    estimates: list[float] = field(default_factory=list)
    """The requests/s each warm-up window was judged on (requests sent, from the write calls)."""
    window: tuple[Reading, Reading] | None = None


class ContinuousLoad:
    """The generator of one server run, from the lead-in to the end of the measured window."""

    def __init__(self, spec: LoadSpec, alive: Alive, tail_s: float = OPEN_LOOP_TAIL_S):
        self.spec = spec
        self.alive = alive
        self.tail_s = tail_s
        """Open loop: how long the load runs past the window before it stops."""
        self.marks = Marks()
        self.stopped_s: float | None = None
        """When the generator was told to stop (the harness's clock)."""
        self.lead_in_s = 0.0
        self.trend = HeldTrend(0.0)
        self.unreachable: Held | None = None
        """The count when the lead-in found the ask out of its reach."""
        self.stream = RunningLoad(spec)

    def hold(self, seconds: float) -> tuple[str, str] | None:
        """Let the load run for `seconds`; the server's failure if it dies meanwhile."""
        until = time.perf_counter() + seconds
        while True:
            failure = self.alive()
            if failure:
                return failure
            if not self.stream.running():
                return "crash", f"the load generator (oha) ended early: {self.stream.stderr_tail()}"
            left = until - time.perf_counter()
            if left <= 0:
                return None
            time.sleep(min(POLL_S, left))

    def lead_in(self, held_now: Callable[[], Held | None] | None, cap_s: float,
                minimum_s: float = LEAD_IN_S) -> tuple[str, str] | None:
        """At least `minimum_s` of load; with `held_now` (keep-alive), until the server holds
        every connection too (a server accepts thousands of connections at its own pace while
        it serves the first), at most cap_s: the warm-up starts on every connection. A count
        that cannot reach the ask by cap_s (connections_held.HeldTrend) ends the lead-in
        early, kept in `unreachable`."""
        failure = self.hold(max(0.0, minimum_s - (time.perf_counter() - self.stream.started)))
        self.trend = HeldTrend(cap_s)
        while failure is None and held_now is not None \
                and time.perf_counter() - self.stream.started < cap_s:
            found = held_now()
            if found is None or found.problem() is None:
                break
            self.trend.add(time.perf_counter() - self.stream.started, found.held)
            if self.trend.out_of_reach(found.asked):
                self.unreachable = found
                break
            failure = self.hold(LEAD_IN_POLL_S)
        self.lead_in_s = time.perf_counter() - self.stream.started
        return failure

    def warmup_window(self, seconds: float) -> LoadResult:
        """One warm-up window of the running load (server.warmup's `load`): its rate is the
        requests sent in it; the exact figures replace it once the log is read."""
        before = self.stream.read()
        failure = self.hold(seconds)
        after = self.stream.read()
        if failure:
            raise LoadError(failure[1])
        rate = (after.sent_writes - before.sent_writes) / max(1e-9, after.at_s - before.at_s)
        self.marks.spans.append((before.at_s, after.at_s))
        self.marks.estimates.append(rate)
        return _estimate(rate, after.at_s - before.at_s, self.stream.argv, self.spec)

    def begin_window(self) -> float:
        reading = self.stream.read()
        self.marks.window = (reading, reading)
        return reading.at_s

    def end_window(self) -> float:
        assert self.marks.window is not None
        reading = self.stream.read()
        self.marks.window = (self.marks.window[0], reading)
        return reading.at_s

    def stop(self) -> rl.RequestLog:
        """Stop the generator (open loop: after the tail) and read its log onto the harness's
        clock."""
        try:
            if self.spec.rate > 0:
                self.hold(self.tail_s)
            self.stopped_s = time.perf_counter()
            tail = rl.LogTail(self.stream.out)  # parsed while oha still writes it
            self.stream.stop(while_writing=tail.feed)
            log = tail.finish()
        except rl.LogError as err:
            raise LoadError(str(err)) from None
        finally:
            self.stream.close()
        first = self.stream.first_sent_s
        if first is None or log.first_write_s is None:
            return log.shifted(self.stream.started)
        return log.shifted(first - log.first_write_s)

    def close(self) -> None:
        self.stream.close()


def lead_in_minimum(window_s: float) -> float:
    """The lead-in's least length: LEAD_IN_S, or a quarter of a shorter-than-4 s window (the
    1 s windows of verify and the tests), whose load reaches every connection, with
    keep-alive held by the server, just as well in a fraction of it."""
    return min(LEAD_IN_S, LEAD_IN_WINDOW_SHARE * window_s)


def _estimate(rate: float, seconds: float, argv: list[str], spec: LoadSpec) -> LoadResult:
    return LoadResult(generator="oha", requests=round(rate * seconds), ok_requests=round(rate * seconds),
                      duration_s=seconds, requests_per_s=rate, latency_ms={}, percentiles=[],
                      errors={}, cpu_s=0.0, wall_s=seconds, cpus=spec.cpus, command=argv,
                      corrected=spec.rate > 0)


def due_in(rate: int, origin_s: float, start_s: float, end_s: float) -> int:
    """Requests an open loop of `rate`/s begun at origin_s is due to send in [start, end):
    oha sends request i at origin + i / rate."""
    return max(0, math.ceil((end_s - origin_s) * rate) - math.ceil((start_s - origin_s) * rate))


def window_load(log: rl.RequestLog, load: ContinuousLoad, t0: float, t1: float) -> LoadResult:
    """The measured window's load figures from the log (LoadResult, as a separate generator
    run would give them). Open loop, the latencies, errors and kept share are those of the
    requests *due* in the window (answered at any time before the stop, or missed), and the
    rate is the ok responses that *ended* in it: what the server delivered in the window.
    Counting the answered due requests instead would credit a server that is behind with the
    work it does in the tail after the window, less the backlog it brought in: a figure that
    moves with the lead-in and the tail, not with the server."""
    spec, marks = load.spec, load.marks
    origin = (load.stream.first_sent_s or load.stream.started)
    due = due_in(spec.rate, origin, t0, t1) if spec.rate > 0 else 0
    found = rl.span(log, t0, t1, due, load.stopped_s)
    served = rl.span(log, t0, t1) if due > 0 else found
    before, after = marks.window if marks.window else (None, None)
    cpu = after.cpu_s - before.cpu_s if before and after else 0.0
    notes: dict[str, Any] = {"continuous": True, "connections_opened_in_window":
                             rl.new_connections(log, t0, t1)}
    if spec.rate > 0:
        notes.update({"due": due, "missed": found.missed})
    return LoadResult(
        generator="oha", requests=found.responses, ok_requests=found.ok, duration_s=t1 - t0,
        requests_per_s=served.ok_per_s, latency_ms=rl.latency_ms(found),
        percentiles=rl.percentile_points(found),
        errors={"connect": 0, "read": 0, "write": 0, "timeout": 0,
                "status": found.responses - found.ok, "other": found.missed},
        cpu_s=cpu, wall_s=t1 - t0, cpus=spec.cpus, command=load.stream.argv,
        corrected=spec.rate > 0, bytes_received=found.body_bytes, bytes_counted="body",
        ok_body_sizes=dict(found.ok_body_sizes), notes=notes)


def exact_warmup(outcome: WarmupOutcome | None, log: rl.RequestLog,
                 marks: Marks) -> WarmupOutcome | None:
    """The warm-up windows with their rate and p99 from the log instead of the estimates."""
    if outcome is None or len(outcome.windows) != len(marks.spans):
        return outcome
    windows: list[WarmupWindow] = []
    for window, (a, b), estimate in zip(outcome.windows, marks.spans, marks.estimates):
        found = rl.span(log, a, b)
        windows.append(replace(window, requests_per_s=found.ok_per_s,
                               p99_ms=found.percentile(99), errors_total=found.responses - found.ok,
                               estimated_per_s=estimate))
    return replace(outcome, windows=tuple(windows))


def steadiness(log: rl.RequestLog, t0: float, t1: float, tolerance_pct: float,
               jit_share: float | None) -> Steadiness:
    """The window's verdict from INTERVALS equal intervals of it."""
    step = (t1 - t0) / INTERVALS
    spans = [rl.span(log, t0 + i * step, t0 + (i + 1) * step) for i in range(INTERVALS)]
    return judge([s.ok_per_s for s in spans], [s.percentile(99) for s in spans],
                 tolerance_pct, jit_share)


def token_bound(load: LoadResult) -> bool:
    """Closed loop: the server answered near oha's token rate, which then bounded the load."""
    return not load.corrected and load.requests_per_s >= TOKEN_RATE_SHARE * TOKEN_RATE_PER_S
