"""Runs a plan cell by cell: build what is needed, run each cell's runs, record each cell."""

from __future__ import annotations

from typing import Protocol

from concbench.build import Builder, BuildOutcome
from concbench.plan import CellPlan, Plan
from concbench.resultset.model import CellResult, RunResult
from concbench.resultset.recorder import Recorder
from concbench.runner.measure import RunRequest, measure
from concbench.stats.cell import aggregate, unavailable


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


def _metadata(plan: Plan, cell: CellPlan, argv: list[str] | None) -> dict[str, object]:
    s = plan.settings
    return {"style": cell.contender.style, "notes": cell.contender.notes,
            "pooled": cell.contender.is_pooled(cell.spec.name), "toolchain":
            cell.contender.toolchain.name, "warmup": s.warmup, "iterations": s.iterations,
            "runs_planned": s.runs, "throughput_unit": cell.spec.throughput_unit,
            "command": argv}


def run_plan(plan: Plan, builder: Builder, recorder: Recorder, observer: Observer) -> None:
    done = recorder.done_keys()
    s = plan.settings
    for index, cell in enumerate(plan.cells):
        if cell.key in done:
            observer.cell_skipped(cell, s.runs)
            continue
        outcome = builder.ensure(cell.contender.toolchain)
        recorder.set_toolchains({outcome.toolchain: toolchain_record(outcome)})
        pooled = cell.contender.is_pooled(cell.spec.name)
        if not outcome.ok or outcome.tools is None:
            result = unavailable(cell.spec, cell.contender.name, cell.params, pooled,
                                 outcome.reason or "unavailable", _metadata(plan, cell, None))
            observer.cell_skipped(cell, s.runs)
        else:
            req = RunRequest(cell.spec, cell.contender, outcome.tools, cell.params,
                             s.warmup, s.iterations, s.timeout_s, s.rss_limit)
            runs = []
            for run_index in range(s.runs):
                observer.run_started(cell, run_index, s.runs)
                run = measure(req, recorder.samples_path(index, run_index))
                runs.append(run)
                observer.run_finished(cell, run)
                if run.status in STOP_AFTER:  # would only cost the same again, run after run
                    observer.cell_skipped(cell, s.runs - run_index - 1)
                    break
            result = aggregate(cell.spec, cell.contender.name, cell.params, pooled, runs,
                               _metadata(plan, cell, req.argv()))
        recorder.add(result)
        observer.cell_finished(result)
