"""The warm-up and the measured window of a server run as one continuous load
(server.continuous): lead-in, warm-up windows judged as the load runs, the measured window
with its instruments, then the generator's log cut into exact figures and the window's own
verdict (server.steadiness) and connections held (server.connections_held).

Applies when oha drives the load from this machine at a fixed rate or closed loop; a capacity
search (several rates, one window each), a think time (wrk's pacing) or a generator on another
host run each window on a generator of their own (server.run).
"""

from __future__ import annotations

from typing import Any, Protocol

from concbench.server import connections_held, continuous as cont, load_checks
from concbench.server import request_log as rl, syscalls_window, waits_proof
from concbench.server.backend import LatencyBackend
from concbench.server.body_sampler import BodySampler
from concbench.server.instruments import WindowInstruments
from concbench.server.loadgen import LoadError, LoadResult
from concbench.server.process import ServerProcess
from concbench.server.request import ServerRequest
from concbench.server.warmup import WarmupPolicy, warm_up

Failure = tuple[str, str]
WINDOW_TOLERANCE_PCT = 5.0
"""The measured window's drift tolerance for its rate (server.steadiness), whatever rule ended
the warm-up: a looser warm-up rule hands over sooner, never a looser verdict on the window."""


class Run(Protocol):
    """What of server.run's run state this module uses."""

    req: ServerRequest
    target: tuple[str, int]
    offered_per_s: int | None
    warnings: list[str]
    load: LoadResult | None
    warmup: Any
    steadiness: Any
    held: Any
    continuous: dict[str, Any] | None
    syscalls: Any
    syscalls_requests: int | None
    syscalls_seconds: float | None
    waits: dict[str, Any] | None
    sampled: Any
    under_load: dict[str, Any]

    def jit_probe(self, proc: ServerProcess) -> Any: ...

    def body_sampler(self) -> BodySampler: ...

    def instruments(self, proc: ServerProcess, backend: LatencyBackend | None,
                    sampler: BodySampler | None = None) -> WindowInstruments: ...

    def _died(self, proc: ServerProcess, phase: str) -> Failure | None: ...

    def _check_load(self, load: LoadResult) -> Failure | None: ...

    def with_waits(self, checked: tuple[dict[str, Any], str | None] | None,
                   failure: Failure | None) -> Failure | None: ...


def continuous_applies(req: ServerRequest) -> bool:
    p = req.params
    return (p["loadgen"] == "oha" and req.where.client.remote is None
            and not p.get("slo-p99-ms") and not p.get("think-ms"))


def _spec(run: Run) -> Any:
    """The load for the whole run: its per-request timeout (the spec's duration + 5 s) past
    the longest the run may last, so no request times out before the run ends."""
    p = run.req.params
    windows = 2 if syscalls_window.wanted(p) else 1
    longest = _lead_in_cap(p) + float(p["warmup-s"]) + windows * float(p["duration-s"]) \
        + cont.OPEN_LOOP_TAIL_S
    return run.req.load_spec(run.target, longest, run.offered_per_s)


def run_continuous(run: Run, proc: ServerProcess,
                   backend: LatencyBackend | None) -> Failure | None:
    """Lead-in, warm-up, window and log of one run; the run's failure, or None."""
    p = run.req.params
    run.continuous = {"generator": "oha"}  # the window's verdict is its own (instruments)
    waits_before = waits_proof.read_if_proven(run.waits, run.target)  # the server idle
    try:
        load = cont.ContinuousLoad(_spec(run), lambda: run._died(proc, "continuous"))
    except LoadError as err:
        return "crash", f"load generator oha failed to start: {err}"
    # the harness's own checked requests run from the warm-up on, so the window's load is
    # the load the server warmed up on (server.body_sampler)
    sampler = run.body_sampler()
    try:
        failure = load.lead_in(_held_now(run), _lead_in_cap(p),
                               cont.lead_in_minimum(float(p["duration-s"]))) \
            or _unreachable(run, load)
        if failure:
            return failure
        sampler.begin()
        failure = _warm_up(run, proc, load)
        if failure:
            return failure
        instruments = run.instruments(proc, backend, sampler)
        instruments.begin()
        t0 = load.begin_window()
        failure = load.hold(float(p["duration-s"]))
        t1 = load.end_window()
        instruments.end()
        run.held = connections_held.count(run.target, p["connections"],
                                          run.req.where.server.remote is None) \
            if p["keepalive"] == "true" else None
        if failure:
            return failure
        counted, failure = _count_syscalls(run, proc, load)
        if failure:
            return failure
        log = load.stop()
        waits_after = waits_proof.read_if_proven(run.waits, run.target)
        if counted is not None:
            run.syscalls_requests = rl.span(log, *counted).responses
    except LoadError as err:
        return run._died(proc, "continuous") or ("crash", f"load generator oha failed: {err}")
    finally:
        sampler.stop()
        load.close()
    failure = _judge(run, load, log, t0, t1, instruments.jit_share())
    return _check_waits(run, log, waits_before, waits_after, failure)


