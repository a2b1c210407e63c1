"""The scaling table: per-unit cost from the fits of concbench.stats.scans, as plain strings
shared by the terminal, HTML and Markdown."""

from __future__ import annotations

import math
from typing import Iterable

from concbench.report import units
from concbench.resultset.model import CellResult
from concbench.stats.scans import ScanFit, scan_fits

HEADERS = ("contender", "parameters", "metric", "per-unit cost", "± SE", "95% CI",
           "fixed part", "R²", "sizes", "growth")

_SINGULAR = {"tasks": "task", "requests": "request", "workers": "worker",
             "connections": "connection", "events": "event"}


def per(param: str) -> str:
    return _SINGULAR.get(param, param)


METRIC_NAMES = {"memory": "memory", "time": "time",
                "server_rss": "server RSS (window peak)",
                "server_threads": "server threads (window peak)"}
"""The metric column: a server scan fits its window's figures (stats.scans)."""


def _fmt(value: float, unit: str) -> str:
    """Sizes as usual; counts with three significant digits; times with three significant
    digits down to nanoseconds."""
    if math.isnan(value):
        return "—"
    if unit == "threads":
        return f"{value:.3g}"
    if unit == "B":
        return units.size(value)
    if abs(value) >= 1e-3:
        return units.seconds(value)
    if abs(value) >= 1e-6:
        return f"{value * 1e6:.3g} µs"
    return f"{value * 1e9:.3g} ns"


def row(f: ScanFit) -> tuple[str, ...]:
    lin = f.fit.linear
    unit = f"/{per(f.size_param)}"
    fixed = ", ".join(f"{k}={v}" for k, v in f.fixed.items())
    metric = METRIC_NAMES.get(f.metric, f.metric)
    exact = lin.r_squared == 1.0 and lin.slope_stderr is not None and math.isnan(lin.slope_stderr)
    # scipy gives no standard error when every point lies on the line (e.g. a constant
    # thread count): the fit is exact there, its error 0
    se = "± 0 (exact)" if exact else \
        f"± {_fmt(lin.slope_stderr, f.unit)}" if lin.slope_stderr is not None else "—"
    ci = "—" if exact or not lin.slope_ci95 else \
        f"{_fmt(lin.slope_ci95[0], f.unit)} … {_fmt(lin.slope_ci95[1], f.unit)}"
    sup = f.fit.superlinear
    growth = f"superlinear: {sup.reason}" if sup.flagged else \
        "linear" if sup.assessed else "not assessed (2 sizes)"
    return (f.contender, fixed, metric, _fmt(lin.slope, f.unit) + unit, se, ci,
            _fmt(lin.intercept, f.unit), f"{lin.r_squared:.3f}",
            ", ".join(f"{s:,}" for s in f.sizes), growth)


def rows(fits: list[ScanFit] | tuple[ScanFit, ...]) -> list[tuple[str, ...]]:
    return [row(f) for f in fits]


def warnings(fits: list[ScanFit] | tuple[ScanFit, ...]) -> list[str]:
    """One warning per superlinear fit, saying what to do next, and one per scan whose
    server held fewer connections than asked (the sizes it was fitted at overstate them)."""
    found = [f"{f.workload} / {f.contender}: {METRIC_NAMES.get(f.metric, f.metric)} grows "
             f"faster than linearly in {f.size_param} ({f.fit.superlinear.reason}); the "
             f"per-{per(f.size_param)} cost is not constant: compare sizes rather than quoting "
             "one figure" for f in fits if f.fit.superlinear.flagged]
    seen = set()
    for f in fits:
        scan = (f.workload, f.contender, repr(sorted(f.fixed.items())))
        if f.notes and scan not in seen:
            seen.add(scan)
            found.append(f"{f.workload} / {f.contender}: fewer connections held than asked "
                         f"({'; '.join(f.notes)}): the per-connection figures are fitted at "
                         "the sizes asked, so they understate the cost per connection held")
    return found


def markdown(cells: Iterable[CellResult], workload: str) -> list[str]:
    """The fits of one workload's scans as a Markdown section (results.md); none without a
    scan."""
    fits = [f for f in scan_fits(cells) if f.workload == workload]
    if not fits:
        return []
    lines = [f"#### Scaling over {fits[0].size_param}: cost = a + b·N (least squares)", "",
             "| " + " | ".join(HEADERS) + " |", "|" + "|".join("---" for _ in HEADERS) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows(fits)]
    found = warnings(fits)
    return lines + [""] + [f"- {w}" for w in found] + ([""] if found else [])
