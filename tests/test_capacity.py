"""Capacity at a p99 target (server.capacity): the bisection's verdicts on a model server with
a known knee, and end to end the stall fake (at most STALL_CAPACITY requests/s) through real
oha: the capacity found never passes what the server can physically serve, the measured window
runs at it, and the tables and the summary rank by it."""

from __future__ import annotations

import dataclasses

import pytest

from concbench.server.capacity import (CONFIRMATIONS, RETRIES, CapacitySearch, _warning,
                                       bisect, judge, search_capacity)
from concbench.server.saturation import open_loop_record
from concbench.server.loadgen import LoadResult
from test_rate_curve import STALL_CAPACITY, _ok_run, bench  # noqa: F401 (a fixture)

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time

KNEE = 7000
"""The model server holds p99 ≤ 5 ms up to this rate, then misses by far."""


def _load(offered: int, p99_ms: float | None, achieved_share: float = 1.0,
          errors: int = 0, seconds: float = 2.0, in_flight: int = 0) -> LoadResult:
    served = round(offered * seconds * achieved_share)
    return LoadResult(generator="oha", requests=served, ok_requests=served, duration_s=seconds,
                      requests_per_s=served / seconds,
                      latency_ms={"p50": 0.2, "p99": p99_ms}, percentiles=[],
                      errors={"connect": errors, "status": 0}, cpu_s=0.1, wall_s=seconds,
                      cpus=(0,), command=[], corrected=True,
                      notes={"aborted_at_deadline": in_flight})


def _model(seconds: float, rate: int):
    """A server whose p99 is 2 ms up to KNEE requests/s and 40 ms past it."""
    return _load(rate, 2.0 if rate <= KNEE else 40.0, seconds=seconds), None


def _search(steps: int = 6, peak: float = 10_000.0) -> CapacitySearch:
    return CapacitySearch(5.0, peak, 2.0, steps)


def test_the_bisection_finds_the_knee_within_its_resolution():
    settled = []
    found, failure = bisect(_search(), _model, lambda: settled.append(1))
    assert failure is None
    searched = [w for w in found.windows if w.role == "search"]
    assert len(searched) == 6
    assert all(w.held == (w.offered_per_s <= KNEE) for w in found.windows)
    # [0, 10 000] halved 6 times: within 10 000 / 64 below the knee, never above it
    assert KNEE - 10_000 / 64 <= found.capacity_per_s <= KNEE
    confirms = [w for w in found.windows if w.role == "confirm"]
    assert len(confirms) == CONFIRMATIONS == 2
    assert all(w.held and w.offered_per_s == found.capacity_per_s for w in confirms)
    retried = [w for w in found.windows if w.role == "retry"]
    assert len(retried) == RETRIES and all(not w.held for w in retried)
    assert found.window_rate == found.capacity_per_s
    assert len(settled) == sum(not w.held for w in found.windows)  # drained after each miss
    assert not found.at_top


def test_one_unlucky_window_does_not_send_the_search_low_for_good():
    """p99 is not monotonic in the rate here: a miss at half the peak, once, would bound the
    search below 5 000 for good; tried again, the rate holds."""
    unlucky = {5000}

    def model(seconds: float, rate: int):
        if rate in unlucky:
            unlucky.discard(rate)
            return _load(rate, 222.0, seconds=seconds), None
        return _model(seconds, rate)

    found, _ = bisect(_search(), model, lambda: None)
    first, again = [w for w in found.windows if w.offered_per_s == 5000][:2]
    assert not first.held and again.role == "retry" and again.held
    assert KNEE - 10_000 / 64 <= found.capacity_per_s <= KNEE
    # it steered the search up, but a rate that missed one window of two is no candidate
    assert 5000 not in found.held_in_search and found.held_in_search[0] == found.capacity_per_s


