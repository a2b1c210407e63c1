"""Latency–load curves and CPU per request, end to end with fake servers (tests/fake/server.py)
and real oha: the CPU a server burns per request read back as µs/request, a server that
cannot keep up marked saturated at the rates past its capacity only, and rate=auto's grid
derived from the probe it recorded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time

OPEN_LOOP = ["--param", "loadgen=oha", "--param", "connections=8", "--param", "warmup-s=0",
             "--runs", "1"]
BURN_US = 3000.0
"""CPU the burn fake spends per request on top of the good one (tests/fake/server.py)."""
STALL_CAPACITY = 100
"""Requests/s the stall fake can serve at most (one at a time, 10 ms each)."""


@pytest.fixture
def bench(fake_bench, oha: Path):
    """fake_bench with the repo's oha (the `oha` fixture builds it once; every bench's cache
    shares the repo's tools: tests/conftest.py)."""
    return fake_bench


def _by_rate(doc: dict) -> dict:
    return {c["params"]["rate"]: c for c in doc["cells"]}


def _ok_run(cell: dict) -> dict:
    assert cell["status"] == "ok", cell["reason"]
    return cell["runs"][0]


def test_the_cpu_a_server_burns_per_request_is_read_back_as_us_per_request(bench):
    """The burn fake spends BURN_US of thread CPU per request beyond the good fake: the
    difference of their server µs/request is that within 15 % (/proc's clock ticks, 10 ms,
    over ~0.9 s of CPU and the handler's own variation)."""
    per_request = {}
    for name in ("fake-server", "fake-server-burn"):
        res = bench("run", "http-hello", "--contender", name, *OPEN_LOOP,
                         "--param", "rate=100", "--param", "duration-s=3")
        assert res.code == 0, res.stderr
        cell = bench.last()["cells"][0]
        record = _ok_run(cell)["server"]["cpu_per_request"]
        assert record["server_source"] == "proc-tree" and record["responses"] > 0
        assert record["server_us"] == pytest.approx(
            record["server_cpu_s"] * 1e6 / record["responses"])
        assert record["generator_us"] > 0
        stats = cell["stats"]
        assert stats["server_cpu_us_per_request"]["median"] == record["server_us"]
        assert stats["generator_cpu_us_per_request"]["median"] == record["generator_us"]
        per_request[name] = record["server_us"]
        assert "server µs/req" in res.stdout
    burned = per_request["fake-server-burn"] - per_request["fake-server"]
    assert burned == pytest.approx(BURN_US, rel=0.15), per_request


def test_a_server_past_its_capacity_is_saturated_there_and_not_below(bench):
    below, past = STALL_CAPACITY // 2, STALL_CAPACITY * 3
    res = bench("run", "http-hello", "--contender", "fake-server-stall", *OPEN_LOOP,
                     "--param", "duration-s=3", "--scan", f"rate={below},{past}")
    assert res.code == 0, res.stderr
    cells = _by_rate(bench.last())
    kept, behind = (_ok_run(cells[r])["load"]["open_loop"] for r in (below, past))
    assert kept["offered_per_s"] == below and kept["saturated"] is False, kept
    assert kept["achieved_ratio"] >= 0.99
    assert behind["offered_per_s"] == past and behind["saturated"] is True, behind
    assert behind["achieved_per_s"] <= STALL_CAPACITY * 1.05
    assert "of the requests due" in behind["why"]
    assert cells[below]["stats"]["saturated"]["median"] == 0
    assert cells[past]["stats"]["saturated"]["median"] == 1
    summary = res.stdout.split("\nSummary\n", 1)[1]  # open loop: ranked by latency only
    assert "p99 latency" in summary and "requests/s" not in summary, summary
    assert "behind" in res.stdout
    for cell in cells.values():
        latency = cell["runs"][0]["load"]["latency_ms"]
        assert latency["p50"] <= latency["p99"] <= latency["p999"]
        assert cell["runs"][0]["load"]["corrected"] is True


def test_rate_auto_probes_the_peak_and_runs_its_grid(bench):
    from concbench.workloads.rate_forms import AUTO_PERCENTS

    res = bench("run", "http-hello", "--contender", "fake-server", *OPEN_LOOP,
                     "--param", "duration-s=1", "--scan", "rate=auto")
    assert res.code == 0, res.stderr
    cells = _by_rate(bench.last())
    assert list(cells) == [f"{p}%" for p in AUTO_PERCENTS]
    probes = [_ok_run(cells[f"{p}%"])["server"]["rate_probe"] for p in AUTO_PERCENTS]
    peak = probes[0]["peak_per_s"]
    assert peak > 0 and probes[0]["probed_here"] is True
    assert all(p["peak_per_s"] == peak and p["probed_here"] is False for p in probes[1:])
    for percent, probe in zip(AUTO_PERCENTS, probes):
        cell = cells[f"{percent}%"]
        want = max(1, round(peak * percent / 100))
        assert probe["percent"] == percent and probe["offered_per_s"] == want
        run = cell["runs"][0]
        assert run["load"]["open_loop"]["offered_per_s"] == want
        i = run["load"]["command"].index("-q")
        assert run["load"]["command"][i + 1] == str(want)
        assert cell["stats"]["rate_probe_per_s"]["median"] == peak


