"""Statistics against values worked out by hand."""

from __future__ import annotations

import math

from concbench.stats.summary import summarize


def test_summary_of_a_known_sample():
    s = summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert (s.n, s.median, s.min, s.max) == (5, 3.0, 1.0, 100.0)
    assert s.mean == 22.0
    assert math.isclose(s.stddev, math.sqrt(sum((x - 22) ** 2 for x in [1, 2, 3, 4, 100]) / 4))
    assert s.mad == 1.0  # |x - 3| = 2,1,0,1,97 → median 1
    half = 2.7764451051977987 * s.stddev / math.sqrt(5)  # t(0.975, 4)
    assert math.isclose(s.ci95[0], 22 - half) and math.isclose(s.ci95[1], 22 + half)
    assert math.isclose(s.cv, s.stddev / 22)
    assert s.outliers == (100.0,)


def test_summary_of_one_value_has_no_interval():
    s = summarize([0.5])
    assert s.n == 1 and s.median == 0.5 and s.ci95 is None and s.cv is None


def test_summary_of_nothing_is_none():
    assert summarize([]) is None


def test_identical_values_have_no_outliers():
    s = summarize([2.0, 2.0, 2.0])
    assert s.mad == 0 and s.outliers == () and s.cv == 0
