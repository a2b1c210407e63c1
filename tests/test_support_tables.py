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


def test_a_c10k_row_gives_the_collectors_share_of_the_window():
    table = _load("c10k-table")
    run = {"status": "ok", "load": {"requests_per_s": 1000.0, "latency_ms": {"p99": 5.0}},
           "server": {"window": {"window_s": 10.0}, "window_jit": {"gc_s": 0.25},
                      "steadiness": {"steady": True, "jit_share": 0.002}}}
    assert table.gc_percent(run) == pytest.approx(2.5)  # 0.25 s of 10 s
    older = {**run, "server": {**run["server"], "window_jit": {"compiled": 3}}}
    assert table.gc_percent(older) is None
    cols = [c.strip() for c in table.row({"contender": "java-virtual", "status": "ok",
                                          "runs": [run, older]}).strip("|").split("|")]
    assert cols[7:9] == ["0.2", "2.5"]  # JIT % of CPU, GC % of the window


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


def test_a_capacity_row_counts_the_searchs_windows_apart_from_its_confirmations():
    table = _load("capacity-table")
    windows = [{"role": "search", "held": True, "offered_per_s": 50000, "p99_ms": 2.0,
                "server_us_per_request": 10.0},
               {"role": "search", "held": False, "offered_per_s": 75000, "p99_ms": 9.0,
                "server_us_per_request": 8.0},
               {"role": "retry", "held": False, "offered_per_s": 75000, "p99_ms": 8.0,
                "server_us_per_request": 8.5},
               {"role": "confirm", "held": True, "offered_per_s": 50000, "p99_ms": 3.0,
                "server_us_per_request": None}]
    cell = {"contender": "go", "status": "ok", "params": {"slo-p99-ms": 5},
            "warnings": ["warm-up did not settle within 30 s"],
            "stats": {"syscalls_read_all_per_request": {"median": 1.0},
                      "syscalls_write_all_per_request": {"median": 1.5},
                      "syscalls_epoll_ctl_per_request": {"median": 0.0},
                      "syscalls_futex_per_request": {"median": 0.25},
                      "ctx_switches_per_request": {"median": 0.125}},
            "runs": [{"wall_s": 100.0, "startup_s": 2.0,
                      "server": {"warmup": {"seconds": 18.0}, "cpu_per_request": {"server_us": 12.5},
                                 "capacity": {"peak_per_s": 100000, "capacity_per_s": 50000,
                                              "windows": windows,
                                              "measured_window": {"held": False,
                                                                  "why": "p99 6 ms"}}}}]}
    assert table.capacity_row(cell) == ["go", "100.0k", "50.0k", "50%", "1/2", "1/1",
                                        "missed: p99 6 ms", "12.5", "2.50, 0.00, 0.25", "0.12",
                                        "unsettled"]
    assert table.curve(cell) == ("50.0k 2.0 ms / 10 µs; 50.0k 3.0 ms; 75.0k 9.0 ms* / 8 µs; "
                                 "75.0k 8.0 ms* / 8 µs")
    assert table.time_spent([cell]) == pytest.approx({"start-ups": 2 / 60, "warm-ups": 18 / 60,
                                                      "the rest": 80 / 60})
