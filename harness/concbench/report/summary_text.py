"""The summaries (concbench.report.summary) as words and figures, the same in every view:
one item per contender, the leader's figure first, then each other contender's ratio to it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from concbench.report import units
from concbench.report.flags import Flag
from concbench.report.summary import CaseSummary, Standing

LEGEND = ("the leader and its median, then how many times better the leader is than each "
          "other contender, with the 95% interval; ≈: no test tells it from the one before, "
          "so the two are not ranked; [flags] qualify a figure; ✗: no figure")
METHOD = ("ratio of geometric means with a Welch interval on the logarithms, as concbench "
          "compare (harness/concbench/report/summary.py)")


@dataclass(frozen=True)
class Item:
    contender: str
    """The contender as named in the summary: a server with its stack, "go (standard)"."""
    kind: str
    """leader | ranked | held (a figure left out of the ranking: unsettled, not steady) |
    failed."""
    value: str
    """The leader's figure, another contender's ratio ("1.34×"), a held cell's own figure, or
    a failed cell's status."""
    interval: str
    """The ratio's 95% interval ("1.31–1.38"); "" for the leader and without one."""
    spread: str
    """The same interval short, for the terminal ("±3%": from ratio ÷ 1.03 to ratio × 1.03)."""
    flags: tuple[Flag, ...]
    joiner: str
    """What stands before the item: "≈" when it is not told apart from the one before."""
    reason: str = ""


def figure(case: CaseSummary, value: float | None) -> str:
    kind = case.metric.kind
    if kind == "s":
        return units.seconds(value)
    if kind == "B":
        return units.size(value)
    if kind == "ms":
        return units.milliseconds(value)
    if kind == "µs":
        return units.milliseconds(None if value is None else value / 1000)
    if kind == "%":
        return units.percent(value)
    return units.rate(value, case.unit if case.metric.name == "rate" else "req")


def ratio(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}×"
    return f"{value:.1f}×" if value >= 10 else f"{value:.2f}×"


def _interval(ci: tuple[float, float] | None) -> str:
    if ci is None:
        return ""
    digits = 1 if ci[1] >= 10 else 2
    return f"{ci[0]:.{digits}f}–{ci[1]:.{digits}f}"


def _spread(s: Standing) -> str:
    """The interval as ± a percentage: Welch's interval on logs is symmetric around the
    ratio on a log scale, so it runs from ratio ÷ (1 + h) to ratio × (1 + h)."""
    if s.ci95 is None or not s.ratio or s.ci95[0] <= 0:
        return ""
    h = math.sqrt(s.ci95[1] / s.ci95[0]) - 1
    return f"±{math.ceil(h * 100):.0f}%" if h >= 0.005 else "±0%"


def items(case: CaseSummary) -> list[Item]:
    found = []
    for i, s in enumerate(case.standings):
        if not s.ranked and s.figure is not None:
            found.append(Item(s.name, "held", figure(case, s.figure), "", "", s.flags,
                              "·" if i else "", s.reason or ""))
        elif not s.ranked:
            found.append(Item(s.name, "failed", s.status, "", "", (), "·" if i else "",
                              s.reason or ""))
        elif i == 0:
            found.append(Item(s.name, "leader", figure(case, s.figure), "", "", s.flags, ""))
        else:
            found.append(Item(s.name, "ranked", ratio(s.ratio or 1.0), _interval(s.ci95),
                              _spread(s), s.flags, "≈" if s.like_previous else "·"))
    return found


def case_label(case: CaseSummary) -> str:
    params = " ".join(f"{k}={v}" for k, v in case.case.items())
    return f"{case.workload} {params}".strip()


def metric_label(case: CaseSummary) -> str:
    if case.metric.name == "rate":
        return f"{case.unit}/s" if case.unit else "throughput"
    return case.metric.title


def flag_words(flags: tuple[Flag, ...] | list[Flag]) -> str:
    return ", ".join(f.label for f in flags)


def _markdown_item(item: Item) -> str:
    flags = f" *[{flag_words(item.flags)}]*" if item.flags else ""
    if item.kind == "failed":
        return f"{item.joiner} ✗ {item.contender}: {item.value}".strip()
    if item.kind == "leader":
        return f"**{item.contender}** {item.value}{flags}"
    interval = f" ({item.interval})" if item.interval else ""
    return f"{item.joiner} {item.contender} {item.value}{interval}{flags}"


