"""Held keep-alive connections (think-ms): each connection pauses between a response and its
next request, so a window's requests are about connections × window ÷ think, not a closed
loop's; oha cannot pause per connection (exit 2); a scan over connections fits the server's
RSS and threads per held connection (stats.scans), read back from a document whose cost per
connection is known, and end to end from the fake server, which runs a thread per connection
(tests/fake/server.py: ThreadingHTTPServer)."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from concbench import workloads
from concbench.report import scaling_table
from concbench.resultset.io import read
from concbench.resultset.model import CellResult
from concbench.server import load_checks
from concbench.server.loadgen import LoadResult
from concbench.server.warmup import WarmupWindow, is_steady
from concbench.stats.cell import aggregate
from concbench.stats.scans import scan_fits
from concbench.workloads.budget import UNBOUNDED
from concbench.workloads.littles_law import ceilings
from concbench.workloads.server import Bounds
from sample_doc import _server_run

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time

needs_wrk = pytest.mark.skipif(shutil.which("wrk") is None and shutil.which("apt-get") is None,
                               reason="wrk is not installed and cannot be (no apt-get)")

THINK_MS, WINDOW_S = 500, 3
SIZES = (4, 8, 16)
"""Connections of the end-to-end scan: multiples of wrk's threads (1 or 2 here), which
split them evenly."""


@needs_wrk
def test_think_time_spaces_requests_and_the_scan_reads_back_a_thread_per_connection(
        fake_bench):
    res = fake_bench("run", "http-hello", "--contender", "fake-server", "--runs", "1",
                     "--param", f"think-ms={THINK_MS}", "--param", f"duration-s={WINDOW_S}",
                     "--param", "loadgen=wrk",
                     "--param", "warmup-s=0", "--scan", "connections=" + ",".join(map(str, SIZES)))
    assert res.code == 0, res.stderr
    doc = fake_bench.last()
    for cell in doc["cells"]:
        assert cell["status"] == "ok", cell["reason"]
        load = cell["runs"][0]["load"]
        connections = cell["params"]["connections"]
        paced = connections * WINDOW_S * 1000 / THINK_MS
        # the first requests spread over one think time, then one per think time and latency
        assert 0.8 * paced <= load["requests"] <= 1.05 * paced, (connections, load["requests"])
        assert load["connections_opened"] == connections and load["think_ms"] == THINK_MS
        assert load["errors_total"] == 0
    folder = fake_bench.root / "results" / doc["run_id"]
    threads = next(f for f in scan_fits(read(folder / "results.json").cells)
                   if f.metric == "server_threads")
    assert threads.fit.linear.slope == pytest.approx(1.0, abs=0.1), threads.fit.linear
    assert "server threads (window peak)" in res.stdout and "/connection" in res.stdout
    md = (folder / "results.md").read_text()
    assert "#### Scaling over connections" in md and "server RSS (window peak)" in md
    summary = res.stdout.split("\nSummary\n", 1)[1]  # the rate is the generator's pace
    assert "p99 latency" in summary and "requests/s" not in summary, summary


def test_think_time_with_oha_is_exit_2_with_a_message(cli):
    res = cli("run", "http-hello", "--contender", "fake-server", "--param", "think-ms=100",
              "--param", "loadgen=oha")
    assert res.code == 2, (res.stdout, res.stderr)
    assert "think-ms=100" in res.stderr and "oha has no per-connection think time" in res.stderr


PER_CONNECTION_B = 24 * 1024
BASE_B = 9 << 20
RAMP_SHARE = 0.7
"""The window's mean RSS in the fake document: the ramp while connections open drags it
below the peak, by a share that differs per size (so a fit of the mean cannot give the
known slope)."""


def _held_cell(connections: int, opened: int | None = None) -> CellResult:
    hello = workloads.get("http-hello")
    params = hello.resolve({"connections": connections, "think-ms": 10000})
    runs = []
    for jitter in (0, 4096):
        run = _server_run(1000.0, 1.0, 2.0, 5.0, 3, 2, 10, 8)
        peak = BASE_B + PER_CONNECTION_B * connections + jitter
        window = {**run.server["window"], "peak_rss_bytes": peak,
                  "mean_rss_bytes": BASE_B + RAMP_SHARE ** (connections / 1000) * (peak - BASE_B),
                  "peak_threads": 7 + connections, "peak_fds": connections + 12}
        load = {**run.load, "connections_opened": opened or connections}
        runs.append(dataclasses.replace(run, server={**run.server, "window": window}, load=load))
    return aggregate(hello, "thread-per-connection", params, UNBOUNDED, runs,
                     {"throughput_unit": "requests"})


def test_the_fit_reads_back_the_known_rss_and_threads_per_connection():
    cells = [_held_cell(n) for n in (1000, 2000, 5000, 10000)]
    fits = {f.metric: f for f in scan_fits(cells)}
    assert set(fits) == {"server_rss", "server_threads"}
    rss, threads = fits["server_rss"].fit.linear, fits["server_threads"].fit.linear
    assert rss.slope == pytest.approx(PER_CONNECTION_B, rel=1e-6)
    assert rss.intercept == pytest.approx(BASE_B + 2048, rel=1e-6)
    assert threads.slope == pytest.approx(1.0) and threads.intercept == pytest.approx(7.0)
    rows = {r[2]: r for r in scaling_table.rows(list(fits.values()))}
    assert rows["server RSS (window peak)"][3] == "24.0 KiB/connection"
    assert rows["server threads (window peak)"][3] == "1/connection"
    assert float(rows["server RSS (window peak)"][7]) > 0.999  # R²
    assert scaling_table.warnings(list(fits.values())) == []
    md = "\n".join(scaling_table.markdown(cells, "http-hello"))
    assert "24.0 KiB/connection" in md and "1,000, 2,000, 5,000, 10,000" in md


def test_a_scan_that_held_fewer_connections_than_asked_says_so():
    cells = [_held_cell(1000), _held_cell(2000), _held_cell(5000, opened=4998)]
    found = scaling_table.warnings(scan_fits(cells))
    assert len(found) == 1, found
    assert "connections=5000: the load generator opened 4998" in found[0]


def _load(requests: int, max_ms: float) -> LoadResult:
    return LoadResult(generator="wrk", requests=requests, ok_requests=requests, duration_s=10.0,
                      requests_per_s=requests / 10.0, latency_ms={"max": max_ms},
                      percentiles=[], errors={}, cpu_s=0.0, wall_s=10.0, cpus=(),
                      command=[], corrected=False)


def test_requests_in_flight_at_the_window_end_follow_the_rate_not_the_connections():
    # closed loop: 1000 connections at 10 ms each give 100 000 requests/s: every connection
    assert load_checks.in_flight_most(_load(1_000_000, 12.0), 1000) == 1000
    # held: 10 000 connections at 1 000 requests/s, none slower than 20 ms: about 20 in flight
    held = load_checks.in_flight_most(_load(10_000, 20.0), 10_000)
    assert held == 2 * 20 + load_checks.IN_FLIGHT_BURST


def test_think_time_lowers_the_connections_ceiling():
    found = ceilings(100.0, 1000, {"think-ms": 900}, Bounds())
    assert found[0].name == "connections" and found[0].requests_per_s == pytest.approx(1000.0)
    assert "900 ms think time" in found[0].why


def test_a_paced_warm_up_does_not_judge_the_generators_rate():
    climbing = [WarmupWindow(5.0, rate, 1.0, 0, 1.0, None) for rate in (100, 200, 400, 800)]
    assert not is_steady(climbing, 5.0)
    assert is_steady(climbing, 5.0, paced=True)
