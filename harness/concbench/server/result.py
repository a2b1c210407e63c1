"""What one server run recorded, as a RunResult: the server's lifecycle and window, the
load, the latency backend, and where each ran. Also the result of a run that never started."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from concbench import warnings
from concbench.proc.cgroups.verdict import oom_failure, oom_warning
from concbench.proc.process import ProcessOutcome
from concbench.proc.sampler import write_samples
from concbench.resultset.model import RunResult
from concbench.server.backend import LatencyBackend
from concbench.server.cpu_per_request import cpu_per_request
from concbench.server.request import ServerRequest
from concbench.server.capacity import judge
from concbench.server.saturation import open_loop_record
from concbench.server.sites import Sites
from concbench.server.state import RunState
from concbench.server import syscalls_window
from concbench.server.window import WindowMeasures


def _exit_note(out: ProcessOutcome, stop: dict[str, Any]) -> str | None:
    if stop.get("signal") != "SIGTERM" or stop.get("killed"):
        return None
    if out.exit_code == 0:
        return None
    how = f"exit code {out.exit_code}" if out.exit_code is not None \
        else f"signal {out.term_signal}"
    return f"server ended with {how} after SIGTERM (the contract asks for exit 0)"


def failed_result(status: str, reason: str) -> RunResult:
    return RunResult(status=status, reason=reason, wall_s=0.0, startup_s=None, peak_rss_bytes=0,
                     peak_threads=0, final_threads=0, cpu_user_s=0.0, cpu_sys_s=0.0,
                     ctx_voluntary=0, ctx_involuntary=0, iterations=())


def run_result(run: RunState, req: ServerRequest, out: ProcessOutcome, stop: dict[str, Any],
            failure: "tuple[str, str] | None", argv: list[str], samples_path: Path | None,
            window: WindowMeasures | None, backend: LatencyBackend | None) -> RunResult:
    status, reason = failure if failure else ("ok", None)
    status, reason = oom_failure(out.cgroup, status) or (status, reason)
    oom_note = oom_warning(out.cgroup) if status == "ok" else None
    if oom_note:
        run.warnings.append(oom_note)
    note = _exit_note(out, stop)
    if note:
        run.warnings.append(note)
    if out.escaped:
        run.warnings.append(warnings.escaped_processes(out.escaped))
    sites = req.where
    server: dict[str, Any] = {
        "host": sites.server.name, "target": f"{run.target[0]}:{run.target[1]}",
        "cpus": list(sites.server.cpus), "ready_s": run.ready_s,
        "runtime": (run.ready or {}).get("runtime"), "ready_by": req.contender.ready,
        "verification": run.verification, "under_load": run.under_load,
        "after_load": run.after_load, "kernel": run.kernel, "waits": run.waits,
        "syscalls": _syscalls(run, window),
        "stop": {**stop, "exit_code": out.exit_code,
                                                    "term_signal": out.term_signal},
        "window": window.to_dict() if window else None,
        "warmup": run.warmup.to_dict() if run.warmup else None, "settle_s": run.settle_s,
        "window_jit": run.window_jit.to_dict() if run.window_jit else None,
        "window_jit_cpu_s": run.window_jit_cpu_s,
        "continuous": run.continuous,
        "steadiness": run.steadiness.to_dict() if run.steadiness else None,
        "connections_held": run.held.to_dict() if run.held else None,
        "command": argv,
        "rate_probe": run.rate_probe.to_dict() if run.rate_probe else None,
        "probe_warmup": run.probe_warmup.to_dict() if run.probe_warmup else None,
        "cpu_per_request": _cpu_per_request(run, out, window),
        "capacity": _capacity(run, req),
    }
    backend_d = _backend_record(run, backend, sites)
    load = _load_record(run, sites, samples_path)
    if load is not None and run.load is not None and run.offered_per_s:
        load["open_loop"] = open_loop_record(run.load, run.offered_per_s,
                                             req.params["duration-s"])
    return RunResult(
        status=status, reason=reason, wall_s=out.wall_s, startup_s=run.ready_s,
        peak_rss_bytes=max(out.peak_rss_sampled, out.ru_maxrss_bytes),
        peak_threads=out.peak_threads, final_threads=out.final_threads,
        cpu_user_s=out.cpu_user_s, cpu_sys_s=out.cpu_sys_s, ctx_voluntary=out.ctx_voluntary,
        ctx_involuntary=out.ctx_involuntary, iterations=(), marks={},
        exit_code=out.exit_code, samples_file=write_samples(out.samples, samples_path),
        stderr_tail=out.stderr_tail if status != "ok" else out.stderr_tail[-2000:],
        sampler_cpu_s=out.sampler_cpu_s, sampler_kind=out.sampler_kind, load=load,
        server=server, backend=backend_d, warnings=tuple(run.warnings),
        profiles=tuple(run.profiles), cgroup=out.cgroup.to_dict() if out.cgroup else None)


def _load_record(run: RunState, sites: Sites,
                 samples_path: Path | None) -> dict[str, Any] | None:
    """The window's load; split over several clients, each generator's figures and log too
    (kept when a client failed: what the others measured is not lost)."""
    host = ",".join(s.name for s in sites.clients)
    split = run.clients
    if split is None:
        return {**run.load.to_dict(), "host": host} if run.load else None
    clients = {**split.record, "log_files": split.write_logs(samples_path)}
    if run.load is None:
        return {"host": host, "clients": clients}
    return {**run.load.to_dict(), "host": host, "clients": clients}


def _capacity(run: RunState, req: ServerRequest) -> dict[str, Any] | None:
    """The search, and the measured window judged by the same rule at the rate it chose."""
    if run.capacity is None:
        return None
    found = run.capacity.to_dict()
    if run.load is not None and run.offered_per_s:
        window = judge(run.load, run.offered_per_s, req.params["duration-s"],
                       run.capacity.target_p99_ms)
        found["measured_window"] = dict(window.__dict__)
        if run.capacity.capacity_per_s and not window.held:
            run.warnings.append(f"the measured window at the capacity rate missed: {window.why} "
                                "(the capacity sits on the edge)")
    return found


def _cpu_per_request(run: RunState, out: ProcessOutcome,
                     window: WindowMeasures | None) -> dict[str, Any] | None:
    usage = out.cgroup.window_cpu.usage_s if out.cgroup and out.cgroup.window_cpu else None
    found = cpu_per_request(window, usage, run.load, run.window_jit_cpu_s)
    return found.to_dict() if found else None



def _backend_record(run: RunState, backend: LatencyBackend | None,
                    sites: Sites) -> dict[str, Any] | None:
    if backend is None or backend.outcome is None:
        return None
    out = backend.outcome
    record: dict[str, Any] = {"host": sites.backend.name, "cpus": list(sites.backend.cpus),
                              "peak_rss_bytes": out.peak_rss_sampled,
                              "cpu_s": out.cpu_user_s + out.cpu_sys_s}
    window = backend.proc.window_measures(out)
    if window and run.backend_window:
        record["window"] = window.to_dict()
        record["requests_in_window"] = run.backend_window.requests
        record["delay_ms_in_window"] = run.backend_window.delay_ms
    return record


def _syscalls(run: RunState, window: WindowMeasures | None) -> dict[str, Any] | None:
    if run.syscalls is None:
        return None
    if run.syscalls.note:
        run.warnings.append(run.syscalls.note)
    ctx = (window.ctx_voluntary, window.ctx_involuntary) if window else None
    return syscalls_window.record(run.syscalls, run.syscalls_requests, run.syscalls_seconds,
                                  ctx, run.load.requests if run.load else None)
