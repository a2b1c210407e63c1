"""How sure concbench is: every interval and verdict of `run`'s tables, the summary's ranks,
`compare`, baselines and history comes from here.

**The process is the unit.** Iterations of one process share its JIT state, heap layout, CPU
placement and the host's phase of the moment, so they are not independent samples of the
contender: pooling them shrinks an interval until a machine phase looks like an effect.
Following Kalibera & Jones ("Rigorous Benchmarking in Reasonable Time", ISMM 2013), a figure's
sample is one value per process (the process's geometric mean of its iterations for times,
its own window for a server's figures), and the variance of the grand mean is the variance
between those process means divided by their number: it holds the within-process noise
(divided by the iterations) and the between-process noise, whichever dominates. Their
variance components (`two_level`) say where more repetitions would narrow the interval: more
processes when the between-process part dominates, more iterations when the within part does.

- A cell's interval (`process_interval`): Student-t 95 % interval of the mean of the process
  means, n_processes − 1 degrees of freedom; none with one process.
- Two samples (`ratio_test`): the ratio of geometric means with its Welch 95 % interval on the
  logarithms of the per-process values (Welch, 1947); Mann–Whitney's U on the values with
  `test="mann-whitney"`. A sample with a value ≤ 0 has no logarithm: the ratio of medians and
  Mann–Whitney's p. Fewer than 2 processes on a side: a ratio, no interval, never a verdict.
- Two cells of one interleaved plan (`paired_ratio_test`): when they share PAIRED_ROUNDS
  rounds or more, round by round. A host that changes speed in phases slows both runs of a
  round alike, and their ratio cancels it; the interval and the paired t-test are on the
  logarithms of the rounds' ratios, rounds − 1 degrees of freedom (randomized multiple
  interleaved trials: Abedi & Brecht, "Conducting Repeatable Experiments in Highly Variable
  Cloud Computing Environments", ICPE 2017). Two result sets (`compare`) cannot be paired:
  their rounds are different runs.
- Many tests at once (`fdr_limit`): the Benjamini–Hochberg step-up procedure (1995) over the
  family's p-values gives the largest p still called significant, so that of the differences
  called significant at most ALPHA are expected to be false, whatever the family's size.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

ALPHA = 0.05
TESTS = ("welch", "mann-whitney")
PAIRED_ROUNDS = 5
"""Rounds two cells must share to be compared round by round: 4 degrees of freedom (t = 2.78,
against Welch's 2.31 on five processes a side), fewer than a host's phases usually cost an
unpaired test here (docs/measurement.md, "Calibration"); with fewer rounds, unpaired."""


def _stats():
    """scipy.stats, imported on first use (0.5 s): `concbench --help` needs none of it."""
    from scipy import stats

    return stats


def t_975(df: float) -> float:
    """Student's t quantile t(0.975, df), from scipy.special (stdtrit: the same values as
    scipy.stats.t.ppf, in a third of its import time)."""
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.975))


# -- one cell ---------------------------------------------------------------------------------


def geometric_mean(values: Sequence[float]) -> float:
    """The geometric mean of positive values; the median when some value is ≤ 0."""
    if min(values) <= 0:
        return statistics.median(values)
    return math.exp(statistics.fmean(math.log(v) for v in values))


def process_values(groups: Iterable[Sequence[float]]) -> list[float]:
    """One value per process: the geometric mean of its measurements (empty ones skipped)."""
    return [geometric_mean(g) for g in groups if len(g)]


def process_interval(groups: Sequence[Sequence[float]]) -> tuple[float, float] | None:
    """The 95 % interval of the mean over processes of each process's mean; None with fewer
    than 2 processes."""
    means = [statistics.fmean(g) for g in groups if len(g)]
    if len(means) < 2:
        return None
    centre = statistics.fmean(means)
    half = t_975(len(means) - 1) * statistics.stdev(means) / math.sqrt(len(means))
    return centre - half, centre + half


@dataclass(frozen=True)
class TwoLevel:
    """Kalibera & Jones's variance components of a balanced two-level sample."""

    processes: int
    iterations: int
    """Per process (the smallest count when they differ)."""
    between: float
    """S1²: the sample variance of the process means."""
    within: float
    """S2²: the mean of the processes' own sample variances (0 with one iteration each)."""

    @property
    def between_only(self) -> float:
        """T1² = S1² − S2²/m: the variance the processes add beyond their iterations' noise
        (0 when the iterations explain it all)."""
        return max(0.0, self.between - self.within / self.iterations)

    @property
    def process_share(self) -> float | None:
        """The share of the grand mean's variance that more processes would reduce and more
        iterations would not: T1² ÷ S1² (None when S1² is 0)."""
        return self.between_only / self.between if self.between > 0 else None

    def to_dict(self) -> dict[str, float | int | None]:
        return {"processes": self.processes, "iterations": self.iterations,
                "between": self.between, "within": self.within,
                "process_share": self.process_share}


def two_level(groups: Sequence[Sequence[float]]) -> TwoLevel | None:
    """The variance components over processes with measurements; None with fewer than 2."""
    kept = [list(g) for g in groups if len(g)]
    if len(kept) < 2:
        return None
    means = [statistics.fmean(g) for g in kept]
    within = [statistics.variance(g) for g in kept if len(g) > 1]
    return TwoLevel(len(kept), min(len(g) for g in kept), statistics.variance(means),
                    statistics.fmean(within) if within else 0.0)


