"""Every server as a ratio to nginx measured in the same round: the ceiling cancels host drift.

On a VM whose host changes speed in phases, one server's requests/s moves by 30 % or more from
one process to the next, and so does the ceiling's. In an interleaved plan (Settings.interleave)
every run records its round (RunResult.round), and the cells of one parameter set run one after
another within a round, so a server's run and nginx's run of the same round and the same
parameters (connections, keep-alive, …) saw nearly the same machine.

Method:
- per round: ratio = the server run's requests/s ÷ the nginx run's requests/s, both `ok`, both
  settled (a warm-up that hit its cap, `server.warmup.settled` false, gives no ratio: that run
  measured a server still warming, not the runtime);
- the cell's ratio is the median of its per-round ratios (as every figure of the server table
  is a median); its 95 % interval is that of the geometric mean, a Student-t interval on the
  logarithms, exp(m ± t(0.975, n−1)·s/√n) with m and s the mean and standard deviation of
  ln(ratio) (ratios multiply, so their logarithms are what is averaged); none below n = 2;
- recorded as the cell stat `nginx_ratio` (a Summary: median and ci95 as above, `mean` the
  geometric mean, the rest as concbench.stats.summary gives them for the ratios) and, so every
  pairing can be checked, metadata `nginx_ratio` {ceiling, rounds: [{round, requests_per_s,
  ceiling_requests_per_s, ratio}], unpaired: [{round, why}]}.

Where it is not defined: in a plan that does not interleave (runs have no round, and run i of
two cells run back to back is no pairing), for nginx itself, when no nginx cell has the same
workload and parameters, and for http-aggregate: nginx serves only http-hello's static answer,
so http-aggregate has no nginx ceiling (its ceiling is the design's Little's-law bound, the
table's "of bound" column).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import replace
from typing import Any, Sequence

from concbench.resultset.model import CellResult, RunResult, Summary
from concbench.stats.inference import t_975
from concbench.stats.summary import summarize

CEILING = "nginx"
"""The ceiling contender: a static 200-byte answer from one nginx worker per server CPU."""
STAT = "nginx_ratio"
CEILING_WORKLOADS = frozenset({"http-hello"})
"""Workloads nginx serves. http-aggregate is not one: no ratio is defined there."""


def _rate(run: RunResult) -> float | None:
    value = (run.load or {}).get("requests_per_s")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _why_not(run: RunResult | None, side: str) -> str | None:
    """Why a run cannot enter a ratio (None: it can)."""
    if run is None:
        return f"no {side} run in this round"
    if run.status != "ok":
        return f"{side} run {run.status}"
    verdict = (run.server or {}).get("steadiness")
    if verdict is not None:
        if not verdict.get("steady"):
            return f"{side} run not steady in its window"
    elif ((run.server or {}).get("warmup") or {}).get("settled") is False:
        return f"{side} warm-up did not settle"
    if _rate(run) is None:
        return f"{side} run has no requests/s"
    return None


def ceiling_of(cell: CellResult, cells: Sequence[CellResult]) -> CellResult | None:
    """The nginx cell of the same workload and parameters, if the plan has one."""
    if cell.workload not in CEILING_WORKLOADS or cell.contender == CEILING:
        return None
    return next((c for c in cells if c.contender == CEILING and c.workload == cell.workload
                 and c.params == cell.params), None)


def pairs(cell: CellResult, ceiling: CellResult) -> tuple[list[dict[str, Any]],
                                                           list[dict[str, Any]]]:
    """The per-round ratios, and the cell's rounds that gave none (with why)."""
    by_round = {r.round: r for r in ceiling.runs if r.round is not None}
    paired, unpaired = [], []
    for run in cell.runs:
        if run.round is None:
            continue
        top = by_round.get(run.round)
        why = _why_not(run, "server") or _why_not(top, CEILING)
        if why is not None:
            unpaired.append({"round": run.round, "why": why})
            continue
        assert top is not None
        rate, ceiling_rate = _rate(run), _rate(top)
        assert rate is not None and ceiling_rate is not None
        paired.append({"round": run.round, "requests_per_s": rate,
                       "ceiling_requests_per_s": ceiling_rate, "ratio": rate / ceiling_rate})
    return paired, unpaired


def ratio_summary(ratios: Sequence[float]) -> Summary | None:
    """Median of the ratios; geometric mean with its t-interval on the logarithms."""
    base = summarize(ratios)
    if base is None:
        return None
    logs = [math.log(r) for r in ratios]
    geo = math.exp(statistics.fmean(logs))
    ci95 = None
    if len(logs) > 1:
        half = t_975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
        ci95 = (geo * math.exp(-half), geo * math.exp(half))
    return replace(base, mean=geo, ci95=ci95, cv=base.stddev / geo if len(logs) > 1 else None)


def with_ratio(cell: CellResult, cells: Sequence[CellResult]) -> CellResult:
    """The cell with its `nginx_ratio` stat and metadata as `cells` give them now (both
    removed when it has none)."""
    ceiling = ceiling_of(cell, cells)
    paired, unpaired = pairs(cell, ceiling) if ceiling is not None else ([], [])
    summary = ratio_summary([p["ratio"] for p in paired])
    stats = {k: v for k, v in cell.stats.items() if k != STAT}
    metadata = {k: v for k, v in cell.metadata.items() if k != STAT}
    if summary is not None:
        stats[STAT] = summary
        metadata[STAT] = {"ceiling": CEILING, "rounds": paired, "unpaired": unpaired}
    if stats == cell.stats and metadata == cell.metadata:
        return cell
    return replace(cell, stats=stats, metadata=metadata)


def refreshed(cells: Sequence[CellResult]) -> list[CellResult]:
    """The cells whose ratio changed (a new run of theirs or of their nginx cell)."""
    found = []
    for cell in cells:
        updated = with_ratio(cell, cells)
        if updated is not cell:
            found.append(updated)
    return found


def round_ratios(cell: CellResult) -> list[float]:
    """The per-round ratios recorded in the cell (the samples the summary ranks)."""
    rounds = (cell.metadata.get(STAT) or {}).get("rounds") or []
    return [float(p["ratio"]) for p in rounds]
