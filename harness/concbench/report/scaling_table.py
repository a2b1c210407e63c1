"""The scaling table: per-unit cost from the fits of concbench.stats.scans, as plain strings
shared by the terminal, HTML and Markdown."""

from __future__ import annotations

from concbench.report import units
from concbench.stats.scans import ScanFit

HEADERS = ("contender", "parameters", "metric", "per-unit cost", "± SE", "95% CI",
           "fixed part", "R²", "sizes", "growth")

_SINGULAR = {"tasks": "task", "requests": "request", "workers": "worker",
             "connections": "connection", "events": "event"}


def per(param: str) -> str:
    return _SINGULAR.get(param, param)


def _fmt(value: float, unit: str) -> str:
    """Sizes as usual; times with three significant digits down to nanoseconds."""
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
    metric = "memory" if f.metric == "memory" else "time"
    se = f"± {_fmt(lin.slope_stderr, f.unit)}" if lin.slope_stderr is not None else "—"
    ci = (f"{_fmt(lin.slope_ci95[0], f.unit)} … {_fmt(lin.slope_ci95[1], f.unit)}"
          if lin.slope_ci95 else "—")
    sup = f.fit.superlinear
    growth = f"superlinear: {sup.reason}" if sup.flagged else \
        "linear" if sup.assessed else "not assessed (2 sizes)"
    return (f.contender, fixed, metric, _fmt(lin.slope, f.unit) + unit, se, ci,
            _fmt(lin.intercept, f.unit), f"{lin.r_squared:.3f}",
            ", ".join(f"{s:,}" for s in f.sizes), growth)


def rows(fits: list[ScanFit] | tuple[ScanFit, ...]) -> list[tuple[str, ...]]:
    return [row(f) for f in fits]


def warnings(fits: list[ScanFit] | tuple[ScanFit, ...]) -> list[str]:
    """One warning per superlinear fit, saying what to do next."""
    return [f"{f.workload} / {f.contender}: {f.metric} grows faster than linearly in "
            f"{f.size_param} ({f.fit.superlinear.reason}); the per-{per(f.size_param)} cost "
            "is not constant: compare sizes rather than quoting one figure"
            for f in fits if f.fit.superlinear.flagged]