def test_a_grids_peak_is_probed_after_a_warm_up_not_on_a_cold_server(bench):
    """The coldstart fake serves its first 600 requests 40 ms late (8 connections: about
    200 requests/s, 3 s of them: the whole of a 3 s probe on a cold server), then at full
    speed. The grid's probe comes after a closed-loop warm-up of 4 s, so it sees the warm
    server: well above the cold rate."""
    cold_per_s = 8 / 0.040
    res = bench("run", "http-hello", "--contender", "fake-server-coldstart", "--param",
                "loadgen=oha", "--param", "connections=8", "--param", "warmup-s=4",
                "--param", "warmup-steady-pct=0", "--param", "duration-s=1",
                "--param", "rate=50%", "--runs", "1")
    assert res.code == 0, res.stderr
    server = _ok_run(bench.last()["cells"][0])["server"]
    assert server["rate_probe"]["peak_per_s"] > 2 * cold_per_s, server["rate_probe"]
    warmed = server["probe_warmup"]
    assert warmed["mode"] == "fixed" and warmed["seconds"] >= 4, warmed
    assert server["continuous"] is not None and server["warmup"]["seconds"] >= 4


@pytest.mark.parametrize("args, message", [
    (["--scan", "rate=auto,500"], "rate=auto is a grid of its own"),
    (["--param", "rate=150%"], "whole percentage from 1% to 100%"),
    (["--param", "rate=fast"], "must be an integer"),
    (["--param", "loadgen=wrk", "--param", "rate=500"], "only oha sends"),
    (["--param", "loadgen=wrk", "--scan", "rate=auto"], "only oha sends"),
    (["--param", "loadgen=wrk", "--param", "rate=auto"], "only oha sends"),
])
def test_bad_rates_are_bad_input(cli, args, message):
    res = cli("run", "http-hello", "--contender", "fake-server", *args)
    assert res.code == 2, res.stderr
    assert message in res.stderr and "Traceback" not in res.stderr


def test_a_v1_cgroup_with_cpuacct_beside_cpu_reads_its_usage(tmp_path):
    from concbench.proc.cgroups.stats import cpu_counters

    (tmp_path / "cpu.stat").write_text("nr_periods 12\nnr_throttled 9\nthrottled_time 0\n")
    assert cpu_counters(tmp_path, 1).usage_s is None  # cpuacct mounted apart: no total
    (tmp_path / "cpuacct.usage").write_text("2500000000\n")
    assert cpu_counters(tmp_path, 1).usage_s == pytest.approx(2.5)


def test_cpu_per_request_takes_the_cgroups_usage_over_the_process_tree():
    from concbench.server.cpu_per_request import cpu_per_request
    from concbench.server.loadgen import LoadResult
    from concbench.server.window import WindowMeasures

    window = WindowMeasures(window_s=2.0, cpu_s=0.5, cpu_percent=25.0, ctx_voluntary=0,
                            ctx_involuntary=0, peak_fds=0, peak_rss_bytes=None,
                            mean_rss_bytes=None, peak_threads=None, mean_threads=None)
    load = LoadResult(generator="oha", requests=1000, ok_requests=1000, duration_s=2.0,
                      requests_per_s=500.0, latency_ms={}, percentiles=[], errors={},
                      cpu_s=0.2, wall_s=2.0, cpus=(), command=[], corrected=True)
    tree = cpu_per_request(window, None, load)
    assert (tree.server_source, tree.server_us, tree.generator_us) == ("proc-tree", 500.0, 200.0)
    group = cpu_per_request(window, 0.8, load)
    assert (group.server_source, group.server_us) == ("cgroup", 800.0)
    assert cpu_per_request(window, None, None) is None


def test_a_process_cpu_is_read_finer_than_procs_clock_ticks():
    """2 ms of CPU read from the process's CPU-time clock, not rounded to /proc's 10 ms tick."""
    import time

    from concbench.proc.tree import exact_cpu_s

    before = exact_cpu_s(os.getpid())
    until = time.process_time() + 0.002
    while time.process_time() < until:
        pass
    assert 0.002 <= exact_cpu_s(os.getpid()) - before < 0.004
