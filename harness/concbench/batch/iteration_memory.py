"""Each iteration's memory above the RSS just before it (skynet's bytes per task).

The RSS at the previous iteration's line is the process just before this iteration: what a
contender does between its line and its next clock is build one JSON line. So the growth of an
iteration is the highest RSS sampled between the two lines (every 10 ms, and at each line) minus
the RSS at the first; a garbage-collected runtime's heap still holding the previous tree is not
counted as this one's. The first iteration has no line before it: no figure (a cold row).
"""

from __future__ import annotations

from typing import Any

from concbench.proc.process import RSS_AT_LINE, T_AT_LINE
from concbench.proc.sampler import Sample


def growth(messages: list[dict[str, Any]], samples: list[Sample]) -> dict[int, int]:
    """Iteration index -> bytes its RSS rose above the RSS at the previous iteration's line."""
    lines = [m for m in messages if m.get("type") == "iteration"
             and isinstance(m.get(RSS_AT_LINE), int) and isinstance(m.get(T_AT_LINE), float)]
    found: dict[int, int] = {}
    for before, line in zip(lines, lines[1:]):
        t0, t1 = before[T_AT_LINE], line[T_AT_LINE]
        inside = [s.rss_bytes for s in samples if t0 <= s.t_s <= t1]
        peak = max([line[RSS_AT_LINE], *inside])
        if isinstance(line.get("index"), int):
            found[line["index"]] = max(0, peak - before[RSS_AT_LINE])
    return found
