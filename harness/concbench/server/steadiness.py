"""Whether a measured window caught the server in its steady state, judged on its own figures.

The window is cut into INTERVALS equal intervals of the one continuous load. For requests/s and
for p99, an ordinary least-squares line through the intervals' values gives the change across
the window (fitted last minus fitted first, as a % of the mean) and a two-sided t test of the
slope (n − 2 degrees of freedom). A metric *drifts* when the slope is significant (p < ALPHA)
and the change is larger than its tolerance: 5 % for the rate (server.continuous_run, not the
warm-up's own `warmup-steady-pct`), P99_FACTOR times that for p99, whose intervals hold a hundredth of the responses each and move several
times as much as the rate under the same disturbance. A falling rate drifts as a climbing one
does. Both conditions are needed: a long, quiet window makes a 1 % slope significant, and a
noisy one can show a large change by chance.

The JIT is a diagnostic with a budget, not a verdict by itself: a JVM that still compiles a
method now and then serves at its steady rate (the figure says so); one whose compiler threads
took more than JIT_BUDGET of the server's CPU in the window was measured while compiling, and
the window is unsteady for that reason too. Both verdicts are recorded with their figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

INTERVALS = 10
ALPHA = 0.05
P99_FACTOR = 4.0
JIT_BUDGET = 0.01
"""The most of the server's CPU its JIT compiler threads may use in a steady window."""


@dataclass(frozen=True)
class Trend:
    """A least-squares line through one metric's interval values."""

    metric: str
    values: tuple[float, ...]
    change_pct: float
    """Fitted change from the first interval to the last, % of the mean."""
    p_value: float
    tolerance_pct: float

    @property
    def drifts(self) -> bool:
        return self.p_value < ALPHA and abs(self.change_pct) > self.tolerance_pct

    def describe(self) -> str:
        way = "rose" if self.change_pct > 0 else "fell"
        return (f"{self.metric} {way} {abs(self.change_pct):.0f} % across the window "
                f"(p = {self.p_value:.3g}; tolerance {self.tolerance_pct:g} %)")

    def to_dict(self) -> dict[str, Any]:
        return {"values": [round(v, 4) for v in self.values], "change_pct": self.change_pct,
                "p_value": self.p_value, "tolerance_pct": self.tolerance_pct,
                "drifts": self.drifts}


def trend(metric: str, values: Sequence[float], tolerance_pct: float) -> Trend | None:
    """The line through `values` (one per interval); None with fewer than 3 or a mean of 0."""
    n = len(values)
    mean = sum(values) / n if n else 0.0
    if n < 3 or mean == 0 or not all(math.isfinite(v) for v in values):
        return None
    xs = range(n)
    x_mean = (n - 1) / 2
    sxx = sum((x - x_mean) ** 2 for x in xs)
    slope = sum((x - x_mean) * (y - mean) for x, y in zip(xs, values)) / sxx
    residuals = [y - (mean + slope * (x - x_mean)) for x, y in zip(xs, values)]
    sse = sum(r * r for r in residuals)
    if sse == 0:
        p = 0.0 if slope != 0 else 1.0
    else:
        from scipy.special import stdtr

        t = slope / math.sqrt(sse / (n - 2) / sxx)
        p = float(2 * stdtr(n - 2, -abs(t)))
    change = 100.0 * slope * (n - 1) / mean
    return Trend(metric, tuple(values), round(change, 2), p, tolerance_pct)


@dataclass(frozen=True)
class Steadiness:
    """The measured window's own verdict."""

    rate: Trend | None
    p99: Trend | None
    jit_share: float | None
    """The JIT compiler threads' CPU ÷ the server's CPU in the window (None: no JIT)."""

    @property
    def jit_over_budget(self) -> bool:
        return self.jit_share is not None and self.jit_share > JIT_BUDGET

    @property
    def reasons(self) -> list[str]:
        found = [t.describe() for t in (self.rate, self.p99) if t is not None and t.drifts]
        if self.jit_over_budget:
            assert self.jit_share is not None
            found.append(f"the JIT's compiler threads used {self.jit_share:.1%} of the "
                         f"server's CPU (budget {JIT_BUDGET:.0%})")
        return found

    @property
    def steady(self) -> bool:
        return not self.reasons

    def to_dict(self) -> dict[str, Any]:
        return {"steady": self.steady, "intervals": INTERVALS, "alpha": ALPHA,
                "rate": self.rate.to_dict() if self.rate else None,
                "p99": self.p99.to_dict() if self.p99 else None,
                "jit_share": self.jit_share, "jit_budget": JIT_BUDGET,
                "reasons": self.reasons}


def judge(rates: Sequence[float], p99s: Sequence[float | None], tolerance_pct: float,
          jit_share: float | None) -> Steadiness:
    """The verdict from the intervals' ok responses per second and p99s (ms)."""
    finite = [p for p in p99s if p is not None and math.isfinite(p)]
    p99 = trend("p99", finite, P99_FACTOR * tolerance_pct) if len(finite) == len(p99s) \
        else None
    return Steadiness(trend("requests/s", rates, tolerance_pct), p99, jit_share)
