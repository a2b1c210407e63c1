"""The answer first: per workload, case and metric, who led and how every other contender
stands relative to the leader. Pure functions over the cells of a results document; the
terminal, the Markdown and the HTML report render the same summaries.

A case is one set of parameters of a workload: contenders are compared only on identical
parameters. The metrics are the workload's own: time per iteration (events/s for channel)
and memory for batch workloads (only memory at the mark for spawn-idle, whose time is its
hold); requests/s, p99 latency and the server's RSS under load for servers, and for a
server measured in rounds beside nginx its requests/s as a share of nginx's in the same round
(concbench.stats.ceiling_ratio; the samples are the per-round ratios, nginx itself not ranked).

Method (concbench.stats.inference, as `concbench compare`):
- the samples are one value per process: each run's geometric mean of its measured
  iterations' times (rate: its inverse, so the ratio is the time ratio turned round); each
  run's RSS at the mark, else its peak; each run's measured load window (requests/s, p99, the
  server's peak RSS in the window). Iterations of one process share a heap, a JIT and a
  machine phase: they are not independent, and the process is the unit;
- the leader has the best geometric mean; every other contender's figure is put as the factor
  by which the leader is better: the ratio of geometric means (theirs over the leader's for
  lower-is-better metrics, the leader's over theirs for rates), with its Welch 95% interval on
  the logarithms (Welch, 1947);
- a difference is significant when its Welch p is at most the Benjamini–Hochberg limit over
  every pairwise test of the summary (all its cases and metrics at once, a false-discovery
  rate of 5 %); a contender no such test separates from the leader is indistinguishable from
  it; its rank is 1 + the number of contenders significantly better than it, so contenders
  that no test separates share a rank rather than being ordered by noise;
- with one process on either side there is no interval and no test: the ratio is shown,
  flagged n = 1, and no rank is claimed from it;
- a cell whose figure is not its server's steady state (report.flags: a warm-up that hit its
  cap, "unsettled"; a JVM still compiling in the measured window, "not steady") gets no ratio
  and no rank: it is listed after the ranked contenders with that flag as its status.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from typing import Any, Callable

from concbench.stats.inference import ALPHA, RatioTest, fdr_limit, process_values
from concbench.stats.rounds import cell_test
from concbench.report import flags as flag_rules, stack
from concbench.report.flags import Flag
from concbench.report.views import SERVER_PREFIX, by_workload, headline, varying
from concbench.resultset.model import CellResult
from concbench.stats import ceiling_ratio
from concbench.stats.scans import points, process_times, size_param

Samples = Callable[[CellResult], list[float]]


def _load(path: tuple[str, ...]) -> Samples:
    def read(cell: CellResult) -> list[float]:
        found = []
        for run in cell.runs:
            value: Any = run.load if path[0] == "load" else run.server
            for key in path[1:]:
                value = value.get(key) if isinstance(value, dict) else None
            if run.status == "ok" and isinstance(value, (int, float)):
                found.append(float(value))
        return found
    return read


@dataclass(frozen=True)
class SummaryMetric:
    name: str
    """time | rate | memory | requests/s | p99 | server memory | server CPU/request (the flags'
    metric names)."""
    title: str
    lower_is_better: bool
    kind: str
    """s | rate | B | ms | µs | %: how figures are written (concbench.report.units)."""
    samples: Samples
    figure_key: str | None = None
    """A cell stat whose median is the figure shown (rate: throughput_per_s); None: the
    median of the samples."""


def _process_times(cell: CellResult) -> list[float]:
    return process_values(process_times(cell))


TIME = SummaryMetric("time", "time", True, "s", _process_times, "elapsed_s")
RATE = SummaryMetric("rate", "throughput", False, "rate",
                     lambda c: [1 / t for t in _process_times(c) if t > 0], "throughput_per_s")
MEMORY = SummaryMetric("memory", "memory", True, "B", lambda c: points(c, "memory"))
REQUESTS = SummaryMetric("requests/s", "requests/s", False, "rate",
                         _load(("load", "requests_per_s")))
P99 = SummaryMetric("p99", "p99 latency", True, "ms", _load(("load", "latency_ms", "p99")))
SERVER_MEMORY = SummaryMetric("server memory", "server RSS", True, "B",
                              _load(("server", "window", "peak_rss_bytes")))
SERVER_CPU = SummaryMetric("server CPU/request", "server CPU per request", True, "µs",
                           _load(("server", "cpu_per_request", "server_us")))
"""At a fixed offered rate (an open loop's `rate`, or N % of each server's own peak): the
steadiest server figure across rounds on a VM whose host changes speed (docs/servers.md,
"Which server figure repeats best"), so it heads an open-loop cell's summary."""
_CAPACITIES = _load(("server", "capacity", "capacity_per_s"))
CAPACITY = SummaryMetric("capacity", "capacity at the p99 target", False, "rate",
                         lambda c: [v for v in _CAPACITIES(c) if v > 0])
