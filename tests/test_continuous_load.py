"""One continuous load per server run (server.continuous): the warm-up and the measured window
on the same open connections, cut exactly out of the generator's log of every response; the
window judged on its own intervals (server.steadiness); a server that holds fewer connections
than asked is invalid (server.connections_held)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from concbench.report import flags
from concbench.server import request_log as rl
from concbench.server.connections_held import PACE_S, Held, HeldTrend
from concbench.server.continuous import due_in
from concbench.server.steadiness import JIT_BUDGET, judge, trend

HEADER = rl.HEADER


def _log(rows: list[tuple[float, float, float, float, int]]) -> rl.RequestLog:
    """(request-start, dialup, first byte after start, duration, status) rows, 200-byte bodies."""
    lines = [HEADER] + [f"{s},0,{d},{fb},{dur},200,{st}" for s, d, fb, dur, st in rows]
    return rl.RequestLog.parse("\n".join(lines) + "\n")


# -- the log and its spans (fast) --------------------------------------------------------------

def test_a_span_holds_the_responses_that_ended_in_it_and_their_exact_percentiles():
    rows = [(i * 0.01, 0.0, 0.002, 0.002 + 0.001 * (i % 10), 200) for i in range(300)]
    rows[5] = (0.05, 0.0004, 0.003, 0.003, 500)  # a non-200 on a new connection
    log = _log(rows)
    found = rl.span(log, 1.0, 2.0)
    ends = [s + fb for s, _, fb, _, _ in rows]
    assert found.responses == sum(1.0 <= e < 2.0 for e in ends) == 100
    assert found.ok == 100 and found.ok_per_s == pytest.approx(100.0)
    assert found.body_bytes == 200 * 100
    assert found.percentile(50) == pytest.approx(6.0) and found.percentile(99) == pytest.approx(11.0)
    head = rl.span(log, 0.0, 1.0)
    assert head.responses == 100 and head.ok == 99, "the 500 is a response, not an ok one"
    assert rl.new_connections(log, 0.0, 1.0) == 1 and rl.new_connections(log, 1.0, 3.0) == 0
    assert log.first_write_s == pytest.approx(0.0)


def test_an_open_loop_window_counts_every_request_due_and_the_missing_ones_at_their_floor():
    rate = 100
    # due every 10 ms (2 ms past each hundredth, clear of the window's edges); each answered
    # 5 ms after it was due, except the last 3 of the window [1, 2), which never were
    rows = [(i / rate + 0.002, 0.0, 0.005, 0.005, 200) for i in range(300)
            if not 197 <= i < 200]
    log = _log(rows)
    due = due_in(rate, 0.0, 1.0, 2.0)
    assert due == 100
    found = rl.span(log, 1.0, 2.0, due, stopped_s=4.0)
    assert found.responses == 97 and found.missed == 3
    assert found.percentile(97) == pytest.approx(5.0)
    assert found.percentile(99) == pytest.approx(2000.0), \
        "the slowest 1 % never came back: each at least the 2 s from the window's end to the stop"
    assert rl.latency_ms(found)["mean"] == pytest.approx(5.0), "the mean of those that came"
    assert math.isinf(rl.span(log, 1.0, 2.0, due).percentile(99)), "no stop known: unbounded"


def test_the_log_moves_onto_the_harness_clock_and_bad_logs_are_refused():
    log = _log([(0.5, 0.001, 0.002, 0.003, 200)]).shifted(100.0)
    assert log.end_s[0] == pytest.approx(100.502) and log.first_write_s == pytest.approx(100.501)
    assert len(rl.RequestLog.parse(HEADER + "\n")) == 0
    with pytest.raises(rl.LogError):
        rl.RequestLog.parse("not,a,log\n1,2,3\n")
    with pytest.raises(rl.LogError):
        rl.RequestLog.parse(HEADER + "\n1,2,x,4,5,6,7\n")


def test_a_log_file_reads_as_its_text_parses(tmp_path):
    rows = "\n".join(f"{i * 0.01},0,{0.001 if i == 0 else 0},0.002,0.003,200,200"
                     for i in range(50))
    path = tmp_path / "log.csv"
    path.write_text(HEADER + "\n" + rows + "\n")
    read, parsed = rl.RequestLog.read(path), rl.RequestLog.parse(path.read_text())
    assert len(read) == len(parsed) == 50
    assert np.array_equal(read.end_s, parsed.end_s) and read.first_write_s == parsed.first_write_s
    path.write_text(HEADER + "\n")
    assert len(rl.RequestLog.read(path)) == 0
    path.write_text("request-start,bytes\n1,2\n")
    with pytest.raises(rl.LogError):
        rl.RequestLog.read(path)


def test_a_log_read_while_it_is_written_is_the_log_read_at_the_end(tmp_path):
    """LogTail parses whatever whole rows have been written at each feed, a row cut in
    two by the writer included, and ends with exactly the log a read at the end gives."""
    rows = [f"{(97 - i) * 0.01},0,{0.001 if i == 3 else 0},0.002,{0.003 + i * 1e-4},200,200"
            for i in range(97)]  # written in start order, reversed in end order
    text = (HEADER + "\n" + "\n".join(rows) + "\n").encode()
    path = tmp_path / "log.csv"
    tail = rl.LogTail(path)
    tail.feed()  # nothing written yet
    with path.open("wb") as f:
        for cut in (10, len(HEADER) + 5, 900, 901, 2500, len(text)):  # mid-header, mid-row
            f.write(text[f.tell():cut])
            f.flush()
            tail.feed()
    read, tailed = rl.RequestLog.read(path), tail.finish()
    assert len(tailed) == 97
    for column in ("end_s", "duration_s", "body_bytes", "status", "dialup_s"):
        assert np.array_equal(getattr(read, column), getattr(tailed, column)), column
    assert tailed.first_write_s == read.first_write_s
    path.write_text(HEADER + "\n")
    assert len(rl.LogTail(path).finish()) == 0
    path.write_text("request-start,bytes\n1,2\n")
    with pytest.raises(rl.LogError):
        rl.LogTail(path).finish()


def test_requests_due_follow_oha_s_schedule():
    assert due_in(1000, 10.0, 10.0, 11.0) == 1000
    assert due_in(3, 0.0, 0.2, 1.2) == 3  # due at 1/3, 2/3, 1
    assert due_in(3, 0.0, 0.0, 0.0) == 0


# -- the window's verdict (fast) ---------------------------------------------------------------

def test_a_falling_rate_drifts_and_a_noisy_flat_one_does_not():
    falling = [20_000 - 400 * i for i in range(10)]
    verdict = judge(falling, [5.0] * 10, 5.0, None)
    assert not verdict.steady and verdict.rate is not None and verdict.rate.change_pct < -5
    assert "requests/s fell" in verdict.reasons[0]
    rng = np.random.default_rng(7)
    noisy = list(20_000 * (1 + 0.08 * rng.standard_normal(10)))
    assert judge(noisy, [5.0] * 10, 5.0, None).steady
    slight = [20_000 - 30 * i for i in range(10)]  # significant, but 1.4 % across the window
    assert judge(slight, [5.0] * 10, 5.0, None).steady


def test_a_rising_p99_drifts_with_its_own_tolerance():
    rates = [10_000.0] * 10
    assert not judge(rates, [2.0 + 0.3 * i for i in range(10)], 5.0, None).steady
    assert judge(rates, [2.0 + 0.01 * i for i in range(10)], 5.0, None).steady
    assert judge(rates, [2.0, math.inf] + [2.0] * 8, 5.0, None).p99 is None, \
        "an unbounded interval has no trend to fit"


def test_the_jit_counts_against_the_window_only_above_its_budget():
    flat = [10_000.0] * 10
    assert judge(flat, [2.0] * 10, 5.0, JIT_BUDGET / 2).steady
    over = judge(flat, [2.0] * 10, 5.0, JIT_BUDGET * 3)
    assert not over.steady and "compiler threads used 3.0%" in over.reasons[0]


def test_the_trend_test_matches_a_least_squares_fit():
    values = [10.0, 12.0, 11.0, 15.0, 14.0, 18.0]
    found = trend("x", values, 5.0)
    assert found is not None
    slope, intercept = np.polyfit(range(6), values, 1)
    assert found.change_pct == pytest.approx(100 * slope * 5 / np.mean(values), abs=0.01)
    from scipy import stats as scipy_stats  # the reference, only here
    assert found.p_value == pytest.approx(scipy_stats.linregress(range(6), values).pvalue)
    assert trend("x", [1.0, 2.0], 5.0) is None


def test_a_window_not_steady_is_flagged_and_not_ranked():
    text = ("not steady in the measured window: requests/s fell 30 % across the window "
            "(p = 0.001; tolerance 5 %): the figures catch the server changing")
    (flag,) = flags.cell_flags([text], "requests/s")
    assert flag.label == "not steady" and flag.unranked
    assert flags.cell_flags([text], "of nginx")[0].unranked


def test_connections_held_count_what_the_server_accepted():
    assert Held(16, 16, 0).problem() is None
    short = Held(10_000, 10_000, 1_808)
    assert short.held == 8_192
    assert "held 8192 of the 10000" in (short.problem() or "")
    assert "1808 waiting unaccepted" in (short.problem() or "")
    assert "on the server's side" in (short.problem() or "")
    assert Held(16, 15, None).problem() is not None


# -- through the harness, fake servers (middle, measuring) -------------------------------------

FIXED_WARMUP = "warmup-steady-pct=0"


def _run(fake_bench, contender: str, *params: str) -> dict:
    """One run of the fake; a fixed warm-up unless the params set the rule."""
    steady = [] if any(p.startswith("warmup-steady-pct=") for p in params) else [FIXED_WARMUP]
    done = fake_bench("run", "http-hello", "--contender", contender, "--runs", "1",
                      *[a for p in [*steady, *params] for a in ("--param", p)])
    assert done.code == 0, done.stderr[-2000:]
    (cell,) = fake_bench.last()["cells"]
    return cell


@pytest.mark.measures
def test_a_small_accept_queue_costs_p99_only_when_connections_reopen_each_window(
        fake_bench, wrk):
    """backlog: a listen queue of one and a slow accept. A generator started afresh for the
    window opens its connections inside it: some wait out the kernel's 1 s retransmission.
    One continuous load opened them in its warm-up."""
    common = ("connections=16", "warmup-s=2", "duration-s=2")
    restarted = _run(fake_bench, "fake-server-backlog", *common, "loadgen=wrk")
    (run,) = restarted["runs"]
    assert run["status"] == "ok", run["reason"]
    slow = run["load"]["latency_ms"]
    # the 1 s retransmission: the slowest request waits it out, and enough others that p99.9
    # sits far above what the same server answers on open connections
    assert slow["max"] >= 900 and slow["p999"] >= 500, slow
    continuous = _run(fake_bench, "fake-server-backlog", *common, "loadgen=oha")
    (run,) = continuous["runs"]
    assert run["status"] == "ok", run["reason"]
    assert run["server"]["continuous"]["generator"] == "oha"
    assert run["load"]["connections_opened_in_window"] == 0
    fast = run["load"]["latency_ms"]
    assert fast["max"] < 500 and fast["p999"] < 500, (fast, slow)
    assert run["server"]["kernel"]["ListenOverflows"] == 0, run["server"]["kernel"]


@pytest.mark.measures
def test_a_server_whose_rate_falls_through_the_window_is_not_steady(fake_bench, wrk):
    """...by the window's own 5 % tolerance, however loose the rule that ended the warm-up."""
    cell = _run(fake_bench, "fake-server-slowing", "connections=8", "warmup-s=1",
                "warmup-steady-pct=60", "duration-s=4")
    (run,) = cell["runs"]
    assert run["status"] == "ok", run["reason"]
    verdict = run["server"]["steadiness"]
    assert not verdict["steady"] and verdict["rate"]["change_pct"] < -20, verdict
    assert verdict["rate"]["tolerance_pct"] == 5, verdict
    assert any(w.startswith("not steady in the measured window: requests/s fell")
               for w in cell["warnings"]), cell["warnings"]


