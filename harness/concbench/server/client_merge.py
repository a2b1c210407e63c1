"""Several clients' logs of one window merged exactly: every response of every client pooled,
so the window's p99 is the p99 of all its requests, never an average of the clients'
percentiles (which is no percentile of anything). Requests/s are summed; each generator's CPU
over the window and its saturation verdict are kept.

Each client's log (oha's CSV, server.request_log) runs on that oha's own clock; the harness
knows when each sent its first request on its own clock (remote.load_session), which puts
every log on one clock. The window is then one interval of that clock for every client.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from concbench.server import request_log as rl
from concbench.server.client_split import ClientShare
from concbench.server.continuous import due_in
from concbench.server.loadgen import LoadResult
from concbench.server.rate_point import GENERATOR_BUSY_SHARE


@dataclass(frozen=True)
class GeneratorRun:
    """One client's generator run, its times on the harness's clock (time.perf_counter())."""

    host: str
    returncode: int
    spawned_s: float
    first_sent_s: float | None
    """Its first request's write (None: not seen; the log's own start counts then)."""
    ended_s: float
    cpu_s: float | None
    """Its user + system CPU over its life (wait4)."""
    cpu_samples: tuple[tuple[float, float], ...]
    """(when, CPU seconds so far), every few tens of ms while it ran."""
    log: bytes
    """oha's CSV log of every response, as it wrote it."""
    stderr: str
    clock_uncertainty_s: float
    """Half the shortest round trip to the host's agent: how well its clock is known."""

    @property
    def start_s(self) -> float:
        return self.first_sent_s if self.first_sent_s is not None else self.spawned_s

    def failure(self) -> str | None:
        """Why this run measured nothing usable, or None."""
        if self.returncode < 0:
            return f"oha ended by signal {-self.returncode}"
        if self.returncode != 0:
            return f"oha exited {self.returncode}: {self.stderr.strip()[-300:]}"
        if not self.log.strip():
            return "oha wrote no log"
        return None

    def request_log(self) -> tuple[rl.RequestLog, float]:
        """Its log on the harness's clock, and the shift that put it there."""
        log = rl.RequestLog.parse(self.log.decode())
        if self.first_sent_s is None or log.first_write_s is None:
            shift = self.spawned_s
        else:
            shift = self.first_sent_s - log.first_write_s
        return log.shifted(shift), shift

    def cpu_at(self, t: float) -> float:
        """Its CPU seconds so far at `t`, interpolated between readings (0 at its spawn)."""
        points = [(self.spawned_s, 0.0), *self.cpu_samples]
        times = np.array([p[0] for p in points])
        cpu = np.maximum.accumulate(np.array([p[1] for p in points]))
        return float(np.interp(t, times, cpu))


@dataclass(frozen=True)
class ClientWindow:
    """One client's responses in the window, and its generator there."""

    share: ClientShare
    run: GeneratorRun
    found: rl.Span
    """Open loop: the requests due in the window (missed ones at their floor)."""
    served: rl.Span
    """The responses that ended in the window."""
    opened: int
    """Responses in the window whose request opened its connection."""
    cpu_s: float
    shift_s: float
    log: rl.RequestLog
    """Its whole log, on the harness's clock."""

    @property
    def cpu_share(self) -> float:
        """Its CPU over the window as a share of the CPUs it had."""
        cpus = len(self.share.site.generator_cpus()) or 1
        seconds = self.found.seconds
        return self.cpu_s / seconds / cpus if seconds > 0 else 0.0

    @property
    def saturated(self) -> bool:
        return self.cpu_share >= GENERATOR_BUSY_SHARE


def cut(share: ClientShare, run: GeneratorRun, t0: float, t1: float,
        deadline_s: float) -> ClientWindow:
    """One client's window [t0, t1); `deadline_s`: how long its oha ran (-z), after which
    a request still unanswered was dropped (the floor of a missed request's latency)."""
    log, shift = run.request_log()
    served = rl.span(log, t0, t1)
    found = served
    if share.rate > 0:
        due = due_in(share.rate, run.start_s, t0, t1)
        found = rl.span(log, t0, t1, due, shift + deadline_s)
    return ClientWindow(share, run, found, served, rl.new_connections(log, t0, t1),
                        run.cpu_at(t1) - run.cpu_at(t0), shift, log)


def whole_log(windows: list[ClientWindow]) -> rl.RequestLog:
    """Every client's whole log as one, on the harness's clock, sorted by end."""
    logs = [w.log for w in windows]
    end = np.concatenate([g.end_s for g in logs])
    order = np.argsort(end, kind="stable")

    def joined(field: str) -> np.ndarray:
        return np.concatenate([getattr(g, field) for g in logs])[order]
    firsts = [g.first_write_s for g in logs if g.first_write_s is not None]
    return rl.RequestLog(end[order], joined("duration_s"), joined("body_bytes"),
                         joined("status"), joined("dialup_s"), min(firsts) if firsts else None)


