"""What server workloads share: the load parameters, the verification response, the spec.

A server workload's process serves HTTP until SIGTERM (docs/contract.md, "Servers"). Only
its `contender_params` are passed to it; the load parameters below belong to the harness
and the load generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from concbench.errors import UserError
from concbench.workloads import thread_pool
from concbench.workloads.params import Param, Params

LOAD_PARAM_NAMES = ("connections", "duration-s", "warmup-s", "warmup-window-s",
                    "warmup-steady-pct", "threads", "keepalive", "rate", "loadgen",
                    "syscalls", "slo-p99-ms", "capacity-steps", "capacity-window-s",
                    "think-ms")


def load_params(connections: int, warmup_s: int, steady_pct: int) -> tuple[Param, ...]:
    """The load generator's parameters, with this workload's defaults."""
    return (
        Param("connections", connections, "concurrent connections the generator keeps open "
              "(capped by the open-file limit per process)", 1, 1_000_000),
        Param("duration-s", 10, "seconds of measured load", 1, 3600),
        Param("warmup-s", warmup_s, "seconds of unmeasured load first (JIT warm-up): the most "
              "it may last when warmup-steady-pct > 0, all of it when 0", 0, 3600),
        Param("warmup-window-s", 5, "length of one warm-up window (the steadiness check runs "
              "after each)", 1, 600),
        Param("warmup-steady-pct", steady_pct, "the warm-up ends once the rate stops climbing "
              "(the best of the last 2 windows at most this many % above the best of the 2 before) and "
              "a JVM's JIT compiled nothing for 2 windows (its own counters) (0 = a fixed "
              "warm-up of warmup-s, as the seeds did)", 0, 100),
        Param("threads", 0, "load generator threads (0 = one per client CPU, at most "
              "connections)", 0, 256),
        Param("keepalive", "true", "false: a new TCP connection per request "
              "(Connection: close), as seed 004", choices=("true", "false")),
        RateParam("rate", 0, "oha only: requests/s, open loop with latency correction "
                  "(0 = as fast as possible, closed loop); N% offers N % of the closed-loop "
                  "peak probed once per grid (server.rate_grid); auto (in --scan or "
                  "--param) is the grid 10%,25%,50%,75%,90%,100%", 0, 10_000_000),
        Param("loadgen", "oha", "load generator: oha (one continuous load per run: warm-up "
              "and window on the same connections, every response logged; server.continuous) "
              "or wrk (a fresh process per warm-up window and for the window; think-ms)",
              choices=("oha", "wrk")),
        Param("syscalls", "false", "true: count the server's system calls, context switches "
              "and page faults per request over the measured window (perf stat; "
              "docs/servers.md gives its cost)", choices=("false", "true")),
        Param("slo-p99-ms", 0, "capacity at a latency target: the highest open-loop rate "
              "the server holds with p99 at most this many ms, no errors and 99 % of the "
              "offered rate achieved, found by bisection before the measured window, which "
              "then runs at that rate (oha only; 0 = no search; server.capacity)", 0, 600_000),
        Param("capacity-steps", 6, "bisection windows of the capacity search (each halves "
              "the interval between a held and a missed rate)", 1, 20),
        Param("capacity-window-s", 3, "seconds of each capacity-search window", 1, 600),
        Param("think-ms", 0, "wrk only: each connection waits this many ms after a response "
              "before its next request, so connections are held open at about connections ÷ "
              "think requests/s (held keep-alive connections; docs/servers.md)", 0, 3_600_000),
    )


class RateParam(Param):
    """`rate`: requests/s (an integer) or a share of the probed peak ("50%", 1 to 100 %)."""

    def parse(self, text: str) -> Any:
        if text.strip().endswith("%"):
            number = text.strip()[:-1]
            if not number.isdigit() or not 1 <= int(number) <= 100:
                raise UserError(f"parameter {self.name}={text} must be a whole percentage "
                                "from 1% to 100% of the probed peak")
            return f"{int(number)}%"
        return super().parse(text)


def open_loop_problem(params: Params) -> str | None:
    """Why these load parameters cannot run (an open-loop rate needs oha), or None."""
    if params.get("rate") and params.get("loadgen") != "oha":
        return (f"rate={params['rate']} is an open-loop rate, which only oha sends: add "
                "--param loadgen=oha (wrk is closed loop)")
    if params.get("slo-p99-ms"):
        if params.get("loadgen") != "oha":
            return (f"slo-p99-ms={params['slo-p99-ms']} searches open-loop rates, which "
                    "only oha sends: add --param loadgen=oha (wrk is closed loop)")
        if params.get("rate"):
            return (f"slo-p99-ms finds the rate itself: drop rate={params['rate']} "
                    "(or drop slo-p99-ms to measure at a given rate)")
    if params.get("think-ms") and params.get("loadgen") != "wrk":
        return (f"think-ms={params['think-ms']} needs a pause per connection between "
                f"requests, which only wrk makes (oha has no per-connection think time): use "
                "--param loadgen=wrk, or drop think-ms")
    return None


@dataclass(frozen=True)
class Response:
    """One HTTP response as the harness received it."""

    status: int
    headers: Mapping[str, str]
    """Header names in lower case."""
    body: bytes
    elapsed_s: float
    wire_bytes: int | None = None
    """Bytes the whole response took on the wire (status line, headers, body)."""


@dataclass(frozen=True)
class Bounds:
    """What caps a server design (the manifest's [contenders.X.bounds], resolved)."""

    sequential: bool = False
    """Downstream calls one after another instead of base, then the rest in parallel."""
    request_threads: int | None = None
    """At most this many requests are served at once (each holds a thread throughout)."""
    async_threads: int | None = None
    """A pool that runs downstream calls, each holding one of its threads for its wait."""
    async_hold_ms: float = 0.0
    """Pool thread-milliseconds one request holds (the waits that run on the async pool)."""
    async_why: str = ""
    """How async_threads follows from the pool's shape, when it was derived from one."""


@dataclass(frozen=True)
class ServerSpec:
    """How the harness drives, checks and bounds one server workload."""

    contender_params: tuple[str, ...]
    """Passed to the server as --name=value, besides --port (and --backend-port)."""
    path: Callable[[int], str]
    """The request path for a request id (the same path when the workload has no id)."""
    check: Callable[[Params, Response, int], list[str]]
    """Problems with the verification response to the request for that id."""
    latency_floor_ms: Callable[[Params, Bounds], float | None]
    """No response can come faster than this (None: no floor)."""
    uses_backend: Callable[[Params], bool] = lambda p: False
    """True when the harness must start the latency backend for these parameters."""
    varied_ids: bool = False
    """Load requests vary the id (so no layer can serve a cached answer)."""
    downstream_calls: int = 0
    """Backend requests one verification request must make when uses_backend is true."""
    downstream_ms: Callable[[Params], int] = lambda p: 0
    """The sum of the delays those calls ask the backend for (base + detail + extra)."""
    id_bytes_per_digit: int = 0
    """Bytes a response grows by per digit of its id (the id is written this many times), so
    that the bytes per response of a load with varied ids can be bounded."""


DEFAULT_ASYNC_WAITS = ("detail", "extra")


def resolve_bounds(raw: Mapping[str, object], params: Params) -> Bounds:
    """The manifest's bounds for these parameters: "pool-size" replaced by the cell's pool
    size, and the async pool's hold time from the waits that run on it (`async-waits`), in
    the downstream modes where they hold a thread (`async-downstream`)."""
    def threads(key: str) -> int | None:
        value = raw.get(key)
        if value == "pool-size":
            return int(params["pool-size"]) if "pool-size" in params else None
        return int(value) if isinstance(value, int) else None

    async_threads, why = threads("async-threads"), ""
    request_threads = threads("request-threads")
    waits = raw.get("async-waits", DEFAULT_ASYNC_WAITS)
    pool = raw.get("async-pool")
    if isinstance(pool, Mapping):
        connections = int(params.get("connections", 0))  # type: ignore[arg-type]
        in_flight = min(connections, request_threads) if request_threads else connections
        shape = thread_pool.PoolShape(int(pool["core"]), int(pool["max"]), int(pool["queue"]),
                                      pool.get("rejected") == "caller-runs")
        async_threads, why = thread_pool.width(shape, in_flight, len(waits))  # type: ignore[arg-type]
    modes = raw.get("async-downstream", ("inproc", "http"))
    if params.get("downstream") not in modes:  # e.g. non-blocking HTTP calls hold no thread
        async_threads = None
    hold = sum(float(params.get(f"{w}-ms", 0)) for w in waits)  # type: ignore[union-attr]
    return Bounds(sequential=bool(raw.get("sequential", False)),
                  request_threads=request_threads, async_threads=async_threads,
                  async_hold_ms=hold, async_why=why)


def header_problems(resp: Response, content_type: str, length: int | None) -> list[str]:
    """Status 200, the content type (parameters allowed) and, when given, the body length."""
    problems = []
    if resp.status != 200:
        problems.append(f"status {resp.status}, expected 200")
    got_type = resp.headers.get("content-type", "")
    if got_type.split(";")[0].strip().lower() != content_type:
        problems.append(f"Content-Type {got_type!r}, expected {content_type}")
    if length is not None and len(resp.body) != length:
        problems.append(f"body of {len(resp.body)} bytes, expected {length}")
    return problems


FD_MARGIN = 64
"""Descriptors a process needs besides its connections (libraries, logs, epoll, pipes)."""


def open_files_needed(params: Params, uses_backend: bool) -> int:
    """Descriptors the busiest process (server or generator) needs for these parameters."""
    per_request = 3 if uses_backend else 1  # a server with a backend also holds two client sockets
    return params["connections"] * per_request + FD_MARGIN


def limit_problem(params: Params, uses_backend: bool) -> str | None:
    """Why this machine cannot run these parameters (the limit named), or None."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    need = open_files_needed(params, uses_backend)
    if hard != resource.RLIM_INFINITY and need > hard:
        return (f"connections={params['connections']} needs about {need} open files per process "
                f"(server and load generator); this machine allows {hard} (the hard "
                "RLIMIT_NOFILE, `ulimit -Hn`): lower connections or raise the limit")
    return None
