"""Every statistic checked against scipy/numpy on random samples (hypothesis): ties, constant
samples, n = 2…30, zeros. A differential test: the same question asked of a second,
independent implementation must give the same answer."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from concbench.compare import ratio_test
from concbench.stats.summary import summarize

# positive measurements, with ties and constants likely: drawn from a small grid sometimes
values = st.one_of(st.floats(min_value=1e-6, max_value=1e6, allow_nan=False,
                             allow_infinity=False),
                   st.sampled_from([1.0, 2.0, 2.5, 10.0]))
samples = st.lists(values, min_size=2, max_size=30)
with_zeros = st.lists(st.one_of(values, st.just(0.0)), min_size=2, max_size=30)


def close(a: float, b: float, rel: float = 1e-9, scale: float = 1.0) -> bool:
    """Equal to rel; values near 0 compared on the data's own scale (numpy's two-pass
    variance of a constant sample is ~1e-16 of its mean, the exact answer 0)."""
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-9 * max(1.0, abs(scale)))


@settings(max_examples=300, deadline=None)
@given(samples)
def test_summary_matches_numpy_and_scipy(xs):
    s = summarize(xs)
    arr = np.asarray(xs)
    assert s.n == len(xs) and s.min == arr.min() and s.max == arr.max()
    assert close(s.median, float(np.median(arr)))
    assert close(s.mean, float(np.mean(arr)), 1e-12)
    scale = float(np.mean(arr))
    assert close(s.stddev, float(np.std(arr, ddof=1)), 1e-7, scale)
    assert close(s.mad, float(scipy_stats.median_abs_deviation(arr, scale=1.0)))
    lo, hi = scipy_stats.t.interval(0.95, len(xs) - 1, loc=np.mean(arr),
                                    scale=scipy_stats.sem(arr)) \
        if np.std(arr) > 0 else (np.mean(arr), np.mean(arr))
    assert close(s.ci95[0], float(lo), 1e-7, scale) and close(s.ci95[1], float(hi), 1e-7, scale)
    assert close(s.cv, float(np.std(arr, ddof=1) / np.mean(arr)), 1e-7)  # cv is relative


@settings(max_examples=200, deadline=None)
@given(with_zeros)
def test_zeros_give_defined_summaries(xs):
    s = summarize(xs)
    assert s.n == len(xs) and not math.isnan(s.median) and not math.isnan(s.stddev)
    if s.mean == 0:
        assert s.cv is None


# hypothesis draws nearly equal samples on purpose; scipy (the reference) then warns of its own
# precision loss, and the comparison below still holds to 1e-6
@pytest.mark.filterwarnings("ignore:Precision loss occurred in moment calculation:RuntimeWarning")
@settings(max_examples=300, deadline=None)
@given(samples, samples)
def test_welch_on_logs_matches_scipy(base, new):
    t = ratio_test(base, new)
    lb, ln = np.log(base), np.log(new)
    assert close(t.ratio, float(np.exp(ln.mean() - lb.mean())), 1e-9)
    if np.var(lb) == 0 and np.var(ln) == 0:
        assert t.p_value == (1.0 if np.isclose(ln.mean(), lb.mean(), rtol=0, atol=0) else 0.0)
        return
    ref = scipy_stats.ttest_ind(ln, lb, equal_var=False)
    assert close(t.p_value, float(ref.pvalue), 1e-6)
    ci = ref.confidence_interval(0.95)
    assert close(t.ci95[0], math.exp(ci.low), 1e-6) and close(t.ci95[1], math.exp(ci.high), 1e-6)
    assert t.significant == (ref.pvalue < 0.05)


@settings(max_examples=200, deadline=None)
@given(samples, samples)
def test_mann_whitney_matches_scipy(base, new):
    t = ratio_test(base, new, "mann-whitney")
    if sorted(base) == sorted(new):
        assert t.p_value == 1.0
        return
    ref = scipy_stats.mannwhitneyu(new, base, alternative="two-sided")
    assert close(t.p_value, float(ref.pvalue), 1e-9)


@settings(max_examples=200, deadline=None)
@given(samples, samples, st.floats(min_value=1e-3, max_value=1e3))
def test_a_ratio_does_not_depend_on_the_unit(base, new, scale):
    """Seconds or milliseconds, bytes or MiB: the same ratio, interval and p."""
    a = ratio_test(base, new)
    b = ratio_test([x * scale for x in base], [x * scale for x in new])
    assert close(a.ratio, b.ratio, 1e-9) and a.significant == b.significant
    if a.p_value not in (0.0, 1.0):
        assert close(a.p_value, b.p_value, 1e-6)


@settings(max_examples=200, deadline=None)
@given(with_zeros, with_zeros)
def test_zeros_in_a_comparison_give_an_answer_not_an_exception(base, new):
    t = ratio_test(base, new)
    assert t.n_base == len(base) and t.n_new == len(new)
    assert t.ratio >= 0 and (t.p_value is None or 0 <= t.p_value <= 1)
    if min(base) <= 0 or min(new) <= 0:
        assert t.ci95 is None
        mb, mn = statistics.median(base), statistics.median(new)
        if mb > 0:
            assert close(t.ratio, mn / mb)


def test_constant_equal_samples_are_not_significant():
    t = ratio_test([2.0, 2.0, 2.0], [2.0, 2.0, 2.0])
    assert t.ratio == 1.0 and t.p_value == 1.0 and not t.significant


def test_a_single_measurement_is_never_significant():
    t = ratio_test([1.0], [2.0, 2.1])
    assert t.ci95 is None and not t.significant


@pytest.mark.parametrize("n", [2, 3, 5, 30])
def test_ci_covers_the_mean_at_its_nominal_rate(n):
    """The t interval of summarize covers the true mean about 95% of the time (seeded)."""
    rng = np.random.default_rng(n)
    hits = sum(lo <= 10.0 <= hi for lo, hi in
               (summarize(list(rng.normal(10.0, 2.0, n))).ci95 for _ in range(2000)))
    assert 0.93 <= hits / 2000 <= 0.97
