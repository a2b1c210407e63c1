"""The docs' table scripts (support/c10k-table, support/handoff-table) on made-up results whose
every figure is known: the time each phase of a suite took, and a ring's figures per hand-off."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SUPPORT = Path(__file__).resolve().parents[1] / "support"


def _load(folder: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(folder.replace("-", "_"),
                                                  SUPPORT / folder / "table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_c10k_time_is_split_by_phase_and_the_rest_is_what_no_phase_holds():
    table = _load("c10k-table")
    params = {"duration-s": 10}
    measured = {"wall_s": 40.0, "startup_s": 2.0,
                "server": {"continuous": {"lead_in_s": 3.0, "window_from_s": 20.0},
                           "warmup": {"seconds": 15.0}}}
    ended_in_lead_in = {"wall_s": 25.0, "startup_s": 1.0,
                        "server": {"continuous": {"lead_in_s": 22.0}, "warmup": None}}
    spent = table.time_spent([(params, measured), (params, ended_in_lead_in)])
    assert spent == pytest.approx({"start-ups": 3.0, "lead-ins": 25.0, "warm-ups": 15.0,
                                   "windows": 10.0, "the rest": 12.0})


def _ring_cell(every: int, elapsed_s: float, cpu_ns: float, line_cpu_s: float) -> dict:
    iterations = [{"warmup": False, "cpu_s": line_cpu_s,
                   "result": {"handoff_p50_ns": 100, "handoff_p99_ns": 900,
                              "clock_read_ns": 40}}]
    return {"contender": "go", "status": "ok",
            "params": {"rings": 2, "size": 503, "passes": 1000, "sample-every": every},
            "stats": {"elapsed_s": {"median": elapsed_s, "n": 3},
                      "cpu_ns_per_unit": {"median": cpu_ns},
                      "ctx_switches_per_unit": {"median": 0.5}},
            "runs": [{"iterations": iterations}]}


def test_a_ring_row_joins_the_clean_cell_and_its_clock_reading_twin():
    table = _load("handoff-table")
    # 2 rings x 1 000 passes: 1 ms is 500 ns a hand-off; 600 ns of CPU on 2 CPUs is 0.60
    (row,) = table.ring_rows([_ring_cell(0, 0.001, 600.0, 0.9),
                              _ring_cell(1, 0.0012, 700.0, 0.004)], cpus=2)
    cols = [c.strip() for c in row.strip("|").split("|")]
    assert cols[:9] == ["go", "503", "2", "1,000", "500", "600", "0.60", "0.500", "600"]
    # the line-to-line CPU of the twin (4 ms over 2 000), then p50, p99, clock read, n
    assert cols[9:13] == ["2,000", "100", "900", "40"] and cols[13] == "3"


def _capacity_run(round_: int, peak: float, capacity: float, half_us: float,
                  at_capacity_us: float, status: str = "ok") -> dict:
    windows = [{"role": "search", "server_us_per_request": half_us},
               {"role": "search", "server_us_per_request": 999.0},
               {"role": "confirm", "server_us_per_request": 888.0}]
    return {"status": status, "round": round_,
            "server": {"capacity": {"peak_per_s": peak, "capacity_per_s": capacity,
                                    "windows": windows},
                       "cpu_per_request": {"server_us": at_capacity_us}}}


def test_each_figures_spread_is_its_cv_across_rounds_and_ratios_pair_rounds():
    table = _load("steadiness-table")
    go = {"contender": "go", "runs": [_capacity_run(0, 100.0, 50.0, 10.0, 12.0),
                                      _capacity_run(1, 300.0, 0.0, 10.0, 12.0),
                                      _capacity_run(2, 1.0, 1.0, 1.0, 1.0, "crash")]}
    nginx = {"contender": "nginx", "runs": [_capacity_run(1, 600.0, 100.0, 5.0, 6.0),
                                            _capacity_run(0, 100.0, 100.0, 5.0, 6.0)]}
    assert table.cpu_at_half_peak(go["runs"][0]) == 10.0  # the first search window's
    assert table.by_round(go, table.peak) == {0: 100.0, 1: 300.0}  # the crashed run left out
    # peaks 100 and 300: mean 200, sample stdev 141.42: 70.7 %; a zero capacity counts
    assert table.cv_percent([100.0, 300.0]) == pytest.approx(70.71, abs=0.01)
    (row, ceiling) = table.rows({"cells": [go, nginx]})
    assert row[:6] == ["go", "2", "200 (70.7 %)", "25 (141.4 %)", "10.0 (0.0 %)",
                       "12.0 (0.0 %)"]
    # round 0: 100 / 100, round 1: 300 / 600 (paired by round, not by order): 1.0 and 0.5
    assert row[6] == "0.75 (47.1 %)" and row[7] == "0.25 (141.4 %)"
    assert ceiling[6:] == ["–", "–"]
