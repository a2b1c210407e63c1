"""The markdown table of measure.py: medians per runtime and task count, and the slope
between the two counts in bytes per task."""

from __future__ import annotations

import statistics

from one_run import Run
from runtimes import Runtime


def med(values: list[int | float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def mb(v: float | None) -> str:
    return "—" if v is None else f"{v / 1e6:,.1f}"


def slope(a: float | None, b: float | None, na: int, nb: int) -> str:
    return "—" if a is None or b is None else f"{(b - a) / (nb - na):,.0f}"


def _medians(rt: Runtime, n: int, runs: list[Run]) -> tuple:
    ok = [r for r in runs if r.runtime == rt.name and r.n == n and r.ok]
    total = [r for r in runs if r.runtime == rt.name and r.n == n]  # retries too
    return (med([r.mark_rss for r in ok]), med([r.settled_rss for r in ok]),
            med([r.peak_rss for r in ok]), med([r.mark_s for r in ok]),
            f"{len(ok)}/{len(total)}")


def table(rts: list[Runtime], runs: list[Run], missing: dict[str, str]) -> str:
    rows = ["| runtime | N | RSS at mark (MB) | settled RSS (MB) | peak RSS (MB) | "
            "B/task at mark | B/task settled | B/task peak | mark at (s) | ok / runs |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for rt in rts:
        if rt.name in missing:
            rows.append(f"| {rt.name} | — | not run: {missing[rt.name]} | | | | | | | |")
            continue
        meds = {n: _medians(rt, n, runs) for n in rt.ns}
        a, b = rt.ns
        for n in rt.ns:
            m, s, p, t, cnt = meds[n]
            slopes = ([slope(meds[a][i], meds[b][i], a, b) for i in range(3)] if n == b
                      else ["", "", ""])
            rows.append(f"| {rt.name} | {n:,} | {mb(m)} | {mb(s)} | {mb(p)} | "
                        f"{' | '.join(slopes)} | {'—' if t is None else f'{t:.1f}'} | {cnt} |")
    return "\n".join(rows)
