"""The tool's own proof that its verdicts can be trusted (suites/calibration.toml): from one
interleaved plan, how often it calls a difference where there is none, and how often it sees
one of a known size.

- **A/A**: a contender and its twin (a variant named `<base>-twin` with identical settings:
  the same build, the same command) on the same cell: every metric `compare` tests is one
  cell-metric where nothing changed.
- **A/B**: one contender on cells whose work differs by a known factor: the waits of fanout
  and of http-aggregate's in-process downstream, the CPU loop of sleep-tasks (on a CPU-bound
  setting: a 1 ms sleep before each task's loop), the passes of ring. The factor is the ratio
  of the workload's own bound (fanout: user + max of the three; http-aggregate: base + max of
  detail and extra; sleep-tasks: the loop's steps; ring: passes); a cell-metric is *detected*
  when the verdict is significant in the direction the factor sets (time and p99 up,
  requests/s down).

Every test is the tool's, both of them: within one result set round by round where the cells
share enough rounds (concbench.stats.rounds.cell_test: the summary's ranks, the upgrades), and
one value per process a side, Welch on the logarithms, as `compare` tests two result sets,
which share no rounds. "Significant" is decided over the whole family at once with the
Benjamini–Hochberg limit, as `compare` decides over a comparison. Each rate comes with its
exact (Clopper–Pearson) binomial 95 % interval; the widths of the A/A intervals say how small
a change the plan could see.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable

from concbench.compare import metrics_of, samples, within_plan_test
from concbench.resultset.model import CellResult, ResultsDocument
from concbench.stats.inference import RatioTest, fdr_limit, ratio_test

TWIN = "-twin"


def _fanout(p: dict[str, Any]) -> float:
    return p["user-ms"] + max(p["orders-ms"], p["prefs-ms"], p["notifications-ms"])


def _aggregate(p: dict[str, Any]) -> float:
    return p["base-ms"] + max(p["detail-ms"], p["extra-ms"])


WORK: dict[str, Callable[[dict[str, Any]], float]] = {
    "fanout": _fanout, "http-aggregate": _aggregate, "sleep-tasks": lambda p: p["cpu-iters"],
    "ring": lambda p: p["passes"]}
"""The workloads whose cells calibrate a known change, and the work a cell's figures follow
(sleep-tasks' time follows its loop's steps only where the loop outweighs the sleep: the
suite's A/B cells sleep 1 ms and loop for about 150 ms)."""
KNOBS = {"fanout": ("user-ms", "orders-ms", "prefs-ms", "notifications-ms"),
         "http-aggregate": ("base-ms", "detail-ms", "extra-ms"), "sleep-tasks": ("cpu-iters",),
         "ring": ("passes",)}
MOVES = {"time": 1, "p99": 1, "requests/s": -1}
"""How a metric follows more work: up (+1) or down (−1); the others do not move with it."""


@dataclass(frozen=True)
class Case:
    kind: str
    """"A/A" or "A/B"."""
    workload: str
    contender: str
    metric: str
    factor: float
    """The known ratio of work, B / A (1.0 for A/A)."""
    test: RatioTest

    def called(self, limit: float) -> bool:
        return self.test.at(limit).significant

    def detected(self, limit: float) -> bool:
        direction = MOVES[self.metric]
        return self.called(limit) and (self.test.ratio > 1) == (direction > 0)

    @property
    def half_width_pct(self) -> float | None:
        ci = self.test.ci95
        return None if ci is None or ci[0] <= 0 else 100 * ((ci[1] / ci[0]) ** 0.5 - 1)


def _rest(cell: CellResult, knobs: tuple[str, ...]) -> str:
    return repr(sorted((k, repr(v)) for k, v in cell.params.items() if k not in knobs))


METHODS = {"within one plan": True, "across result sets": False}
"""The two ways the tool tests: round by round where it can (True), one value per process."""


def _tests(a: CellResult, b: CellResult, metrics: list[str],
           paired: bool) -> list[tuple[str, RatioTest]]:
    found = []
    for metric in metrics:
        sa, sb = samples(a, metric), samples(b, metric)
        if len(sa) >= 2 and len(sb) >= 2:
            found.append((metric, within_plan_test(a, b, metric) if paired
                          else ratio_test(sa, sb)))
    return found


def _metrics(*cells: CellResult) -> list[str]:
    return [m.name for m in metrics_of(list(cells))]


def pairs(cells: list[CellResult], base_of: Callable[[CellResult], str | None]
          ) -> list[tuple[CellResult, CellResult]]:
    """(base, other) for each ok cell whose `base_of` names a contender with an ok cell of the
    same workload and equal params in the same result set (here: X-twin and X;
    concbench.upgrades: a variant and the contender it is a variant of)."""
    ok = {c.key: c for c in cells if c.status == "ok"}
    found = []
    for (workload, _, params), other in ok.items():
        name = base_of(other)
        base = ok.get((workload, name, params)) if name else None
        if base is not None:
            found.append((base, other))
    return found


def _twin_of(cell: CellResult) -> str | None:
    return cell.contender[:-len(TWIN)] if cell.contender.endswith(TWIN) else None


def aa_cases(cells: list[CellResult], paired: bool = True) -> list[Case]:
    found = []
    for base, twin in pairs(cells, _twin_of):
        found += [Case("A/A", base.workload, base.contender, m, 1.0, t)
                  for m, t in _tests(base, twin, _metrics(base, twin), paired)]
    return found


def ab_cases(cells: list[CellResult], paired: bool = True) -> list[Case]:
    """Each contender's smallest-work cell of a knob group against its others."""
    groups: dict[tuple[str, str, str], list[CellResult]] = {}
    for c in cells:
        if c.status == "ok" and c.workload in WORK and not c.contender.endswith(TWIN):
            groups.setdefault((c.workload, c.contender, _rest(c, KNOBS[c.workload])),
                              []).append(c)
    found = []
    for (workload, name, _), members in groups.items():
        work = WORK[workload]
        members.sort(key=lambda c: work(c.params))
        base = members[0]
        for other in members[1:]:
            factor = work(other.params) / work(base.params)
            moved = [m for m in _metrics(base) if m in MOVES]
            found += [Case("A/B", workload, name, m, factor, t)
                      for m, t in _tests(base, other, moved, paired)]
    return found


@dataclass(frozen=True)
class Rate:
    hits: int
    tested: int

    @property
    def share(self) -> float | None:
        return self.hits / self.tested if self.tested else None

    def interval(self) -> tuple[float, float] | None:
        """Clopper–Pearson exact 95 % interval."""
        if not self.tested:
            return None
        from scipy.stats import binomtest

        ci = binomtest(self.hits, self.tested).proportion_ci(0.95, method="exact")
        return float(ci.low), float(ci.high)

    def text(self) -> str:
        ci = self.interval()
        if ci is None:
            return "none tested"
        return (f"{self.hits} of {self.tested} = {self.share:.1%} "
                f"(95 % interval {ci[0]:.1%}–{ci[1]:.1%})")


@dataclass(frozen=True)
class Calibration:
    cases: tuple[Case, ...]
    limit: float
    """The family's Benjamini–Hochberg limit on p."""

    def false_positives(self) -> Rate:
        aa = [c for c in self.cases if c.kind == "A/A"]
        return Rate(sum(c.called(self.limit) for c in aa), len(aa))

    def detections(self, factor: float, workload: str | None = None,
                   tolerance: float = 0.01) -> Rate:
        ab = [c for c in self.cases if c.kind == "A/B" and abs(c.factor - factor) <= tolerance
              and workload in (None, c.workload)]
        return Rate(sum(c.detected(self.limit) for c in ab), len(ab))

    def workloads(self, kind: str) -> list[str]:
        return sorted({c.workload for c in self.cases if c.kind == kind})

    def median_half_width_pct(self, workload: str | None = None) -> float | None:
        widths = [w for c in self.cases if c.kind == "A/A" and workload in (None, c.workload)
                  if (w := c.half_width_pct) is not None]
        return statistics.median(widths) if widths else None

    def factors(self) -> list[float]:
        return sorted({round(c.factor, 3) for c in self.cases if c.kind == "A/B"})


def calibrate(doc: ResultsDocument, paired: bool = True) -> Calibration:
    cells = list(doc.cells)
    cases = aa_cases(cells, paired) + ab_cases(cells, paired)
    limit = fdr_limit(c.test.p_value for c in cases)
    return Calibration(tuple(cases), limit)


def _by_workload(found: Calibration) -> list[str]:
    """Where the power is: each workload's detections at each factor and the median A/A
    interval, which says how small a change its cells can resolve."""
    lines = ["| workload | " + " | ".join(f"×{f:.2f} detected" for f in found.factors())
             + " | median A/A interval |", "|---" * (len(found.factors()) + 2) + "|"]
    for workload in sorted(set(found.workloads("A/A")) | set(found.workloads("A/B"))):
        rates = [found.detections(f, workload) for f in found.factors()]
        width = found.median_half_width_pct(workload)
        lines.append(f"| {workload} | " + " | ".join(
            f"{r.hits} of {r.tested}" if r.tested else "–" for r in rates)
            + f" | {'±%.1f %%' % width if width is not None else '–'} |")
    return lines


def _method(doc: ResultsDocument, name: str, paired: bool) -> tuple[Calibration, list[str]]:
    """One method's rates and its table by workload, under a heading of its own."""
    found = calibrate(doc, paired)
    width = found.median_half_width_pct()
    how = ("round by round where two cells share 5 rounds or more, else one value per process"
           if paired else "one value per process a side, as `compare` tests two result sets")
    lines = [f"## {name[0].upper()}{name[1:]}", "",
             f"{how}; every verdict at a false-discovery rate of 5 % over the "
             f"{len(found.cases)} tests (Benjamini–Hochberg: p ≤ {found.limit:.3g}).", "",
             f"- A/A false positives: {found.false_positives().text()}"]
    lines += [f"- A/B ×{f:.2f} detected: {found.detections(f).text()}" for f in found.factors()]
    lines += [f"- median A/A 95 % interval: ±{width:.1f} %" if width is not None
              else "- median A/A 95 % interval: none (fewer than 2 processes a side)", "",
              *_by_workload(found), ""]
    return found, lines


def report(doc: ResultsDocument) -> str:
    """The calibration as Markdown: each method's rates, then every case of the first."""
    process_s = sum(r.wall_s for c in doc.cells for r in c.runs if r.wall_s)
    lines = [f"# Calibration: {doc.run_id}", "",
             f"The processes' wall time: {process_s / 60:.1f} min.", ""]
    methods = [_method(doc, name, paired) for name, paired in METHODS.items()]
    for _, block in methods:
        lines += block
    found = methods[0][0]
    lines += [f"## Every case, {next(iter(METHODS))}", "",
              "| kind | workload | contender | metric | factor | ratio | 95 % interval | p | "
              "verdict |", "|---|---|---|---|---|---|---|---|---|"]
    for c in found.cases:
        ci = f"{c.test.ci95[0]:.3f}–{c.test.ci95[1]:.3f}" if c.test.ci95 else "–"
        p = "–" if c.test.p_value is None else f"{c.test.p_value:.3g}"
        verdict = ("detected" if c.detected(found.limit) else "missed") if c.kind == "A/B" \
            else ("false positive" if c.called(found.limit) else "not significant")
        lines.append(f"| {c.kind} | {c.workload} | {c.contender} | {c.metric} | "
                     f"{c.factor:.2f} | {c.test.ratio:.3f} | {ci} | {p} | {verdict} |")
    return "\n".join(lines) + "\n"
