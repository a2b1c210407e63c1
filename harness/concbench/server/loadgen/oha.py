"""oha (crates.io, pinned): open-loop load at a fixed rate with coordinated-omission correction.

With `rate` > 0 oha sends at that rate whatever the server does and measures each latency
from the moment the request *should* have been sent (--latency-correction), so a stalling
server shows its stalls. With rate 0 it is closed loop like wrk. Requests still in flight at
the deadline are aborted by oha and reported apart (`aborted_at_deadline`), not as errors.
"""

from __future__ import annotations

import json
import math
import re

from concbench import tools
from concbench.server.loadgen.base import PERCENTILE_POINTS, LoadError, LoadResult, LoadSpec, pinned

DEADLINE_ABORT = "aborted due to deadline"


def target(spec: LoadSpec) -> list[str]:
    """The connection and URL arguments that end an oha command line: keep-alive or not, and
    the URL (a pattern of ids when the load varies them)."""
    argv = [] if spec.keepalive else ["--disable-keepalive"]
    if not spec.varied_ids:
        return [*argv, spec.url + spec.path]
    return [*argv, "--rand-regex-url",
            spec.url + re.escape(re.sub(r"\d+$", "", spec.path)) + "[1-9][0-9]{0,5}"]


class Oha:
    name = "oha"

    def missing(self) -> str | None:
        return tools.missing("oha")

    def command(self, spec: LoadSpec, out: str) -> list[str]:
        exe = tools.path("oha") if spec.runner is None else "oha"  # a remote client's PATH
        argv = [str(exe), "-z", f"{math.ceil(spec.duration_s)}s", "-c", str(spec.connections),
                "--no-tui", "--output-format", "json", "-o", out,
                "--worker-threads", str(spec.threads), "-t", f"{math.ceil(spec.timeout_s)}s"]
        if spec.rate > 0:
            argv += ["-q", str(spec.rate), "--latency-correction"]
        return pinned([*argv, *target(spec)], spec.cpus)

    def run(self, spec: LoadSpec) -> LoadResult:
        argv = self.command(spec, "{out}")
        done = spec.where.run(argv, spec.duration_s + 60, {})
        if done.returncode != 0 or not done.output:
            tail = (done.stderr or done.stdout).strip()[-400:]
            raise LoadError(f"oha exited {done.returncode} without a result: {tail}")
        return parse(json.loads(done.output), argv, spec, done.cpu_s, done.wall_s)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000.0


def parse(raw: dict, argv: list[str], spec: LoadSpec, cpu_s: float, wall_s: float) -> LoadResult:
    """oha's JSON (seconds) into a LoadResult (ms, the rate of 200 responses; totalData is
    the bodies' bytes)."""
    statuses = {int(k): int(v) for k, v in (raw.get("statusCodeDistribution") or {}).items()}
    errors_raw = dict(raw.get("errorDistribution") or {})
    aborted = int(errors_raw.pop(DEADLINE_ABORT, 0))
    requests = sum(statuses.values())
    ok = statuses.get(200, 0)  # a 204, a 304 or any other status is an error here
    summary = raw["summary"]
    duration = float(summary["total"])
    pct = raw.get("latencyPercentiles") or {}
    have = requests > 0
    errors = {"connect": 0, "read": 0, "write": 0, "timeout": 0, "status": requests - ok,
              "other": 0}
    for kind, count in errors_raw.items():
        key = "connect" if "connect" in kind.lower() else "timeout" if "timeout" in kind.lower() \
            else "other"
        errors[key] += int(count)
    points = [(p, _ms(pct.get(f"p{p:g}"))) for p in PERCENTILE_POINTS if p < 100]
    return LoadResult(
        generator="oha", requests=requests, ok_requests=ok, duration_s=duration,
        requests_per_s=ok / duration if duration > 0 else 0.0,
        latency_ms={"p50": _ms(pct.get("p50")), "p90": _ms(pct.get("p90")),
                    "p99": _ms(pct.get("p99")), "p999": _ms(pct.get("p99.9")),
                    "max": _ms(summary.get("slowest")) if have else None,
                    "min": _ms(summary.get("fastest")) if have else None,
                    "mean": _ms(summary.get("average")) if have else None},
        percentiles=[(p, v) for p, v in points if v is not None]
        + ([(100.0, _ms(summary["slowest"]))] if have and summary.get("slowest") else []),
        errors=errors, cpu_s=cpu_s, wall_s=wall_s, cpus=spec.cpus, command=argv,
        corrected=spec.rate > 0, bytes_received=int(summary.get("totalData") or 0),
        bytes_counted="body", notes={"aborted_at_deadline": aborted,
                                        "error_kinds": errors_raw})
