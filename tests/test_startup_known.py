"""startup_s against a known answer: a fake server that prints its ready line a known time
after it starts (tests/fake/server.py, lateready) is recorded as starting in at least that
time, and not much more (the interpreter's own start-up)."""

from __future__ import annotations

import statistics

import pytest

READY_DELAY_S = 0.6
"""tests/fake/server.py's READY_DELAY_S."""
INTERPRETER_MOST_S = 5.0
"""Python's start-up and the fake's imports, with room for a busy machine."""


def test_a_server_ready_after_a_known_delay_records_that_start_up(fake_bench):
    res = fake_bench("run", "http-hello", "--contender", "fake-server-lateready", "--param",
                     "connections=4", "--param", "duration-s=1", "--param", "warmup-s=0",
                     "--runs", "2")
    assert res.code == 0, res.stderr
    (cell,) = fake_bench.last()["cells"]
    assert cell["status"] == "ok", cell["reason"]
    for run in cell["runs"]:
        assert READY_DELAY_S <= run["startup_s"] < READY_DELAY_S + INTERPRETER_MOST_S, run
        assert run["server"]["ready_s"] == run["startup_s"]
    assert cell["stats"]["startup_s"]["median"] == pytest.approx(
        statistics.median(r["startup_s"] for r in cell["runs"]))