def _check_waits(run: Run, log: Any, before: Any, after: Any,
                 failure: Failure | None) -> Failure | None:
    """The server's own wait counts over the whole load against its log (server.waits_proof):
    read where the server had no load, before the load and after it."""
    if before is None or after is None or (failure and failure[0] != "invalid"):
        return failure
    sampled = run.sampled
    return run.with_waits(waits_proof.log_check(before, after, run.req.params, log.ok,
                                                len(log), sampled.sent if sampled else 0),
                          failure)


LEAD_IN_CAP_S = 60.0


def _lead_in_cap(p: dict[str, Any]) -> float:
    """How long the lead-in may wait for the server to hold every connection: the warm-up's
    cap, at least 10 s, at most LEAD_IN_CAP_S."""
    return min(LEAD_IN_CAP_S, max(10.0, float(p["warmup-s"])))


def _held_now(run: Run) -> Any:
    """Keep-alive: the connections the server now holds."""
    p = run.req.params
    if p["keepalive"] != "true":
        return None
    here = run.req.where.server.remote is None
    return lambda: connections_held.count(run.target, p["connections"], here)


def _unreachable(run: Run, load: cont.ContinuousLoad) -> Failure | None:
    """A server that cannot hold every connection by the lead-in's end is invalid there: a
    warm-up and a window on the connections it holds would measure a smaller load than
    asked, and the window's end would find the same shortfall."""
    held = load.unreachable
    if held is None:
        return None
    run.held = held
    run.continuous = {**(run.continuous or {}), "lead_in_s": round(load.lead_in_s, 3),
                      "held_in_lead_in": load.trend.to_list()}
    return "invalid", f"{held.problem()} ({load.trend.pace_text(held.asked)}; the run ended there)"


def _count_syscalls(run: Run, proc: ServerProcess, load: cont.ContinuousLoad
                    ) -> tuple[tuple[float, float] | None, Failure | None]:
    """syscalls=true: perf stat over a window as long as the measured one, right after it on
    the same load (server.syscalls_window): (its start and end, a failure)."""
    p = run.req.params
    if not syscalls_window.wanted(p):
        return None, None
    edges = syscalls_window.SyscallsEdges(proc, p)
    edges.begin()
    start = load.stream.read().at_s
    failure = load.hold(float(p["duration-s"]))
    end = load.stream.read().at_s
    edges.end()
    run.syscalls, run.syscalls_seconds = edges.counted, end - start
    return (start, end), failure


def _warm_up(run: Run, proc: ServerProcess, load: cont.ContinuousLoad) -> Failure | None:
    if run.req.params["warmup-s"] <= 0:
        return None
    try:
        run.warmup = warm_up(WarmupPolicy.of(run.req.params), proc.cpu_probe,
                             load.warmup_window, jit=run.jit_probe(proc))
    except LoadError as err:
        return run._died(proc, "warm-up") or ("crash", f"warm-up load failed: {err}")
    return None


def _judge(run: Run, load: cont.ContinuousLoad, log: Any, t0: float, t1: float,
           jit_share: float | None) -> Failure | None:
    run.load = cont.window_load(log, load, t0, t1)
    run.warmup = cont.exact_warmup(run.warmup, log, load.marks)
    run.steadiness = cont.steadiness(log, t0, t1, WINDOW_TOLERANCE_PCT, jit_share)
    run.continuous = {**(run.continuous or {}), "lead_in_s": round(load.lead_in_s, 3),
                      "held_in_lead_in": load.trend.to_list(),
                      "window_from_s": round(t0 - load.stream.started, 3),
                      "clock_offset_known": load.stream.first_sent_s is not None,
                      "responses_logged": len(log),
                      "token_rate_per_s": None if load.spec.rate else cont.TOKEN_RATE_PER_S}
    if not run.steadiness.steady:
        run.warnings.append("not steady in the measured window: "
                            + "; ".join(run.steadiness.reasons)
                            + ": the figures catch the server changing and are left out of "
                              "rankings")
    if cont.token_bound(run.load):
        run.warnings.append(f"generator-bound: the server answered near oha's closed-loop "
                            f"token rate ({cont.TOKEN_RATE_PER_S:,} requests/s), which then "
                            "bounded the load")
    held = run.held.problem() if run.held is not None else None
    failure = run._check_load(run.load)
    if held:
        return "invalid", held if failure is None else f"{failure[1]}; {held}"
    return failure