# -- two samples ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RatioTest:
    """The comparison of two samples of one metric, one value per process on each side."""

    base_median: float
    new_median: float
    ratio: float
    """Ratio of geometric means, new / base."""
    ci95: tuple[float, float] | None
    """Welch 95% interval of the ratio; None with fewer than 2 processes on a side."""
    p_value: float | None
    """Two-sided p of the chosen test; None when it cannot be computed."""
    significant: bool
    """p at most the family's limit (ALPHA alone; fdr_limit over many tests)."""
    n_base: int
    n_new: int

    def at(self, p_limit: float) -> "RatioTest":
        """The same test judged at another limit (a family's Benjamini–Hochberg limit)."""
        return replace(self, significant=self.p_value is not None
                       and min(self.n_base, self.n_new) >= 2 and self.p_value <= p_limit)


def _welch(lb: list[float], ln: list[float]) -> tuple[float, float, float]:
    """Difference of means of logs, its standard error and Welch–Satterthwaite ν."""
    d = statistics.fmean(ln) - statistics.fmean(lb)
    vb, vn = statistics.variance(lb) / len(lb), statistics.variance(ln) / len(ln)
    se = math.sqrt(vb + vn)
    if se == 0:
        return d, 0.0, float(len(lb) + len(ln) - 2)
    nu = (vb + vn) ** 2 / (vb ** 2 / (len(lb) - 1) + vn ** 2 / (len(ln) - 1))
    return d, se, nu


def _mann_whitney(base: Sequence[float], new: Sequence[float]) -> float:
    if sorted(base) == sorted(new):
        return 1.0
    return float(_stats().mannwhitneyu(new, base, alternative="two-sided").pvalue)


def _without_logs(base: Sequence[float], new: Sequence[float]) -> RatioTest:
    """Ratio of medians and Mann–Whitney's p, for samples with values ≤ 0 (see above)."""
    mb, mn = statistics.median(base), statistics.median(new)
    ratio = mn / mb if mb > 0 else (1.0 if mn == mb else math.inf)
    p = _mann_whitney(base, new) if len(base) >= 2 and len(new) >= 2 else None
    return RatioTest(mb, mn, ratio, None, p, p is not None and p < ALPHA, len(base), len(new))


def ratio_test(base: Sequence[float], new: Sequence[float], test: str = "welch") -> RatioTest:
    """NEW against BASE, each a sample of per-process values (process_values)."""
    if min(base) <= 0 or min(new) <= 0:
        return _without_logs(base, new)
    lb = [math.log(v) for v in base]
    ln = [math.log(v) for v in new]
    ratio = math.exp(statistics.fmean(ln) - statistics.fmean(lb))
    medians = (statistics.median(base), statistics.median(new))
    if len(lb) < 2 or len(ln) < 2:
        return RatioTest(*medians, ratio, None, None, False, len(lb), len(ln))
    d, se, nu = _welch(lb, ln)
    if se == 0:
        p = 1.0 if d == 0 else 0.0
        ci = (ratio, ratio)
    else:
        half = float(_stats().t.ppf(0.975, nu)) * se
        ci = (math.exp(d - half), math.exp(d + half))
        p = float(2 * _stats().t.sf(abs(d) / se, nu))
    if test == "mann-whitney":  # on the values: ranks need no logarithm, which could tie them
        p = _mann_whitney(base, new)
    return RatioTest(*medians, ratio, ci, p, p < ALPHA, len(lb), len(ln))


def paired_ratio_test(pairs: Sequence[tuple[float, float]]) -> RatioTest:
    """NEW against BASE from (base, new) values of the same rounds of one interleaved plan
    (one value per process): the geometric mean of the rounds' ratios, its Student-t 95 %
    interval on their logarithms and the paired t-test's p. Values ≤ 0 have no logarithm:
    the unpaired ratio_test of the two sides (medians, Mann–Whitney)."""
    base, new = [b for b, _ in pairs], [n for _, n in pairs]
    if len(pairs) < 2 or min(base) <= 0 or min(new) <= 0:
        return ratio_test(base, new)
    logs = [math.log(n / b) for b, n in pairs]
    d = statistics.fmean(logs)
    se = statistics.stdev(logs) / math.sqrt(len(logs))
    ratio = math.exp(d)
    if se == 0:
        p, ci = (1.0 if d == 0 else 0.0), (ratio, ratio)
    else:
        half = t_975(len(logs) - 1) * se
        ci = (math.exp(d - half), math.exp(d + half))
        p = float(2 * _stats().t.sf(abs(d) / se, len(logs) - 1))
    return RatioTest(statistics.median(base), statistics.median(new), ratio, ci, p, p < ALPHA,
                     len(base), len(new))


# -- many tests -------------------------------------------------------------------------------


def fdr_limit(p_values: Iterable[float | None], alpha: float = ALPHA) -> float:
    """Benjamini–Hochberg: the largest p_(k) with p_(k) ≤ k/m · alpha over the m p-values of
    the family (sorted); a test is significant when its p is at most this. 0.0 when none is
    (no p is at or below 0, so nothing passes)."""
    ps = sorted(p for p in p_values if p is not None)
    m = len(ps)
    limit = 0.0
    for k, p in enumerate(ps, start=1):
        if p <= k / m * alpha:
            limit = p
    return limit
