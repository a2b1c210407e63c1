"""One run of a server workload: start, ready, verify, warm-up load, measured load, one
more checked request, stop.

The lifecycle of DESIGN.md §2. Each phase either lets the next one go on or ends the run
with a status and a reason (the first failure wins); whatever happens, the server (and the
latency backend) are stopped and their process groups swept before this returns. The
measured window is checked from counters read after it (server.load_checks): nothing is
added to the request path.
"""

from __future__ import annotations

import random
import signal
import time
from dataclasses import replace
from typing import Any

from concbench.proc.process import KILL_GRACE_S
from concbench.server import (client_load, http_probe, jvm_counters, load_checks,
                              rate_point, syscalls_window)
from concbench.server.backend import LatencyBackend
from concbench.server.body_sampler import BodySampler
from concbench.server.capacity import search_capacity
from concbench.server.continuous_run import continuous_applies, run_continuous
from concbench.server.instruments import WindowInstruments
from concbench.server.loadgen import GENERATORS, LoadError, LoadResult
from concbench.server.process import ServerProcess
from concbench.server.rate_probe import probe_pending, window_rate
from concbench.server.request import VERIFY_IDS, ServerRequest
from concbench.server.server_cpu import ServerCpuEdges
from concbench.server.state import RunState
from concbench.server.verify import CheckedRequest, check_request, wait_backend_quiet
from concbench.server.waits_proof import WaitsAroundLoad, WaitsVerification, waits_apply
from concbench.server.warmup import WarmupPolicy, warm_up
from concbench.server.window_checks import check_window
from concbench.workloads.server import Response

__all__ = ["ServerRequest", "ServerRun"]

READY_TIMEOUT_S = 120.0
SETTLE_MAX_S = 120.0
SETTLED_FACTOR, SETTLED_SLACK_MS = 1.5, 20.0
"""After the warm-up load, the server counts as drained when a probe answers within this."""

Failure = tuple[str, str]


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "(no stderr)"


class _WarmupFailed(Exception):
    def __init__(self, failure: Failure):
        super().__init__(failure[1])
        self.failure = failure


