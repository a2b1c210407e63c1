"""The upgrades analysis (concbench.upgrades) on result sets whose answer is known: a variant on
a newer toolchain 10 % slower than its base over 5 processes each, one with the same
distribution, one whose base did not run or ran other parameters, one process a side; a
variant on an older release than its base (the default moved on) as the old side, its release
read from the pin in its toolchain's name or from the version its toolchain printed; the
headline figure the summary uses (events/s for channel, requests/s for a closed-loop server);
and the suite that runs it."""

from __future__ import annotations

import random

import pytest

from concbench import analyses, manifest, paths, suites, upgrades, workloads
from concbench.resultset.model import CellResult, Iteration, ResultsDocument, RunResult
from concbench.stats.cell import aggregate
from concbench.workloads.budget import UNBOUNDED

FANOUT = workloads.get("fanout")
CHANNEL = workloads.get("channel")
HELLO = workloads.get("http-hello")
TOOLCHAINS = {"go": "go", "go-1.27": "go@1.27.4", "go-fasthttp": "go",
              "node": "node", "node-24": "node@24.19.0"}
"""The first run's names (results/20261126-230655-upgrades): defaults on the installed
releases, variants on newer ones."""
BASES = {"go-1.27": "go", "go-fasthttp": "go", "node-24": "node", "go-1.26": "go",
         "node-20": "node", "node-system": "node"}
MOVED = {"go": "go@1.27.4", "go-1.26": "go@1.26.8", "node": "node@24.19.0",
         "node-20": "node@20.18.0", "node-system": "node"}
"""Today's: the defaults on pinned newer releases, the variants keep the older ones pinned too;
node-system is the machine's node, its release only in its version line."""
VERSIONS = {"go": {"versions": {"go version": "go version go1.26.8 linux/amd64"}},
            "node": {"versions": {"{node} --version": "v20.20.2"}}}


def _metadata(contender: str, unit: str, recorded: bool = True, moved: bool = False) -> dict:
    found = {"toolchain": (MOVED if moved else TOOLCHAINS)[contender], "throughput_unit": unit}
    if recorded:
        found["variant_of"] = BASES.get(contender)
    return found


def _run(seconds: float, load: dict | None = None) -> RunResult:
    its = () if load else tuple(Iteration(i, False, int(seconds * 1e9), {}) for i in range(3))
    return RunResult(status="ok", reason=None, wall_s=1.0, startup_s=0.1,
                     peak_rss_bytes=10 << 20, peak_threads=4, final_threads=4,
                     cpu_user_s=0.1, cpu_sys_s=0.0, ctx_voluntary=1, ctx_involuntary=1,
                     iterations=its, load=load)


def _fanout(contender: str, seconds: list[float], requests: int = 500,
            recorded: bool = True, moved: bool = False) -> CellResult:
    params = FANOUT.resolve({"requests": requests, "user-ms": 20})
    return aggregate(FANOUT, contender, params, UNBOUNDED, [_run(s) for s in seconds],
                     _metadata(contender, "requests", recorded, moved))


def _channel(contender: str, seconds: list[float]) -> CellResult:
    params = CHANNEL.resolve({"workers": 10, "events": 10000})
    return aggregate(CHANNEL, contender, params, UNBOUNDED, [_run(s) for s in seconds],
                     _metadata(contender, "events"))


def _hello(contender: str, rates: list[float], moved: bool = False) -> CellResult:
    params = HELLO.resolve({"connections": 64})
    runs = tuple(_run(0, {"requests_per_s": r, "latency_ms": {"p99": 5.0}}) for r in rates)
    return CellResult(HELLO.name, contender, params, "ok", None, None, None, runs, {},
                      _metadata(contender, "requests", moved=moved))


def _doc(cells: list[CellResult], toolchains: dict | None = None) -> ResultsDocument:
    return ResultsDocument("20260101-000000-upgrades", "test", "2026-01-01T00:00:00Z", {},
                           VERSIONS if toolchains is None else toolchains,
                           {"name": "upgrades"}, tuple(cells))