@pytest.mark.measures
def test_a_server_that_leaves_connections_unaccepted_is_invalid_once_they_are_out_of_reach(
        fake_bench, wrk):
    """capped accepts a few connections and no more: the lead-in may wait up to warmup-s for
    the rest, but ends once its pace (none) could not hold them by then, and the run with it."""
    cell = _run(fake_bench, "fake-server-capped", "connections=8", "warmup-s=30",
                "duration-s=1")
    assert cell["status"] == "invalid", cell
    held = re.search(r"the server held (\d+) of the 8 connections asked for", cell["reason"])
    assert held and int(held.group(1)) <= 4, cell["reason"]
    assert "waiting unaccepted in its listen queue" in cell["reason"], cell["reason"]
    assert "gaining 0 a second" in cell["reason"], cell["reason"]
    assert "would not be held by the lead-in's end at 30 s" in cell["reason"], cell["reason"]
    (run,) = cell["runs"]
    continuous = run["server"]["continuous"]
    assert PACE_S <= continuous["lead_in_s"] < PACE_S + 5, continuous
    assert run["server"]["connections_held"]["held"] == int(held.group(1))
    assert run["load"] is None  # no warm-up, no window


def _trend(cap_s: float, counts: list[int]) -> HeldTrend:
    trend = HeldTrend(cap_s)
    for second, held in enumerate(counts):
        trend.add(float(second), held)
    return trend


