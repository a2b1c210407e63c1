"""From the runs of one cell to its status, statistics, efficiency and warnings."""

from __future__ import annotations

from typing import Any, Callable

from concbench import steal, warnings
from concbench.server.steadiness import JIT_BUDGET
from concbench.resultset.model import CellResult, Iteration, RunResult, Summary
from concbench.stats.server_cell import bounds_of, server_stats, server_warnings
from concbench.stats.summary import summarize
from concbench.workloads.server import Bounds
from concbench.workloads import WorkloadSpec
from concbench.workloads.budget import ThreadBudget

# Worst first: a cell takes the status of its worst run.
STATUS_ORDER = ("unavailable", "crash", "mem-limit", "timeout", "invalid", "ok")


def _per_run(runs: list[RunResult], value: Callable[[RunResult], float]) -> Summary | None:
    return summarize([value(r) for r in runs])




def _throughput(spec: WorkloadSpec, units: float, ok_runs: list[RunResult]) -> Summary | None:
    """Units per second of each measured iteration (or to the rate mark, once per run), its
    interval over the process means."""
    if spec.rate_mark is None:
        return _by_process(ok_runs, lambda it: units / (it.elapsed_ns / 1e9),
                           lambda it: it.elapsed_ns > 0)
    times = [r.marks[spec.rate_mark]["elapsed_ns"] / 1e9 for r in ok_runs
             if spec.rate_mark in r.marks]
    return summarize([units / t for t in times if t > 0])


def _extra_results(spec: WorkloadSpec, params: dict[str, Any],
                   ok_runs: list[RunResult]) -> dict[str, Summary | None]:
    """Informational numeric result keys (e.g. jvm_nondaemon_threads) as result.<key>."""
    checked = set(spec.expected(params)) | {"pool_size"}
    values: dict[str, list[float]] = {}
    for run in ok_runs:
        for it in run.measured():
            for key, value in it.result.items():
                if key not in checked and isinstance(value, (int, float)) \
                        and not isinstance(value, bool):
                    values.setdefault(f"result.{key}", []).append(float(value))
    return {k: summarize(v) for k, v in values.items()}


MIN_TICKS = 20
"""An iteration lasts at least this many ticks of the CPU clock read around it, or its cell
has no CPU figure: each of the two readings can be a tick off (10 % at 20 ticks)."""
HARNESS_TICK_NS = 10_000_000
"""The harness's /proc reading counts in 10 ms ticks."""


def _cpu_per_unit(units: float, ok_runs: list[RunResult]) -> Summary | None:
    """CPU ns per unit over every measured iteration, or None for the whole cell.

    From the contender's own clock (cpu_ns, read when its timer starts and stops) when every
    iteration has it; otherwise from the harness's line-to-line reading, which also holds
    set-up and shutdown (the first iteration's holds start-up: left out). No iteration is
    dropped for being short: one too short for its clock's resolution leaves the cell without
    a figure, since the longer ones alone are a biased sample (the slow outliers)."""
    measured = [it for r in ok_runs for it in r.measured()]
    if not measured or not units:
        return None
    if all(it.cpu_ns is not None and it.cpu_tick_ns for it in measured):
        if any(it.elapsed_ns < MIN_TICKS * it.cpu_tick_ns for it in measured):
            return None
        return _by_process(ok_runs, lambda it: it.cpu_ns / units)
    outside = [it for it in measured if it.index > 0]
    if not outside or any(it.cpu_s is None or it.elapsed_ns < MIN_TICKS * HARNESS_TICK_NS
                          for it in outside):
        return None
    return _by_process(ok_runs, lambda it: it.cpu_s * 1e9 / units, lambda it: it.index > 0)


def _by_process(ok_runs: list[RunResult], value: Callable[[Iteration], float],
                keep: Callable[[Iteration], bool] = lambda it: True) -> Summary | None:
    """A per-iteration figure, its interval over the process means (stats.inference)."""
    groups = [[value(it) for it in r.measured() if keep(it)] for r in ok_runs]
    return summarize([v for g in groups for v in g], groups)


