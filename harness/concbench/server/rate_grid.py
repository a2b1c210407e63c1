"""Offered rates as shares of the server's own closed-loop peak, and the default grid.

`rate=N%` offers N % of the server's closed-loop peak, open loop. The first such run of a
contender on a workload with given other parameters probes that peak: PROBE_S seconds closed
loop after its warm-up, with the same generator and connections. Every later run of the grid
in the same plan (same contender, workload, other parameters) offers its share of that one
peak, so the grid's rates keep their order on a machine whose peak moves from run to run.
`rate=auto` (in --scan or --param) is a grid of such shares (workloads.rate_forms), so a
latency–load curve needs no guessed rates. Each run records the probe its rate came from (`server.rate_probe`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PROBE_S = 3.0
"""Seconds of the closed-loop probe: long enough for oha to reach its steady rate, short
beside a measured window."""


def offered_rate(peak_per_s: float, percent: int) -> int:
    """The open-loop rate offered for `percent` % of a probed peak (at least 1 request/s)."""
    return max(1, round(peak_per_s * percent / 100))


@dataclass(frozen=True)
class RateProbe:
    """The closed-loop probe of one run and the rate it led to."""

    seconds: float
    peak_per_s: float
    """ok responses per second of the probe (closed loop)."""
    percent: int
    offered_per_s: int
    probed_here: bool = True
    """False when an earlier run of the grid probed the peak (this run reused it)."""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def at(self, percent: int) -> "RateProbe":
        """The same peak offered at another share, as a later run of the grid uses it."""
        return RateProbe(self.seconds, self.peak_per_s, percent,
                         offered_rate(self.peak_per_s, percent), probed_here=False)


GridKey = tuple[str, str, str]
_PEAKS: dict[GridKey, RateProbe] = {}
"""The probe of each grid in this process (a plan runs in one process)."""


def grid_key(contender: str, workload: str, params: dict[str, Any]) -> GridKey:
    others = sorted((k, v) for k, v in params.items() if k != "rate")
    return contender, workload, repr(others)


def known_peak(key: GridKey, percent: int) -> RateProbe | None:
    probe = _PEAKS.get(key)
    return probe.at(percent) if probe else None


def remember_peak(key: GridKey, probe: RateProbe) -> None:
    _PEAKS[key] = probe
