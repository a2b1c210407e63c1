"""Known answers for results.csv's columns errors_total, server_cpu_percent,
server_peak_rss_bytes and generator_cpu_percent (docs/known-answers.md): made-up inputs with
every term non-zero, each figure worked out by hand, through the code that computes it and on
to the cell's median (stats.server_cell.server_stats). No process is started: the server's
window reads its CPU clock and the time through stand-ins, the continuous load's log is CSV
text and its generator a stand-in holding what the harness read of it."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest

from concbench.proc.sampler import Sample
from concbench.resultset.model import RunResult
from concbench.server import request_log as rl
from concbench.server import window as window_module
from concbench.server.continuous import Marks, window_load
from concbench.server.loadgen import LoadResult
from concbench.server.loadgen import wrk
from concbench.server.loadgen.base import LoadSpec
from concbench.server.loadgen.oha_stream import Reading
from concbench.server.window import Window, WindowMeasures
from concbench.stats.server_cell import server_stats

CPUS = (1, 2, 3)
"""Three pinned CPUs: neither 1 (no division) nor this machine's count (os.cpu_count())."""


def _spec(rate: int) -> LoadSpec:
    return LoadSpec(url="http://127.0.0.1:8080", path="/hello", varied_ids=False,
                    connections=16, duration_s=1.0, threads=2, keepalive=True, rate=rate,
                    cpus=CPUS, timeout_s=30.0)


def _run(load: dict[str, Any] | None = None, window: dict[str, Any] | None = None) -> RunResult:
    return RunResult(status="ok", reason=None, wall_s=3.0, startup_s=0.5, peak_rss_bytes=1,
                     peak_threads=1, final_threads=1, cpu_user_s=0.1, cpu_sys_s=0.1,
                     ctx_voluntary=1, ctx_involuntary=1, iterations=(), load=load,
                     server={"window": window} if window is not None else None)


# -- errors_total ------------------------------------------------------------------------------

RATE = 100
"""Open loop: oha sends request i at i / RATE s; the window [1, 2) is due requests 100–199."""
MISSED_INSIDE = (130, 160, 175, 199)
"""Due in the window and never answered."""
NOT_OK_INSIDE = {110: 500, 140: 503, 180: 404}
"""Due in the window and answered with another status than 200."""
OUTSIDE = {"missed": (50, 250), "not_ok": {20: 500, 220: 503}}
"""The same before and after the window: not the window's errors."""


def _open_loop_log() -> rl.RequestLog:
    """Request i due at i / RATE + 2 ms, its first byte 5 ms later (duration from the due
    time, as oha logs it with latency correction), 200-byte bodies."""
    missed = set(MISSED_INSIDE) | set(OUTSIDE["missed"])
    status = {**NOT_OK_INSIDE, **OUTSIDE["not_ok"]}
    lines = [rl.HEADER] + [f"{i / RATE + 0.002},0,0,0.005,0.005,200,{status.get(i, 200)}"
                           for i in range(300) if i not in missed]
    return rl.RequestLog.parse("\n".join(lines) + "\n")


def _continuous(rate: int, cpu_before_s: float, cpu_after_s: float) -> SimpleNamespace:
    """What window_load reads of server.continuous.ContinuousLoad: its spec, the generator's
    readings at the window's ends, its clock's origin, and when it was told to stop."""
    marks = Marks(window=(Reading(at_s=1.0, sent_writes=100, cpu_s=cpu_before_s),
                          Reading(at_s=2.0, sent_writes=200, cpu_s=cpu_after_s)))
    return SimpleNamespace(spec=_spec(rate), marks=marks, stopped_s=4.0,
                           stream=SimpleNamespace(first_sent_s=0.0, started=0.0, argv=["oha"]))


