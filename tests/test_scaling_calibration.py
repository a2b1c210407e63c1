"""Monte-Carlo calibration of the superlinearity test (concbench.stats.scaling), seeded.

The data look like a scan's: three sizes a decade apart, three runs per cell, each cell's runs
sharing an offset of 2% (relative standard deviation) and varying 0.5% among themselves.
- linear growth: flagged at most 7% of the time (the test's nominal level is 5%);
- an N² term making a quarter of the cost at the largest size, with a fixed part of at most a
  fifth of it (spawn-idle memory: the runtime's baseline is small next to a million tasks):
  found at least 80% of the time. The power falls as the fixed part grows, because the small
  sizes' increments drown in its noise: about 40% with half the cost fixed, about 20% with
  nine tenths (a time scan dominated by a fixed wait); docs/measurement.md says so.
"""

from __future__ import annotations

import numpy as np
import pytest

from concbench.stats.scaling import superlinearity

pytestmark = pytest.mark.middle  # 5000 simulated scans: seconds of CPU, not a unit test

SIZES = (10_000, 100_000, 1_000_000)
TRIALS = 1000


def _scan(rng: np.random.Generator, quad_share: float, fixed_share: float,
          offset: float = 0.02, within: float = 0.005, runs: int = 3):
    n_max = SIZES[-1]
    c = quad_share / n_max**2
    b = (1.0 - fixed_share - quad_share) / n_max
    xs, ys = [], []
    for n in SIZES:
        true = fixed_share + b * n + c * n * n
        shared = 1 + rng.normal(0, offset)
        for noise in rng.normal(0, within, runs):
            xs.append(n)
            ys.append(true * shared * (1 + noise))
    return xs, ys


def _rate(seed: int, quad_share: float, fixed_share: float) -> float:
    rng = np.random.default_rng(seed)
    flagged = sum(superlinearity(*_scan(rng, quad_share, fixed_share)).flagged
                  for _ in range(TRIALS))
    return flagged / TRIALS


def test_false_positive_rate_on_linear_scans_is_at_most_7_percent():
    for fixed_share in (0.05, 0.5, 0.9):  # from cost all per-task to mostly fixed
        rate = _rate(11, 0.0, fixed_share)
        assert rate <= 0.07, (fixed_share, rate)


def test_power_for_a_quarter_of_the_cost_in_the_square_term_is_at_least_80_percent():
    for fixed_share in (0.05, 0.2):
        rate = _rate(12, 0.25, fixed_share)
        assert rate >= 0.80, (fixed_share, rate)
