"""Capacity at a latency target: the highest open-loop rate a server holds with p99 under
`slo-p99-ms`, found by bisection and confirmed before the measured window.

A window *holds* its offered rate when the server kept up with it (server.saturation: 99 %
of the requests due answered), no request failed, and oha's p99 (corrected for coordinated
omission, over every request due: one that never answered counts at its floor) is at most
the target. Each window is a load of its own at its rate, after a lead-in at that rate
(server.rate_point), so no window inherits what ran before it. The search starts from the
server's closed-loop peak (PROBE_S seconds, the same probe as rate=N%): the interval
[0, peak] is halved `capacity-steps` times, each step one window of `capacity-window-s` at
the interval's middle. With 6 steps it is within 1/64 of the peak.

One window must not decide: p99 is not monotonic in the rate on a host whose speed moves (a
window at half the peak can miss where a higher rate holds), so a miss is tried
once more at the same rate (at most RETRIES a search; a rate that held only at its retry
steers the bisection but is not a candidate), and the highest rate that held is accepted only
when CONFIRMATIONS confirming windows in a row after the search hold too (else the next
highest, and so on down the rates that held); the capacity is that confirmed rate, 0 when none
was. Near the knee a window holds by chance (the host's own stalls of tens of ms decide a
5 ms p99), so a rate that held once may hold the measured window after it barely more often
than a coin: three holds of three (the search's and two confirmations) leave the rates that
hold reliably. A window whose generator used its whole CPU decides nothing (inconclusive) and
ends the search there. The measured window then runs at the capacity (at the lowest rate
tried when there is none, so the run still has its latency and CPU figures). Every window is
recorded with its role.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from concbench.server import rate_point
from concbench.server.cpu_per_request import per_response_us
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
    generator_cpu_share: float | None = None
    """The generator's CPU over the window, as a share of the CPUs it was given."""
    inconclusive: bool = False
    """The generator was busy (server.rate_point.GENERATOR_BUSY_SHARE): neither held nor
    missed by the server."""
    role: str = "search"
    """"search", "retry" (the same rate again after a miss) or "confirm" (after the search)."""
    server_us_per_request: float | None = None
    """The server's CPU over the window ÷ the responses in it (any status), in µs; perf is
    never attached in a search window."""
    server_us_without_jit: float | None = None
    """The same less the JIT compiler threads' CPU (None without a JIT)."""


def judge(load: LoadResult, offered_per_s: int, window_s: float,
          target_ms: float, role: str = "search") -> CapacityWindow:
    """Whether one open-loop window held its rate within the target."""
    point = open_loop_record(load, offered_per_s, window_s)
    p99 = load.latency_ms.get("p99")
    share = rate_point.generator_share(load)
    errors = load.errors_total - int(load.notes.get("missed", 0) or 0)
    why = [point["why"]] if point["saturated"] else []
    if errors:
        why.append(f"{errors} errors")
    if p99 is None:
        why.append("no latency (no response)")
    elif p99 > target_ms:
        why.append(f"p99 {p99:.3g} ms above the target of {target_ms:g} ms")
    busy = rate_point.generator_bound(load)
    if busy:
        why.insert(0, f"inconclusive: the generator used {share:.0%} of its CPU")
    cpu, jit = load.notes.get("server_cpu_s"), load.notes.get("server_jit_cpu_s")
    per_request = per_response_us(cpu, load.requests)
    without_jit = per_response_us(max(0.0, cpu - jit), load.requests) \
        if cpu is not None and jit is not None else None
    return CapacityWindow(offered_per_s, load.requests_per_s, p99, errors, not why,
                          "; ".join(why), share, busy, role, _rounded(per_request),
                          _rounded(without_jit))


