"""Scaling analysis of scans over a size (tasks, requests, workers …): per-unit cost and
superlinear growth.

Methods:

- Linear fit cost = a + b·N by ordinary least squares over every measurement (one point per
  run or iteration, not per median, so the spread enters the uncertainty), with
  `scipy.stats.linregress`. b is the per-unit cost (bytes per task, seconds per request);
  its standard error is linregress's `stderr` and its 95% confidence interval is
  b ± t(0.975, n−2)·SE(b) (Student t with n−2 degrees of freedom).
- Superlinear growth is flagged when either test says so:
  1. quadratic term: fit cost = a + b·N + c·N² by least squares (numpy.linalg.lstsq on the
     design matrix [1, N, N²], N scaled to its maximum for conditioning); c is significantly
     positive when its one-sided t-test p = 1 − F_t(c / SE(c); n−3) is below 0.05, where
     SE(c) comes from σ̂²·(XᵀX)⁻¹ (the classical OLS covariance). Needs 3 distinct sizes
     and at least 4 points.
  2. log-log slope of the increments: with N₀ the smallest size and m(N) the median cost at
     N, the least-squares slope k of log(m(N) − m(N₀)) against log(N − N₀) over the larger
     sizes (removing the fixed cost a, which would otherwise pull k below 1); k = 1 for
     linear growth, about 2 for quadratic; flagged when k > 1.1. Needs 3 distinct sizes
     with growing medians.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats as scipy_stats

SUPERLINEAR_SLOPE = 1.1
SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class LinearFit:
    """cost = intercept + slope·N, fitted by least squares."""

    n: int
    """Number of points (measurements) in the fit."""
    sizes: int
    """Number of distinct sizes N."""
    intercept: float
    """a: the fixed cost (at N = 0), in the metric's unit."""
    slope: float
    """b: cost per unit of N (e.g. bytes per task, seconds per request)."""
    slope_stderr: float | None
    """Standard error of b; None with fewer than 3 points."""
    slope_ci95: tuple[float, float] | None
    """b ± t(0.975, n−2)·SE(b); None with fewer than 3 points."""
    r_squared: float
    """Coefficient of determination of the linear fit."""


@dataclass(frozen=True)
class Superlinearity:
    """The two tests for growth faster than linear (see the module docstring)."""

    flagged: bool
    """True when either test finds superlinear growth."""
    loglog_slope: float | None
    """k of log(cost − cost₀) ~ k·log N; None with fewer than 3 distinct sizes."""
    quadratic_p: float | None
    """One-sided p of the quadratic coefficient being > 0; None when it cannot be fitted."""
    reason: str
    """Why it is flagged (or an empty string)."""


@dataclass(frozen=True)
class ScalingFit:
    """A linear fit and its superlinearity tests for one metric of one scan."""

    linear: LinearFit
    superlinear: Superlinearity


def fit_linear(sizes: Sequence[float], costs: Sequence[float]) -> LinearFit | None:
    """Least-squares line through (size, cost) points; None below 2 distinct sizes."""
    x = np.asarray(sizes, dtype=float)
    y = np.asarray(costs, dtype=float)
    distinct = len(set(x.tolist()))
    if len(x) < 2 or distinct < 2:
        return None
    res = scipy_stats.linregress(x, y)
    se = ci = None
    if len(x) >= 3:
        se = float(res.stderr)
        half = float(scipy_stats.t.ppf(0.975, len(x) - 2)) * se
        ci = (float(res.slope) - half, float(res.slope) + half)
    r2 = float(res.rvalue) ** 2 if not math.isnan(res.rvalue) else 1.0
    return LinearFit(n=len(x), sizes=distinct, intercept=float(res.intercept),
                     slope=float(res.slope), slope_stderr=se, slope_ci95=ci, r_squared=r2)


def quadratic_p(sizes: Sequence[float], costs: Sequence[float]) -> float | None:
    """One-sided p-value that the N² coefficient is positive (OLS t-test)."""
    x = np.asarray(sizes, dtype=float)
    y = np.asarray(costs, dtype=float)
    if len(set(x.tolist())) < 3 or len(x) < 4 or x.max() <= 0:
        return None
    xs = x / x.max()
    design = np.column_stack([np.ones_like(xs), xs, xs * xs])
    coef, _, rank, _ = np.linalg.lstsq(design, y, rcond=None)
    if rank < 3:
        return None
    dof = len(x) - 3
    resid = y - design @ coef
    sigma2 = float(resid @ resid) / dof
    cov = sigma2 * np.linalg.inv(design.T @ design)
    se = math.sqrt(max(float(cov[2, 2]), 0.0))
    if se == 0.0:
        return 0.0 if coef[2] > 0 else 1.0
    return float(scipy_stats.t.sf(coef[2] / se, dof))


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
    res = scipy_stats.linregress(np.log([p[0] for p in points]), np.log([p[1] for p in points]))
    return float(res.slope)


def superlinearity(sizes: Sequence[float], costs: Sequence[float]) -> Superlinearity:
    k = loglog_slope(sizes, costs)
    p = quadratic_p(sizes, costs)
    reasons = []
    if p is not None and p < SIGNIFICANCE:
        reasons.append(f"significant positive N² term (p = {p:.3g})")
    if k is not None and k > SUPERLINEAR_SLOPE:
        reasons.append(f"log-log slope {k:.2f} > {SUPERLINEAR_SLOPE}")
    return Superlinearity(flagged=bool(reasons), loglog_slope=k, quadratic_p=p,
                          reason="; ".join(reasons))


def fit(sizes: Sequence[float], costs: Sequence[float]) -> ScalingFit | None:
    """The linear fit and superlinearity tests; None when the points cannot be fitted."""
    linear = fit_linear(sizes, costs)
    if linear is None:
        return None
    return ScalingFit(linear=linear, superlinear=superlinearity(sizes, costs))
