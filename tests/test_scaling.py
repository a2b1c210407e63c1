"""Scaling fits against lines and curves whose costs are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from concbench.resultset.model import CellResult, Iteration, RunResult
from concbench.stats.scaling import fit, fit_linear, loglog_slope, quadratic_p
from concbench.stats.scans import scan_fits

SIZES = [1_000, 10_000, 100_000, 1_000_000]


def _noisy(values, seed=1, rel=0.01):
    rng = np.random.default_rng(seed)
    return [v * (1 + rel * rng.standard_normal()) for v in values]


def test_exact_line_gives_its_slope_and_intercept():
    f = fit_linear([1, 2, 3, 4], [12, 14, 16, 18])
    assert math.isclose(f.slope, 2.0) and math.isclose(f.intercept, 10.0)
    assert f.slope_stderr == pytest.approx(0.0, abs=1e-12) and f.r_squared == pytest.approx(1.0)


def test_slope_standard_error_matches_the_textbook_formula():
    x = [1.0, 2.0, 3.0, 4.0, 5.0]
    y = [2.1, 3.9, 6.2, 7.8, 10.1]
    f = fit_linear(x, y)
    b, a = np.polyfit(x, y, 1)
    resid = np.array(y) - (a + b * np.array(x))
    se = math.sqrt(resid @ resid / 3 / sum((xi - 3) ** 2 for xi in x))
    assert math.isclose(f.slope, b) and math.isclose(f.slope_stderr, se)
    half = 3.182446305284263 * se  # t(0.975, 3)
    assert f.slope_ci95 == pytest.approx((b - half, b + half))


def test_too_few_sizes_cannot_be_fitted():
    assert fit_linear([5, 5, 5], [1, 2, 3]) is None
    assert fit([1], [1]) is None
    two = fit_linear([1, 2], [1, 3])
    assert two.slope == pytest.approx(2.0) and two.slope_stderr is None


def test_linear_growth_with_a_large_fixed_cost_is_not_superlinear():
    sizes = [s for s in SIZES for _ in range(3)]
    costs = _noisy([20e6 + 2_000 * s for s in sizes])  # 20 MB base + 2 KB per task
    f = fit(sizes, costs)
    assert f.linear.slope == pytest.approx(2_000, rel=0.05)
    assert not f.superlinear.flagged, f.superlinear.reason
    assert f.superlinear.loglog_slope == pytest.approx(1.0, abs=0.1)


def test_quadratic_growth_is_flagged():
    sizes = [s for s in SIZES for _ in range(3)]
    costs = _noisy([1e-3 + 1e-12 * s * s for s in sizes], rel=1e-3)
    f = fit(sizes, costs)
    assert f.superlinear.flagged and f.superlinear.assessed
    assert f.superlinear.loglog_slope == pytest.approx(2.0, abs=0.15)
    assert f.superlinear.quadratic_p < 0.05 and f.superlinear.quadratic_share > 0.9
    assert "N²" in f.superlinear.reason


def test_quadratic_test_needs_three_sizes():
    assert quadratic_p([1, 2, 3], [1, 4, 9]) < 1e-6  # three sizes are enough
    assert quadratic_p([1, 1, 2, 2], [1, 1, 4, 4]) is None
    assert loglog_slope([1, 2], [1, 2]) is None


def test_two_sizes_are_not_assessed_never_called_linear():
    f = fit([1_000, 1_000, 10_000, 10_000], [1.0, 1.1, 10.0, 10.2])
    assert not f.superlinear.assessed and not f.superlinear.flagged
    assert "not assessed" in f.superlinear.reason
    assert f.linear.slope_stderr is None  # two independent sizes: no error estimate


def test_slope_error_counts_sizes_not_runs():
    """Ten runs per size add no independent evidence when a cell's runs share its offset."""
    sizes = [s for s in (1_000, 2_000, 3_000) for _ in range(10)]
    offsets = {1_000: 1.02, 2_000: 0.98, 3_000: 1.02}
    costs = [5.0 * s * offsets[s] for s in sizes]
    f = fit_linear(sizes, costs)
    assert f.sizes == 3 and f.n == 30
    medians = fit_linear([1_000, 2_000, 3_000], [5_100.0, 9_800.0, 15_300.0])
    assert f.slope_stderr == pytest.approx(medians.slope_stderr)


def _cell(contender: str, tasks: int, rss: list[int], times: list[float],
          status: str = "ok") -> CellResult:
    runs = tuple(RunResult(status=status, reason=None, wall_s=t + 0.1, startup_s=0.1,
                           peak_rss_bytes=r, peak_threads=4, final_threads=4, cpu_user_s=t,
                           cpu_sys_s=0.0, ctx_voluntary=0, ctx_involuntary=0,
                           iterations=(Iteration(0, False, int(t * 1e9), {}),),
                           marks={"all-spawned": {"elapsed_ns": 1, "rss_bytes": r,
                                                  "threads": 4}})
                 for r, t in zip(rss, times))
    return CellResult("spawn-idle", contender, {"tasks": tasks, "hold-ms": 1000}, status,
                      None, 1.0, None, runs, {})


def test_scan_fits_group_cells_and_fit_memory_per_task():
    cells = [_cell("go", n, [int(10e6 + 2600 * n + d) for d in (-5e4, 0, 5e4)],
                   [1.0 + 1e-7 * n] * 3) for n in (1_000, 10_000, 100_000)]
    cells.append(_cell("rust-tokio", 1_000, [5_000_000] * 3, [1.0] * 3))  # no scan: one size
    fits = scan_fits(cells)
    assert {(f.contender, f.metric) for f in fits} == {("go", "time"), ("go", "memory")}
    mem = next(f for f in fits if f.metric == "memory")
    assert mem.size_param == "tasks" and mem.sizes == (1_000, 10_000, 100_000)
    assert mem.fit.linear.slope == pytest.approx(2600, rel=0.01)
    assert mem.fixed == {"hold-ms": 1000} and mem.unit == "B"


def test_failed_cells_give_no_points():
    cells = [_cell("go", 1_000, [1] * 3, [1.0] * 3),
             _cell("go", 10_000, [2] * 3, [2.0] * 3, status="crash")]
    assert scan_fits(cells) == []
