"""Scaling analysis of scans over a size (tasks, requests, workers …): per-unit cost and
superlinear growth.

The runs of one cell run back to back and share whatever offset that cell had (1–2% seen
here), so they are not independent evidence about the curve: the independent units are the
cells, one per size. Hence:

- Per-unit cost: cost = a + b·N by ordinary least squares over every measurement
  (`scipy.stats.linregress`); b is the cost per unit (bytes per task, seconds per request).
  Its standard error and 95% interval come from the fit over the per-size medians (n = number
  of sizes, Student t with n−2 degrees of freedom), so they are wide with few sizes, as they
  should be; with two sizes there is none.
- Superlinear growth: a weighted least-squares fit of the per-size medians m(N) to
  a + b·N + c·N² (N scaled to its maximum), each median with standard deviation s·m(N), where
  s is the larger of the pooled within-cell coefficient of variation and a floor of 2%
  (the per-cell offset the data cannot show). With known variances the z statistic of c is
  standard normal under linear growth, so the one-sided test (flag when p < 0.05) works from
  three sizes on. Calibrated by a seeded Monte-Carlo test (tests/test_scaling_calibration.py):
  false-positive rate ≤ 7% on linear data with 2% per-cell offsets, power ≥ 0.8 for an N²
  term that makes a quarter of the cost at the largest size. Fewer than three sizes: "not
  assessed".
- The log-log slope k of log(m(N) − m(N₀)) against log(N − N₀) is reported alongside (1 for
  linear growth, about 2 for quadratic), but decides nothing: it has no error estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

SIGNIFICANCE = 0.05
NOISE_FLOOR = 0.02
"""Relative standard deviation assumed at least for a per-size median (per-cell offset)."""


def _stats():
    """scipy.stats, imported on first use (0.5 s): `concbench --help` needs none of it."""
    from scipy import stats

    return stats


@dataclass(frozen=True)
class LinearFit:
    """cost = intercept + slope·N, fitted by least squares."""

    n: int
    """Number of points (measurements) in the fit of the slope."""
    sizes: int
    """Number of distinct sizes N (the independent units of the standard error)."""
    intercept: float
    """a: the fixed cost (at N = 0), in the metric's unit."""
    slope: float
    """b: cost per unit of N (e.g. bytes per task, seconds per request)."""
    slope_stderr: float | None
    """Standard error of b from the per-size medians; None with fewer than 3 sizes."""
    slope_ci95: tuple[float, float] | None
    """b ± t(0.975, sizes−2)·SE(b); None with fewer than 3 sizes."""
    r_squared: float
    """Coefficient of determination of the linear fit."""


@dataclass(frozen=True)
class Superlinearity:
    """The test for growth faster than linear (see the module docstring)."""

    assessed: bool
    """False with fewer than 3 sizes: nothing can be said about the shape."""
    flagged: bool
    """True when the N² term is significantly positive."""
    loglog_slope: float | None
    """k of log(cost − cost₀) ~ k·log N (informative only); None with fewer than 3 sizes."""
    quadratic_p: float | None
    """One-sided p of the N² coefficient being > 0; None when not assessed."""
    quadratic_share: float | None
    """c·N_max² ÷ the median cost at N_max: how much of the largest cost the N² term makes."""
    reason: str
    """Why it is flagged, or why it is not assessed (or an empty string)."""


@dataclass(frozen=True)
class ScalingFit:
    """A linear fit and its superlinearity tests for one metric of one scan."""

    linear: LinearFit
    superlinear: Superlinearity


def _by_size(sizes: Sequence[float], costs: Sequence[float]) -> dict[float, list[float]]:
    found: dict[float, list[float]] = {}
    for s, c in zip(sizes, costs):
        found.setdefault(float(s), []).append(float(c))
    return dict(sorted(found.items()))