def test_a_held_count_is_out_of_reach_only_when_three_times_its_pace_misses_the_cap():
    # 11 readings a second apart: the pace is taken over the last 10 s
    slow = _trend(60.0, [1000 + 50 * s for s in range(11)])  # 50/s: 1 500 + 3·50·50 < 10 000
    assert slow.pace_per_s() == pytest.approx(50.0)
    assert slow.out_of_reach(10_000)
    assert "1500 held after 10 s of load, gaining 50 a second" in slow.pace_text(10_000)
    assert "other 8500 would not be held by the lead-in's end at 60 s" in slow.pace_text(10_000)
    # 60/s: 1 600 + 3·60·50 = 10 600, within reach
    assert not _trend(60.0, [1000 + 60 * s for s in range(11)]).out_of_reach(10_000)
    # the same pace with less time left is out of reach
    assert _trend(30.0, [1000 + 60 * s for s in range(11)]).out_of_reach(10_000)
    assert not _trend(60.0, [10_000] * 11).out_of_reach(10_000)  # every one held
    assert not _trend(60.0, [4] * 10).out_of_reach(8)  # under 10 s of readings: no pace yet
    assert _trend(60.0, [4] * 11).out_of_reach(8)  # flat


def test_a_window_not_steady_gets_no_fraction_of_nginx_in_a_plan_without_rounds():
    """quick runs cells one after another: its "vs nginx" is a ratio of medians, which a
    still-compiling JVM must not get (a first-time reader would see "1 % of nginx")."""
    import dataclasses

    from sample_doc import _server_run

    from concbench import workloads
    from concbench.report.table import tables
    from concbench.stats.cell import aggregate
    from concbench.workloads.budget import UNBOUNDED

    hello = workloads.get("http-hello")
    meta = {"throughput_unit": "requests", "placement": {"server": [0], "client": [1]}}
    unsteady = ("not steady in the measured window: the JIT's compiler threads used 40.0% of "
                "the server's CPU (budget 1%): the figures catch the server changing")

    def cell(name: str, rps: float, warning: str | None = None):
        run = _server_run(rps, 3, 8, 30, 80, 90, 12, 6)
        if warning:
            run = dataclasses.replace(run, warnings=(warning,))
        return aggregate(hello, name, hello.resolve({"connections": 64}), UNBOUNDED, [run],
                         dict(meta))

    cells = [cell("nginx", 100_000), cell("go", 60_000), cell("spring-mvc", 1_000, unsteady)]
    (table,) = tables(cells)
    column = table.headers.index("vs nginx")
    shown = {row[0]: row[column] for row in table.rows}
    assert shown["go"] == "60%" and shown["spring-mvc"] == "—", shown


def test_a_window_begun_mid_load_allows_the_calls_made_before_it():
    """The requests in flight when a continuous window begins (one per connection) may have
    called the backend before it and answered inside it; a fresh generator's window has none."""
    from concbench.server.backend import BackendCount
    from concbench.server.load_checks import downstream_check
    from concbench.server.loadgen import LoadResult

    load = LoadResult(generator="oha", requests=100, ok_requests=100, duration_s=1.0,
                      requests_per_s=100.0, latency_ms={}, percentiles=[], errors={},
                      cpu_s=0.1, wall_s=1.0, cpus=(1,), command=[], corrected=False)
    short = BackendCount(3 * 100 - 3 * 8, (100 - 8) * 100)
    assert downstream_check(load, short, 100, 8, mid_load=True)[1] is None
    assert downstream_check(load, short, 100, 8)[1] is not None
    too_few = BackendCount(3 * 100 - 3 * 9, (100 - 9) * 100)
    assert downstream_check(load, too_few, 100, 8, mid_load=True)[1] is not None
