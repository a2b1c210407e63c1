"""Two cells of one interleaved plan, compared round by round where they can be
(concbench.stats.inference.paired_ratio_test): every verdict the tool gives on cells of one
result set — the summary's ranks and ties, the upgrades analysis, the calibration — comes from
`cell_test`. Cells of two result sets (`compare`) have no rounds in common: one value per
process a side."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from concbench.resultset.model import CellResult
from concbench.stats.inference import PAIRED_ROUNDS, RatioTest, paired_ratio_test, ratio_test

Samples = Callable[[CellResult], list[float]]
"""One value per process of a cell (a run that gives none is left out)."""


def by_round(cell: CellResult, samples: Samples) -> dict[int, float]:
    """Each run's value, keyed by its round of an interleaved plan: `samples` of the cell
    with that run alone (runs without a round, or without a value, left out)."""
    found = {}
    for run in cell.runs:
        if run.round is None:
            continue
        values = samples(replace(cell, runs=(run,)))
        if len(values) == 1:
            found[run.round] = values[0]
    return found


def common_rounds(base: CellResult, new: CellResult,
                  samples: Samples) -> list[tuple[float, float]]:
    """(base, new) values of the rounds both cells have a value in, in round order."""
    b, n = by_round(base, samples), by_round(new, samples)
    return [(b[r], n[r]) for r in sorted(set(b) & set(n))]


def cell_test(base: CellResult, new: CellResult, samples: Samples,
              test: str = "welch") -> RatioTest:
    """NEW against BASE: round by round when they share PAIRED_ROUNDS rounds or more,
    otherwise `test` on one value per process a side."""
    pairs = common_rounds(base, new, samples)
    if len(pairs) >= PAIRED_ROUNDS:
        return paired_ratio_test(pairs)
    return ratio_test(samples(base), samples(new), test)