def _growth_per_unit(units: float, ok_runs: list[RunResult]) -> Summary | None:
    """Bytes per unit above the RSS just before each measured iteration; None for the whole
    cell when one has no such reading (a cold first iteration has no line before it)."""
    measured = [it for r in ok_runs for it in r.measured()]
    if not measured or not units or any(it.rss_growth_bytes is None for it in measured):
        return None
    return _by_process(ok_runs, lambda it: (it.rss_growth_bytes or 0) / units)


def _per_unit(params: dict[str, Any], units: float,
              ok_runs: list[RunResult]) -> dict[str, Summary | None]:
    """CPU (above) and context switches per unit of work (hand-off, task, event).
    ctx_switches_per_unit: the whole process's voluntary + involuntary switches (rusage) over
    every iteration it ran, warm-ups included: start-up's few thousand switches are noise
    against the millions a ring or tree makes."""
    ctx = [(r.ctx_voluntary + r.ctx_involuntary) / (units * len(r.iterations))
           for r in ok_runs if r.iterations]
    return {"cpu_ns_per_unit": _cpu_per_unit(units, ok_runs),
            "ctx_switches_per_unit": summarize(ctx) if units else None}


def cell_stats(spec: WorkloadSpec, params: dict[str, Any],
               ok_runs: list[RunResult]) -> dict[str, Summary]:
    """elapsed_s and throughput over every measured iteration; the rest once per run."""
    units = spec.units_per_iteration(params)
    found = {
        "elapsed_s": _by_process(ok_runs, lambda it: it.elapsed_ns / 1e9),
        # the first iteration of each process when it was a warm-up: the cold start, apart
        "cold_s": summarize([r.iterations[0].elapsed_ns / 1e9 for r in ok_runs
                             if r.iterations and r.iterations[0].warmup]),
        "throughput_per_s": _throughput(spec, units, ok_runs),
        "wall_s": _per_run(ok_runs, lambda r: r.wall_s),
        "peak_rss_bytes": _per_run(ok_runs, lambda r: r.peak_rss_bytes),
        "peak_threads": _per_run(ok_runs, lambda r: r.peak_threads),
        "cpu_s": _per_run(ok_runs, lambda r: r.cpu_s),
    }
    found.update(_per_unit(params, units, ok_runs))
    if spec.growth_per_unit:
        found["rss_growth_bytes_per_unit"] = _growth_per_unit(units, ok_runs)
    for mark in spec.marks:
        at_mark = [r.marks[mark] for r in ok_runs if mark in r.marks]
        found[f"{mark}_rss_bytes"] = summarize([m["rss_bytes"] for m in at_mark if m["rss_bytes"]])
        found[f"{mark}_threads"] = summarize([m["threads"] for m in at_mark if m["threads"]])
        found[f"{mark}_s"] = summarize([m["elapsed_ns"] / 1e9 for m in at_mark])
    found.update(_extra_results(spec, params, ok_runs))
    dropped = spec.unmeasured(params) if spec.unmeasured else {}
    return {k: v for k, v in found.items() if v is not None and k not in dropped}


def _server_parts(spec: WorkloadSpec, params: dict[str, Any], runs: list[RunResult],
                  ok_runs: list[RunResult], metadata: dict[str, Any], bounds: Bounds | None
                  ) -> tuple[dict[str, Summary], float | None, float | None, list[str]]:
    """Stats, ideal (latency floor, s), efficiency (rate ÷ tightest ceiling) and warnings."""
    stats = server_stats(ok_runs)
    floor_ms, found = bounds_of(spec, params, bounds or Bounds(), metadata.get("network"))
    efficiency = None
    if floor_ms is not None:
        metadata["bounds"] = {"latency_floor_ms": floor_ms,
                              "ceilings": [c.to_dict() for c in found],
                              "tightest": found[0].name if found else None}
        rate = stats.get("requests_per_s")
        if found and rate:
            efficiency = rate.median / found[0].requests_per_s
    notes = server_warnings(runs, stats, metadata.get("placement"), params["duration-s"])
    return stats, floor_ms / 1000 if floor_ms is not None else None, efficiency, notes


