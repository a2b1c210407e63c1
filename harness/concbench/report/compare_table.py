"""The comparison of two result sets as plain-string rows, rendered for the terminal (rich)
and as Markdown. A cell without numbers on either side shows why, never a ratio."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table as RichTable

from concbench.compare import BY_NAME, CellComparison
from concbench.report import units

HEADERS = ("workload", "contender", "parameters", "metric", "base (median)", "new (median)",
           "ratio new/base", "95% CI", "p", "processes base/new", "verdict")
_STYLE = {True: "green", False: "red"}


def _value(metric: str, v: float) -> str:
    unit = BY_NAME[metric].unit
    if unit == "B":
        return units.size(v)
    if unit == "rate":
        return units.rate(v, "req")
    if unit == "us":
        return f"{v:,.1f} µs"
    if unit == "count":
        return f"{v:#.3g}" if v < 100 else f"{v:,.0f}"
    return units.seconds(v)


def _params(c: CellComparison, shown: list[str]) -> str:
    return ", ".join(f"{k}={c.params[k]}" for k in shown if k in c.params)


def varying_params(comparisons: list[CellComparison]) -> list[str]:
    """Parameters that differ between cells of one workload (the rest go unsaid)."""
    by_workload: dict[str, list[CellComparison]] = {}
    for c in comparisons:
        by_workload.setdefault(c.workload, []).append(c)
    keys: list[str] = []
    for group in by_workload.values():
        for c in group:
            keys += [k for k in c.params if k not in keys
                     and len({repr(o.params.get(k)) for o in group}) > 1]
    return keys


def row(c: CellComparison, shown: list[str]) -> tuple[str, ...]:
    head = (c.workload, c.contender, _params(c, shown), c.metric)
    t = c.test
    if t is None:
        return (*head, "—", "—", "—", "—", "—", "—", c.verdict)
    ci = f"{t.ci95[0]:.3f}–{t.ci95[1]:.3f}" if t.ci95 else "—"
    p = "—" if t.p_value is None else ("< 0.001" if t.p_value < 0.001 else f"{t.p_value:.3f}")
    return (*head, _value(c.metric, t.base_median), _value(c.metric, t.new_median),
            f"{t.ratio:.3f}×", ci, p, f"{t.n_base}/{t.n_new}", c.verdict)


def rows(comparisons: list[CellComparison]) -> list[tuple[str, ...]]:
    shown = varying_params(comparisons)
    return [row(c, shown) for c in comparisons]


def markdown(comparisons: list[CellComparison], base: str, new: str, notes: list[str],
             test: str) -> str:
    lines = [f"# concbench compare: {base} → {new}", "",
             f"Ratio of geometric means new/base with a Welch 95% interval, one value per "
             f"process on each side; p from the {test} test; significant: a false-discovery "
             f"rate of 5 % over every test below (Benjamini–Hochberg).", ""]
    lines += [f"> note: {n}" for n in notes] + ([""] if notes else [])
    lines.append("| " + " | ".join(HEADERS) + " |")
    lines.append("|" + "|".join("---" for _ in HEADERS) + "|")
    lines += ["| " + " | ".join(v.replace("|", "\\|") for v in r) + " |"
              for r in rows(comparisons)]
    return "\n".join(lines) + "\n"


def print_terminal(console: Console, comparisons: list[CellComparison], base: str, new: str,
                   notes: list[str]) -> None:
    table = RichTable(title=f"{base} → {new}", title_justify="left")
    for header in HEADERS:
        table.add_column(header, overflow="fold")
    for c, r in zip(comparisons, rows(comparisons)):
        style = "yellow" if c.test is None else _STYLE.get(c.better, "dim")
        table.add_row(*r[:-1], f"[{style}]{r[-1]}[/]")
    for n in notes:
        console.print(f"[yellow]note[/] {n}")
    console.print(table)