"""Runs whose search held no rate (capacity 0) give no sample, a ratio to 0 being undefined;
they are counted in the cell's flag instead (_none_found), which keeps it out of the ranking."""
OF_CEILING = SummaryMetric("of nginx", f"of {ceiling_ratio.CEILING}, same round", False, "%",
                           ceiling_ratio.round_ratios, ceiling_ratio.STAT)


def _members(metric: SummaryMetric, cells: list[CellResult]) -> list[CellResult] | None:
    """The cells a metric ranks; None when it has nothing to say (no ratio to nginx)."""
    if metric is not OF_CEILING:
        return cells
    found = [c for c in cells if c.contender != ceiling_ratio.CEILING]
    return found if any(metric.samples(c) for c in found) else None


def _says(metric: SummaryMetric, cells: list[CellResult]) -> bool:
    """Open-loop cells (a `rate`) all receive about the rate they are offered: their
    requests/s and its ratio to nginx rank nothing (their latency does), nor do those of
    connections held with a think time (`think-ms`). Cells of a capacity
    search (`slo-p99-ms`) each run at the rate their search found: they rank by that capacity
    alone, as their latency was measured at different rates."""
    if any(c.params.get("slo-p99-ms") for c in cells):
        return metric in (CAPACITY, SERVER_MEMORY)
    # held connections (think-ms) are paced by the generator: their rate is its pace too
    open_loop = any(c.params.get("rate") or c.params.get("think-ms") for c in cells)
    if metric is SERVER_CPU:  # at a rate the cells share; a closed loop's is each one's peak
        return all(c.params.get("rate") and not c.params.get("think-ms") for c in cells)
    return metric is not CAPACITY and not (open_loop and metric in (REQUESTS, OF_CEILING))


def metrics_for(workload: str) -> tuple[SummaryMetric, ...]:
    if workload.startswith(SERVER_PREFIX):
        return (CAPACITY, SERVER_CPU, REQUESTS, OF_CEILING, P99, SERVER_MEMORY)
    kind = headline(workload).kind
    if kind == "B":
        return (MEMORY,)
    return (RATE if kind == "rate" else TIME, MEMORY)


@dataclass(frozen=True)
class Standing:
    """One contender in one case and metric."""

    contender: str
    status: str
    """ok; why there is no figure (crash, timeout, invalid, mem-limit, unavailable); or the
    flag that keeps its figure out of the ranking (unsettled, not steady)."""
    reason: str | None
    figure: float | None
    n: int
    ratio: float | None
    """How many times better the leader's figure is (1 for the leader itself)."""
    ci95: tuple[float, float] | None
    rank: int | None
    """1 + the contenders significantly better; None without a figure."""
    tied: bool
    """Not the leader, and indistinguishable from it (its interval contains 1)."""
    flags: tuple[Flag, ...]
    like_previous: bool = False
    """Indistinguishable from the contender before it in the standings (no test at α = 0.05
    separates them): the two are not ranked against each other."""
    stack: str | None = None
    """A server's HTTP stack (report.stack), named beside it; None for batch cells."""

    @property
    def name(self) -> str:
        """The contender as the summary names it: "go (standard)" for a server."""
        return f"{self.contender} ({self.stack})" if self.stack else self.contender

    @property
    def ranked(self) -> bool:
        return self.figure is not None and self.ratio is not None


@dataclass(frozen=True)
class CaseSummary:
    workload: str
    case: dict[str, Any]
    """The parameters that tell this case from the workload's other cases."""
    metric: SummaryMetric
    unit: str
    """The workload's throughput unit (rates)."""
    standings: tuple[Standing, ...]
    """The leader first, then by ratio; contenders without a figure last."""
    common: tuple[Flag, ...]
    """Flags every contender with a figure carries, said once for the case."""
    note: str = ""
    """What the case leaves out (a scan's smaller sizes)."""

    @property
    def leader(self) -> Standing | None:
        first = self.standings[0] if self.standings else None
        return first if first is not None and first.ranked else None

    @property
    def tested(self) -> bool:
        """Whether any interval could be computed (else nothing is ranked with confidence)."""
        return any(s.ci95 is not None for s in self.standings[1:] if s.ranked)


def _center(values: list[float]) -> float:
    if min(values) > 0:
        return math.exp(statistics.fmean(math.log(v) for v in values))
    return statistics.median(values)


