"""Statistics, bounds and warnings of a server cell (http-*), one value per run.

Each run is one measured load window; its figures come from the load generator (rate,
latency, errors) and from /proc (the server's CPU, RSS, threads, descriptors in that
window). A cell's figure is the median over its ok runs, with the Student-t interval of
stats.summary.
"""

from __future__ import annotations

from typing import Any, Callable

from concbench import warnings
from concbench.resultset.model import RunResult, Summary
from concbench.stats import syscall_cell
from concbench.stats.summary import summarize
from concbench.workloads import WorkloadSpec
from concbench.workloads.littles_law import Ceiling, ceilings
from concbench.workloads.server import Bounds

GENERATOR_SATURATED = 90.0
SERVER_SATURATED = 85.0
BACKEND_BUSY = 80.0
LATENCIES = ("p50", "p90", "p99", "p999", "max")


def _get(d: dict[str, Any] | None, *path: str) -> Any:
    for key in path:
        if not isinstance(d, dict):
            return None
        d = d.get(key)
    return d


def _flag(value: Any) -> float | None:
    return None if value is None else float(bool(value))


PER_RUN: dict[str, Callable[[RunResult], Any]] = {
    "requests_per_s": lambda r: _get(r.load, "requests_per_s"),
    **{f"latency_{k}_ms": (lambda r, k=k: _get(r.load, "latency_ms", k)) for k in LATENCIES},
    "errors_total": lambda r: _get(r.load, "errors_total"),
    "generator_cpu_percent": lambda r: _get(r.load, "cpu_percent"),
    "server_cpu_percent": lambda r: _get(r.server, "window", "cpu_percent"),
    "server_peak_rss_bytes": lambda r: _get(r.server, "window", "peak_rss_bytes"),
    "server_mean_rss_bytes": lambda r: _get(r.server, "window", "mean_rss_bytes"),
    "server_peak_threads": lambda r: _get(r.server, "window", "peak_threads"),
    "server_peak_fds": lambda r: _get(r.server, "window", "peak_fds"),
    "server_ctx_voluntary": lambda r: _get(r.server, "window", "ctx_voluntary"),
    "server_ctx_involuntary": lambda r: _get(r.server, "window", "ctx_involuntary"),
    "startup_s": lambda r: r.startup_s,
    "warmup_s": lambda r: _get(r.server, "warmup", "seconds"),
    "backend_cpu_percent": lambda r: _get(r.backend, "window", "cpu_percent"),
    "backend_peak_rss_bytes": lambda r: _get(r.backend, "window", "peak_rss_bytes"),
    "peak_rss_bytes": lambda r: r.peak_rss_bytes,
    "peak_threads": lambda r: r.peak_threads,
    "cpu_s": lambda r: r.cpu_s,
    **syscall_cell.per_run(),
    "server_cpu_us_per_request": lambda r: _get(r.server, "cpu_per_request", "server_us"),
    "server_cpu_us_per_request_without_jit": lambda r: _get(r.server, "cpu_per_request",
                                                            "server_us_without_jit"),
    "generator_cpu_us_per_request": lambda r: _get(r.server, "cpu_per_request",
                                                   "generator_us"),
    "offered_per_s": lambda r: _get(r.load, "open_loop", "offered_per_s"),
    "achieved_ratio": lambda r: _get(r.load, "open_loop", "achieved_ratio"),
    "saturated": lambda r: _flag(_get(r.load, "open_loop", "saturated")),
    "rate_probe_per_s": lambda r: _get(r.server, "rate_probe", "peak_per_s"),
    "capacity_per_s": lambda r: _get(r.server, "capacity", "capacity_per_s"),
}
"""Open-loop runs add offered_per_s, achieved_ratio and saturated (1 when the run fell
behind its offered rate, 0 when it kept up: the cell's median is the majority verdict);
runs at rate=N% add the closed-loop peak their probe reached (server.rate_grid); runs with
slo-p99-ms add the capacity their search found (server.capacity)."""


def server_stats(ok_runs: list[RunResult]) -> dict[str, Summary]:
    found: dict[str, Summary] = {}
    for key, read in PER_RUN.items():
        values = [v for v in (read(r) for r in ok_runs) if isinstance(v, (int, float))]
        s = summarize(values)
        if s is not None:
            found[key] = s
    if "requests_per_s" in found:
        found["throughput_per_s"] = found["requests_per_s"]
    return found


def bounds_of(spec: WorkloadSpec, params: dict[str, Any], bounds: Bounds,
              network: dict[str, Any] | None = None) -> tuple[float | None, list[Ceiling]]:
    """The latency floor (ms) and the throughput ceilings, tightest first. Across hosts the
    floor includes the measured round trips: one client → server per request, and one
    server → backend per downstream call on the critical path (two when base and then the
    parallel pair wait on the backend, three for a sequential design)."""
    assert spec.server is not None
    floor = spec.server.latency_floor_ms(params, bounds)
    if floor is None:
        return None, []
    floor += network_delay_ms(spec, params, bounds, network or {})
    return floor, ceilings(floor, params["connections"], params, bounds)


def network_delay_ms(spec: WorkloadSpec, params: dict[str, Any], bounds: Bounds,
                     network: dict[str, Any]) -> float:
    assert spec.server is not None
    delay = float(network.get("client_server", {}).get("rtt_ms") or 0.0)
    if spec.server.uses_backend(params):
        calls_on_path = 3 if bounds.sequential else 2
        delay += calls_on_path * float(network.get("server_backend", {}).get("rtt_ms") or 0.0)
    return delay


def _median(stats: dict[str, Summary], key: str) -> float | None:
    s = stats.get(key)
    return s.median if s else None


def server_warnings(runs: list[RunResult], stats: dict[str, Summary],
                    placement: dict[str, list[int]] | None, duration_s: float) -> list[str]:
    found: list[str] = []
    p99 = _median(stats, "latency_p99_ms")
    if p99 is not None and p99 > duration_s * 1000 / 2:
        found.append(warnings.latency_near_window(p99, duration_s))
    gen, srv = _median(stats, "generator_cpu_percent"), _median(stats, "server_cpu_percent")
    if gen is not None and srv is not None and gen >= GENERATOR_SATURATED:
        found.append(warnings.generator_bound(gen, srv) if srv < SERVER_SATURATED
                     else warnings.generator_and_server_saturated(gen, srv))
    errors = [r.load for r in runs if r.status == "ok" and r.load and r.load.get("errors_total")]
    if errors:
        found.append(warnings.errors_under_load(len(errors), len(runs), errors[0]["errors"]))
    backend = _median(stats, "backend_cpu_percent")
    if backend is not None and backend >= BACKEND_BUSY:
        found.append(warnings.backend_busy(backend))
    rate = stats.get("requests_per_s")
    if rate:
        found += [w for w in (warnings.high_cv("requests/s", rate),) if w]
    return found