def test_a_capacity_that_misses_its_confirming_window_falls_to_the_next_rate_that_held():
    seen: dict[int, int] = {}

    def model(seconds: float, rate: int):
        seen[rate] = seen.get(rate, 0) + 1
        if rate == 6875 and seen[rate] == 3:  # held in the search and once confirmed, then not
            return _load(rate, 40.0, seconds=seconds), None
        return _model(seconds, rate)

    found, _ = bisect(_search(), model, lambda: None)
    assert found.held_in_search[:2] == [6875, 6250]
    confirms = [(w.offered_per_s, w.held) for w in found.windows if w.role == "confirm"]
    assert confirms == [(6875, True), (6875, False), (6250, True), (6250, True)]
    assert found.capacity_per_s == 6250  # one confirmation of two is not enough
    tried: set[int] = set()

    def first_time_only(seconds: float, rate: int):
        held = rate not in tried
        tried.add(rate)
        return _load(rate, 2.0 if held else 40.0, seconds=seconds), None

    never = bisect(_search(steps=3), first_time_only, lambda: None)[0]
    assert never.held_in_search == [8750, 7500, 5000] and never.capacity_per_s == 0
    # every rate that held gets its confirming window, highest first, down to the last
    assert [w.offered_per_s for w in never.windows if w.role == "confirm"] == [8750, 7500,
                                                                                5000]
    assert never.confirmations() == {8750: 0, 7500: 0, 5000: 0}
    assert "no capacity confirmed" in (_warning(never, 5.0) or "")


def test_a_window_whose_generator_used_its_cpu_decides_nothing_and_ends_the_search():
    def model(seconds: float, rate: int):
        found = _load(rate, 2.0, seconds=seconds)
        if rate >= 7500:  # oha's one CPU busy: its own queueing would count as latency
            found = dataclasses.replace(found, cpu_s=0.95 * seconds)
        return found, None

    found, _ = bisect(_search(), model, lambda: None)
    busy = [w for w in found.windows if w.inconclusive]
    assert len(busy) == 1 and busy[0].offered_per_s == 7500 and not busy[0].held
    assert "inconclusive: the generator used 95% of its CPU" in busy[0].why
    assert [w.role for w in found.windows] == ["search", "search", "confirm", "confirm"]
    assert found.capacity_per_s == 5000 and found.generator_bound
    assert "the generator used its whole CPU at 7,500 requests/s" in _warning(found, 5.0)


def test_a_window_cut_from_a_log_counts_every_request_due():
    """server.rate_point: 2 000 due, 1 990 answered, 10 never: 99.5 % kept; missed requests
    are not errors (their latency is in the p99 at its floor)."""
    counted = dataclasses.replace(_load(1000, 2.0, achieved_share=0.995),
                                  errors={"status": 0, "other": 10},
                                  notes={"continuous": True, "due": 2000, "missed": 10})
    window = judge(counted, 1000, 2.0, 5.0)
    assert window.held and window.errors == 0
    record = open_loop_record(counted, 1000, 2.0)
    assert record["due"] == 2000 and record["missed"] == 10
    assert record["kept_ratio"] == pytest.approx(0.995)
    short = dataclasses.replace(counted, ok_requests=1970, requests=1970,
                                notes={"continuous": True, "due": 2000, "missed": 30})
    assert "answered 98.5% of the requests due (30 never answered)" in judge(
        short, 1000, 2.0, 5.0).why


def test_a_windows_server_cpu_per_request_divides_by_every_response_with_and_without_jit():
    """0.5 s of server CPU, 0.1 s of it the JIT's, over 2 000 responses (1 990 ok, 10 not):
    250 µs and 200 µs per response."""
    noted = dataclasses.replace(_load(1000, 2.0), requests=2000, ok_requests=1990,
                                notes={"server_cpu_s": 0.5, "server_jit_cpu_s": 0.1})
    window = judge(noted, 1000, 2.0, 5.0)
    assert window.server_us_per_request == 250.0 and window.server_us_without_jit == 200.0
    no_jit = dataclasses.replace(noted, notes={"server_cpu_s": 0.5, "server_jit_cpu_s": None})
    assert judge(no_jit, 1000, 2.0, 5.0).server_us_without_jit is None
    assert judge(_load(1000, 2.0), 1000, 2.0, 5.0).server_us_per_request is None


def test_a_window_misses_on_p99_errors_backlog_or_silence():
    assert judge(_load(1000, 4.9), 1000, 2.0, 5.0).held
    over = judge(_load(1000, 5.1), 1000, 2.0, 5.0)
    assert not over.held and "p99 5.1 ms above the target" in over.why
    assert not judge(_load(1000, 1.0, errors=1), 1000, 2.0, 5.0).held
    behind = judge(_load(1000, 1.0, achieved_share=0.95), 1000, 2.0, 5.0)
    assert not behind.held and "95.0% of the requests due" in behind.why
    assert not judge(_load(1000, None), 1000, 2.0, 5.0).held