def _noisy(centre: float, rng: random.Random, n: int = 5) -> list[float]:
    return [centre * rng.uniform(0.99, 1.01) for _ in range(n)]


def _only(doc: ResultsDocument) -> tuple[upgrades.Upgrades, upgrades.Pair]:
    found = upgrades.upgrades(doc)
    (pair,) = found.pairs
    return found, pair


def test_a_variant_ten_percent_slower_is_called_slower_with_1_10_in_its_interval():
    rng = random.Random(1)
    found, pair = _only(_doc([_fanout("go", _noisy(0.060, rng)),
                              _fanout("go-1.27", _noisy(0.066, rng))]))
    assert (pair.old.contender, pair.new.contender) == ("go", "go-1.27")
    assert pair.metric is not None and pair.metric.name == "time"
    assert pair.test is not None and (pair.test.n_base, pair.test.n_new) == (5, 5)
    low, high = pair.test.ci95
    assert low <= 1.10 <= high and pair.test.ratio == pytest.approx(1.10, abs=0.02)
    assert found.verdict(pair) == "slower"
    text = upgrades.report(_doc([pair.old, pair.new]))
    row = "| fanout | requests=500, user-ms=20 | go → go-1.27 (go → go@1.27.4) | time | 5 / 5 |"
    assert row in text and "| slower |" in text


def test_the_same_distribution_shows_no_difference():
    rng = random.Random(2)
    found, pair = _only(_doc([_fanout("go", _noisy(0.060, rng)),
                              _fanout("go-1.27", _noisy(0.060, rng))]))
    assert pair.test is not None and pair.test.ci95 is not None
    assert pair.test.ci95[0] <= 1.0 <= pair.test.ci95[1]
    assert found.verdict(pair) == upgrades.NO_DIFFERENCE == "no difference the data can show"


def test_a_variant_without_its_base_on_the_same_params_is_not_paired():
    rng = random.Random(3)
    doc = _doc([_fanout("go", _noisy(0.060, rng), requests=500),
                _fanout("go-1.27", _noisy(0.066, rng), requests=5000),  # other params
                _fanout("node-24", _noisy(0.066, rng))])  # node did not run
    found = upgrades.upgrades(doc)
    assert found.pairs == ()
    why = {c.contender: text for c, text in found.unpaired}
    assert why == {"go-1.27": "go ran fanout with other parameters only",
                   "node-24": "node did not run fanout"}
    text = upgrades.report(doc)
    assert "No variant ran beside its base" in text and "Not compared:" in text


def test_one_process_a_side_gives_a_ratio_and_no_interval_or_verdict():
    found, pair = _only(_doc([_fanout("go", [0.060]), _fanout("go-1.27", [0.066])]))
    assert pair.test is not None and pair.test.ci95 is None
    assert pair.test.ratio == pytest.approx(1.10)
    assert not pair.tested
    assert found.verdict(pair).startswith("no verdict: one process on a side")
    text = upgrades.report(_doc([pair.old, pair.new]))
    assert "No pair has 2 or more processes on both sides" in text


def test_a_variant_on_its_base_toolchain_is_no_upgrade():
    """go-fasthttp is a variant of go on go's own toolchain: another HTTP stack, not an
    upgrade, so it stays out of the table and of the family of tests."""
    rng = random.Random(4)
    found = upgrades.upgrades(_doc([_hello("go", _noisy(50000, rng)),
                                    _hello("go-fasthttp", _noisy(80000, rng))]))
    assert found.pairs == () and found.unpaired == ()


