"""A load split over several client hosts (server.client_split, server.client_merge,
server.client_load), without hosts: the split, the clients' logs put on one clock, the
window's latencies pooled exactly (recomputed here from the raw rows), each generator's CPU
and saturation, and a failed client failing the run with the others' figures kept."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from concbench.server import client_load, client_split
from concbench.server.client_merge import GeneratorRun, cut, merged_load, pooled, whole_log
from concbench.server.loadgen.base import LoadError, LoadSpec
from concbench.server.request_log import HEADER
from concbench.server.sites import Site


@dataclass(frozen=True)
class HostSite(Site):
    label: str = "c"

    @property
    def name(self) -> str:
        return self.label


def _spec(connections: int = 10, rate: int = 0) -> LoadSpec:
    return LoadSpec(url="http://198.18.0.2:8080", path="/hello", varied_ids=False,
                    connections=connections, duration_s=2.0, threads=1, keepalive=True,
                    rate=rate, cpus=(), timeout_s=7.0)


def _sites(n: int) -> tuple[Site, ...]:
    return tuple(HostSite((1,), None, f"c{i}") for i in range(n))


def test_connections_and_rate_are_split_evenly():
    parts = client_split.shares(_spec(10, rate=1001), 0, _sites(3))
    assert [p.connections for p in parts] == [4, 3, 3]
    assert [p.rate for p in parts] == [334, 334, 333]
    assert [p.threads for p in parts] == [1, 1, 1]  # one per CPU of the site
    with pytest.raises(LoadError, match="cannot be split"):
        client_split.shares(_spec(2), 0, _sites(3))


def test_each_client_runs_its_share_long_enough_for_lead_in_window_and_tail():
    parts = client_split.shares(_spec(10_000), 0, _sites(2))
    lead = client_split.lead_in_s(parts)
    assert lead == client_split.LEAD_IN_S + 5000 / client_split.OPENED_PER_LEAD_IN_S
    seconds = client_split.run_seconds(_spec(10_000), 10, lead)
    argv = client_split.command(parts[1], _spec(10_000), seconds)
    assert argv[:3] == ["taskset", "-c", "1"]
    assert argv[argv.index("-c", 3) + 1] == "5000"
    assert argv[argv.index("-z") + 1] == f"{seconds}s"
    assert seconds >= lead + client_split.START_SKEW_LIMIT_S + 10 + client_split.TAIL_S
    assert "--output-format" in argv and argv[argv.index("--output-format") + 1] == "csv"


def test_a_split_load_needs_oha_and_enough_connections():
    assert client_load.refusal({"loadgen": "oha", "connections": 3}, 3) is None
    assert client_load.refusal({"loadgen": "wrk", "connections": 9}, 1) is None
    assert "loadgen=oha" in client_load.refusal({"loadgen": "wrk", "connections": 9}, 3)
    assert "cannot be split" in client_load.refusal({"loadgen": "oha", "connections": 2}, 3)


def _log(rng: np.random.Generator, n: int, scale_ms: float, span_s: float) -> bytes:
    """oha's CSV: n responses over span_s seconds of its own clock."""
    start = np.sort(rng.uniform(0.001, span_s, n))
    duration = rng.exponential(scale_ms / 1000, n) + 0.0002
    dialup = np.where(np.arange(n) < 4, 0.0003, 0.0)  # the first requests open connections
    rows = [f"{s:.6f},0,{d:.6f},{t:.6f},{t:.6f},200,200"
            for s, d, t in zip(start, dialup, duration)]
    return ("\n".join([HEADER, *rows]) + "\n").encode()


def _run(host: str, log: bytes, first_sent: float, cpu_per_s: float = 0.3) -> GeneratorRun:
    samples = tuple((first_sent + k * 0.05, cpu_per_s * k * 0.05) for k in range(1, 121))
    return GeneratorRun(host, 0, first_sent - 0.01, first_sent, first_sent + 6.0, 1.8, samples,
                        log, "", 0.0001)


def _raw_p99(runs: list[GeneratorRun], t0: float, t1: float) -> float:
    """The p99 of every client's responses that ended in [t0, t1), from the CSV text alone:
    each log put on the harness's clock by its first write, nearest rank."""
    pooled_ms = []
    for run in runs:
        rows = np.array([[float(x) for x in line.split(",")]
                         for line in run.log.decode().splitlines()[1:]])
        shift = run.first_sent_s - (rows[:, 0] + rows[:, 2]).min()
        end = rows[:, 0] + rows[:, 3] + shift
        pooled_ms += list(rows[(end >= t0) & (end < t1), 4] * 1000)
    pooled_ms.sort()
    return pooled_ms[math.ceil(0.99 * len(pooled_ms)) - 1]


