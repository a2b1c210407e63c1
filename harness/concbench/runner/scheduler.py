"""Runs a plan cell by cell: build what is needed, run each cell's runs, record each cell."""

from __future__ import annotations

import dataclasses
from typing import Protocol

from concbench.build import Builder, BuildOutcome
from concbench.plan import CellPlan, Plan
from concbench.profiling.cells import profile_cell
from concbench.resultset.model import CellResult, RunResult
from concbench.resultset.recorder import Recorder
from concbench.runner.measure import RunRequest, measure
from concbench.runner.server_run import ServerRequest, measure_server
from concbench.runner.server_setup import ServerContext, prepare
from concbench.stats.cell import aggregate, unavailable
from concbench.workloads.server import resolve_bounds


# A run that hit the timeout or the memory limit ends its cell: the next would do the same.
STOP_AFTER = frozenset({"timeout", "mem-limit"})


class Observer(Protocol):
    """What the user interface is told while a plan runs."""

    def run_started(self, cell: CellPlan, run_index: int, runs: int) -> None: ...
    def run_finished(self, cell: CellPlan, result: RunResult) -> None: ...
    def cell_finished(self, result: CellResult) -> None: ...
    def cell_skipped(self, cell: CellPlan, runs: int) -> None: ...


def toolchain_record(outcome: BuildOutcome) -> dict[str, object]:
    state = "unavailable" if not outcome.ok else "cached" if outcome.cached else "built"
    return {"status": state, "reason": outcome.reason, "versions": outcome.versions,
            "build_seconds": round(outcome.seconds, 1)}


def _metadata(plan: Plan, cell: CellPlan, argv: list[str] | None,
              servers: ServerContext | None = None) -> dict[str, object]:
    s = plan.settings
    found: dict[str, object] = {
        "style": cell.contender.style, "notes": cell.contender.notes,
        "pooled": cell.contender.is_pooled(cell.spec.name), "toolchain":
        cell.contender.toolchain.name, "warmup": s.warmup, "iterations": s.iterations,
        "runs_planned": plan.runs_of(cell), "throughput_unit": cell.spec.throughput_unit, "command": argv}
    if cell.spec.server is not None and servers is not None:
        found["placement"] = servers.placement.to_dict()
        found["bounds_declared"] = cell.contender.bounds
        found["tools"] = servers.versions
    return found


def _runner(plan: Plan, cell: CellPlan, outcome: BuildOutcome, servers: ServerContext | None):
    """The request for this cell's runs and the function that measures one (with a
    profiler for a profiled run)."""
    s = plan.settings
    assert outcome.tools is not None
    if cell.spec.server is None:
        req = RunRequest(cell.spec, cell.contender, outcome.tools, cell.params,
                         s.warmup, s.iterations, s.timeout_s, s.rss_limit)
        return req.argv(), lambda path, profiler=None: measure(
            dataclasses.replace(req, profiler=profiler), path)
    assert servers is not None
    sreq = ServerRequest(cell.spec, cell.contender, outcome.tools, cell.params, s.timeout_s,
                         s.rss_limit, servers.placement, servers.backend_exe)
    return sreq.argv(0, None), lambda path, profiler=None: measure_server(
        dataclasses.replace(sreq, profiler=profiler), path)


def run_plan(plan: Plan, builder: Builder, recorder: Recorder, observer: Observer,
             say=lambda _m: None) -> None:
    done = recorder.done_keys()
    s = plan.settings
    servers = prepare(plan, builder, say)
    if servers is not None:
        recorder.set_toolchains({"load tools": {"status": "built", "reason": None,
                                                "versions": servers.versions}})
    for index, cell in enumerate(plan.cells):
        runs_planned = plan.runs_of(cell)
        if cell.key in done:
            observer.cell_skipped(cell, runs_planned)
            continue
        outcome = builder.ensure(cell.contender.toolchain)
        recorder.set_toolchains({outcome.toolchain: toolchain_record(outcome)})
        pooled = cell.contender.is_pooled(cell.spec.name)
        missing = servers.unavailable_reason(cell.params) if servers and cell.spec.server \
            else None
        if not outcome.ok or outcome.tools is None or missing:
            result = unavailable(cell.spec, cell.contender.name, cell.params, pooled,
                                 missing or outcome.reason or "unavailable",
                                 _metadata(plan, cell, None, servers))
            observer.cell_skipped(cell, runs_planned)
        else:
            argv, measure_one = _runner(plan, cell, outcome, servers)
            runs = []
            for run_index in range(runs_planned):
                observer.run_started(cell, run_index, runs_planned)
                run = measure_one(recorder.samples_path(index, run_index))
                runs.append(run)
                observer.run_finished(cell, run)
                if run.status in STOP_AFTER:  # would only cost the same again, run after run
                    observer.cell_skipped(cell, runs_planned - run_index - 1)
                    break
            metadata = _metadata(plan, cell, argv, servers)
            if s.profile and any(r.status == "ok" for r in runs):
                metadata["profiles"] = profile_cell(
                    cell.spec, outcome.tools, recorder.folder / "profiles", f"cell{index:03d}",
                    lambda profiler: measure_one(None, profiler), runs, say)
            result = aggregate(cell.spec, cell.contender.name, cell.params, pooled, runs,
                               metadata,
                               resolve_bounds(cell.contender.bounds, cell.params)
                               if cell.spec.server else None)
        recorder.add(result)
        observer.cell_finished(result)
