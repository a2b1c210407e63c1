"""wrk (Debian package `wrk`): closed-loop load, C connections over T threads.

A Lua script (wrk.lua) writes wrk's own summary as JSON through `done()`: requests, bytes
read, errors by kind (connect, read, write, timeout; a status of 400 or more as `status`),
latency min/mean/max and percentiles. No `response()` hook: wrk would then hand every
response's headers and body to Lua, a cost on every request; a 204 or 304 shows in the bytes
per response instead (server.load_checks). With think_ms > 0 the script defines `delay()`:
each connection pauses that long between a response and its next request (held keep-alive
connections at a low rate); latency still runs from send to response, the pause not
included. `connections_opened` in the result is what wrk opened (it splits connections evenly
over its threads and drops the remainder); a connection that failed counts as a connect error.
wrk measures each request from send to response and does not correct for
coordinated omission: under a stalling server its percentiles are optimistic (oha with a
`rate` corrects them).
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

from concbench.server.loadgen.base import LoadError, LoadResult, LoadSpec, pinned

SCRIPT = Path(__file__).with_name("wrk.lua")


class Wrk:
    name = "wrk"

    def missing(self) -> str | None:
        if shutil.which("wrk") is None:
            return "wrk not found: apt-get install -y wrk (concbench installs it itself when run as root)"
        if shutil.which("taskset") is None:
            return "taskset not found: apt-get install -y util-linux"
        return None

    def command(self, spec: LoadSpec) -> list[str]:
        argv = ["wrk", "-t", str(spec.threads), "-c", str(spec.connections),
                "-d", f"{math.ceil(spec.duration_s)}s", "--timeout", f"{math.ceil(spec.timeout_s)}s",
                "-s", spec.where.path(SCRIPT)]
        if not spec.keepalive:
            argv += ["-H", "Connection: close"]
        return pinned([*argv, spec.url + spec.path], spec.cpus)

    def run(self, spec: LoadSpec) -> LoadResult:
        env = {"CONCBENCH_WRK_OUT": "{out}"}
        if spec.varied_ids:
            env["CONCBENCH_WRK_ID_PREFIX"] = re.sub(r"\d+$", "", spec.path)
        if spec.think_ms > 0:
            env["CONCBENCH_WRK_THINK_MS"] = str(spec.think_ms)
            env["CONCBENCH_WRK_STAGGER"] = str(opened(spec) // spec.threads)
        argv = self.command(spec)
        done = spec.where.run(argv, spec.duration_s + 60, env)
        if done.returncode != 0 or not done.output:
            tail = (done.stderr or done.stdout).strip()[-400:]
            raise LoadError(f"wrk exited {done.returncode} without a summary: {tail}")
        return parse(json.loads(done.output), argv, spec, done.cpu_s, done.wall_s)


def opened(spec: LoadSpec) -> int:
    """The connections wrk opens: connections ÷ threads per thread, rounded down (wrk drops
    the remainder)."""
    return spec.threads * (spec.connections // spec.threads)


def parse(raw: dict, argv: list[str], spec: LoadSpec, cpu_s: float, wall_s: float) -> LoadResult:
    """wrk's summary (µs, counts) into a LoadResult (ms, the rate of responses below 400)."""
    lat = raw["latency_us"]
    duration_s = raw["duration_us"] / 1e6
    errors = {k: int(v) for k, v in raw["errors"].items()}
    ok = max(0, raw["requests"] - errors["status"])
    have = raw["requests"] > 0
    ms = (lambda key: lat[key] / 1000.0 if have else None)
    return LoadResult(
        generator="wrk", requests=raw["requests"], ok_requests=ok, duration_s=duration_s,
        requests_per_s=ok / duration_s if duration_s > 0 else 0.0,
        latency_ms={"p50": ms("p50"), "p90": ms("p90"), "p99": ms("p99"), "p999": ms("p999"),
                    "max": ms("max"), "min": ms("min"), "mean": ms("mean")},
        percentiles=[(float(p), v / 1000.0) for p, v in raw["percentiles_us"]] if have else [],
        errors={**errors, "other": 0}, cpu_s=cpu_s, wall_s=wall_s, cpus=spec.cpus,
        command=argv, corrected=False, bytes_received=int(raw["bytes"]), bytes_counted="wire",
        notes={"connections_opened": opened(spec), "think_ms": spec.think_ms})
