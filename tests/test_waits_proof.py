"""Proof of http-aggregate's in-process waits (server.waits_proof): the server's own counts of
its waits by kind, read around the verification requests and the measured window. One wait
of base + max(detail, extra) in place of three passes the latency floor; it does not pass
the counts."""

from __future__ import annotations

import re

import pytest

from concbench.server import waits_proof as wp

PARAMS = {"base-ms": 10, "detail-ms": 10, "extra-ms": 20}
AGGREGATE = ["--param", "connections=8", "--param", "duration-s=1", "--param", "warmup-s=0",
             "--runs", "1", "--param", "base-ms=10", "--param", "detail-ms=10",
             "--param", "extra-ms=20", "--param", "downstream=inproc"]


def _count(counts, mins=(10_100, 10_050, 20_200)) -> wp.WaitsCount:
    return wp.WaitsCount(counts, mins)


# -- the arithmetic (fast) ---------------------------------------------------------------------

def test_the_answer_parses_and_a_malformed_one_is_refused():
    body = (b'{"base": {"count": 3, "min_us": 10100}, "detail": {"count": 3, "min_us": 10050},'
            b' "extra": {"count": 0, "min_us": null}}')
    found = wp.parse(body)
    assert found.counts == (3, 3, 0) and found.min_us == (10100, 10050, None)
    for bad in (b"[]", b'{"base": {"count": 1}}', b"not json",
                b'{"base": {"count": -1, "min_us": 1}, "detail": {"count": 0, "min_us": null},'
                b' "extra": {"count": 0, "min_us": null}}',
                b'{"base": {"count": 1.5, "min_us": 1}, "detail": {"count": 0, "min_us": null},'
                b' "extra": {"count": 0, "min_us": null}}'):
        with pytest.raises(wp.WaitsError):
            wp.parse(bad)


def test_verification_owes_exactly_one_wait_of_each_kind_per_request_none_short():
    before = _count((5, 5, 5))
    assert wp.verification_problem(before, _count((8, 8, 8)), 3, PARAMS) is None
    merged = wp.verification_problem(before, _count((8, 5, 5)), 3, PARAMS)
    assert merged == "0 detail waits for 3 requests (one each); 0 extra waits for 3 requests (one each)"
    extra_one = wp.verification_problem(before, _count((8, 8, 9)), 3, PARAMS)
    assert extra_one == "4 extra waits for 3 requests (one each)"
    # a timer may read up to 1 ms short of the asked wait (TOLERANCE_US), no more
    assert wp.verification_problem(before, _count((8, 8, 8), (9_000, 10_000, 19_000)), 3,
                                   PARAMS) is None
    short = wp.verification_problem(before, _count((8, 8, 8), (10_000, 8_999, 20_000)), 3, PARAMS)
    assert short == "the shortest detail wait took 9.0 ms of the 10 ms asked"


def test_a_window_owes_a_wait_of_each_kind_per_response_within_the_in_flight_bounds():
    after = _count((1000, 1000, 1000))
    record, problem = wp.window_check((400, 420, 400), after, PARAMS, least=400, most=420)
    assert problem is None
    assert record["waits"] == {"base": 400, "detail": 420, "extra": 400}
    assert record["waits_range"] == [400, 420]
    _, problem = wp.window_check((400, 399, 421), after, PARAMS, least=400, most=420)
    assert problem == ("399 detail waits in the measured window (expected 400-420: one per "
                       "response; a wait skipped, or merged into another, falls short); "
                       "421 extra waits in the measured window (expected 400-420: one per "
                       "response; a wait skipped, or merged into another, falls short)")


# -- through the harness, fake servers (middle, measuring) -------------------------------------

CAPACITY = ("--param", "loadgen=oha", "--param", "slo-p99-ms=150", "--param", "capacity-steps=1",
            "--param", "capacity-window-s=1")
"""An open-loop window at a capacity search's rate: one oha process of its own (lead-in,
window, tail), its waits counted around that process against its log, never at the window's
edges inside the running load, where requests due in the window still answer after it."""
LOADS = {"oha": ("--param", "loadgen=oha"), "wrk": ("--param", "loadgen=wrk"),
         "capacity": CAPACITY}


def _cell(fake_bench, contender: str, *more: str) -> dict:
    res = fake_bench("run", "http-aggregate", "--contender", contender, *AGGREGATE, *more)
    assert res.code == 0, res.stderr[-2000:]
    (cell,) = fake_bench.last()["cells"]
    return cell


@pytest.mark.measures
@pytest.mark.parametrize("loadgen", ["oha", "wrk", "capacity"])
def test_a_server_that_counts_its_waits_is_proven_in_verification_and_under_load(
        fake_bench, wrk, loadgen):
    cell = _cell(fake_bench, "fake-server", *LOADS[loadgen])
    assert cell["status"] == "ok", cell["reason"]
    (run,) = cell["runs"]
    waits = run["server"]["waits"]
    assert waits["proven"] is True, waits
    assert all(waits["verification"][k]["min_us"] >= ms * 1000 - wp.TOLERANCE_US
               for k, ms in (("base", 10), ("detail", 10), ("extra", 20)))
    seen = run["server"]["under_load"]["waits"]
    assert seen.get("scope") == (None if loadgen == "wrk" else "load"), seen
    least, most = seen["waits_range"]
    assert least > 0 and all(least <= n <= most for n in seen["waits"].values()), seen


@pytest.mark.measures
@pytest.mark.parametrize("loadgen, over", [("oha", "over the load"),
                                           ("wrk", "in the measured window"),
                                           ("capacity", "over the load")])
def test_one_wait_in_place_of_three_passes_the_floor_and_fails_the_counts(fake_bench, wrk,
                                                                          loadgen, over):
    """onesleep answers each connection's first request honestly (verification's), then waits
    base + max(detail, extra) once, counted as one base wait: no response beats the floor.
    One continuous load (oha) is counted from before it to after it, against its log; a
    generator per window (wrk) around the window it starts and ends."""
    cell = _cell(fake_bench, "fake-server-onesleep", *LOADS[loadgen])
    assert cell["status"] == "invalid", cell
    assert f"detail waits {over}" in cell["reason"], cell["reason"]
    assert f"extra waits {over}" in cell["reason"], cell["reason"]
    assert "latency floor" not in cell["reason"], cell["reason"]


@pytest.mark.measures
def test_one_wait_in_place_of_three_fails_verification_before_any_load(fake_bench, wrk):
    cell = _cell(fake_bench, "fake-server-onesleepall")
    assert cell["status"] == "invalid", cell
    assert re.fullmatch(r"in-process waits: 0 detail waits for (\d+) requests \(one each\); "
                        r"0 extra waits for \1 requests \(one each\)", cell["reason"]), cell
    (run,) = cell["runs"]
    assert int(re.search(r"for (\d+)", cell["reason"]).group(1)) == len(run["server"]["verification"])
    assert run["server"]["waits"]["proven"] is False and run["load"] is None


@pytest.mark.measures
def test_a_server_without_the_proof_is_invalid(fake_bench, wrk):
    cell = _cell(fake_bench, "fake-server-nowaits")  # no /waits: 404
    assert cell["status"] == "invalid", cell
    assert cell["reason"].startswith("GET /waits answered 404: the server does not prove"), cell
    waits = cell["runs"][0]["server"]["waits"]
    assert waits["proven"] is False and "404" in waits["why"], waits
    assert cell["runs"][0]["load"] is None