def _run_notes(runs: list[RunResult]) -> list[str]:
    """What the runs themselves warn about, once each, and the CPU time stolen from the
    machine while they ran when it is enough to move the figures."""
    found: list[str] = []
    for run in runs:
        found += [w for w in run.warnings if w not in found]
    stolen = [r.steal_percent for r in runs
              if r.steal_percent is not None and r.steal_percent > steal.LIMIT]
    if stolen:
        found.append(warnings.stolen_cpu(max(stolen), len(stolen), len(runs)))
    return found


JIT_READ_SLACK_S = 0.02
"""The compiler threads' CPU is read from /proc in 10 ms ticks at each line: a sum over
consecutive iterations is off by at most a tick at each end."""


def _jit_note(ok_runs: list[RunResult]) -> str | None:
    """A warning when a JVM's compiler threads took more than the JIT budget of the CPU over
    the measured iterations (the runs' sums): its times catch it still compiling, as a server
    window's verdict does (server.steadiness)."""
    measured = [it for r in ok_runs for it in r.iterations if not it.warmup]
    timed = [it for it in measured if it.jit_cpu_s is not None and it.cpu_s is not None]
    if not timed or len(timed) < len(measured):
        return None
    cpu = sum(it.cpu_s or 0.0 for it in timed)
    jit = sum(it.jit_cpu_s or 0.0 for it in timed)
    if cpu <= 0 or (jit - JIT_READ_SLACK_S) / cpu <= JIT_BUDGET:
        return None  # within the budget, or within what /proc's ticks can tell apart
    return warnings.jit_in_iterations(jit / cpu, JIT_BUDGET, jit, len(timed))


def aggregate(spec: WorkloadSpec, contender: str, params: dict[str, Any], budget: ThreadBudget,
              runs: list[RunResult], metadata: dict[str, Any],
              bounds: Bounds | None = None) -> CellResult:
    ok_runs = [r for r in runs if r.status == "ok"]
    failed = [r for r in runs if r.status != "ok"]
    status, reason = "ok", None
    notes: list[str] = []
    if failed:
        worst = min(failed, key=lambda r: STATUS_ORDER.index(r.status))
        status, reason = worst.status, worst.reason
        if ok_runs:
            notes.append(warnings.failed_runs(len(failed), len(runs), worst.status))
        planned = metadata.get("runs_planned", len(runs))
        if len(runs) < planned:
            notes.append(warnings.runs_cut_short(len(runs), planned, worst.status))
    notes += _run_notes(runs)
    if spec.server is not None:
        stats, ideal, efficiency, more = _server_parts(spec, params, runs, ok_runs, metadata,
                                                       bounds)
        return CellResult(workload=spec.name, contender=contender, params=dict(params),
                          status=status, reason=reason, ideal_s=ideal, efficiency=efficiency,
                          runs=tuple(runs), stats=stats, metadata=metadata,
                          warnings=tuple(notes + more))
    stats = cell_stats(spec, params, ok_runs)
    ideal = spec.ideal_s(params, budget)
    elapsed = stats.get("elapsed_s")
    efficiency = ideal / elapsed.median if ideal and elapsed and elapsed.median > 0 else None
    jit = _jit_note(ok_runs)
    if jit:
        notes.append(jit)
    if elapsed:
        notes += [w for w in (warnings.high_cv("time", elapsed),
                              warnings.outliers("time", elapsed)) if w]
        if elapsed.n == 1:
            notes.append(warnings.single_measurement("time"))
        elif elapsed.processes == 1:
            notes.append(warnings.single_process("time", elapsed.n))
    return CellResult(workload=spec.name, contender=contender, params=dict(params),
                      status=status, reason=reason, ideal_s=ideal, efficiency=efficiency,
                      runs=tuple(runs), stats=stats, metadata=metadata, warnings=tuple(notes))


def unavailable(spec: WorkloadSpec, contender: str, params: dict[str, Any], budget: ThreadBudget,
                reason: str, metadata: dict[str, Any]) -> CellResult:
    return CellResult(workload=spec.name, contender=contender, params=dict(params),
                      status="unavailable", reason=reason, ideal_s=spec.ideal_s(params, budget),
                      efficiency=None, runs=(), stats={}, metadata=metadata)
