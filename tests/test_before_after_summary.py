"""support/before-after/summary.py, whose same-round ratios are the pair figures in
docs/servers.md: runs are compared per workload and parameter set, and paired by round."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import conftest

SCRIPT = conftest.REPO / "support" / "before-after" / "summary.py"


def _summary():
    spec = importlib.util.spec_from_file_location("before_after_summary", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(round_: int, rate: float) -> dict:
    return {"round": round_, "peak_rss_bytes": 2**20, "server": None,
            "load": {"requests_per_s": rate, "latency_ms": {"p99": 1.0}}}


def _cell(contender: str, connections: int, rates: list[float]) -> dict:
    return {"contender": contender, "workload": "http-hello", "status": "ok", "reason": None,
            "params": {"connections": connections},
            "runs": [_run(r, rate) for r, rate in enumerate(rates, 1)]}


def test_each_parameter_set_is_compared_on_its_own_and_paired_by_round(tmp_path: Path,
                                                                        capsys):
    """A scan over two connection counts: pooled, the ratios would mix 256 with 16."""
    doc = {"cells": [_cell("a", 16, [100, 200, 300]), _cell("b", 16, [50, 100, 150]),
                     _cell("a", 256, [1000, 1000, 1000]), _cell("b", 256, [250, 500, 1000])]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    summary = _summary()
    after = summary.figures_by_cell(summary.read_cells(path), "a")
    before = summary.figures_by_cell(summary.read_cells(path), "b")
    assert sorted(after) == [("http-hello", "connections=16"), ("http-hello", "connections=256")]
    key = ("http-hello", "connections=256")
    assert summary.same_round_ratios(after[key]["requests_per_s"],
                                     before[key]["requests_per_s"]) == [1.0, 2.0, 4.0]
    key16 = ("http-hello", "connections=16")
    assert summary.same_round_ratios(after[key16]["requests_per_s"],
                                     before[key16]["requests_per_s"]) == [2.0, 2.0, 2.0]
    summary.main([str(path), "a", "b"])
    out = capsys.readouterr().out
    assert out.count("http-hello (medians of 3") == 2 and "connections=256" in out


def test_the_interval_is_the_ratio_of_geometric_means_with_its_welch_interval():
    """after = 2 × before in every process: the geometric means' ratio is exactly 2 and its
    interval holds 2; a one-process side has a ratio and no interval."""
    summary = _summary()
    text = summary.interval([50.0, 100.0, 150.0], [100.0, 200.0, 300.0])
    ratio, _, rest = text.partition(" (")
    low, _, high = rest.rstrip(")").partition("-")
    assert float(ratio) == 2.0
    assert float(low) < 2.0 < float(high)
    # the two sides' spread is the same, the logarithms' variance log-scale: Welch's half-width
    logs = [0.0, 0.6931471805599453, 1.0986122886681098]  # ln 1, ln 2, ln 3
    mean = sum(logs) / 3
    var = sum((v - mean) ** 2 for v in logs) / 2
    half = 2.7764451051977987 * (2 * var / 3) ** 0.5  # t(0.975, ν = 4) × standard error
    assert (float(low), float(high)) == (round(2 * 2.718281828459045 ** -half, 3),
                                         round(2 * 2.718281828459045 ** half, 3))
    assert summary.interval([50.0], [100.0]) == "2.000 (no interval)"