class ServerRun(RunState):
    """The state of one run while its phases go by (what it records: server.state)."""

    def __init__(self, req: ServerRequest):
        super().__init__()
        self.req = req
        self.server = req.spec.server
        self.reference: Response | None = None
        """The verified response to VERIFY_IDS[0]: the size the load's responses must have."""
        self._jit_probe: jvm_counters.JitProbe | None = None

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "ready" and self.ready is None:
            self.ready = message

    # -- phases ---------------------------------------------------------------------------

    def wait_ready(self, proc: ServerProcess, port: int) -> Failure | None:
        limit = min(READY_TIMEOUT_S, self.req.timeout_s)
        deadline = proc.started + limit
        by_connect = self.req.contender.ready == "connect"
        while True:
            if self.ready is not None or (by_connect and http_probe.accepts(*self.target[::-1])):
                self.ready_s = time.perf_counter() - proc.started
                break
            if proc.exited.is_set():
                return "crash", f"exited before it was ready: {_last_line(proc.stderr_tail())}"
            if time.perf_counter() > deadline:
                return "timeout", (f"not ready within {limit:g} s (no ready line on stdout): "
                                   f"{_last_line(proc.stderr_tail())}")
            time.sleep(0.01)
        if self.ready is not None and self.ready.get("port") != port:
            return "invalid", f"ready line names port {self.ready.get('port')!r}, expected {port}"
        warning = load_checks.runtime_cpus_warning(self.ready, self.req.where.server.cpus)
        if warning:
            self.warnings.append(warning)
        return None

    @staticmethod
    def check_bind(proc: ServerProcess, port: int) -> Failure | None:
        problem = proc.bind_problem(port)
        return ("invalid", problem) if problem else None

    def _check(self, user_id: int, backend: LatencyBackend | None, count_calls: bool = True,
               wait_s: float = 30.0, exact_calls: bool = True) -> CheckedRequest:
        assert self.server is not None
        return check_request(self.target, self.server, self.req.params, self.req.bounds,
                             user_id, backend, self.req.params["keepalive"] == "false",
                             count_calls, wait_s, exact_calls)

    def verify(self, backend: LatencyBackend | None) -> Failure | None:
        assert self.server is not None
        ids = VERIFY_IDS + (random.randint(2, 999_999),) if self.server.varied_ids else VERIFY_IDS
        proof = WaitsVerification(self.target) if waits_apply(self.server, self.req.params) \
            else None
        failure = self._verify_ids(ids, backend)
        if proof is not None:
            problem = proof.end(len(ids), self.req.params)
            failure = failure or (("invalid", problem) if problem else None)
            self.waits = proof.record
        return failure

    def _verify_ids(self, ids: tuple[int, ...],
                    backend: LatencyBackend | None) -> Failure | None:
        for user_id in ids:
            checked = self._check(user_id, backend)
            self.verification.append(checked.record)
            if user_id == VERIFY_IDS[0]:
                self.reference = checked.response
            if checked.problems:
                return "invalid", (f"verification GET {checked.record['path']}: "
                                   + "; ".join(checked.problems))
        return None

    def check_after_load(self, backend: LatencyBackend | None) -> Failure | None:
        """One more checked request once the load is over (the same checks as verification),
        when the requests the load left in flight have made their downstream calls."""
        assert self.server is not None
        quiet, limit = True, min(SETTLE_MAX_S, self.req.timeout_s)
        if backend:
            floor = self.server.latency_floor_ms(self.req.params, self.req.bounds) or 0
            quiet = wait_backend_quiet(backend, floor / 1000 + 0.1, limit)
            if not quiet:
                self.warnings.append("the latency backend was still being called long after "
                                     "the load: the checked request after it was not counted")
        checked = self._check(VERIFY_IDS[0], backend, count_calls=quiet, wait_s=limit,
                              exact_calls=False)
        self.after_load = checked.record
        if checked.problems:
            return "invalid", (f"checked request after the load, GET {checked.record['path']}: "
                               + "; ".join(checked.problems))
        return None

    def run_load(self, proc: ServerProcess, duration_s: float, phase: str,
                 rate: int | None = None) -> tuple[LoadResult | None, Failure | None]:
        if client_load.applies(self.req):
            return client_load.window(self, proc, duration_s, phase, rate)
        generator = GENERATORS[self.req.params["loadgen"]]
        try:
            result = generator.run(self.req.load_spec(self.target, duration_s, rate))
        except LoadError as err:
            failure = self._died(proc, phase)
            return None, failure or ("crash", f"load generator {generator.name} failed: {err}")
        return result, self._died(proc, phase)

    def point_load(self, proc: ServerProcess, duration_s: float, phase: str, rate: int,
                   edges: rate_point.Edges = rate_point.NoEdges(),
                   around: rate_point.Around = rate_point.NothingAround()
                   ) -> tuple[LoadResult | None, Failure | None]:
        """One window at `rate` (0: closed loop), `edges` read at its edges: open loop with
        oha here, on a load of its own (server.rate_point: a lead-in at that rate, every
        request due counted, `around` read before it starts and after it stops); split over
        several client hosts, server.client_load; otherwise (closed loop, wrk, a remote
        client) on the generator of run_load."""
        if client_load.applies(self.req):
            return client_load.window(self, proc, duration_s, phase, rate, edges, around)
        if not self._on_point_load(duration_s, rate):
            edges.begin()
            found = self.run_load(proc, duration_s, phase, rate)
            edges.end()
            return found
        spec = self.req.load_spec(self.target, duration_s, rate)
        tail_s = 3 * float(self.req.params["slo-p99-ms"] or 0) / 1000
        try:
            return rate_point.run_point(spec, duration_s, lambda: self._died(proc, phase),
                                        tail_s, edges, around)
        except LoadError as err:
            return None, self._died(proc, phase) or ("crash", f"load generator oha failed: {err}")

    def _on_point_load(self, duration_s: float, rate: int) -> bool:
        return self.req.params["loadgen"] == "oha" and rate_point.applies(
            self.req.load_spec(self.target, duration_s, rate))

    def _died(self, proc: ServerProcess, phase: str) -> Failure | None:
        if not proc.wait(0.05):
            return None
        if proc.limit_hit:
            return "mem-limit", (f"RSS passed the limit of {self.req.rss_limit} bytes during the "
                                 f"{phase} load; process group killed")
        return "crash", f"exited during the {phase} load: {_last_line(proc.stderr_tail())}"

    def jit_probe(self, proc: ServerProcess) -> jvm_counters.JitProbe:
        """The JVM's JIT counters (server.jvm_counters), read where the harness runs only."""
        if self._jit_probe is None:
            self._jit_probe = jvm_counters.tree_probe(proc.pid) if proc.where is None \
                else jvm_counters.no_counters
        return self._jit_probe

    def body_sampler(self) -> BodySampler:
        assert self.server is not None
        p = self.req.params
        return BodySampler(self.target, self.server, p, self.req.bounds,
                           keepalive=p["keepalive"] == "true")

    def instruments(self, proc: ServerProcess, backend: LatencyBackend | None,
                    sampler: BodySampler | None = None,
                    waits_at_edges: bool = True) -> WindowInstruments:
        """The window's instruments; `sampler`: one already sampling since the warm-up;
        `waits_at_edges`: the in-process waits read at the window's edges (a closed-loop
        generator per window: the server idle there)."""
        local = self.req.where.server.remote is None and self.req.where.client.remote is None
        return WindowInstruments(self, proc, backend, self.req.params, self.req.profiler,
                                 local, self.jit_probe(proc), sampler or self.body_sampler(),
                                 waits_at_edges)

    def measured_load(self, proc: ServerProcess,
                      backend: LatencyBackend | None) -> Failure | None:
        """The measured window on a load of its own (loadgen=wrk, remote clients, the window at
        a capacity search's rate, a load split over several clients). The in-process waits of
        a window cut from a load that runs before and after it (an open-loop point load, a
        split load's lead-in and tail) are counted around that load, against its log
        (waits_proof.WaitsAroundLoad), not at the window's edges."""
        rate = self.offered_per_s or 0
        duration_s = self.req.params["duration-s"]
        around = WaitsAroundLoad(self.waits, self.target) \
            if self._on_point_load(duration_s, rate) or client_load.applies(self.req) else None
        instruments = self.instruments(proc, backend, waits_at_edges=around is None)
        self.load, failure = self.point_load(proc, duration_s, "measured", rate, instruments,
                                             around or rate_point.NothingAround())
        if failure or self.load is None:
            return failure
        failure = self._check_load(self.load)
        if around is None or (failure and failure[0] != "invalid"):
            return failure
        return self.with_waits(
            around.check(self.req.params, self.sampled.sent if self.sampled else 0), failure)

    def with_waits(self, checked: tuple[dict[str, Any], str | None] | None,
                   failure: Failure | None) -> Failure | None:
        """`failure` with the in-process waits' check over a whole load (waits_proof) added,
        its record kept under load; None checked: nothing was read."""
        if checked is None:
            return failure
        record, problem = checked
        self.under_load["waits"] = record
        if problem is None:
            return failure
        return "invalid", problem if failure is None else f"{failure[1]}; {problem}"

    def count_syscalls(self, proc: ServerProcess) -> Failure | None:
        """syscalls=true: perf stat over a window of its own after the measured one, at its
        rate (server.syscalls_window)."""
        if not syscalls_window.wanted(self.req.params):
            return None
        edges = syscalls_window.SyscallsEdges(proc, self.req.params)
        seconds = float(self.req.params["duration-s"])
        found, failure = self.point_load(proc, seconds, "system-call", self.offered_per_s or 0,
                                         edges)
        self.syscalls, self.syscalls_seconds = edges.counted, seconds
        self.syscalls_requests = found.requests if found else None
        return failure

    def _check_load(self, load: LoadResult) -> Failure | None:
        assert self.server is not None
        self.under_load = {}
        return check_window(load, self.req, self.server, self.reference, self.sampled,
                            self.backend_window,
                            self.continuous is not None or bool(load.notes.get("continuous")),
                            self.under_load,
                            (self.waits_window, self.waits_after)
                            if self.waits_window is not None and self.waits_after else None)

    def lifecycle(self, proc: ServerProcess, port: int, backend: LatencyBackend | None,
                  started_by: "ServerRun | None" = None) -> Failure | None:
        """The run's phases on `proc`; `started_by`: the run of a shared start that saw the
        server ready (server.measure.measure_servers), whose ready line this one keeps."""
        if started_by is None:
            failure = self.wait_ready(proc, port) or self.check_bind(proc, port)
        else:
            self.ready, self.ready_s, failure = started_by.ready, started_by.ready_s, None
        failure = failure or self.verify(backend)
        if failure:
            return failure
        if continuous_applies(self.req):
            return self.warm_for_probe(proc) or self.probe_rate(proc) \
                or run_continuous(self, proc, backend) or self.check_after_load(backend)
        if self.req.params["warmup-s"] > 0:
            failure = self.warm_up(proc)
            if failure:
                return failure
            self.settle()
        return self.probe_rate(proc) or self.measured_load(proc, backend) \
            or self.count_syscalls(proc) or self.check_after_load(backend)

    def warm_for_probe(self, proc: ServerProcess) -> Failure | None:
        """rate=N% on one continuous load: the grid's first run probes the closed-loop peak
        before that load starts, and a cold JVM would show a fraction of its warm peak there;
        so it warms up first, closed loop, as a closed-loop run does (the continuous load then
        warms at its own rate)."""
        if self.req.params["warmup-s"] <= 0 or not probe_pending(self.req):
            return None
        failure = self.warm_up(proc, before="the rate grid's peak probe")
        self.probe_warmup, self.warmup = self.warmup, None
        if failure:
            return failure
        self.settle()
        return None

    def probe_rate(self, proc: ServerProcess) -> Failure | None:
        """The measured window's open-loop rate: rate=N% from the grid's closed-loop peak
        (server.rate_probe), slo-p99-ms from the capacity search (server.capacity)."""
        if self.req.params["slo-p99-ms"]:
            return self.search_capacity(proc)
        self.rate_probe, self.offered_per_s, failure = window_rate(
            self.req, lambda seconds, rate: self.run_load(proc, seconds, "rate probe", rate),
            self.settle)
        return failure

    def search_capacity(self, proc: ServerProcess) -> Failure | None:
        assert self.server is not None
        self.capacity, failure, warning = search_capacity(
            self.req.params, self.server.latency_floor_ms(self.req.params, self.req.bounds),
            lambda seconds, rate: self._capacity_window(proc, seconds, rate), self.settle)
        if warning:
            self.warnings.append(warning)
        if self.capacity is not None:
            self.offered_per_s = self.capacity.window_rate
        return failure

    def _capacity_window(self, proc: ServerProcess, seconds: float,
                         rate: int) -> tuple[LoadResult | None, Failure | None]:
        """One window of the capacity search, the server's CPU read at its edges."""
        edges = ServerCpuEdges(proc.cpu_probe)
        found, failure = self.point_load(proc, seconds, "capacity search", rate, edges)
        return (edges.noted(found) if found is not None else None), failure

    def warm_up(self, proc: ServerProcess, before: str | None = None) -> Failure | None:
        """Warm-up windows until the server is steady (or for a fixed time): server.warmup.
        `before`: what it warms the server for, when not the measured window (its warning
        then says so, and does not mark the run unsettled)."""

        def load(seconds: float) -> LoadResult:
            result, failure = self.run_load(proc, seconds, "warm-up")
            if failure or result is None:
                raise _WarmupFailed(failure or ("crash", "warm-up load gave no result"))
            return result

        # the harness's checked requests ride the warm-up too, so the measured window is not
        # the first the server (its JIT) sees of them (server.body_sampler)
        sampler = self.body_sampler()
        sampler.begin()
        try:
            outcome = warm_up(WarmupPolicy.of(self.req.params), proc.cpu_probe, load,
                              jit=self.jit_probe(proc))
        except _WarmupFailed as failed:
            return failed.failure
        finally:
            sampled = sampler.end()
        self.warmup = replace(outcome, sampled=sampled)
        if sampled.problem():
            return "invalid", f"during the warm-up: {sampled.problem()}"
        warning = self.warmup.warning()
        if warning:
            self.warnings.append(f"before {before}: {warning}" if before else warning)
        return None

    def settle(self) -> None:
        """Wait until requests queued by the warm-up load have drained (a probe answers near
        the latency floor again), so the measured window starts from an idle server."""
        assert self.server is not None
        floor = self.server.latency_floor_ms(self.req.params, self.req.bounds)
        if not floor:
            return
        started = time.perf_counter()
        limit = min(SETTLE_MAX_S, self.req.timeout_s)
        path = self.server.path(VERIFY_IDS[0])
        while time.perf_counter() - started < limit:
            try:
                resp = http_probe.get(self.target[1], path, timeout_s=limit, host=self.target[0])
            except (OSError, ValueError):
                break
            if resp.elapsed_s * 1000 <= SETTLED_FACTOR * floor + SETTLED_SLACK_MS:
                self.settle_s = time.perf_counter() - started
                return
        self.settle_s = time.perf_counter() - started
        self.warnings.append(f"the server had not drained {self.settle_s:.0f} s after the "
                             "warm-up load: the measured window starts with a backlog")

    def stop(self, proc: ServerProcess) -> dict[str, Any]:
        """SIGTERM, then SIGKILL after the grace; how it ended."""
        if proc.exited.is_set():
            return {"signal": None, "already_exited": True}
        sent = time.perf_counter()
        clean = proc.stop(signal.SIGTERM, KILL_GRACE_S)
        took = time.perf_counter() - sent
        if not clean:
            self.warnings.append(f"server did not exit within {KILL_GRACE_S:g} s of SIGTERM; "
                                 "killed (the contract asks for exit 0 within 5 s)")
        return {"signal": "SIGTERM", "exited_within_s": round(took, 3), "killed": not clean}