def test_the_window_p99_is_the_p99_of_every_clients_requests_pooled():
    rng = np.random.default_rng(46)
    parts = client_split.shares(_spec(12), 0, _sites(3))
    # one fast, one slow, one in between, started a few ms apart
    runs = [_run("c0", _log(rng, 4000, 1.0, 5.0), 100.000),
            _run("c1", _log(rng, 3000, 8.0, 5.0), 100.004),
            _run("c2", _log(rng, 3500, 3.0, 5.0), 100.002)]
    t0, t1 = 101.5, 104.5
    windows = [cut(p, r, t0, t1, 6) for p, r in zip(parts, runs)]
    load = merged_load(windows, t0, t1, ["oha"])
    assert load.latency_ms["p99"] == pytest.approx(_raw_p99(runs, t0, t1), abs=1e-9)
    averaged = np.mean([w.found.percentile(99) for w in windows])
    assert abs(load.latency_ms["p99"] - averaged) > 1.0  # pooling is not averaging
    assert load.requests == sum(w.found.responses for w in windows)
    assert load.requests_per_s == pytest.approx(sum(w.served.ok_per_s for w in windows))
    clients = load.notes["clients"]
    assert clients["start_skew_ms"] == pytest.approx(4.0)
    assert [g["host"] for g in clients["generators"]] == ["c0", "c1", "c2"]
    assert clients["generators"][0]["window_cpu_s"] == pytest.approx(0.9, rel=0.02)
    assert clients["saturated"] == [] and load.cpu_percent() == pytest.approx(30, rel=0.02)


def test_one_saturated_generator_makes_the_window_generator_bound():
    rng = np.random.default_rng(7)
    parts = client_split.shares(_spec(4), 0, _sites(2))
    runs = [_run("c0", _log(rng, 500, 1.0, 5.0), 50.0),
            _run("c1", _log(rng, 500, 1.0, 5.0), 50.0, cpu_per_s=0.97)]
    windows = [cut(p, r, 51.5, 53.5, 6) for p, r in zip(parts, runs)]
    load = merged_load(windows, 51.5, 53.5, ["oha"])
    assert load.notes["clients"]["saturated"] == ["c1"]
    assert load.to_dict()["cpu_percent"] == pytest.approx(97, rel=0.02)  # the busiest's


def test_open_loop_counts_every_request_due_per_client():
    parts = client_split.shares(_spec(4, rate=200), 0, _sites(2))
    rows = [f"{i / 100:.6f},0,0,0.001,0.001,200,200" for i in range(600)]  # 100/s, answered
    full = ("\n".join([HEADER, *rows]) + "\n").encode()
    half = ("\n".join([HEADER, *rows[::2]]) + "\n").encode()  # every other one missing
    runs = [_run("c0", full, 10.0), _run("c1", half, 10.0)]
    windows = [cut(p, r, 11.0, 13.0, 7) for p, r in zip(parts, runs)]
    load = merged_load(windows, 11.0, 13.0, ["oha"])
    assert load.notes["due"] == 400 and load.notes["missed"] == 100
    assert [w.found.missed for w in windows] == [0, 100]


def test_pooled_spans_keep_every_body_size():
    rng = np.random.default_rng(1)
    parts = client_split.shares(_spec(4), 0, _sites(2))
    runs = [_run("c0", _log(rng, 300, 1.0, 5.0), 5.0), _run("c1", _log(rng, 300, 1.0, 5.0), 5.0)]
    found = pooled([cut(p, r, 6.0, 9.0, 6).found for p, r in zip(parts, runs)])
    assert found.ok_body_sizes == ((200, found.ok),)


class _Run:
    """The run state client_load writes to."""

    def __init__(self):
        self.warnings: list[str] = []
        self.clients = None


def test_a_killed_client_fails_the_run_with_its_reason_and_the_others_are_kept():
    rng = np.random.default_rng(3)
    parts = client_split.shares(_spec(6), 0, _sites(3))
    killed = GeneratorRun("c1", -9, 99.99, 100.0, 102.5, None, (), b"", "", 0.0001)
    outcomes = [_run("c0", _log(rng, 900, 1.0, 5.0), 100.0), killed,
                _run("c2", _log(rng, 900, 1.0, 5.0), 100.0)]
    run = _Run()
    load, failure = client_load._judge(run, "measured", parts, outcomes, 101.5, 104.5, 6,
                                       ["oha"])
    assert load is None and failure is not None and failure[0] == "crash"
    assert "client host c1" in failure[1] and "SIGKILL" in failure[1]
    assert "1.0 s into the window" in failure[1]
    record = run.clients.record
    assert [g["host"] for g in record["generators"]] == ["c0", "c2"]
    assert all(g["responses"] > 0 for g in record["generators"])
    assert set(run.clients.logs) == {"c0", "c2"}
    lost = LoadError("lost contact with c2")
    _, failure = client_load._judge(_Run(), "measured", parts, [outcomes[0], outcomes[2], lost],
                                    101.5, 104.5, 6, ["oha"])
    assert "lost contact with c2" in failure[1]


def test_every_clients_whole_log_is_one_log_on_one_clock():
    rng = np.random.default_rng(5)
    parts = client_split.shares(_spec(4), 0, _sites(2))
    runs = [_run("c0", _log(rng, 300, 1.0, 5.0), 5.0), _run("c1", _log(rng, 200, 1.0, 5.0), 7.0)]
    windows = [cut(p, r, 8.0, 9.0, 6) for p, r in zip(parts, runs)]
    log = whole_log(windows)
    assert len(log) == 500 and bool(np.all(np.diff(log.end_s) >= 0))
    assert log.first_write_s == pytest.approx(5.0)  # the first client's first request
    assert log.end_s.max() > 7.0 + 4.0  # the second client's log, shifted to its start
