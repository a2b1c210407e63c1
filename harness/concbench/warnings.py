"""The closed set of warnings concbench gives; each message says what to do next."""

from __future__ import annotations

from concbench.resultset.model import Summary

CV_LIMIT = 0.10


def high_cv(metric: str, s: Summary) -> str | None:
    if s.cv is not None and s.cv > CV_LIMIT:
        return (f"{metric} varies by {s.cv:.1%} across {s.n} measurements (above 10%): "
                "close other programs, or add --runs to narrow the interval")
    return None


def outliers(metric: str, s: Summary) -> str | None:
    if s.outliers:
        shown = ", ".join(f"{v:.4g}" for v in s.outliers[:3])
        return (f"{len(s.outliers)} outlier(s) in {metric} ({shown}): something else may have "
                "run meanwhile; rerun to confirm")
    return None


def failed_runs(failed: int, total: int, status: str) -> str:
    return (f"{failed} of {total} runs failed ({status}); the statistics use the ok runs only: "
            "see each run's reason")


def single_measurement(metric: str) -> str:
    return f"{metric} rests on one measurement: add --runs (3 or more) for an interval"


def runs_cut_short(done: int, planned: int, status: str) -> str:
    return (f"stopped after {done} of {planned} runs ({status}): the remaining runs would "
            "hit the same limit; raise --timeout or --mem-limit to measure this cell")