Measured = tuple[CellResult, list[float]]
"""A cell and its samples of one metric."""


def worse_by(best: Measured, other: Measured, metric: SummaryMetric,
             p_limit: float = ALPHA) -> RatioTest:
    """How many times `best`'s figure is better than `other`'s, with its interval and its
    verdict at `p_limit` (the summary's Benjamini–Hochberg limit): round by round where the
    two cells share enough rounds of an interleaved plan (stats.rounds.cell_test)."""
    base, new = (best, other) if metric.lower_is_better else (other, best)
    return cell_test(base[0], new[0], metric.samples).at(p_limit)


def _one_measurement() -> Flag:
    return Flag("n = 1", "one process: no interval (its iterations are not independent), so "
                         "no difference is shown to be significant; add --runs (3 or more)")


def _flags(cell: CellResult, metric: SummaryMetric, n: int) -> list[Flag]:
    found = flag_rules.cell_flags(cell.warnings, metric.name)
    if n < 2 and not any(f.label == "n = 1" for f in found):
        found.insert(0, _one_measurement())
    return found


def _figure(cell: CellResult, metric: SummaryMetric, samples: list[float]) -> float:
    s = cell.stats.get(metric.figure_key) if metric.figure_key else None
    return s.median if s is not None else statistics.median(samples)


def _same(test: RatioTest | None) -> bool:
    """Two samples that a test could tell apart, and did not."""
    return test is not None and min(test.n_base, test.n_new) >= 2 and not test.significant


def _rank(i: int, measured: list[Measured], metric: SummaryMetric, p_limit: float) -> int:
    better = 0
    for j, other in enumerate(measured):
        if j != i:
            t = worse_by(other, measured[i], metric, p_limit)
            better += t.significant and t.ratio > 1
    return 1 + better


def _none_found(cell: CellResult, metric: SummaryMetric) -> Flag | None:
    """Capacity: runs whose search confirmed no rate, counted ("2 of 3 found none")."""
    if metric is not CAPACITY:
        return None
    found = _CAPACITIES(cell)
    none = sum(1 for v in found if v <= 0)
    if not none:
        return None
    return Flag(f"{none} of {len(found)} found none",
                f"{none} of the cell's {len(found)} runs found no rate that held the p99 target "
                "(and held it in both confirming windows): the figure shown is the other "
                "runs', and the cell is not ranked on it", unranked=True)


def _unranked(cell: CellResult, metric: SummaryMetric) -> Flag | None:
    """The flag that keeps this cell's figure out of the ranking, if any."""
    return _none_found(cell, metric) or next(
        (f for f in flag_rules.cell_flags(cell.warnings, metric.name) if f.unranked), None)


def _no_figure(cell: CellResult, metric: SummaryMetric) -> str:
    none = _none_found(cell, metric)
    return none.label if none else cell.status if cell.status != "ok" else "no data"


def _held(cell: CellResult, metric: SummaryMetric, samples: list[float], why: Flag) -> Standing:
    """A cell left out of the ranking: its figure kept, no ratio, no rank, the flag as status."""
    return Standing(cell.contender, why.label, why.text, _figure(cell, metric, samples),
                    len(samples), None, None, None, False,
                    tuple(_flags(cell, metric, len(samples))), stack=stack.of(cell))


def _measured(cells: list[CellResult], metric: SummaryMetric
              ) -> list[tuple[CellResult, list[float]]]:
    """The cells with samples of the metric, and their samples."""
    return [(c, s) for c, s in ((c, metric.samples(c)) for c in cells) if s]


def _ranked(measured: list[tuple[CellResult, list[float]]], metric: SummaryMetric
            ) -> list[tuple[CellResult, list[float]]]:
    """Those the metric ranks (no flag holds them out), best first."""
    kept = [(c, s) for c, s in measured if not _unranked(c, metric)]
    lower = metric.lower_is_better
    return sorted(kept, key=lambda cs: _center(cs[1]) * (1 if lower else -1))


def pairwise_p(cells: list[CellResult], metric: SummaryMetric) -> list[float]:
    """The p-values of every pair of ranked cells that a test can compare (2 processes or
    more on both sides): the case's share of the summary's family of tests."""
    ranked = _ranked(_measured(cells, metric), metric)
    found = []
    for i, mine in enumerate(ranked):
        for other in ranked[i + 1:]:
            test = cell_test(mine[0], other[0], metric.samples)
            if test.p_value is not None and min(test.n_base, test.n_new) >= 2:
                found.append(test.p_value)
    return found