def pooled(spans: list[rl.Span]) -> rl.Span:
    """One span of every response of the given spans (of one interval): latencies pooled,
    counts summed."""
    latencies = np.sort(np.concatenate([s.latencies_ms for s in spans]))
    responses = sum(s.responses for s in spans)
    means = [(s.mean_ms, s.responses) for s in spans if s.mean_ms is not None]
    mean = sum(m * n for m, n in means) / responses if responses and means else None
    sizes: Counter[int] = Counter()
    for s in spans:
        for size, count in s.ok_body_sizes:
            sizes[size] += count
    first = spans[0]
    return rl.Span(first.start_s, first.end_s, responses, sum(s.ok for s in spans),
                   sum(s.missed for s in spans), sum(s.body_bytes for s in spans), latencies,
                   mean, tuple(sorted(sizes.items())))


def generator_record(w: ClientWindow, earliest_s: float) -> dict[str, Any]:
    """What one generator did in the window, for the run's record."""
    p99 = w.found.percentile(99)
    return {"host": w.share.host, "connections": w.share.connections, "rate": w.share.rate,
            "threads": w.share.threads, "cpus": list(w.share.site.generator_cpus()),
            "sources": list(w.share.site.sources),
            "started_ms": round((w.run.start_s - earliest_s) * 1000, 3),
            "ended_ms": round((w.run.ended_s - earliest_s) * 1000, 3),
            "clock_uncertainty_ms": round(w.run.clock_uncertainty_s * 1000, 3),
            "log_shift_s": w.shift_s - earliest_s, "responses": w.found.responses,
            "ok": w.found.ok, "missed": w.found.missed,
            **({"due": w.found.responses + w.found.missed} if w.share.rate else {}),
            "requests_per_s": w.served.ok_per_s, "p99_ms": p99,
            "connections_opened_in_window": w.opened, "window_cpu_s": round(w.cpu_s, 4),
            "cpu_percent": round(100 * w.cpu_share, 2), "saturated": w.saturated,
            "cpu_s": w.run.cpu_s}


@dataclass(frozen=True)
class SplitLoad(LoadResult):
    """The load of several generators: its CPU is all of theirs (the generators' CPU per
    request), its CPU share the busiest one's, since one saturated generator bounds the
    window whatever the others did (server.saturation, the capacity search's inconclusive
    windows and the cell's generator-bound flag all read cpu_percent)."""

    busiest_percent: float | None = None

    def cpu_percent(self) -> float | None:
        return self.busiest_percent


def merged_load(windows: list[ClientWindow], t0: float, t1: float,
                command: list[str]) -> SplitLoad:
    """The window's load over every client: latencies of the pooled requests, rates summed,
    the busiest generator's CPU share as the load's (one saturated generator bounds the
    window whatever the others did), every generator's record in `clients`."""
    found = pooled([w.found for w in windows])
    served_ok = sum(w.served.ok for w in windows)
    busiest = max(windows, key=lambda w: w.cpu_share)
    earliest = min(w.run.start_s for w in windows)
    rate = sum(w.share.rate for w in windows)
    notes: dict[str, Any] = {
        "continuous": True, "connections_opened_in_window": sum(w.opened for w in windows),
        "clients": {"count": len(windows),
                    "start_skew_ms": round(1000 * (max(w.run.start_s for w in windows)
                                                    - earliest), 3),
                    "end_spread_ms": round(1000 * (max(w.run.ended_s for w in windows)
                                                    - min(w.run.ended_s for w in windows)), 3),
                    "clock_uncertainty_ms": round(1000 * max(w.run.clock_uncertainty_s
                                                             for w in windows), 3),
                    "window_from_s": round(t0 - earliest, 6),
                    "window_to_s": round(t1 - earliest, 6),
                    "saturated": [w.share.host for w in windows if w.saturated],
                    "generators": [generator_record(w, earliest) for w in windows]}}
    if rate > 0:
        notes.update({"due": found.responses + found.missed, "missed": found.missed})
    return SplitLoad(
        generator="oha", requests=found.responses, ok_requests=found.ok, duration_s=t1 - t0,
        requests_per_s=served_ok / (t1 - t0) if t1 > t0 else 0.0,
        latency_ms=rl.latency_ms(found), percentiles=rl.percentile_points(found),
        errors={"connect": 0, "read": 0, "write": 0, "timeout": 0,
                "status": found.responses - found.ok, "other": found.missed},
        cpu_s=sum(w.cpu_s for w in windows), wall_s=t1 - t0,
        cpus=tuple(c for w in windows for c in w.share.site.generator_cpus()),
        command=command, corrected=rate > 0, bytes_received=found.body_bytes,
        bytes_counted="body", ok_body_sizes=dict(found.ok_body_sizes), notes=notes,
        busiest_percent=100 * busiest.cpu_share)
