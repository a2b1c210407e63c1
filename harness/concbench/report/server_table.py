"""Rows of the summary table for server workloads (http-*): the load figures first.

The `vs` column is the fraction of a ceiling: for http-hello the nginx row with the same
parameters (what this machine and generator can do at all), for http-aggregate the tightest
Little's-law bound of the design (named). In an interleaved plan the nginx figure is the
median of the per-round ratios with its 95 % interval (concbench.stats.ceiling_ratio: each
run against nginx's run of the same round); otherwise the ratio of the two cells' medians.
"""

from __future__ import annotations

from concbench.report import units
from concbench.report.flags import cell_flags
from concbench.resultset.model import CellResult
from concbench.stats.ceiling_ratio import CEILING, STAT

CEILING_CONTENDER = CEILING
_BOUND_SHORT = {"connections": "conn", "request threads": "threads", "async pool": "pool"}


def _median(cell: CellResult, key: str) -> float | None:
    s = cell.stats.get(key)
    return s.median if s else None


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.0f}%"


def _rate(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v / 1000:.1f}k" if v >= 10_000 else f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def _us(v: float | None) -> str:
    return "—" if v is None else f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def _behind(cell: CellResult) -> str:
    """Whether the cell's ok runs fell behind their offered rate (— for closed loop)."""
    verdicts = [r.load["open_loop"]["saturated"] for r in cell.runs if r.status == "ok"
                and r.load and r.load.get("open_loop")]
    if not verdicts:
        return "—"
    behind = sum(1 for v in verdicts if v)
    return "yes" if behind == len(verdicts) else "no" if behind == 0 \
        else f"{behind}/{len(verdicts)}"


def _ci(cell: CellResult) -> str:
    s = cell.stats.get("requests_per_s")
    if not s or not s.ci95:
        return "—"
    return f"± {_rate((s.ci95[1] - s.ci95[0]) / 2)}"


def _paired(group: list[CellResult]) -> bool:
    """Whether the group's nginx figures are per-round ratios (then only those are shown)."""
    return any(STAT in c.stats for c in group)


def _same_round(cell: CellResult) -> str:
    s = cell.stats.get(STAT)
    if s is None:
        return "—"
    if not s.ci95:
        return f"{s.median:.0%}"
    return f"{s.median:.0%} ({s.ci95[0]:.0%}–{s.ci95[1]:.0%})"


def _versus(cell: CellResult, group: list[CellResult]) -> str:
    rate = _median(cell, "requests_per_s")
    if rate is None or _offered(cell):  # open loop: the rate is the one offered
        return "—"
    bounds = cell.metadata.get("bounds")
    if bounds and cell.efficiency is not None:
        name = bounds.get("tightest") or ""
        return f"{cell.efficiency:.0%} {_BOUND_SHORT.get(name, name)}".strip()
    if _paired(group):
        return _same_round(cell)
    if any(f.unranked for f in cell_flags(cell.warnings, "of nginx")):
        return "—"  # not the server's steady state: no fraction of the ceiling
    for other in group:
        if other.contender == CEILING_CONTENDER and other.params == cell.params \
                and other is not cell:
            ceiling = _median(other, "requests_per_s")
            return f"{rate / ceiling:.0%}" if ceiling else "—"
    return "—"


def versus_header(group: list[CellResult]) -> str:
    if any(c.metadata.get("bounds") for c in group):
        return "of bound"
    if _paired(group):
        return f"vs {CEILING_CONTENDER}, same round (95% CI)"
    return f"vs {CEILING_CONTENDER}"


HEADERS = ("capacity/s", "requests/s", "95% CI", "offered/s", "behind", "p50", "p99", "p99.9",
           "max", "errors", "server CPU", "server µs/req", "excl. JIT", "server RSS", "threads",
           "gen CPU",
           "gen µs/req", "start-up", "warm-up", "n")
"""requests/s is the ok responses per second achieved; OPEN_LOOP's columns are there when a
cell of the table was offered a rate (oha): the median offered rate and whether the server fell
behind it (server.saturation), as "yes", "no" or the runs that did ("1/3"). capacity/s is
there when a cell searched its capacity at a p99 target (slo-p99-ms, server.capacity): the
median over runs of the highest rate that held; its window then ran at that rate. "excl. JIT"
is the server µs/req less the JIT compiler threads' CPU (server.cpu_per_request), there when a
cell of the table ran a JIT."""
OPEN_LOOP = ("offered/s", "behind")
CAPACITY = ("capacity/s",)
WITHOUT_JIT = ("excl. JIT",)


def _jit(group: list[CellResult]) -> bool:
    """Some cell's server has a JIT whose CPU was taken out of its CPU per request."""
    return any(_median(c, "server_cpu_us_per_request_without_jit") is not None
               and _median(c, "server_cpu_us_per_request_without_jit")
               != _median(c, "server_cpu_us_per_request") for c in group)


def _offered(cell: CellResult) -> bool:
    """The cell's window ran at a rate it was offered (a given rate or a found capacity)."""
    return bool(cell.params.get("rate") or cell.params.get("slo-p99-ms"))


def _searched(group: list[CellResult]) -> bool:
    return any(c.params.get("slo-p99-ms") for c in group)


def headers(group: list[CellResult]) -> tuple[str, ...]:
    """HEADERS, without OPEN_LOOP's columns in a table of closed-loop cells only, and without
    CAPACITY's where no cell searched."""
    left_out = (() if any(_offered(c) for c in group) else OPEN_LOOP) \
        + (() if _searched(group) else CAPACITY) + (() if _jit(group) else WITHOUT_JIT)
    return tuple(h for h in HEADERS if h not in left_out)


def all_headers(group: list[CellResult]) -> tuple[str, ...]:
    """headers() with the ceiling column after the requests/s interval, as row() has it."""
    found = headers(group)
    at = found.index("95% CI") + 1
    return (*found[:at], versus_header(group), *found[at:])


def row(cell: CellResult, group: list[CellResult]) -> tuple[str, ...]:
    """The figures after the contender and varying parameters, before the status."""
    if "requests_per_s" not in cell.stats:
        return ("—",) * (len(headers(group)) + 1)
    errors = _median(cell, "errors_total")
    n = cell.stats["requests_per_s"].n
    offered = (_rate(_median(cell, "offered_per_s")), _behind(cell)) \
        if any(_offered(c) for c in group) else ()
    capacity = (_rate(_median(cell, "capacity_per_s")),) if _searched(group) else ()
    return (*capacity, _rate(_median(cell, "requests_per_s")), _ci(cell), _versus(cell, group),
            *offered,
            units.milliseconds(_median(cell, "latency_p50_ms")), units.milliseconds(_median(cell, "latency_p99_ms")),
            units.milliseconds(_median(cell, "latency_p999_ms")), units.milliseconds(_median(cell, "latency_max_ms")),
            units.count(errors), _pct(_median(cell, "server_cpu_percent")),
            _us(_median(cell, "server_cpu_us_per_request")),
            *((_us(_median(cell, "server_cpu_us_per_request_without_jit")),)
              if _jit(group) else ()),
            units.size(_median(cell, "server_peak_rss_bytes")),
            units.count(_median(cell, "server_peak_threads")),
            _pct(_median(cell, "generator_cpu_percent")),
            _us(_median(cell, "generator_cpu_us_per_request")),
            units.seconds(_median(cell, "startup_s")), units.seconds(_median(cell, "warmup_s")),
            str(n))