def _rounded(us: float | None) -> float | None:
    return None if us is None else round(us, 3)


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
        """The highest rate that held in the search and again in CONFIRMATIONS confirming
        windows, none of them missed (0.0 when none did)."""
        return float(max((rate for rate, held in self.confirmations().items()
                          if held >= CONFIRMATIONS), default=0))

    def confirmations(self) -> dict[int, int]:
        """Confirming windows held at each rate confirmed; 0 at a rate where one missed."""
        confirms = [w for w in self.windows if w.role == "confirm"]
        missed = {w.offered_per_s for w in confirms if not w.held}
        return {rate: 0 if rate in missed
                else sum(w.held for w in confirms if w.offered_per_s == rate)
                for rate in {w.offered_per_s for w in confirms}}

    @property
    def held_in_search(self) -> list[int]:
        """The rates that held in every search window at them, highest first: a rate that
        missed once and held at its retry steers the bisection up but is never the capacity
        (it already missed one window in two)."""
        searched = [w for w in self.windows if w.role != "confirm" and not w.inconclusive]
        missed = {w.offered_per_s for w in searched if not w.held}
        return sorted({w.offered_per_s for w in searched if w.held} - missed, reverse=True)

    @property
    def generator_bound(self) -> bool:
        return any(w.inconclusive for w in self.windows)

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
        searched = [w for w in self.windows if w.role == "search"]
        return bool(searched) and all(w.held for w in searched)

    def to_dict(self) -> dict[str, Any]:
        return {"target_p99_ms": self.target_p99_ms, "peak_per_s": self.peak_per_s,
                "capacity_per_s": self.capacity_per_s, "window_s": self.window_s,
                "steps": self.steps, "at_top": self.at_top,
                "held_in_search": self.held_in_search, "generator_bound": self.generator_bound,
                "windows": [dict(w.__dict__) for w in self.windows]}


RETRIES = 2
"""Misses retried at the same rate per search: a single unlucky window (p99 is not monotonic
in the rate on a host whose speed moves) does not send the search low for good."""

CONFIRMATIONS = 2
"""Confirming windows in a row a rate that held in the search must hold to be the capacity."""


class _Attempts:
    """The windows of one search, each judged and recorded."""

    def __init__(self, search: CapacitySearch, load: Load, settle: Callable[[], None]):
        self.search, self.load, self.settle = search, load, settle
        self.windows: list[CapacityWindow] = []

    def run(self, rate: int, role: str) -> tuple[CapacityWindow | None, Failure | None]:
        found, failure = self.load(self.search.window_s, rate)
        if failure or found is None:
            return None, failure or ("crash", "a capacity window gave no result")
        window = judge(found, rate, self.search.window_s, self.search.target_p99_ms, role)
        self.windows.append(window)
        if not window.held:
            self.settle()  # a missed window may leave a backlog behind
        return window, None


def bisect(search: CapacitySearch, load: Load, settle: Callable[[], None]
           ) -> tuple[CapacitySearch, Failure | None]:
    """Halve [0, peak] `steps` times, one window at each middle (a miss tried once more, at
    most RETRIES times a search; a window the generator bounded ends the search there), then
    confirm the highest rate that held, CONFIRMATIONS windows in a row (or the next, down the
    rates that held)."""
    low, high = 0.0, search.peak_per_s
    tries = _Attempts(search, load, settle)
    retries = 0
    for _ in range(search.steps):
        rate = max(1, round((low + high) / 2))
        if rate in {w.offered_per_s for w in tries.windows}:
            break  # the interval is narrower than one request/s
        window, failure = tries.run(rate, "search")
        if window is not None and not window.held and not window.inconclusive \
                and retries < RETRIES:
            retries += 1
            window, failure = tries.run(rate, "retry")
        if failure or window is None:
            return _with(search, tries.windows), failure
        if window.inconclusive:
            break  # the generator cannot offer more than this: nothing above it is known
        low, high = (rate, high) if window.held else (low, rate)
    for rate in _with(search, tries.windows).held_in_search:
        for _ in range(CONFIRMATIONS):
            window, failure = tries.run(rate, "confirm")
            if failure or window is None:
                return _with(search, tries.windows), failure
            if not window.held:
                break
        else:
            break
    return _with(search, tries.windows), None


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
    return search, failure, _warning(search, target)


def _warning(search: CapacitySearch, target: float) -> str | None:
    if search.generator_bound:
        busy = min(w.offered_per_s for w in search.windows if w.inconclusive)
        return (f"the generator used its whole CPU at {busy:,} requests/s: the search stopped "
                "there and the capacity may be higher")
    if not search.capacity_per_s and search.held_in_search:
        return (f"no capacity confirmed: {', '.join(f'{r:,}' for r in search.held_in_search)} "
                f"requests/s held p99 ≤ {target:g} ms in the search but missed again in a "
                "confirming window (capacity 0)")
    if search.at_top:
        return (f"every capacity window held: the capacity reached the closed-loop probe's "
                f"peak ({search.peak_per_s:,.0f} requests/s) and may be higher")
    if not search.capacity_per_s and search.windows:
        return (f"no rate held p99 ≤ {target:g} ms down to "
                f"{min(w.offered_per_s for w in search.windows)} requests/s (capacity 0)")
    return None
