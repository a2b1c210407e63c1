"""The flags that qualify a figure: a short word for each warning the harness attaches to a cell
(concbench.warnings and the runners' own), shown beside the figure it qualifies, with the
warning itself as the explanation. A warning this module does not know is still shown, as
"warning", never dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass

TIME_METRICS = frozenset({"time", "rate"})
SERVER_LOAD = frozenset({"requests/s", "p99"})
SERVER_METRICS = frozenset({"requests/s", "p99", "server memory", "server CPU/request"})
ALL: frozenset[str] = frozenset()
"""Empty: the flag qualifies every metric of the cell."""


@dataclass(frozen=True)
class Flag:
    label: str
    """A few words shown beside the figure ("not steady", "n = 1")."""
    text: str
    """The warning it stands for (the explanation: a tooltip, a footnote)."""
    unranked: bool = False
    """The figure is not the server's steady state: shown, but left out of rankings."""


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    label: str
    """The flag's words; may name the pattern's groups (\\1) to carry a figure."""
    metrics: frozenset[str]
    """The summary metrics it qualifies; ALL (empty) for every one."""
    unranked: bool = False


def _rule(pattern: str, label: str, metrics: frozenset[str] = ALL,
          unranked: bool = False) -> Rule:
    return Rule(re.compile(pattern), label, metrics, unranked)


RULES: tuple[Rule, ...] = (
    _rule(r"^time varies by ([\d.]+%)", r"not steady (cv \1)", TIME_METRICS),
    _rule(r"^requests/s varies by ([\d.]+%)", r"not steady (cv \1)", frozenset({"requests/s"})),
    _rule(r"^\d+ outlier\(s\) in time", "outliers", TIME_METRICS),
    _rule(r"^\d+ outlier\(s\) in requests/s", "outliers", frozenset({"requests/s"})),
    _rule(r"^\w+ rests on one (measurement|process)", "n = 1", TIME_METRICS),
    _rule(r"^(\d+) of (\d+) runs failed", r"\1 of \2 runs failed"),
    _rule(r"^stopped after \d+ of \d+ runs", "cut short"),
    _rule(r"^generator-bound", "generator-bound", SERVER_LOAD),
    _rule(r"^warm-up did not settle", "unsettled", SERVER_METRICS, unranked=True),
    # a batch JVM still compiling in its measured iterations (stats.cell)
    _rule(r"^not steady: the JIT's compiler threads used ([\d.]+%) of the CPU of the",
          r"not steady (JIT \1 of CPU)", TIME_METRICS, unranked=True),
    # a continuous load's window judged on its own intervals (server.steadiness)
    _rule(r"^not steady in the measured window", "not steady", SERVER_METRICS | {"of nginx"},
          unranked=True),
    # its runs' ratios to nginx (the summary's "of nginx") are not-steady figures too; an
    # unsettled run has none (stats.ceiling_ratio leaves it out)
    _rule(r"^not steady: the JIT finished (\d+) compilations",
          r"not steady (\1 JIT compilations)", SERVER_METRICS | {"of nginx"}, unranked=True),
    _rule(r"^the server had not drained", "backlog", SERVER_LOAD),
    _rule(r"^errors under load", "errors", SERVER_METRICS),
    _rule(r"^the latency backend used", "backend busy", SERVER_LOAD),
    _rule(r"^p99 latency .* over half", "p99 a floor", frozenset({"p99"})),
    _rule(r"^the server's ready line says its runtime uses \d+ CPUs", "CPUs ≠ pinned"),
    _rule(r"^the hypervisor withheld up to ([\d.]+%)", r"stolen CPU (\1)"),
    _rule(r"process\(es\) of the contender outlived it", "escaped processes"),
    _rule(r"^server ended with .* after SIGTERM", "bad exit", SERVER_METRICS),
)
IGNORED = (re.compile(r"^no profile"), re.compile(r"^server did not exit within"))
"""Warnings about what happened after the measurement (profiling, stopping): they do not
qualify a figure, and stay in the warnings list."""

MACHINE_RULES: tuple[Rule, ...] = (
    _rule(r"^other programs used", "other load"),
    _rule(r"^CPU frequency governor", "frequency scaling"),
    _rule(r"^only \d+ usable CPU", "one CPU"),
)
UNKNOWN = "warning"


def _match(rules: tuple[Rule, ...], warning: str) -> Rule | None:
    return next((r for r in rules if r.pattern.search(warning)), None)


def _label(rule: Rule | None, warning: str) -> str:
    if rule is None:
        return UNKNOWN
    found = rule.pattern.search(warning)
    return found.expand(rule.label) if found else rule.label


def _span(rule: Rule, warnings: list[str]) -> str | None:
    """One label for several runs' warnings of a rule that carries one count ("not steady
    (103–160 JIT compilations)"), or None when the rule carries no single count."""
    found = [rule.pattern.search(w) for w in warnings]
    counts = [m.group(1) for m in found if m and len(m.groups()) == 1]
    if len(counts) != len(warnings) or not all(c.isdigit() for c in counts):
        return None
    low, high = min(map(int, counts)), max(map(int, counts))
    return rule.label.replace("\\1", f"{low}–{high}" if low != high else str(low))


def cell_flags(warnings: tuple[str, ...] | list[str], metric: str) -> list[Flag]:
    """The flags of a cell's warnings that qualify this metric, once per label; the runs'
    warnings of a rule that counts something make one flag, with the range of the counts."""
    kept: list[tuple[Rule | None, str]] = []
    for warning in warnings:
        if any(p.search(warning) for p in IGNORED):
            continue
        rule = _match(RULES, warning)
        if rule is None or not rule.metrics or metric in rule.metrics:
            kept.append((rule, warning))
    found: dict[str, Flag] = {}
    for rule, warning in kept:
        same = [w for r, w in kept if r is rule] if rule is not None else []
        label = (_span(rule, same) if rule is not None and len(same) > 1 else None) \
            or _label(rule, warning)
        found.setdefault(label, Flag(label, warning, rule is not None and rule.unranked))
    return list(found.values())


def machine_flags(warnings: tuple[str, ...] | list[str]) -> list[Flag]:
    """The machine's own warnings (system check), which qualify every figure of the run."""
    found = []
    for warning in warnings:
        found.append(Flag(_label(_match(MACHINE_RULES, warning), warning), warning))
    return found
