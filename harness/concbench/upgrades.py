"""What a toolchain upgrade changes (suites/upgrades.toml): each variant beside its base in one
result set, as new ÷ old of the cell's headline figure.

- **Pairs**: a variant (a contender declared with `variant_of`, recorded in each cell's
  metadata; for a result set recorded before that, the manifests' `variant_of`) on another
  toolchain than its base (`toolchain_version`: metadata.toolchain `<name>@<version>`), and
  its base, where both cells are ok, of the same workload and with equal parameters, in the
  same result set (concbench.calibration.pairs, which pairs a contender with its `-twin` the
  same way). A variant whose base did not run, or ran with other parameters, is listed as not
  compared; variants on their base's toolchain (go-fasthttp, the twins) are no upgrade and
  are left out.
- **Old and new** are the two toolchains' releases: the version a derived toolchain's name
  pins (go@1.27.4), else the first its version commands printed in the results' `toolchains`
  (node's "v20.20.2"). A variant on an older release than its base is the old side (go-1.26
  beside go once go's default moved to Go 1.27), one on a newer release the new side (go-1.27
  beside go before it did); where a release cannot be read, the variant is the new side.
- **The figure** is the one the summary heads the case with (concbench.report.summary: time,
  or events/s for channel; requests/s for a closed-loop server, the server's CPU per request
  at an open loop's rate, capacity for a search), read the summary's way: one value per
  process.
- **The test** is the tool's for two cells of one result set (concbench.stats.rounds
  .cell_test): round by round where the two share 5 rounds or more of the interleaved plan,
  else the ratio of geometric means with its Welch 95 % interval on the logarithms; "faster"
  or "slower" when its p is at most the Benjamini–Hochberg limit over every pair tested in the result set (a false-
  discovery rate of 5 %, as `compare` and the summary decide). With fewer than 2 processes on
  a side there is a ratio, no interval and no verdict; a cell the summary leaves unranked (a
  server still warming up, a JVM still compiling) gets no verdict either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from concbench import workloads
from concbench.calibration import pairs
from concbench.report.summary import SummaryMetric, summaries
from concbench.resultset.model import CellResult, ResultsDocument
from concbench.stats.inference import RatioTest, fdr_limit
from concbench.stats.rounds import cell_test

NO_DIFFERENCE = "no difference the data can show"
VERDICTS = {"memory": ("smaller", "larger"), "p99": ("lower p99", "higher p99"),
            "server memory": ("smaller", "larger"),
            "server CPU/request": ("less CPU per request", "more CPU per request")}
"""(better, worse) by the summary metric's name; every other figure: faster, slower."""


@dataclass(frozen=True)
class Pair:
    old: CellResult
    """The cell on the older release: the base, or the variant that keeps the release its
    base moved on from."""
    new: CellResult
    metric: SummaryMetric | None
    """The summary's headline of the case; None when the summary has none for it."""
    test: RatioTest | None
    """new ÷ old; None without a value on a side."""
    held: str | None
    """Why the summary ranks neither figure, if it does not (a flag of one of the cells)."""

    @property
    def tested(self) -> bool:
        """A test that counts in the family: 2 or more processes a side, both figures ranked."""
        return (self.test is not None and self.held is None and self.test.p_value is not None
                and min(self.test.n_base, self.test.n_new) >= 2)

    def verdict(self, limit: float) -> str:
        if self.test is None:
            return "no measurements"
        if self.held is not None:
            return f"no verdict: {self.held}"
        if min(self.test.n_base, self.test.n_new) < 2:
            return "no verdict: one process on a side, so no interval (add runs)"
        if not self.test.at(limit).significant:
            return NO_DIFFERENCE
        assert self.metric is not None
        better, worse = VERDICTS.get(self.metric.name, ("faster", "slower"))
        return better if (self.test.ratio < 1) == self.metric.lower_is_better else worse


@dataclass(frozen=True)
class Upgrades:
    pairs: tuple[Pair, ...]
    unpaired: tuple[tuple[CellResult, str], ...]
    """Variant cells without a base to compare with, and why."""
    limit: float
    """The family's Benjamini–Hochberg limit on p."""

    def verdict(self, pair: Pair) -> str:
        return pair.verdict(self.limit)


def _recorded(cells: list[CellResult]) -> Callable[[CellResult], str | None]:
    """A cell's base contender: its metadata's variant_of, else (a result set recorded before
    the metadata had it) the manifests'."""
    if all("variant_of" in c.metadata for c in cells):
        return lambda c: c.metadata.get("variant_of")
    from concbench import manifest, paths

    declared = {n: c.variant_of for n, c in manifest.discover(paths.contenders_dir()).items()}
    return lambda c: c.metadata.get("variant_of") if "variant_of" in c.metadata \
        else declared.get(c.contender)


_RELEASE = re.compile(r"\d+(?:\.\d+)+")


def release(cell: CellResult, toolchains: dict[str, Any]) -> tuple[int, ...] | None:
    """The release the cell's toolchain is: the version its name pins (go@1.27.4), else the
    first one its version commands printed ("go version go1.26.8 linux/amd64", "v20.20.2")."""
    name = str(cell.metadata.get("toolchain") or "")
    _, at, pinned = name.partition("@")
    recorded = ((toolchains.get(name) or {}).get("versions") or {}) if name else {}
    for text in [pinned] if at else [str(v) for v in recorded.values()]:
        found = _RELEASE.search(text)
        if found:
            return tuple(int(n) for n in found.group().split("."))
    return None