def test_requests_in_flight_at_the_deadline_are_not_falling_behind():
    """A 2 s window at 1000/s and 45 ms cuts off about 45 requests oha sent on time: served
    at the deadline, they count as kept up; without them the server fell 2.2 % behind."""
    cut = _load(1000, 45.0, achieved_share=0.978, in_flight=44)
    assert judge(cut, 1000, 2.0, 60.0).held
    lost = _load(1000, 45.0, achieved_share=0.978)
    assert "97.8% of the requests due" in judge(lost, 1000, 2.0, 60.0).why


def test_every_window_held_and_none_held_are_said():
    always = bisect(_search(steps=3), lambda s, r: (_load(r, 1.0, seconds=s), None),
                    lambda: None)[0]
    assert always.at_top and always.capacity_per_s == 8750  # 5000, 7500, 8750
    never = bisect(_search(steps=3), lambda s, r: (_load(r, 99.0, seconds=s), None),
                   lambda: None)[0]
    assert never.capacity_per_s == 0 and not never.at_top
    assert never.window_rate == 1250  # the lowest rate tried: the window still measures


def test_a_target_below_the_latency_floor_searches_nothing():
    params = {"slo-p99-ms": 100, "capacity-window-s": 1, "capacity-steps": 6}
    calls = []

    def load(seconds: float, rate: int):
        calls.append(rate)
        return _load(5000, 1.0, seconds=seconds), None

    found, failure, warning = search_capacity(params, 900.0, load, lambda: None)
    assert failure is None and calls == [0]  # the closed-loop probe only
    assert found is not None and found.windows == () and found.capacity_per_s == 0
    assert "latency floor of 900 ms" in warning


def test_a_failed_window_ends_the_search_with_what_it_had():
    rates = iter([(None, ("crash", "gone"))])
    found, failure = bisect(_search(), lambda s, r: next(rates), lambda: None)
    assert failure == ("crash", "gone") and found.windows == ()


@pytest.mark.parametrize("bad", [["--param", "slo-p99-ms=5", "--param", "loadgen=wrk"],
                                 ["--param", "slo-p99-ms=5", "--param", "loadgen=oha",
                                  "--param", "rate=100"]])
def test_a_search_without_oha_or_with_a_rate_is_refused(cli, bad):
    res = cli("run", "http-hello", "--contender", "fake-server", *bad)
    assert res.code == 2 and "slo-p99-ms" in res.stderr, res


def test_the_stall_fakes_capacity_is_found_below_what_it_can_serve(bench):
    res = bench("run", "http-hello", "--contender", "fake-server-stall", "--param",
                "loadgen=oha", "--param", "connections=8", "--param", "warmup-s=0",
                "--param", "slo-p99-ms=50", "--param", "capacity-steps=4",
                "--param", "capacity-window-s=1", "--param", "duration-s=2", "--runs", "1")
    assert res.code == 0, res.stderr
    cell = bench.last()["cells"][0]
    run = _ok_run(cell)
    capacity = run["server"]["capacity"]
    searched = [w for w in capacity["windows"] if w["role"] == "search"]
    assert capacity["target_p99_ms"] == 50 and len(searched) == 4
    confirms = [(w["offered_per_s"], w["held"]) for w in capacity["windows"]
                if w["role"] == "confirm"]
    confirmed = [rate for rate, _ in confirms if confirms.count((rate, True)) == 2
                 and (rate, False) not in confirms]  # two in a row, none missed
    assert confirmed and capacity["capacity_per_s"] == max(confirmed), confirms
    assert all(w["generator_cpu_share"] is not None for w in capacity["windows"])
    # each window's server CPU read at its edges: the stall fake sleeps its 10 ms, so a
    # request costs the handler's CPU, well under the sleep
    assert all(0 < w["server_us_per_request"] < 10_000 for w in capacity["windows"]), capacity
    # one request at a time, 10 ms each: no window can hold more than the server serves
    assert capacity["capacity_per_s"] <= STALL_CAPACITY * 1.05, capacity
    assert all(w["p99_ms"] <= 50 and w["errors"] == 0 for w in capacity["windows"]
               if w["held"])
    assert run["load"]["open_loop"]["offered_per_s"] == capacity["capacity_per_s"]
    assert capacity["measured_window"]["offered_per_s"] == capacity["capacity_per_s"]
    assert cell["stats"]["capacity_per_s"]["median"] == capacity["capacity_per_s"]
    assert "capacity/s" in res.stdout
    summary = res.stdout.split("\nSummary\n", 1)[1]
    assert "capacity at the p99 target" in summary and "requests/s" not in summary, summary
