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