def test_an_open_loop_windows_errors_are_its_non_200_responses_and_its_missed_requests():
    """errors_total = (responses − ok) + missed = (96 − 93) + 4 = 7: the three non-200 answers
    due in the window as `status`, the four requests due there that never answered as
    `other`; the same kinds before and after the window are not counted."""
    load = window_load(_open_loop_log(), _continuous(RATE, 0.75, 1.5), 1.0, 2.0)
    responses, ok, missed = 100 - len(MISSED_INSIDE), 100 - len(MISSED_INSIDE) - 3, 4
    assert (load.requests, load.ok_requests) == (responses, ok) == (96, 93)
    assert (load.notes["due"], load.notes["missed"]) == (100, missed)
    assert load.errors == {"connect": 0, "read": 0, "write": 0, "timeout": 0,
                           "status": responses - ok, "other": missed}
    assert load.errors_total == (responses - ok) + missed == 7
    assert load.to_dict()["errors_total"] == 7
    stats = server_stats([_run(load.to_dict())])
    assert stats["errors_total"].median == 7


def _wrk_load(errors: dict[str, int]) -> LoadResult:
    """wrk's summary of 1 000 requests in 2 s (µs: p99 4 000, p99.9 8 000) with these errors,
    parsed."""
    raw = {"requests": 1000, "duration_us": 2_000_000, "bytes": 150_000, "errors": errors,
           "latency_us": {"min": 500, "max": 9000, "mean": 1500.0, "stdev": 300.0,
                          "p50": 1400, "p90": 2000, "p99": 4000, "p999": 8000},
           "percentiles_us": [[50, 1400], [99, 4000], [100, 9000]]}
    return wrk.parse(raw, ["wrk"], _spec(0), cpu_s=0.5, wall_s=2.0)


def test_wrk_s_errors_are_every_kind_it_counts_summed():
    """wrk's summary with each error kind a different power of two: errors_total 1 + 2 + 4
    + 8 + 16 = 31, and only the status errors (responses of 400 and up) are not ok."""
    load = _wrk_load({"connect": 1, "read": 2, "write": 4, "status": 8, "timeout": 16})
    assert load.errors == {"connect": 1, "read": 2, "write": 4, "status": 8, "timeout": 16,
                           "other": 0}
    assert load.errors_total == 1 + 2 + 4 + 8 + 16 == 31
    assert (load.requests, load.ok_requests) == (1000, 992)
    assert load.to_dict()["errors_total"] == 31
    assert server_stats([_run(load.to_dict())])["errors_total"].median == 31


# -- server_cpu_percent, server_peak_rss_bytes -------------------------------------------------

STARTED = 100.0
"""When the server was spawned (perf_counter); the window runs 102.0–104.5, t 2.0–4.5 s."""