def fit_linear(sizes: Sequence[float], costs: Sequence[float]) -> LinearFit | None:
    """Least-squares line through (size, cost) points; None below 2 distinct sizes."""
    x = np.asarray(sizes, dtype=float)
    y = np.asarray(costs, dtype=float)
    groups = _by_size(sizes, costs)
    if len(x) < 2 or len(groups) < 2:
        return None
    res = _stats().linregress(x, y)
    se = ci = None
    if len(groups) >= 3:
        medians = _stats().linregress(list(groups), [float(np.median(v))
                                                        for v in groups.values()])
        se = float(medians.stderr)
        half = float(_stats().t.ppf(0.975, len(groups) - 2)) * se
        ci = (float(res.slope) - half, float(res.slope) + half)
    r2 = float(res.rvalue) ** 2 if not math.isnan(res.rvalue) else 1.0
    return LinearFit(n=len(x), sizes=len(groups), intercept=float(res.intercept),
                     slope=float(res.slope), slope_stderr=se, slope_ci95=ci, r_squared=r2)


def _noise(groups: dict[float, list[float]]) -> float:
    """Relative standard deviation of a per-size median: within-cell CV, at least the floor."""
    cvs = [float(np.std(v, ddof=1) / np.mean(v)) for v in groups.values()
           if len(v) > 1 and np.mean(v) > 0]
    return max(float(np.median(cvs)) if cvs else 0.0, NOISE_FLOOR)


def quadratic_test(sizes: Sequence[float], costs: Sequence[float]
                   ) -> tuple[float, float] | None:
    """(one-sided p that the N² coefficient is positive, its share of the largest cost) from
    the weighted fit of the per-size medians; None below 3 sizes or with a median ≤ 0."""
    groups = _by_size(sizes, costs)
    if len(groups) < 3:
        return None
    x = np.asarray(list(groups), dtype=float)
    y = np.asarray([np.median(v) for v in groups.values()], dtype=float)
    if x.max() <= 0 or (y <= 0).any():
        return None
    xs = x / x.max()
    design = np.column_stack([np.ones_like(xs), xs, xs * xs])
    weights = 1.0 / (_noise(groups) * y) ** 2
    info = design.T @ (design * weights[:, None])
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        return None
    coef = cov @ design.T @ (weights * y)
    se = math.sqrt(max(float(cov[2, 2]), 0.0))
    p = float(_stats().norm.sf(coef[2] / se)) if se > 0 else (0.0 if coef[2] > 0 else 1.0)
    return p, float(coef[2] / y[-1])


def quadratic_p(sizes: Sequence[float], costs: Sequence[float]) -> float | None:
    """One-sided p-value that the N² coefficient is positive (see quadratic_test)."""
    found = quadratic_test(sizes, costs)
    return None if found is None else found[0]


def loglog_slope(sizes: Sequence[float], costs: Sequence[float]) -> float | None:
    """Slope of log(m(N) − m(N₀)) against log(N − N₀) over the per-size medians."""
    by_size: dict[float, list[float]] = {}
    for s, c in zip(sizes, costs):
        by_size.setdefault(float(s), []).append(float(c))
    if len(by_size) < 3:
        return None
    xs = sorted(by_size)
    med = [float(np.median(by_size[s])) for s in xs]
    points = [(x - xs[0], m - med[0]) for x, m in zip(xs[1:], med[1:]) if m > med[0]]
    if len(points) < 2:
        return None
    res = _stats().linregress(np.log([p[0] for p in points]), np.log([p[1] for p in points]))
    return float(res.slope)


def superlinearity(sizes: Sequence[float], costs: Sequence[float]) -> Superlinearity:
    found = quadratic_test(sizes, costs)
    k = loglog_slope(sizes, costs)
    if found is None:
        return Superlinearity(assessed=False, flagged=False, loglog_slope=k, quadratic_p=None,
                              quadratic_share=None,
                              reason="not assessed: needs 3 sizes with positive costs")
    p, share = found
    flagged = p < SIGNIFICANCE and share > 0
    reason = (f"significant positive N² term (p = {p:.3g}; {share:.0%} of the cost at the "
              "largest size)") if flagged else ""
    return Superlinearity(assessed=True, flagged=flagged, loglog_slope=k, quadratic_p=p,
                          quadratic_share=share, reason=reason)


def fit(sizes: Sequence[float], costs: Sequence[float]) -> ScalingFit | None:
    """The linear fit and superlinearity tests; None when the points cannot be fitted."""
    linear = fit_linear(sizes, costs)
    if linear is None:
        return None
    return ScalingFit(linear=linear, superlinear=superlinearity(sizes, costs))
