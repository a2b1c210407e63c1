"""Scans in a results document: cells of one workload and contender that differ only in a
size parameter, and the per-unit costs fitted over them (see concbench.stats.scaling).

Points of a fit: time uses every measured iteration's elapsed_s of every ok run; memory uses
each ok run's RSS at the `all-spawned` mark when the workload has one (spawn-idle: memory with
every task alive), else its peak RSS. Cells that are not ok give no points.

Server cells (http-*, scanned over connections, usually with think-ms: held keep-alive
connections) fit the server's own figures over the measured window instead: `server_rss`, its
peak RSS in the window, and `server_threads`, its peak thread count there. The slopes are RSS
and threads per held connection. Peak rather than mean RSS: every connection opens when the
window's load starts and stays open to its end, so the window's mean includes the ramp while
the server accepts them (longer for a slower acceptor, and at more connections), which would
bend the fit; the peak is the RSS with every connection held, what a machine must have to hold
them, the garbage collector's headroom included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from concbench.resultset.model import CellResult, RunResult
from concbench.stats.scaling import ScalingFit, fit

SIZE_PARAMS = ("tasks", "requests", "workers", "connections", "events")
"""Parameters that count as a size, in order of preference when several vary."""

METRICS = ("time", "memory")
SERVER_METRICS = ("server_rss", "server_threads")
"""The metrics of server scans: the server's peak RSS and peak threads in the window."""
UNITS = {"time": "s", "memory": "B", "server_rss": "B", "server_threads": "threads"}


@dataclass(frozen=True)
class ScanFit:
    """The fit of one metric over one scan."""

    workload: str
    contender: str
    size_param: str
    """The scanned parameter (N)."""
    fixed: dict[str, Any]
    """The other parameters, equal in every cell of the scan."""
    metric: str
    """time (seconds per iteration) or memory (bytes)."""
    unit: str
    """Unit of the metric: s or B."""
    fit: ScalingFit
    sizes: tuple[int, ...]
    """The distinct sizes with ok points."""
    notes: tuple[str, ...] = ()
    """What qualifies the sizes (a server that held fewer connections than asked)."""


def size_param(cells: list[CellResult]) -> str | None:
    """The size parameter that varies among these cells, if any."""
    for name in SIZE_PARAMS:
        values = {c.params.get(name) for c in cells if name in c.params}
        if len(values) > 1 and all(isinstance(v, int) for v in values):
            return name
    return None


def _window(run: Any, key: str) -> Any:
    return ((run.server or {}).get("window") or {}).get(key)


def is_server(cells: Iterable[CellResult]) -> bool:
    """True when these cells ran a server (their runs measured a load)."""
    return any(r.load is not None for c in cells for r in c.runs)


def process_times(cell: CellResult) -> list[list[float]]:
    """Each ok run's measured iterations' elapsed seconds, one list per process."""
    return [[it.elapsed_ns / 1e9 for it in r.measured()] for r in cell.runs
            if r.status == "ok" and r.measured()]


def points(cell: CellResult, metric: str) -> list[float]:
    ok = [r for r in cell.runs if r.status == "ok"]
    if metric in SERVER_METRICS:
        key = "peak_rss_bytes" if metric == "server_rss" else "peak_threads"
        return [float(v) for v in (_window(r, key) for r in ok) if isinstance(v, (int, float))]
    if metric == "time":
        return [it.elapsed_ns / 1e9 for r in ok for it in r.measured()]
    return [memory_point(run) for run in ok]


def memory_point(run: RunResult) -> float:
    """A run's memory: its RSS at the all-spawned mark, else its peak RSS."""
    at_mark = next((m.get("rss_bytes") for m in run.marks.values() if m.get("rss_bytes")), None)
    return float(at_mark or run.peak_rss_bytes)


def _groups(cells: Iterable[CellResult], param: str) -> dict[tuple, list[CellResult]]:
    groups: dict[tuple, list[CellResult]] = {}
    for cell in cells:
        if param not in cell.params:
            continue
        rest = tuple(sorted((k, repr(v)) for k, v in cell.params.items() if k != param))
        groups.setdefault((cell.workload, cell.contender, rest), []).append(cell)
    return groups


def _fit_group(group: list[CellResult], param: str, metric: str) -> ScanFit | None:
    xs: list[float] = []
    ys: list[float] = []
    for cell in group:
        ys_cell = points(cell, metric) if cell.status == "ok" else []
        xs += [float(cell.params[param])] * len(ys_cell)
        ys += ys_cell
    found = fit(xs, ys)
    if found is None:
        return None
    first = group[0]
    fixed = {k: v for k, v in first.params.items() if k != param}
    sizes = tuple(sorted({int(x) for x in xs}))
    notes = held_notes(group) if metric in SERVER_METRICS and param == "connections" else ()
    return ScanFit(first.workload, first.contender, param, fixed, metric, UNITS[metric], found,
                   sizes, notes)


def held_notes(group: list[CellResult]) -> tuple[str, ...]:
    """Cells whose server held fewer connections than asked, by what wrk opened (it drops
    connections ÷ threads' remainder) or by the server's peak open files in the window (a
    file per connection; fewer means connections failed or were closed)."""
    found = []
    for cell in sorted(group, key=lambda c: c.params["connections"]):
        asked = int(cell.params["connections"])
        ok = [r for r in cell.runs if r.status == "ok"]
        opened = [r.load.get("connections_opened") for r in ok if r.load]
        fds = [_window(r, "peak_fds") for r in ok]
        fewest_opened = min((o for o in opened if isinstance(o, int)), default=asked)
        fewest_fds = min((f for f in fds if isinstance(f, int)), default=None)
        if fewest_opened < asked:
            found.append(f"connections={asked}: the load generator opened {fewest_opened}")
        elif fewest_fds is not None and fewest_fds < asked:
            found.append(f"connections={asked}: the server had at most {fewest_fds} files "
                         "open in the window, fewer than the connections")
    return tuple(found)


def scan_fits(cells: Iterable[CellResult]) -> list[ScanFit]:
    """Every fit of every scan with at least two sizes, grouped by workload in input order."""
    by_workload: dict[str, list[CellResult]] = {}
    for cell in cells:
        by_workload.setdefault(cell.workload, []).append(cell)
    found = []
    for group in by_workload.values():
        param = size_param(group)
        if param is None:
            continue
        metrics = SERVER_METRICS if is_server(group) else METRICS
        for scan in _groups(group, param).values():
            for metric in metrics:
                result = _fit_group(scan, param, metric)
                if result is not None:
                    found.append(result)
    return found
