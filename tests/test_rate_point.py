"""One open-loop window on a load of its own (server.rate_point), against a server whose one
stall is placed at a known moment: the fake `hiccup` holds every request for HICCUP_S once,
from the arrival of request HICCUP_AT, which at a known rate is a known time.

The stall begins STALL_BEFORE_END_S before the window ends: the requests due in that span
wait until the stall is over, after the window, and a generator stopped at the window's end
(oha -z, the capacity search's windows before) cut them off and reported a p99 of
milliseconds. Counted to their answers in the tail, the window's p99 is the stall."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from concbench.server import rate_point
from concbench.server.loadgen.base import LoadSpec
from http_answers import free_port

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time

FAKE = Path(__file__).resolve().parent / "fake" / "server.py"
RATE, WINDOW_S = 400, 2.0
HICCUP_S = 0.2
STALL_BEFORE_END_S = 0.1


def _spec(port: int) -> LoadSpec:
    return LoadSpec(url=f"http://127.0.0.1:{port}", path="/hello", varied_ids=False,
                    connections=16, duration_s=WINDOW_S, threads=1, keepalive=True, rate=RATE,
                    cpus=(), timeout_s=WINDOW_S + 5)


@pytest.fixture
def hiccup_server():
    port = free_port()
    # request i of the load arrives i / RATE after the first; the first HICCUP_AT - 1 are
    # the lead-in and the window up to STALL_BEFORE_END_S before its end
    at = round(RATE * (rate_point.LEAD_IN_S + WINDOW_S - STALL_BEFORE_END_S))
    proc = subprocess.Popen([sys.executable, str(FAKE), "hiccup", "http-hello", f"--port={port}",
                             "--bind=127.0.0.1", "--pool-size=1"],
                            env={**os.environ, "FAKE_HICCUP_AT": str(at)},
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["type"] == "ready"
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_stall_at_the_windows_end_is_in_its_p99(oha, hiccup_server):
    load, failure = rate_point.run_point(_spec(hiccup_server), WINDOW_S, lambda: None)
    assert failure is None and load is not None
    due = RATE * WINDOW_S
    assert load.notes["due"] == pytest.approx(due, abs=2)
    # the log's clock is put on the harness's within a millisecond: one request due at an
    # edge may fall on either side of it
    assert abs(load.ok_requests + load.notes["missed"] - load.notes["due"]) <= 1
    # 40 of the 800 requests due wait out the stall (100-200 ms); the rest take ~1 ms
    p99 = load.latency_ms["p99"]
    assert p99 is not None and 0.5 * HICCUP_S * 1000 <= p99 <= 2 * HICCUP_S * 1000, load
    assert load.latency_ms["p50"] < 0.1 * HICCUP_S * 1000, load.latency_ms
    share = rate_point.generator_share(load)
    assert share is not None and 0 < share < rate_point.GENERATOR_BUSY_SHARE