def _pair(base: CellResult, variant: CellResult, toolchains: dict[str, Any]) -> Pair:
    rb, rv = release(base, toolchains), release(variant, toolchains)
    old, new = (variant, base) if rb is not None and rv is not None and rv < rb \
        else (base, variant)
    cases = summaries([old, new])
    if not cases:
        return Pair(old, new, None, None, None)
    case = cases[0]
    held = [f"{s.contender}: {s.status}" for s in case.standings if s.status != "ok"]
    so, sn = case.metric.samples(old), case.metric.samples(new)
    test = cell_test(old, new, case.metric.samples) if so and sn else None
    return Pair(old, new, case.metric, test, "; ".join(held) or None)


def _why_not(cell: CellResult, base: str, cells: list[CellResult]) -> str:
    if cell.status != "ok":
        return f"{cell.status}" + (f": {cell.reason}" if cell.reason else "")
    same = [c for c in cells if c.contender == base and c.workload == cell.workload]
    match = [c for c in same if c.params == cell.params]
    if match:
        return f"{base}: {match[0].status}"
    if same:
        return f"{base} ran {cell.workload} with other parameters only"
    return f"{base} did not run {cell.workload}"


def _toolchain(cell: CellResult) -> str | None:
    return cell.metadata.get("toolchain")


def _upgrade(cell: CellResult, base: str, cells: list[CellResult]) -> bool:
    """Whether a variant runs on another toolchain than its base: one recorded for the base
    in this set differs, or, with none recorded, its own is a derived `<name>@<version>`."""
    theirs = {_toolchain(c) for c in cells if c.contender == base}
    mine = _toolchain(cell) or ""
    return mine not in theirs if theirs else "@" in mine


def upgrades(doc: ResultsDocument) -> Upgrades:
    cells = list(doc.cells)
    base_of = _recorded(cells)
    upgraded = [(b, v) for b, v in pairs(cells, base_of) if _toolchain(b) != _toolchain(v)]
    found = [_pair(b, v, doc.toolchains) for b, v in upgraded]
    paired = {v.key for _, v in upgraded}
    unpaired = tuple((c, _why_not(c, name, cells)) for c in cells
                     if (name := base_of(c)) and c.key not in paired
                     and _upgrade(c, name, cells))
    limit = fdr_limit(p.test.p_value for p in found if p.tested and p.test)
    return Upgrades(tuple(found), unpaired, limit)


def changed_params(cell: CellResult) -> dict[str, Any]:
    """The cell's parameters that differ from its workload's defaults (all of them for a
    workload this version does not know)."""
    spec = workloads.WORKLOADS.get(cell.workload)
    defaults = {p.name: p.default for p in spec.params} if spec else {}
    return {k: v for k, v in cell.params.items() if k not in defaults or defaults[k] != v}


def _params_text(cell: CellResult) -> str:
    shown = changed_params(cell)
    return ", ".join(f"{k}={v}" for k, v in shown.items()) or "defaults"


def _figure(pair: Pair) -> str:
    if pair.metric is None:
        return "–"
    if pair.metric.name == "rate":
        unit = pair.old.metadata.get("throughput_unit") or "units"
        return f"{unit}/s"
    return pair.metric.title


def _names(pair: Pair) -> str:
    text = f"{pair.old.contender} → {pair.new.contender}"
    to, tn = (c.metadata.get("toolchain") for c in (pair.old, pair.new))
    return text + (f" ({to} → {tn})" if to and tn and to != tn else "")


def report(doc: ResultsDocument) -> str:
    """The upgrades as Markdown: one row per pair, then the variants not compared."""
    found = upgrades(doc)
    tested = [p for p in found.pairs if p.tested]
    called = sum(1 for p in tested if found.verdict(p) != NO_DIFFERENCE)
    lines = [f"# Toolchain upgrades: {doc.run_id}", ""]
    if not found.pairs:
        lines.append("No variant ran beside its base with the same workload and parameters.")
    elif not tested:
        lines.append("No pair has 2 or more processes on both sides: ratios only, no "
                     "interval and no verdict (run with --runs 3 or more).")
    else:
        said = f"p ≤ {found.limit:.3g}" if called else "no p was low enough"
        lines.append(f"new ÷ old of each pair's headline figure (the summary's), one value per "
                     f"process; a verdict at a false-discovery rate of 5 % over the "
                     f"{len(tested)} tests (Benjamini–Hochberg: {said}): {called} called.")
    if found.pairs:
        lines += ["", "| workload | params | old → new | figure | processes | new ÷ old | "
                  "95 % interval | p | verdict |", "|---|---|---|---|---|---|---|---|---|"]
    for p in found.pairs:
        t = p.test
        n = f"{t.n_base} / {t.n_new}" if t else "–"
        ratio = f"{t.ratio:.3f}" if t else "–"
        ci = f"{t.ci95[0]:.3f}–{t.ci95[1]:.3f}" if t and t.ci95 else "–"
        pv = f"{t.p_value:.3g}" if t and t.p_value is not None else "–"
        lines.append(f"| {p.old.workload} | {_params_text(p.old)} | {_names(p)} | "
                     f"{_figure(p)} | {n} | {ratio} | {ci} | {pv} | {found.verdict(p)} |")
    if found.unpaired:
        lines += ["", "Not compared:", ""]
        lines += [f"- {c.contender} on {c.workload} ({_params_text(c)}): {why}"
                  for c, why in found.unpaired]
    return "\n".join(lines) + "\n"