def summarize_case(cells: list[CellResult], metric: SummaryMetric,
                   case: dict[str, Any], note: str = "",
                   p_limit: float = ALPHA) -> CaseSummary:
    """The standings of cells with identical parameters on one metric; a difference is
    significant at p ≤ p_limit (summaries: the Benjamini–Hochberg limit of its family)."""
    every = _measured(cells, metric)
    held = [_held(c, metric, s, why) for c, s in every if (why := _unranked(c, metric))]
    measured = _ranked(every, metric)
    standings: list[Standing] = []
    for i, (cell, samples) in enumerate(measured):
        test = worse_by(measured[0], measured[i], metric, p_limit) if i else None
        previous = worse_by(measured[i - 1], measured[i], metric, p_limit) if i else None
        standings.append(Standing(
            cell.contender, cell.status, cell.reason, _figure(cell, metric, samples),
            len(samples), test.ratio if test else 1.0, test.ci95 if test else None,
            _rank(i, measured, metric, p_limit), _same(test),
            tuple(_flags(cell, metric, len(samples))), _same(previous), stack.of(cell)))
    standings += held
    done = {s.contender for s in standings}
    standings += [Standing(c.contender, _no_figure(c, metric), c.reason,
                           None, 0, None, None, None, False, (), stack=stack.of(c))
                  for c in cells if c.contender not in done]
    common, standings = _lift_common(standings)
    unit = next((c.metadata.get("throughput_unit", "") for c in cells), "")
    return CaseSummary(cells[0].workload, case, metric, unit, tuple(standings), common, note)


def _lift_common(standings: list[Standing]) -> tuple[tuple[Flag, ...], list[Standing]]:
    """Flags that every ranked standing (two or more) carries, taken out to the case."""
    ranked = [s for s in standings if s.ranked]
    if len(ranked) < 2:
        return (), standings
    labels = set.intersection(*({f.label for f in s.flags} for s in ranked))
    common = tuple(f for f in ranked[0].flags if f.label in labels)
    kept = [replace(s, flags=tuple(f for f in s.flags if f.label not in labels))
            for s in standings]
    return common, kept


def _largest(cells: list[CellResult], param: str) -> tuple[list[CellResult], str]:
    """Each contender's cells at its largest size of the scan (per value of the other
    parameters), and a note of what was left out."""
    top: dict[tuple, Any] = {}
    for cell in cells:
        key = (cell.contender, repr(sorted((k, repr(v)) for k, v in cell.params.items()
                                           if k != param)))
        top[key] = max(top.get(key, cell.params[param]), cell.params[param])
    kept = [c for c in cells if c.params[param] == top[(c.contender, repr(sorted(
        (k, repr(v)) for k, v in c.params.items() if k != param)))]]
    sizes = sorted({c.params[param] for c in cells})
    shown = sorted({c.params[param] for c in kept})
    left = [s for s in sizes if s not in shown]
    note = f"largest {param} of the scan: {', '.join(f'{s:,}' for s in sizes)}" if left else ""
    return kept, note


def _cases(cells: list[CellResult], shown: list[str]
           ) -> list[tuple[dict[str, Any], list[CellResult]]]:
    """Cells grouped by identical parameters, each group named by the `shown` ones."""
    groups: dict[str, tuple[dict[str, Any], list[CellResult]]] = {}
    for cell in cells:
        key = repr(sorted((k, repr(v)) for k, v in cell.params.items()))
        case = {k: cell.params[k] for k in shown if k in cell.params}
        groups.setdefault(key, (case, []))[1].append(cell)
    return list(groups.values())


def summaries(cells: tuple[CellResult, ...] | list[CellResult],
              largest_only: bool = False) -> list[CaseSummary]:
    """Every workload's cases × metrics, in the order the workloads first appear. With
    largest_only, a scan is summed up at its largest size (the top of a report, the terminal)."""
    planned = []
    for workload, group in by_workload(cells).items():
        param = size_param(group)
        shown, note = varying(group), ""
        if largest_only and param is not None:
            group, note = _largest(group, param)
        for case, members in _cases(group, shown):
            planned += [(ranked, m, case, note) for m in metrics_for(workload)
                        if (ranked := _members(m, members)) and _says(m, members)]
    limit = fdr_limit(p for ranked, m, _, _ in planned for p in pairwise_p(ranked, m))
    return [summarize_case(ranked, m, case, note, limit) for ranked, m, case, note in planned]


def machine_flags(machine: dict[str, Any]) -> list[Flag]:
    """The system check's warnings, which qualify every figure of the run."""
    return flag_rules.machine_flags((machine.get("system_check") or {}).get("warnings", ()))