def _measured(monkeypatch: pytest.MonkeyPatch, cpu_s: tuple[float, float],
              samples: list[Sample]) -> WindowMeasures:
    """A Window begun and ended over stand-ins for /proc and the clock: the tree's CPU reads
    cpu_s[0] at the window's start and cpu_s[1] at its end, over 2.5 s on three CPUs."""
    clock = iter((STARTED + 2.0, STARTED + 4.5))
    cpu = iter(cpu_s)
    ctx = iter(((10, 20), (13, 27)))
    monkeypatch.setattr(window_module, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    monkeypatch.setattr(window_module, "tree_cpu_s", lambda pid: next(cpu))
    monkeypatch.setattr(window_module, "tree_ctx_switches", lambda pid: next(ctx))
    monkeypatch.setattr(window_module, "tree_pids", lambda pid: [])
    window = Window(pid=1, started=STARTED, cpus=CPUS)
    window.begin()
    window.end()
    return window.measures(samples)


MIB = 1 << 20
SAMPLES = [
    Sample(t_s=1.9, rss_bytes=900 * MIB, threads=40, cpu_s=9.0),  # before the window
    Sample(t_s=2.0, rss_bytes=300 * MIB, threads=10, cpu_s=10.25),  # at its start
    Sample(t_s=3.0, rss_bytes=310 * MIB + 12_345, threads=12, cpu_s=11.0),
    Sample(t_s=4.0, rss_bytes=0, threads=0, cpu_s=11.5),  # a failed reading: no RSS
    Sample(t_s=4.5, rss_bytes=305 * MIB, threads=11, cpu_s=11.75),  # at its end
    Sample(t_s=4.6, rss_bytes=800 * MIB, threads=30, cpu_s=12.0),  # after it
]


def test_the_servers_cpu_percent_is_its_windows_cpu_over_the_window_and_its_cpus(monkeypatch):
    """(11.75 − 10.25) s of CPU over 2.5 s on 3 CPUs: 100 × 1.5 ÷ 2.5 ÷ 3 = 20 %; the cell's
    figure is the runs' median (20 % of 20, 10, 60 %)."""
    found = _measured(monkeypatch, (10.25, 11.75), SAMPLES)
    assert (found.window_s, found.cpu_s) == (2.5, 1.5)
    assert found.cpu_percent == pytest.approx(20.0, rel=1e-12)
    assert (found.ctx_voluntary, found.ctx_involuntary) == (3, 7)
    runs = [_run(window=found.to_dict()),
            _run(window={**found.to_dict(), "cpu_percent": 10.0}),
            _run(window={**found.to_dict(), "cpu_percent": 60.0})]
    assert server_stats(runs)["server_cpu_percent"].median == pytest.approx(20.0, rel=1e-12)


def test_the_servers_peak_rss_is_the_highest_sample_inside_the_window_only(monkeypatch):
    """The samples at 1.9 s (900 MiB) and 4.6 s (800 MiB) are outside the window 2.0–4.5 s
    and one inside read no RSS: the peak is 310 MiB + 12 345 bytes, its edges included; the
    cell's figure is the runs' median (not the mean, not the highest)."""
    found = _measured(monkeypatch, (10.25, 11.75), SAMPLES)
    assert found.peak_rss_bytes == 310 * MIB + 12_345
    assert found.mean_rss_bytes == pytest.approx((300 + 310 + 305) * MIB / 3 + 12_345 / 3,
                                                 rel=1e-12)
    assert found.peak_threads == 12
    edges = _measured(monkeypatch, (10.25, 11.75),
                      [s for s in SAMPLES if s.t_s in (1.9, 2.0, 4.5, 4.6)])
    assert edges.peak_rss_bytes == 305 * MIB, "both edges inside, what lies beyond them not"
    runs = [_run(window={**found.to_dict(), "peak_rss_bytes": 100 * MIB}),
            _run(window=found.to_dict()),
            _run(window={**found.to_dict(), "peak_rss_bytes": 2000 * MIB})]
    assert server_stats(runs)["server_peak_rss_bytes"].median == 310 * MIB + 12_345


# -- generator_cpu_percent ---------------------------------------------------------------------

def test_the_generators_cpu_percent_is_its_cpu_over_its_wall_time_and_its_pinned_cpus():
    """1.5 s of CPU over 2.5 s on 3 pinned CPUs: 100 × 1.5 ÷ 2.5 ÷ 3 = 20 %. The continuous
    window's generator CPU is the difference of its two readings, 1.5 − 0.75 s over the 1 s
    window on the same 3 CPUs: 25 %. The cell's figure is the runs' median."""
    load = LoadResult(generator="wrk", requests=1, ok_requests=1, duration_s=2.5,
                      requests_per_s=0.4, latency_ms={}, percentiles=[], errors={},
                      cpu_s=1.5, wall_s=2.5, cpus=CPUS, command=[], corrected=False)
    assert load.cpu_percent() == pytest.approx(20.0, rel=1e-12)
    assert load.to_dict()["cpu_percent"] == pytest.approx(20.0, rel=1e-12)
    window = window_load(_open_loop_log(), _continuous(RATE, 0.75, 1.5), 1.0, 2.0)
    assert (window.cpu_s, window.wall_s, window.cpus) == (0.75, 1.0, CPUS)
    assert window.cpu_percent() == pytest.approx(25.0, rel=1e-12)
    high = dataclasses.replace(load, cpu_s=5.25)  # 70 %
    stats = server_stats([_run(load.to_dict()), _run(window.to_dict()), _run(high.to_dict())])
    assert stats["generator_cpu_percent"].median == pytest.approx(25.0, rel=1e-12)


def test_an_open_loop_windows_rate_is_what_ended_in_it_not_what_was_due_in_it():
    """A server behind its offered load: 300 requests due a second from t = 0, answered one
    every 5 ms (200 a second) in the order due. The window [1, 2) is due requests 300–599,
    all answered before the stop at 4 s, the last at 3 s; in the window itself the server
    answered requests 199–398. Its rate is those 200 a second, not the 300 due ones answered
    by the stop ÷ 1 s (which would credit the window with the tail's work); the latency is
    that of the requests due in it (the slowest, 599, waited 3 s − 599/300 s)."""
    rate, served_every_s = 300, 0.005
    lines = [rl.HEADER]
    for i in range(800):  # request i answered at (i + 1) × 5 ms, the last at the stop
        due_s, end_s = i / rate, (i + 1) * served_every_s
        lines.append(f"{due_s},0,0,{end_s - due_s},{end_s - due_s},200,200")
    log = rl.RequestLog.parse("\n".join(lines) + "\n")
    load = window_load(log, _continuous(rate, 0.75, 1.5), 1.0, 2.0)
    assert load.requests_per_s == pytest.approx(200.0)
    assert (load.notes["due"], load.ok_requests, load.notes["missed"]) == (300, 300, 0)
    assert load.latency_ms["max"] == pytest.approx((600 * served_every_s - 599 / rate) * 1000)


def test_a_separate_oha_runs_errors_are_its_non_200_answers_and_its_error_kinds():
    """oha's JSON with each count a different power of two: 4 + 8 answers that are not 200
    (`status`), 16 connection errors, 32 timeouts and 64 of another kind: errors_total
    4 + 8 + 16 + 32 + 64 = 124; the 128 requests aborted at the deadline are in flight, not
    errors (server.saturation counts them as kept)."""
    from concbench.server.loadgen import oha

    raw = {"summary": {"total": 2.0, "slowest": 0.05, "fastest": 0.001, "average": 0.004,
                       "totalData": 200_000},
           "statusCodeDistribution": {"200": 1000, "503": 4, "404": 8},
           "errorDistribution": {"connection error: connection refused": 16,
                                 "operation timeout": 32, "body too large": 64,
                                 oha.DEADLINE_ABORT: 128},
           "latencyPercentiles": {"p50": 0.004, "p90": 0.006, "p99": 0.02, "p99.9": 0.04}}
    load = oha.parse(raw, ["oha"], _spec(0), cpu_s=0.5, wall_s=2.0)
    assert load.errors == {"connect": 16, "read": 0, "write": 0, "timeout": 32,
                           "status": 4 + 8, "other": 64}
    assert load.errors_total == 4 + 8 + 16 + 32 + 64 == 124
    assert (load.requests, load.ok_requests) == (1012, 1000)
    assert load.requests_per_s == 1000 / 2.0
    assert load.notes["aborted_at_deadline"] == 128
    assert server_stats([_run(load.to_dict())])["errors_total"].median == 124


def test_p999_is_its_own_percentile_in_the_log_and_in_each_generators_summary():
    """latency_p999_ms: a closed-loop span of 2 000 responses taking 1, 2, …, 2 000 ms has
    p99.9 = the 1 998th (nearest rank: ⌈0.999 × 2 000⌉) = 1 998 ms, beside p99 = 1 980 ms;
    wrk's summary gives p99.9 in µs (8 000 → 8 ms, its p99 4 ms), oha's in seconds under
    "p99.9" (0.04 → 40 ms, its p99 20 ms)."""
    from concbench.server.loadgen import oha

    lines = [rl.HEADER] + [f"{i / 1000},0,0,{(i + 1) / 1000},{(i + 1) / 1000},200,200"
                           for i in range(2000)]
    found = rl.span(rl.RequestLog.parse("\n".join(lines) + "\n"), 0.0, 100.0)
    latency = rl.latency_ms(found)
    assert (latency["p999"], latency["p99"]) == (pytest.approx(1998.0), pytest.approx(1980.0))
    load = _wrk_load({"connect": 0, "read": 0, "write": 0, "status": 0, "timeout": 0})
    assert (load.latency_ms["p999"], load.latency_ms["p99"]) == (8.0, 4.0)
    summary = {"summary": {"total": 2.0, "slowest": 0.05, "fastest": 0.001, "average": 0.004,
                           "totalData": 1},
               "statusCodeDistribution": {"200": 10},
               "latencyPercentiles": {"p50": 0.004, "p90": 0.006, "p99": 0.02, "p99.9": 0.04}}
    load = oha.parse(summary, ["oha"], _spec(0), cpu_s=0.1, wall_s=2.0)
    assert (load.latency_ms["p999"], load.latency_ms["p99"]) == (40.0, 20.0)
    assert server_stats([_run(load.to_dict())])["latency_p999_ms"].median == 40.0
