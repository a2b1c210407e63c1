"""A server process started, its run's lifecycle (server.run) gone through, stopped, and the
run's result made; or several runs' lifecycles one after another on one start.

Several runs on one start are for `verify` (plan.Settings.share_server_starts): its cells of
one contender and workload whose server command is the same (http-hello's keep-alive and
Connection: close cells) check answers, not start-up or memory, so a second start of the same
server would check nothing more. Each run still gets its own verification, load, window and
checks; they share the process's start-up, its memory and CPU over its life, and its stop. A
run after one that failed is not run: it is recorded with that failure, said so.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from concbench.errors import HostError
from concbench.proc.launch import contender_env
from concbench.proc.process import ProcessOutcome, not_started
from concbench.resultset.model import RunResult
from concbench.server.backend import BackendError, LatencyBackend
from concbench.server.process import LocalServer, ServerProcess
from concbench.server.request import ServerRequest
from concbench.server.result import failed_result, run_result
from concbench.server.run import ServerRun
from concbench.server.sites import LOOPBACK
from concbench.server.window import WindowMeasures

__all__ = ["measure_server", "measure_servers"]


def measure_server(req: ServerRequest, samples_path: Path | None = None) -> RunResult:
    """Run the server once through its lifecycle and return the verified, classified result."""
    return measure_servers([req], [samples_path])[0]


def measure_servers(reqs: list[ServerRequest],
                    samples_paths: list[Path | None]) -> list[RunResult]:
    """The requests' runs one after another on one start of the first one's server (their
    server commands are the same: the caller's to check); one result per request."""
    req = reqs[0]
    assert req.spec.server is not None and len(samples_paths) == len(reqs)
    runs = [ServerRun(r) for r in reqs]
    sites = req.where
    with contextlib.ExitStack() as stack:
        backend = None
        if req.spec.server.uses_backend(req.params):
            if req.backend_exe is None and sites.backend.remote is None:
                return _all_failed(reqs, "unavailable",
                                   "the latency backend could not be built (Go)")
            try:
                backend = stack.enter_context(
                    LatencyBackend(req.backend_exe, sites.backend, dict(os.environ)))
            except BackendError as err:
                return _all_failed(reqs, "crash", str(err))
        try:
            port = sites.server.free_port()
        except HostError as err:
            return _all_failed(reqs, "crash", str(err))
        for run in runs:
            run.target = sites.server.reach(port)
        takes_backend = "downstream" in req.params
        backend_at = backend.target if backend else (LOOPBACK, 0) if takes_backend else None
        argv = req.argv(port, backend_at, sites.server.bind)
        proc = sites.server.start(
            argv, req.contender.toolchain.folder, contender_env(req.contender, req.tools),
            {"kind": "contender", "contender": req.contender.name, "workload": req.spec.name,
             "args": req.args(port, backend_at, sites.server.bind)},
            req.rss_limit, on_message=runs[0].on_message, limits=req.limits)
        try:
            proc.start()
        except (OSError, HostError) as err:
            out = not_started(argv, err) if isinstance(err, OSError) else None
            return _all_failed(reqs, "crash", out.stderr_tail if out else str(err))
        failures, windows = _lifecycles(runs, proc, port, backend)
        out = proc.outcome()
        measures = [proc.window_measures(out)] if len(runs) == 1 \
            else [_window_of(proc, out, index) for index in windows]
    return [run_result(run, r, out, stop, failure, getattr(proc, "argv", argv), path, window,
                       backend)
            for run, r, (failure, stop), path, window
            in zip(runs, reqs, failures, samples_paths, measures)]


def _lifecycles(runs: list[ServerRun], proc: ServerProcess, port: int,
                backend: LatencyBackend | None
                ) -> "tuple[list[tuple[tuple[str, str] | None, dict]], list[int | None]]":
    """Each run's (failure, stop record) and the index of the window it began (None: none);
    the server is stopped after the last run, or after the first that failed."""
    done: list[tuple[str, str] | None] = []
    windows: list[int | None] = []
    begun = _windows_begun(proc)
    try:
        for run in runs:
            if done and done[-1] is not None:
                status, reason = done[-1]
                done.append((status, "not run: the run before it on the same server start "
                                     f"ended {status}: {reason}"))
                windows.append(None)
                continue
            try:
                done.append(run.lifecycle(proc, port, backend,
                                          started_by=runs[0] if done else None))
            except HostError as err:
                done.append(("crash", str(err)))
            now = _windows_begun(proc)
            windows.append(now - 1 if now > begun else None)
            begun = now
    finally:
        stop = runs[len(done) - 1 if done else 0].stop(proc)
    done += [("crash", "not run: the server start it shared ended")] * (len(runs) - len(done))
    windows += [None] * (len(runs) - len(windows))
    return [(failure, stop) for failure in done], windows


def _windows_begun(proc: ServerProcess) -> int:
    """How many windows the process has had begun (0 where it does not count them: a remote
    process, whose one run reads its window as before)."""
    return proc.windows_begun() if isinstance(proc, LocalServer) else 0


def _window_of(proc: ServerProcess, out: ProcessOutcome,
               index: int | None) -> WindowMeasures | None:
    """The index-th window of a local server (a shared start is local: scheduler)."""
    if index is None or not isinstance(proc, LocalServer):
        return None
    return proc.window_measures_at(out, index)


def _all_failed(reqs: list[ServerRequest], status: str, reason: str) -> list[RunResult]:
    return [failed_result(status, reason) for _ in reqs]
