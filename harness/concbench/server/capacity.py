"""Capacity at a latency target: the highest open-loop rate a server holds with p99 under
`slo-p99-ms`, found by bisection before the measured window.

A window *holds* its offered rate when the server kept up with it (server.saturation: 99 %
of the offered rate achieved, oha's backlog under 1 %), no request failed, and oha's p99
(corrected for coordinated omission) is at most the target. The search starts from the
server's closed-loop peak (PROBE_S seconds, the same probe as rate=N%): the interval
[0, peak] is halved `capacity-steps` times, each step one window of `capacity-window-s` at
the interval's middle; the capacity is the highest rate that held. With 6 steps it is within
1/64 of the peak. The measured window then runs at that rate (at the lowest rate tried when
none held, so the run still has its latency and CPU figures): its own verdict is recorded
beside the search's, and a miss there says the capacity sits on the edge.

One window decides each step, so on a noisy machine a single unlucky window can send the
search low; repeated runs (`--runs`) give the spread, and every window is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from concbench.server.loadgen import LoadResult
from concbench.server.rate_probe import Failure, Load, closed_loop_peak
from concbench.server.saturation import open_loop_record


@dataclass(frozen=True)
class CapacityWindow:
    """One window of the search and its verdict."""

    offered_per_s: int
    achieved_per_s: float
    p99_ms: float | None
    errors: int
    held: bool
    why: str
    """Why the window missed (empty when it held)."""


def judge(load: LoadResult, offered_per_s: int, window_s: float,
          target_ms: float) -> CapacityWindow:
    """Whether one open-loop window held its rate within the target."""
    point = open_loop_record(load, offered_per_s, window_s)
    p99 = load.latency_ms.get("p99")
    why = [point["why"]] if point["saturated"] else []
    if load.errors_total:
        why.append(f"{load.errors_total} errors")
    if p99 is None:
        why.append("no latency (no response)")
    elif p99 > target_ms:
        why.append(f"p99 {p99:.3g} ms above the target of {target_ms:g} ms")
    return CapacityWindow(offered_per_s, load.requests_per_s, p99, load.errors_total,
                          not why, "; ".join(why))


@dataclass(frozen=True)
class CapacitySearch:
    """What the search tried and found (recorded as server.capacity)."""

    target_p99_ms: float
    peak_per_s: float
    """ok responses per second of the closed-loop probe the search started from."""
    window_s: float
    steps: int
    windows: tuple[CapacityWindow, ...] = field(default_factory=tuple)

    @property
    def capacity_per_s(self) -> float:
        """The highest rate that held (0.0 when none did)."""
        return float(max((w.offered_per_s for w in self.windows if w.held), default=0))

    @property
    def window_rate(self) -> int:
        """The measured window's rate: the capacity, or the lowest rate tried."""
        if self.capacity_per_s:
            return int(self.capacity_per_s)
        tried = [w.offered_per_s for w in self.windows]
        return min(tried) if tried else max(1, round(self.peak_per_s / 2 ** self.steps))

    @property
    def at_top(self) -> bool:
        """True when every window held: the probed peak, not the target, bounded the search."""
        return bool(self.windows) and all(w.held for w in self.windows)

    def to_dict(self) -> dict[str, Any]:
        return {"target_p99_ms": self.target_p99_ms, "peak_per_s": self.peak_per_s,
                "capacity_per_s": self.capacity_per_s, "window_s": self.window_s,
                "steps": self.steps, "at_top": self.at_top,
                "windows": [dict(w.__dict__) for w in self.windows]}


def bisect(search: CapacitySearch, load: Load, settle: Callable[[], None]
           ) -> tuple[CapacitySearch, Failure | None]:
    """Halve [0, peak] `steps` times, one window at each middle."""
    low, high = 0.0, search.peak_per_s
    windows: list[CapacityWindow] = []
    for _ in range(search.steps):
        rate = max(1, round((low + high) / 2))
        if windows and rate in {w.offered_per_s for w in windows}:
            break  # the interval is narrower than one request/s
        found, failure = load(search.window_s, rate)
        if failure or found is None:
            return _with(search, windows), failure or ("crash", "a capacity window gave no "
                                                       "result")
        window = judge(found, rate, search.window_s, search.target_p99_ms)
        windows.append(window)
        if window.held:
            low = rate
        else:
            high = rate
            settle()  # a missed window may leave a backlog behind
    return _with(search, windows), None


def _with(search: CapacitySearch, windows: list[CapacityWindow]) -> CapacitySearch:
    return replace(search, windows=tuple(windows))


def search_capacity(params: dict[str, Any], floor_ms: float | None, load: Load,
                    settle: Callable[[], None]
                    ) -> tuple[CapacitySearch | None, Failure | None, str | None]:
    """(the search, a failure, a warning) for a run with slo-p99-ms > 0."""
    target = float(params["slo-p99-ms"])
    probe, failure = closed_loop_peak(load)
    if failure or probe is None:
        return None, failure, None
    settle()
    search = CapacitySearch(target, probe.requests_per_s, float(params["capacity-window-s"]),
                            int(params["capacity-steps"]))
    if floor_ms is not None and floor_ms >= target:
        return search, None, (f"slo-p99-ms={target:g} is at or below this workload's latency "
                              f"floor of {floor_ms:g} ms: no rate can hold it (capacity 0)")
    search, failure = bisect(search, load, settle)
    warning = None
    if search.at_top:
        warning = (f"every capacity window held: the capacity reached the closed-loop probe's "
                   f"peak ({search.peak_per_s:,.0f} requests/s) and may be higher")
    elif not search.capacity_per_s and search.windows:
        warning = (f"no rate held p99 ≤ {target:g} ms down to "
                   f"{min(w.offered_per_s for w in search.windows)} requests/s (capacity 0)")
    return search, failure, warning