def markdown_rows(cases: list[CaseSummary]) -> list[str]:
    """A Markdown table: per case and metric, the leader, then every other contender."""
    lines = ["| case | metric | leader, then how many times better it is (95% interval) |",
             "|---|---|---|"]
    previous = None
    for case in cases:
        label = case_label(case)
        parts = [_markdown_item(i) for i in items(case)]
        line = " ".join(parts)
        if case.common:
            line += f" (every figure: *{flag_words(case.common)}*)"
        shown = label if label != previous else ""
        if case.note and shown:
            line += f" ({case.note})"
        previous = label
        lines.append(f"| {_escape(shown)} | {metric_label(case)} | {_escape(line)} |")
    return lines


def markdown(cases: list[CaseSummary], machine: list[Flag], heading: str) -> list[str]:
    """The summary section: who led and by how much (one row per case), then every
    contender against the leader, the legend and the method."""
    lines = [f"{heading} Summary", "",
             "Who led each workload, and by how much over the next contender; a flag in "
             "*[italics]* qualifies the figure beside it (see Warnings).", ""]
    if machine:
        lines += [f"Machine: *[{flag_words(machine)}]*, which qualifies every figure.", ""]
    lines += markdown_glance(glance(cases)) + ["", f"{heading}# Every contender against the "
                                                   "leader", ""]
    return lines + markdown_rows(cases) + ["", f"Per workload and metric: {LEGEND}. "
                                               f"Method: {METHOD}.", ""]


def markdown_glance(rows: list[GlanceRow]) -> list[str]:
    columns = glance_columns(rows)
    lines = ["| case | " + " | ".join(GLANCE_HEADERS[c] for c in columns) + " |",
             "|" + "---|" * (len(columns) + 1)]
    for row in rows:
        cells = [_glance_markdown(row.cells[c]) for c in columns]
        lines.append(f"| {_escape(row.label)} | " + " | ".join(cells) + " |")
    return lines


def _glance_markdown(cell: GlanceCell | None) -> str:
    if cell is None:
        return ""
    flags = f" *[{flag_words(cell.flags)}]*" if cell.flags else ""
    return _escape(f"**{cell.leader}** {cell.figure}{cell.margin}{flags}")


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


GLANCE_COLUMNS = {"speed": ("time", "rate", "requests/s", "capacity"),
                  "cost": ("server CPU/request",), "ceiling": ("of nginx",),
                  "memory": ("memory", "server memory"), "latency": ("p99",)}
GLANCE_HEADERS = {"speed": "time / throughput", "cost": "server CPU per request",
                  "ceiling": "of nginx, same round", "memory": "memory", "latency": "p99 latency"}


@dataclass(frozen=True)
class GlanceCell:
    """Who led one metric of a case, and by how much over the next contender."""

    leader: str
    figure: str
    margin: str
    """", 1.34× ahead of go", " ≈ go (1.02×, not told apart)", or "" when alone; then the
    contenders without a figure ("; ✗ go: crash")."""
    flags: tuple[Flag, ...]
    """The leader's flags and the case's own (every figure's)."""

    def text(self) -> str:
        flags = f" [{flag_words(self.flags)}]" if self.flags else ""
        return f"{self.leader} {self.figure}{self.margin}{flags}"


@dataclass(frozen=True)
class GlanceRow:
    label: str
    workload: str
    cells: dict[str, GlanceCell | None]
    """Column (GLANCE_COLUMNS) → its cell; None where the case has no such metric or no
    contender has a figure."""


def _margin(case: CaseSummary) -> str:
    rest = [s for s in case.standings[1:] if s.ranked]
    failed = [s for s in case.standings if s.figure is None]
    text = ""
    if rest and rest[0].tied:
        text = f" ≈ {rest[0].name} ({ratio(rest[0].ratio or 1)}, not told apart)"
    elif rest:
        text = f", {ratio(rest[0].ratio or 1)} ahead of {rest[0].name}"
    if len(failed) == 1:
        text += f"; ✗ {failed[0].name}: {failed[0].status}"
    elif failed:
        text += f"; ✗ {len(failed)} without a figure"
    return text


def _glance_cell(case: CaseSummary) -> GlanceCell | None:
    lead = case.leader
    if lead is None:
        return None
    return GlanceCell(lead.name, figure(case, lead.figure), _margin(case),
                      lead.flags + case.common)


def glance(cases: list[CaseSummary]) -> list[GlanceRow]:
    """One row per case: per column the leader and its margin over the next."""
    rows: dict[str, GlanceRow] = {}
    for case in cases:
        label = case_label(case)
        row = rows.setdefault(label, GlanceRow(label, case.workload,
                                               {c: None for c in GLANCE_COLUMNS}))
        column = next(c for c, names in GLANCE_COLUMNS.items() if case.metric.name in names)
        row.cells[column] = _glance_cell(case)
    return list(rows.values())


def glance_columns(rows: list[GlanceRow]) -> list[str]:
    """The columns some row has a cell in."""
    return [c for c in GLANCE_COLUMNS if any(r.cells[c] is not None for r in rows)]
