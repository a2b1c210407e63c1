"""Precision on demand (`--precision 3%`): more processes of a cell, still interleaved, until
its headline figure's 95 % interval is within ± the target or the cell has `--max-runs`. The
goal is here (a plan's setting); how a cell is judged against it is concbench.precision_check.

The headline is the figure a cell is read by: time per iteration (a channel's events/s, a
spawn-idle's RSS with every task alive), a server's requests/s in closed loop, its p99 at a
fixed open-loop rate, its capacity in a capacity search. Its interval is the process-level
one (concbench.stats.inference), so only more processes narrow it; the cell records the
precision reached, the runs it took and why it stopped, and the two-level variance components
of its iterations, which say whether more iterations per process would have been the cheaper
way (a small between-process share) for the next plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from concbench.errors import UserError

DEFAULT_MAX_RUNS = 10


@dataclass(frozen=True)
class Precision:
    target_pct: float
    """The interval's half-width to reach, in % of the mean."""
    max_runs: int

    @classmethod
    def parse(cls, text: str, max_runs: int | None, runs: int) -> "Precision":
        number = text.strip().removesuffix("%").strip()
        try:
            target = float(number)
        except ValueError:
            target = -1.0
        if not 0 < target < 100:
            raise UserError(f"--precision {text!r}: give the interval's half-width as a "
                            "percentage above 0 and below 100, e.g. 3%")
        most = max_runs if max_runs is not None else max(DEFAULT_MAX_RUNS, runs)
        if most < max(runs, 2):
            raise UserError(f"--max-runs {most} is below the runs planned ({runs}) or 2: an "
                            "interval needs two processes")
        return cls(target, most)

    def to_dict(self) -> dict[str, Any]:
        return {"target_pct": self.target_pct, "max_runs": self.max_runs}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "Precision | None":
        return None if not d else cls(float(d["target_pct"]), int(d["max_runs"]))
