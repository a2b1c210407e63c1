"""Comparing two result sets cell by cell: the ratio NEW / BASE with its 95% confidence
interval and a test of significance, for time and memory (batch workloads) or requests/s,
p99 latency and memory (servers).

Method (ratio of geometric means, Welch):
- the samples are the measurements of each side (time: every measured iteration's elapsed_s of
  every ok run; memory: each ok run's RSS at the all-spawned mark, else its peak RSS, as in
  concbench.stats.scans.points; requests/s and p99: each ok run's measured load), taken on a
  log scale, where a ratio becomes a difference;
- ratio = exp(mean(log new) − mean(log base)), the ratio of geometric means;
- its 95% CI is exp(d ± t(0.975, ν)·se) with se = √(s₁²/n₁ + s₂²/n₂) and ν the
  Welch–Satterthwaite degrees of freedom (Welch, 1947);
- the test is Welch's unequal-variances t-test on the logs (two-sided), so "significant" at
  α = 0.05 means exactly that the interval excludes 1. With `test="mann-whitney"` the p-value
  is the two-sided Mann–Whitney U test's instead (scipy's exact or asymptotic method); it needs
  more measurements (with 3 against 3 its smallest p is 0.1, never significant).
A comparison with fewer than 2 measurements on a side is reported, never called significant.
A side with a value ≤ 0 has no logarithm: then the ratio is that of the medians (infinite
when only the base median is 0), without an interval, and the p-value is Mann–Whitney's.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Sequence


from concbench import steal, workloads
from concbench.stats.syscall_cell import REPORTED as SYSCALL_COLUMNS
from concbench.resultset.model import CellResult, ResultsDocument
from concbench.stats import server_cell, syscall_cell
from concbench.stats.scans import points

ALPHA = 0.05
PROBE_LIMIT = 1.05
"""Ratio of the two sets' mean speed probes above which the machine's change is noted (the
mean: on a host that flips between two speeds, the median jumps from one to the other)."""
TESTS = ("welch", "mann-whitney")


def _stats():
    """scipy.stats, imported on first use (0.5 s): `concbench --help` needs none of it."""
    from scipy import stats

    return stats


@dataclass(frozen=True)
class Metric:
    """What is compared, and the verdicts when NEW is significantly lower or higher."""

    name: str
    when_lower: str
    when_higher: str
    lower_is_better: bool
    unit: str = "s"
    """How its medians are shown: s | B | rate | us | count."""
    stat: str | None = None
    """For a server figure some runs record and others do not: its per-run reader in
    stats.server_cell.PER_RUN (the cell's stat of that name). Such a metric is compared only
    when a side has it."""


TIME = Metric("time", "faster", "slower", True)
MEMORY = Metric("memory", "smaller", "larger", True, "B")
REQUESTS = Metric("requests/s", "fewer requests/s", "more requests/s", False, "rate")
P99 = Metric("p99", "lower p99", "higher p99", True)
CAPACITY = Metric("capacity/s", "lower capacity", "higher capacity", False, "rate",
                  "capacity_per_s")
SERVER_CPU = Metric("server CPU/req", "less server CPU/req", "more server CPU/req", True, "us",
                    "server_cpu_us_per_request")
GENERATOR_CPU = Metric("generator CPU/req", "less generator CPU/req",
                       "more generator CPU/req", True, "us", "generator_cpu_us_per_request")
SYSCALLS = tuple(Metric(f"{header}/req", f"fewer {header}/req", f"more {header}/req", True,
                        "count", syscall_cell.key(name))
                 for name, header in (*SYSCALL_COLUMNS, ("context-switches", "ctx switches"),
                                      ("page-faults", "page faults")))
"""The system calls of the report's table (syscalls=true), context switches, page faults."""
BATCH_METRICS = (TIME, MEMORY)
SERVER_METRICS = (REQUESTS, P99, MEMORY)
OPTIONAL_SERVER_METRICS = (CAPACITY, SERVER_CPU, GENERATOR_CPU, *SYSCALLS)
BY_NAME = {m.name: m for m in (TIME, MEMORY, REQUESTS, P99, *OPTIONAL_SERVER_METRICS)}


@dataclass(frozen=True)
class RatioTest:
    """The comparison of two samples of one metric."""

    base_median: float
    new_median: float
    ratio: float
    """Ratio of geometric means, new / base."""
    ci95: tuple[float, float] | None
    """Welch 95% interval of the ratio; None with fewer than 2 measurements on a side."""
    p_value: float | None
    """Two-sided p of the chosen test; None when it cannot be computed."""
    significant: bool
    n_base: int
    n_new: int


@dataclass(frozen=True)
class CellComparison:
    """One cell and metric in both result sets."""

    workload: str
    contender: str
    params: dict[str, Any]
    metric: str
    """A Metric's name: time | memory | requests/s | p99 | capacity/s | … (BY_NAME)."""
    status: str
    """ok, or why there are no numbers (e.g. "new: timeout", "only in base")."""
    test: RatioTest | None
    """None unless status is ok."""

    @property
    def verdict(self) -> str:
        if self.test is None:
            return self.status
        if min(self.test.n_base, self.test.n_new) < 2:
            return "no test (n = 1)"
        if not self.test.significant:
            return "not significant"
        metric = BY_NAME[self.metric]
        return metric.when_lower if self.test.ratio < 1 else metric.when_higher

    @property
    def better(self) -> bool | None:
        """Whether NEW is significantly better (None: no significant difference)."""
        if self.test is None or not self.test.significant:
            return None
        return (self.test.ratio < 1) == BY_NAME[self.metric].lower_is_better


def _welch(lb: list[float], ln: list[float]) -> tuple[float, float, float]:
    """Difference of means of logs, its standard error and Welch–Satterthwaite ν."""
    d = statistics.fmean(ln) - statistics.fmean(lb)
    vb, vn = statistics.variance(lb) / len(lb), statistics.variance(ln) / len(ln)
    se = math.sqrt(vb + vn)
    if se == 0:
        return d, 0.0, float(len(lb) + len(ln) - 2)
    nu = (vb + vn) ** 2 / (vb ** 2 / (len(lb) - 1) + vn ** 2 / (len(ln) - 1))
    return d, se, nu


def _without_logs(base: Sequence[float], new: Sequence[float]) -> RatioTest:
    """Ratio of medians and Mann–Whitney's p, for samples with values ≤ 0 (see above)."""
    mb, mn = statistics.median(base), statistics.median(new)
    ratio = mn / mb if mb > 0 else (1.0 if mn == mb else math.inf)
    p = None
    if len(base) >= 2 and len(new) >= 2:
        p = 1.0 if sorted(base) == sorted(new) else float(
            _stats().mannwhitneyu(new, base, alternative="two-sided").pvalue)
    return RatioTest(mb, mn, ratio, None, p, p is not None and p < ALPHA, len(base), len(new))


def ratio_test(base: Sequence[float], new: Sequence[float], test: str = "welch") -> RatioTest:
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
        p = 1.0 if sorted(base) == sorted(new) else float(
            _stats().mannwhitneyu(new, base, alternative="two-sided").pvalue)
    return RatioTest(*medians, ratio, ci, p, p < ALPHA, len(lb), len(ln))


def samples(cell: CellResult, metric: str) -> list[float]:
    """The measurements of one metric in a cell's ok runs (p99 in seconds)."""
    if metric == "requests/s":
        return [float(r.load["requests_per_s"]) for r in cell.runs
                if r.status == "ok" and r.load]
    if metric == "p99":
        return [float(r.load["latency_ms"]["p99"]) / 1000.0 for r in cell.runs
                if r.status == "ok" and r.load and r.load.get("latency_ms")]
    stat = BY_NAME[metric].stat
    if stat is not None:
        values = (server_cell.PER_RUN[stat](r) for r in cell.runs if r.status == "ok")
        return [float(v) for v in values if isinstance(v, (int, float))]
    return points(cell, metric)


def _optional(cells: list[CellResult]) -> list[Metric]:
    """The optional server metrics some run of these cells recorded."""
    return [m for m in OPTIONAL_SERVER_METRICS if any(samples(c, m.name) for c in cells)]


def _is_server(cell: CellResult) -> bool:
    """A server cell is one measured under load (decided from the data, so that result sets of
    workloads since renamed still compare)."""
    spec = workloads.WORKLOADS.get(cell.workload)
    return any(r.load for r in cell.runs) or (spec is not None and spec.server is not None)


def _compare_cell(base: CellResult | None, new: CellResult | None, metric: str,
                  test: str) -> CellComparison:
    cell = new or base
    assert cell is not None
    head = (cell.workload, cell.contender, dict(cell.params), metric)
    if base is None or new is None:
        return CellComparison(*head, "only in new" if base is None else "only in base", None)
    bad = [f"{side}: {c.status}" for side, c in (("base", base), ("new", new))
           if c.status != "ok"]
    if bad:
        return CellComparison(*head, "; ".join(bad), None)
    pb, pn = samples(base, metric), samples(new, metric)
    if not pb or not pn:
        return CellComparison(*head, "no measurements", None)
    return CellComparison(*head, "ok", ratio_test(pb, pn, test))


def compare(base: ResultsDocument, new: ResultsDocument,
            test: str = "welch") -> list[CellComparison]:
    """Every cell of either set, in the order of BASE then cells only in NEW, on the metrics
    of its kind (batch: time, memory; server: requests/s, p99, memory, then those of
    OPTIONAL_SERVER_METRICS a side recorded: capacity, CPU and system calls per request)."""
    base_cells = {c.key: c for c in base.cells}
    new_cells = {c.key: c for c in new.cells}
    keys = list(base_cells) + [k for k in new_cells if k not in base_cells]
    found = []
    for k in keys:
        b, n = base_cells.get(k), new_cells.get(k)
        present = [c for c in (b, n) if c is not None]
        server = any(_is_server(c) for c in present)
        metrics = [*SERVER_METRICS, *_optional(present)] if server else BATCH_METRICS
        found += [_compare_cell(b, n, m.name, test) for m in metrics]
    return found


def _stolen(doc: ResultsDocument) -> tuple[int, int, float]:
    """(runs with more CPU time stolen than steal.LIMIT, runs measured, the most stolen %)."""
    seen = [r.steal_percent for c in doc.cells for r in c.runs if r.steal_percent is not None]
    over = [p for p in seen if p > steal.LIMIT]
    return len(over), len(seen), max(seen, default=0.0)


def _probes(doc: ResultsDocument) -> list[float]:
    return [r.probe_ms for c in doc.cells for r in c.runs if r.probe_ms]


def notes(base: ResultsDocument, new: ResultsDocument) -> list[str]:
    """Differences between the two sets that a reader should know about."""
    found = []
    for side, doc in (("base", base), ("new", new)):
        over, runs, most = _stolen(doc)
        if over:
            found.append(f"{side}: the hypervisor withheld more than {steal.LIMIT:g}% of the "
                         f"CPUs' time in {over} of {runs} runs (up to {most:.1f}%): a change "
                         "there may be the host's, not the contender's")
    speeds = [statistics.fmean(p) if p else None for p in (_probes(base), _probes(new))]
    if speeds[0] and speeds[1] and max(speeds) / min(speeds) > PROBE_LIMIT:
        slower = "new" if speeds[1] > speeds[0] else "base"
        found.append(f"the machine itself was {max(speeds) / min(speeds):.2f}x slower during "
                     f"{slower} (mean speed probe {speeds[0]:.1f} ms in base, "
                     f"{speeds[1]:.1f} ms in new): changes of that size may be the machine's; "
                     "compare runs taken together (--interleave)")
    if base.plan.get("name") != new.plan.get("name"):
        found.append(f"different plans: {base.plan.get('name')} vs {new.plan.get('name')}")
    for key in ("cpu_model", "logical_cores", "memory_bytes", "kernel"):
        if base.machine.get(key) != new.machine.get(key):
            found.append(f"machines differ in {key}: {base.machine.get(key)} vs "
                         f"{new.machine.get(key)}")
    return found