def test_the_headline_is_the_summarys_events_per_s_and_requests_per_s():
    rng = random.Random(5)
    # the variant's time is 10 % lower: its events/s 1/0.9 = 1.11 times its base's
    found = upgrades.upgrades(_doc([_channel("go", _noisy(0.50, rng)),
                                    _channel("go-1.27", _noisy(0.45, rng)),
                                    _hello("node", _noisy(40000, rng)),
                                    _hello("node-24", _noisy(36000, rng))]))
    channel, hello = found.pairs
    assert upgrades._figure(channel) == "events/s"
    assert channel.test is not None and channel.test.ratio == pytest.approx(1 / 0.9, abs=0.02)
    assert found.verdict(channel) == "faster"
    assert upgrades._figure(hello) == "requests/s"
    assert hello.test is not None and hello.test.ratio == pytest.approx(0.9, abs=0.02)
    assert found.verdict(hello) == "slower"


def test_a_variant_on_the_release_its_default_moved_on_from_is_the_old_side():
    """go on Go 1.27.4 beside go-1.26 on 1.26.8, node on Node 24 beside node-20 on Node 20
    (all four pinned): new ÷ old is the default's
    figure over the variant's, as the suite reads after the defaults moved."""
    rng = random.Random(7)
    found = upgrades.upgrades(_doc([
        _fanout("go-1.26", _noisy(0.066, rng), moved=True),
        _fanout("go", _noisy(0.060, rng), moved=True),
        _hello("node-20", _noisy(40000, rng), moved=True),
        _hello("node", _noisy(36000, rng), moved=True)]))
    go, node = sorted(found.pairs, key=lambda p: p.old.workload)
    assert (go.old.contender, go.new.contender) == ("go-1.26", "go")
    assert go.test is not None and go.test.ratio == pytest.approx(1 / 1.1, abs=0.02)
    assert found.verdict(go) == "faster"
    assert (node.old.contender, node.new.contender) == ("node-20", "node")
    assert node.test is not None and node.test.ratio == pytest.approx(0.9, abs=0.02)
    assert found.verdict(node) == "slower"
    assert found.unpaired == ()
    text = upgrades.report(_doc([go.old, go.new, node.old, node.new]))
    assert "| go-1.26 → go (go@1.26.8 → go@1.27.4) | time | 5 / 5 |" in text
    assert "| node-20 → node (node@20.18.0 → node@24.19.0) | requests/s | 5 / 5 |" in text


def test_a_release_is_read_from_the_pin_or_the_version_line():
    cell = _fanout("node-system", [0.06], moved=True)
    assert upgrades.release(cell, VERSIONS) == (20, 20, 2)
    assert upgrades.release(_fanout("go", [0.06], moved=True), {}) == (1, 27, 4)
    assert upgrades.release(_fanout("node-20", [0.06], moved=True), {}) == (20, 18, 0)
    assert upgrades.release(cell, {}) is None  # no version recorded: the variant is new
    rng = random.Random(8)
    _, pair = _only(_doc([_fanout("node", _noisy(0.060, rng), moved=True),
                          _fanout("node-system", _noisy(0.066, rng), moved=True)],
                         toolchains={}))
    assert (pair.old.contender, pair.new.contender) == ("node", "node-system")


def test_older_result_sets_pair_through_the_manifests_variant_of():
    rng = random.Random(6)
    found, pair = _only(_doc([_fanout("go", _noisy(0.060, rng), recorded=False, moved=True),
                              _fanout("go-1.26", _noisy(0.066, rng), recorded=False,
                                      moved=True)]))
    assert (pair.old.contender, pair.new.contender) == ("go-1.26", "go")
    assert found.verdict(pair) == "faster"


def test_the_upgrades_suite_runs_the_analysis_on_pairs_it_can_find():
    assert analyses.ANALYSES["upgrades"] is upgrades.report
    contenders = manifest.discover(paths.contenders_dir())
    plan = suites.load("upgrades", paths.suites_dir(), contenders, {})
    assert plan.name == "upgrades"
    cells = {(c.spec.name, c.contender.name, repr(sorted(c.params.items())))
             for c in plan.cells}
    variants = [c for c in plan.cells if c.contender.variant_of and c.contender.toolchain.name
                != contenders[c.contender.variant_of].toolchain.name]
    assert variants
    for c in variants:
        assert (c.spec.name, c.contender.variant_of, repr(sorted(c.params.items()))) in cells
