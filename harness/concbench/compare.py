"""Comparing two result sets cell by cell: the ratio NEW / BASE with its 95% confidence
interval and a test of significance, for time and memory (batch workloads) or requests/s,
p99 latency and memory (servers).

Method (concbench.stats.inference, which owns every interval and verdict):
- the samples are one value per process of each side (time: each ok run's geometric mean of
  its measured iterations' elapsed_s; memory: each ok run's RSS at the all-spawned mark, else
  its peak RSS, as in concbench.stats.scans.points; requests/s and p99: each ok run's measured
  load), since iterations of one process are not independent samples;
- ratio = the ratio of their geometric means, with its Welch 95% interval on the logarithms;
  the test is Welch's on the logs (two-sided), or Mann–Whitney's U with `test="mann-whitney"`
  (with 3 processes against 3 its smallest p is 0.1, never significant);
- "significant" is decided over the whole comparison at once: Benjamini–Hochberg at
  α = 0.05 over every cell × metric tested, so at most 5 % of the changes called significant
  are expected to be false (the limit on p is in `family_limit`); a test whose interval
  excludes 1 may so still be "not significant" when the family holds many tests.
A comparison with fewer than 2 processes on a side is reported, never called significant.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from typing import Any

from concbench import steal, workloads
from concbench.stats.syscall_cell import REPORTED as SYSCALL_COLUMNS
from concbench.resultset.model import CellResult, ResultsDocument, RunResult
from concbench.stats import server_cell, syscall_cell
from concbench.stats.inference import (ALPHA, TESTS, RatioTest, fdr_limit, geometric_mean,
                                       ratio_test)
from concbench.stats.rounds import cell_test
from concbench.stats.scans import memory_point

__all__ = ["ALPHA", "TESTS", "RatioTest", "ratio_test", "compare", "family_limit", "metrics_of"]

PROBE_LIMIT = 1.05
"""Ratio of the two sets' mean speed probes above which the machine's change is noted (the
mean: on a host that flips between two speeds, the median jumps from one to the other)."""


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


def _run_value(run: RunResult, metric: str) -> float | None:
    """One ok run's value of one metric (p99 in seconds), None when it has none."""
    if run.status != "ok":
        return None
    if metric in ("requests/s", "p99"):
        if not run.load or (metric == "p99" and not run.load.get("latency_ms")):
            return None
        return float(run.load["requests_per_s"]) if metric == "requests/s" \
            else float(run.load["latency_ms"]["p99"]) / 1000.0
    stat = BY_NAME[metric].stat
    if stat is not None:
        value = server_cell.PER_RUN[stat](run)
        return float(value) if isinstance(value, (int, float)) else None
    if metric == "time":
        times = [it.elapsed_ns / 1e9 for it in run.measured()]
        return geometric_mean(times) if times else None
    return memory_point(run)


def samples(cell: CellResult, metric: str) -> list[float]:
    """One value per ok run of one metric in a cell (p99 in seconds; time: the geometric mean
    of the run's measured iterations)."""
    return [v for r in cell.runs if (v := _run_value(r, metric)) is not None]


def within_plan_test(base: CellResult, new: CellResult, metric: str,
                     test: str = "welch") -> RatioTest:
    """Two cells of one result set (stats.rounds.cell_test: round by round where it can)."""
    return cell_test(base, new, lambda c: samples(c, metric), test)


def _optional(cells: list[CellResult]) -> list[Metric]:
    """The optional server metrics some run of these cells recorded."""
    return [m for m in OPTIONAL_SERVER_METRICS if any(samples(c, m.name) for c in cells)]


def _is_server(cell: CellResult) -> bool:
    """A server cell is one measured under load (decided from the data, so that result sets of
    workloads since renamed still compare)."""
    spec = workloads.WORKLOADS.get(cell.workload)
    return any(r.load for r in cell.runs) or (spec is not None and spec.server is not None)


def metrics_of(cells: list[CellResult]) -> list[Metric]:
    """The metrics compared on these cells (one cell in two result sets, or two cells): a
    batch cell's time and memory; a server's requests/s, p99 and memory, then the optional
    ones some run recorded."""
    if any(_is_server(c) for c in cells):
        return [*SERVER_METRICS, *_optional(cells)]
    return list(BATCH_METRICS)


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
        metrics = metrics_of([c for c in (b, n) if c is not None])
        found += [_compare_cell(b, n, m.name, test) for m in metrics]
    limit = family_limit(found)
    return [replace(c, test=c.test.at(limit)) if c.test else c for c in found]


def family_limit(found: list[CellComparison]) -> float:
    """The largest p called significant over every test of the comparison
    (Benjamini–Hochberg at ALPHA)."""
    return fdr_limit(c.test.p_value for c in found
                     if c.test and min(c.test.n_base, c.test.n_new) >= 2)


def method_note(found: list[CellComparison]) -> str:
    """How "significant" was decided over this comparison's tests."""
    tested = [c for c in found if c.test and min(c.test.n_base, c.test.n_new) >= 2]
    if not tested:
        return "no cell has 2 or more processes on both sides: nothing can be called significant"
    limit = family_limit(found)
    called = sum(1 for c in tested if c.test and c.test.significant)
    said = f"p ≤ {limit:.3g}" if called else "no p was low enough"
    return (f"one value per process; significant at a false-discovery rate of "
            f"{ALPHA:.0%} over the {len(tested)} tests (Benjamini–Hochberg: {said}): "
            f"{called} called significant")


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
