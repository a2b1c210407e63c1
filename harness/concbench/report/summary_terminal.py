"""The summary as the last screen of the terminal: one row per workload case and metric,
the contenders packed into the terminal's width without breaking a name. When a screen's
height is known, each row gets its share of it and the contenders that do not fit are
counted ("… 4 more, to 6.36×"); `wide` (or output that is not a terminal) shows them all."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from concbench.report import summary_text
from concbench.report.flags import Flag
from concbench.report.summary import CaseSummary
from concbench.report.summary_text import Item

TITLE = "Summary"
RESERVED_LINES = 3
"""Lines kept free under the summary: the results line and the shell's prompt."""
STACK_BELOW = 70
"""Narrower than this many columns for the contenders, a case's label goes on a line of its
own above its metrics' rows."""
STYLE = {"leader": "bold green", "ranked": "", "held": "dim", "failed": "red"}


def _item(item: Item) -> Text:
    text = Text()
    if item.joiner:
        text.append(f"{item.joiner} ", style="bold" if item.joiner == "≈" else "dim")
    if item.kind == "failed":
        text.append("✗ ", style=STYLE["failed"])
    text.append(item.contender, style=STYLE[item.kind])
    text.append(" ")
    text.append(item.value, style="bold" if item.kind == "leader" else STYLE[item.kind])
    if item.spread:
        text.append(item.spread, style="dim")
    if item.flags:
        text.append(f" [{summary_text.flag_words(item.flags)}]", style="yellow")
    return text


def _more(hidden: list[Item]) -> Text:
    """The folded items counted, to the last ratio (held items, after the ranked ones, have
    a figure, not a ratio; their flags are in the tables' status and the warnings)."""
    ranked = [i for i in hidden if i.kind == "ranked"]
    return Text(f"… {len(hidden)} more" + (f", to {ranked[-1].value}" if ranked else ""),
                style="dim")


def pack(tokens: list[Text], width: int) -> list[Text]:
    """Tokens into lines of at most `width` cells, a space between them; a token is never split
    (one wider than the line stands alone and overflows)."""
    lines: list[Text] = []
    line = Text()
    for token in tokens:
        if line.cell_len and line.cell_len + 1 + token.cell_len > width:
            lines.append(line)
            line = Text()
        if line.cell_len:
            line.append(" ")
        line.append_text(token)
    return lines + ([line] if line.cell_len else [])


def fit(items: list[Item], tail: list[Text], width: int, max_lines: int | None) -> list[Text]:
    """The row's items packed into at most max_lines lines, the last ranked ones counted when
    they do not fit; the leader, the contenders without a figure and the case's own flags
    always stay."""
    ranked = [i for i in items if i.kind != "failed"]
    tail = [_item(i) for i in items if i.kind == "failed"] + tail
    tokens = [_item(i) for i in ranked]
    lines = pack(tokens + tail, width)
    if max_lines is None or len(lines) <= max_lines:
        return lines
    for keep in range(len(ranked) - 1, 0, -1):
        lines = pack(tokens[:keep] + [_more(ranked[keep:])] + tail, width)
        if len(lines) <= max_lines:
            return lines
    return lines


def _common(flags: tuple[Flag, ...]) -> list[Text]:
    if not flags:
        return []
    return [Text(f"(every figure: {summary_text.flag_words(flags)})", style="yellow")]


def _labels(cases: list[CaseSummary]) -> list[str]:
    """A case's label on its first metric's row only."""
    found, previous = [], None
    for case in cases:
        label = summary_text.case_label(case)
        found.append(label if label != previous else "")
        previous = label
    return found


def render(cases: list[CaseSummary], machine: list[Flag], width: int,
           height: int | None) -> list[Text]:
    """The summary's lines for a terminal `width` columns wide; `height`: the screen's lines
    (None: no limit)."""
    head = [Text(TITLE, style="bold"), Text(summary_text.LEGEND, style="dim")]
    if machine:
        head.append(Text(f"machine: {summary_text.flag_words(machine)} (qualifies every "
                         "figure; see the warnings)", style="yellow"))
    head_lines = sum(max(1, -(-t.cell_len // width)) for t in head)
    labels = _labels(cases)
    label_w = max((cell_len(label) for label in labels), default=0)
    metric_w = max((cell_len(summary_text.metric_label(c)) for c in cases), default=0)
    stacked = width - label_w - metric_w - 4 < STACK_BELOW
    indent = metric_w + 4 if stacked else label_w + metric_w + 4
    room = width - indent
    rows = [(summary_text.items(c), _common(c.common)) for c in cases]
    shares: list[int | None] = [None] * len(cases)
    if height is not None and cases:
        label_lines = sum(1 for label in labels if label) if stacked else 0
        budget = height - RESERVED_LINES - head_lines - label_lines
        shares = list(share(budget, [len(fit(i, t, room, None)) for i, t in rows]))
    lines = list(head)
    for case, label, (items, tail), lines_of in zip(cases, labels, rows, shares):
        packed = fit(items, tail, room, lines_of)
        metric = Text(f"  {summary_text.metric_label(case).ljust(metric_w)}  ")
        if stacked and label:
            lines.append(Text(label, style="bold"))
        prefix = metric if stacked else Text(label.ljust(label_w), style="bold") + metric
        lines.append(prefix + packed[0])
        lines += [Text(" " * indent) + r for r in packed[1:]]
    return lines


def share(budget: int, needs: list[int]) -> list[int]:
    """Lines per row: one each, then the rest of the budget a line at a time to the rows
    that still need more, in order, so a screen is used and not exceeded (when it can be)."""
    given = [1] * len(needs)
    left = budget - len(needs)
    while left > 0 and any(g < n for g, n in zip(given, needs)):
        for i, need in enumerate(needs):
            if left > 0 and given[i] < need:
                given[i] += 1
                left -= 1
    return given
