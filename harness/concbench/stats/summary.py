"""Descriptive statistics of a sample of measurements.

- median, mean, sample standard deviation (n-1), min, max;
- MAD: the raw median absolute deviation from the median (not scaled by 1.4826);
- ci95: Student-t 95% confidence interval of the mean, mean ± t(0.975, n-1)·s/√n
  (None below n = 2), over the values when each is one process; when the values are several
  per process (iterations), over the process means instead (`processes`, the process as the
  unit: concbench.stats.inference), None with one process;
- cv: coefficient of variation s / mean (None when the mean is 0 or n < 2);
- outliers: values whose modified z-score 0.6745·|x − median| / MAD exceeds 3.5
  (Iglewicz and Hoaglin, 1993); only from 5 values on, below that MAD says too little.
"""

from __future__ import annotations

import math
import statistics
from typing import Sequence

from concbench.resultset.model import Summary
from concbench.stats.inference import process_interval, t_975

OUTLIER_Z = 3.5
OUTLIER_MIN_N = 5


def summarize(values: Sequence[float],
              processes: Sequence[Sequence[float]] | None = None) -> Summary | None:
    """`processes`: the same values grouped by the process that measured them, when a process
    measured several: the interval is then over the process means."""
    if not values:
        return None
    xs = [float(v) for v in values]
    n = len(xs)
    median = statistics.median(xs)
    mean = statistics.fmean(xs)
    stddev = statistics.stdev(xs) if n > 1 else 0.0
    mad = statistics.median(abs(x - median) for x in xs)
    ci95 = None
    if processes is not None:
        ci95 = process_interval(processes)
    elif n > 1:
        half = t_975(n - 1) * stddev / math.sqrt(n)
        ci95 = (mean - half, mean + half)
    cv = stddev / mean if n > 1 and mean != 0 else None
    outliers: tuple[float, ...] = ()
    if mad > 0 and n >= OUTLIER_MIN_N:
        outliers = tuple(x for x in xs if 0.6745 * abs(x - median) / mad > OUTLIER_Z)
    return Summary(n=n, median=median, mean=mean, stddev=stddev, min=min(xs), max=max(xs),
                   mad=mad, ci95=ci95, cv=cv, outliers=outliers,
                   processes=sum(1 for g in processes if len(g)) if processes is not None
                   else None)
