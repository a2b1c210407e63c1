"""Runs a plan cell by cell (or in interleaved rounds): build what is needed, run each cell's
runs, record each cell."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Protocol

from concbench import precision_check, speed_probe, steal
from concbench.batch.measure import RunRequest, measure
from concbench.build import Builder, BuildOutcome
from concbench.plan import CellPlan, Plan
from concbench.profiling.cells import profile_cell
from concbench.remote.roles import RemoteRoles
from concbench.resultset.model import CellResult, RunResult
from concbench.resultset.recorder import Recorder
from concbench.server.placement import under_quota
from concbench.server.measure import measure_server, measure_servers
from concbench.server.run import ServerRequest
from concbench.server.setup import ServerContext, prepare
from concbench.stats import ceiling_ratio
from concbench.stats.cell import aggregate, unavailable
from concbench.stats.cgroup_cell import with_cgroup
from concbench.toolchains import ToolEnv
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
    found: dict[str, object] = {
        "style": cell.contender.style, "notes": cell.contender.notes,
        "pooled": cell.contender.is_pooled(cell.spec.name), "toolchain":
        cell.contender.toolchain.name, "warmup": plan.warmup_of(cell),
        "iterations": plan.iterations_of(cell), "runs_planned": plan.runs_of(cell),
        "throughput_unit": cell.spec.throughput_unit, "command": argv,
        "variant_of": cell.contender.variant_of}  # concbench.upgrades pairs a variant by it
    if cell.contender.env:
        found["env"] = cell.contender.env
    if cell.spec.server is None:
        found["thread_budget"] = cell.contender.thread_budget(cell.spec.name,
                                                              cell.params).to_dict()
    if cell.limits:
        found["limits"] = cell.limits.to_dict()
    if cell.contender.server_stack and cell.spec.server is not None:
        found["server_stack"] = cell.contender.server_stack  # report.stack names it
    if cell.spec.server is not None and servers is not None:
        found["placement"] = under_quota(servers.placement, cell.limits.cpus,
                                         plan.settings.server_cpus).to_dict()
        found["bounds_declared"] = cell.contender.bounds
        found["tools"] = servers.versions
        if servers.sites is not None:
            found["hosts"] = servers.sites.to_dict()
            found["network"] = servers.sites.network
    return found


def _runner(plan: Plan, cell: CellPlan, outcome: BuildOutcome, servers: ServerContext | None):
    """The command of this cell's runs, the function that measures one (with a profiler for a
    profiled run) and, for a server, its request."""
    s = plan.settings
    assert outcome.tools is not None
    if cell.spec.server is None:
        req = RunRequest(cell.spec, cell.contender, outcome.tools, cell.params,
                         plan.warmup_of(cell), plan.iterations_of(cell), s.timeout_s,
                         s.rss_limit, limits=cell.limits or None)
        return req.argv(), lambda path, profiler=None: measure(
            dataclasses.replace(req, profiler=profiler), path), None
    assert servers is not None
    sreq = ServerRequest(cell.spec, cell.contender, outcome.tools, cell.params, s.timeout_s,
                         s.rss_limit, under_quota(servers.placement, cell.limits.cpus,
                                                  s.server_cpus), servers.backend_exe,
                         sites=servers.sites, limits=cell.limits or None)
    return sreq.argv(0, None), lambda path, profiler=None: measure_server(
        dataclasses.replace(sreq, profiler=profiler), path), sreq


@dataclasses.dataclass
class _Cell:
    """A cell whose runs are under way."""

    index: int
    cell: CellPlan
    planned: int
    argv: list[str]
    measure_one: Callable[..., RunResult]
    tools: ToolEnv
    request: ServerRequest | None = None
    """A server cell's request (None for a batch cell)."""
    runs: list[RunResult] = dataclasses.field(default_factory=list)
    stopped: bool = False

    @property
    def active(self) -> bool:
        return not self.stopped and len(self.runs) < self.planned


def _unfinished(cell: CellResult) -> bool:
    """Recorded part-way (an interleaved plan records a cell after each of its runs): fewer
    runs than planned, the last of them not one that ends its cell."""
    planned = cell.metadata.get("runs_planned")
    return (isinstance(planned, int) and 0 < len(cell.runs) < planned
            and cell.runs[-1].status not in STOP_AFTER)


def run_plan(plan: Plan, builder: Builder, recorder: Recorder, observer: Observer,
             say=lambda _m: None) -> None:
    """Cell after cell, or in rounds when the plan interleaves (see Settings.interleave).
    On --resume, finished cells are kept and an unfinished one goes on from its runs."""
    kept = recorder.done_keys()
    partial = {c.key: c.runs for c in recorder.doc.cells if c.key in kept and _unfinished(c)}
    done = kept - set(partial)
    servers = prepare(plan, builder, say, RemoteRoles.open)
    if servers is not None:
        recorder.set_toolchains({"load tools": {"status": "built", "reason": None,
                                                "versions": servers.versions}})
    if servers is not None and servers.remotes is not None:
        recorder.set_machine({"roles": servers.remotes.record()})
    try:
        _run_cells(plan, builder, recorder, observer, servers, done, partial, say)
    finally:
        if servers is not None and servers.remotes is not None:
            recorder.set_machine({"roles": servers.remotes.record()})
            servers.close()


def _run_cells(plan: Plan, builder: Builder, recorder: Recorder, observer: Observer,
               servers: ServerContext | None, done: set, partial: dict, say) -> None:
    waiting: list[_Cell] = []
    held: list[_Cell] = []
    """Cells that will share one server start (plan.Settings.share_server_starts)."""

    def run_held() -> None:
        if len(held) > 1:
            _run_shared(plan, held, recorder, observer, servers, say)
        elif held:
            _run_cell(plan, held[0], recorder, observer, servers, say)
        held.clear()

    for index, cell in enumerate(plan.cells):
        if cell.key in done:
            observer.cell_skipped(cell, plan.runs_of(cell))
            continue
        state = _open(plan, index, cell, builder, recorder, observer, servers)
        if state is None:
            continue
        state.runs += partial.get(cell.key, ())
        observer.cell_skipped(cell, len(state.runs))  # the runs done before, in the progress
        if plan.settings.interleave:
            waiting.append(state)
            continue
        shareable = _shareable(plan, state)
        if held and not (shareable and _same_server(held[-1], state)):
            run_held()
        if shareable:
            held.append(state)
            continue
        _run_cell(plan, state, recorder, observer, servers, say)
    run_held()
    _interleaved(plan, waiting, recorder, observer, servers, say)


def _run_cell(plan: Plan, state: _Cell, recorder: Recorder, observer: Observer,
              servers: ServerContext | None, say) -> None:
    while state.active or _more(plan, state, servers):
        _run_once(state, recorder, observer)
    _close(plan, state, recorder, observer, servers, say)


def _shareable(plan: Plan, state: _Cell) -> bool:
    """A cell that may run on another's server start: the plan allows it, and the cell is one
    local run of a server without a latency backend, cgroup limits or a profiler."""
    req = state.request
    return (plan.settings.share_server_starts and not plan.settings.profile
            and req is not None and req.spec.server is not None
            and state.planned == 1 and not state.runs and not state.cell.limits
            and req.where.server.remote is None
            and not req.spec.server.uses_backend(req.params))


def _same_server(a: _Cell, b: _Cell) -> bool:
    """The same contender's server on the same workload with the same command."""
    return (a.cell.contender.name, a.cell.spec.name, a.argv) == \
        (b.cell.contender.name, b.cell.spec.name, b.argv)


def _run_shared(plan: Plan, group: list[_Cell], recorder: Recorder, observer: Observer,
                servers: ServerContext | None, say) -> None:
    """The group's runs one after another on one server start (server.measure), each
    recorded as its cell's run."""
    observer.run_started(group[0].cell, 0, group[0].planned)
    probe = speed_probe.probe_ms()
    before = steal.cpu_jiffies()
    found = measure_servers([s.request for s in group if s.request is not None],
                            [recorder.samples_path(s.index, 0) for s in group])
    stolen = steal.steal_percent(before, steal.cpu_jiffies())
    for position, (state, run) in enumerate(zip(group, found)):
        if position:
            observer.run_started(state.cell, 0, state.planned)
        run = dataclasses.replace(run, steal_percent=stolen, probe_ms=probe)
        state.runs.append(run)
        observer.run_finished(state.cell, run)
        _close(plan, state, recorder, observer, servers, say)


def _open(plan: Plan, index: int, cell: CellPlan, builder: Builder, recorder: Recorder,
          observer: Observer, servers: ServerContext | None) -> _Cell | None:
    """Build what the cell needs; an unavailable cell is recorded as such (None)."""
    outcome = builder.ensure(cell.contender.toolchain)
    recorder.set_toolchains({outcome.toolchain: toolchain_record(outcome)})
    missing = servers.unavailable_reason(cell.params, cell.contender) \
        if servers and cell.spec.server else None
    if not outcome.ok or outcome.tools is None or missing:
        result = unavailable(cell.spec, cell.contender.name, cell.params,
                             cell.contender.thread_budget(cell.spec.name, cell.params),
                             missing or outcome.reason or "unavailable",
                             _metadata(plan, cell, None, servers))
        result = with_cgroup(result, cell.spec, cell.recorded_params)
        observer.cell_skipped(cell, plan.runs_of(cell))
        recorder.add(result)
        observer.cell_finished(result)
        return None
    argv, measure_one, request = _runner(plan, cell, outcome, servers)
    return _Cell(index, cell, plan.runs_of(cell), argv, measure_one, outcome.tools, request)


def _run_once(state: _Cell, recorder: Recorder, observer: Observer,
              round_: int | None = None) -> None:
    run_index = len(state.runs)
    observer.run_started(state.cell, run_index, state.planned)
    probe = speed_probe.probe_ms()
    before = steal.cpu_jiffies()
    run = state.measure_one(recorder.samples_path(state.index, run_index))
    run = dataclasses.replace(run, steal_percent=steal.steal_percent(before, steal.cpu_jiffies()),
                              probe_ms=probe, round=round_)
    state.runs.append(run)
    observer.run_finished(state.cell, run)
    if run.status in STOP_AFTER:  # would only cost the same again, run after run
        state.stopped = True
        observer.cell_skipped(state.cell, state.planned - run_index - 1)


def _interleaved(plan: Plan, cells: list[_Cell], recorder: Recorder, observer: Observer,
                 servers: ServerContext | None, say) -> None:
    """Round r runs every active cell once, forwards in even rounds and backwards in odd
    ones (A B, B A, …); after each run its cell is recorded as it stands, so a kill keeps
    every run done so far. Each run records its round, numbered on from the last round
    recorded (a resumed plan's rounds are new ones)."""
    first = 1 + max((r.round for c in recorder.doc.cells for r in c.runs
                     if r.round is not None), default=-1)
    round_index = 0
    while True:
        order = cells if round_index % 2 == 0 else list(reversed(cells))
        due = [s for s in order if s.active or _more(plan, s, servers)]
        if not due:
            break
        for state in due:
            _run_once(state, recorder, observer, first + round_index)
            _record(recorder, _result(plan, state, servers))
        round_index += 1
    for state in cells:
        _close(plan, state, recorder, observer, servers, say)


def _more(plan: Plan, state: _Cell, servers: ServerContext | None) -> bool:
    """--precision: the planned runs done, the cell's headline still too wide, runs left:
    one more process (the cell's planned count grows by it)."""
    goal = plan.settings.precision
    if goal is None or state.stopped or len(state.runs) < state.planned:
        return False
    if not precision_check.more_wanted(goal, _result(plan, state, servers), len(state.runs)):
        return False
    state.planned += 1
    return True


def _close(plan: Plan, state: _Cell, recorder: Recorder, observer: Observer,
           servers: ServerContext | None, say) -> None:
    """Profiles (if asked), then the cell's statistics, recorded."""
    profiles = None
    if plan.settings.profile and any(r.status == "ok" for r in state.runs):
        profiles = profile_cell(
            state.cell.spec, state.tools, recorder.folder / "profiles", f"cell{state.index:03d}",
            lambda profiler: state.measure_one(None, profiler), state.runs, say)
    result = _record(recorder, _result(plan, state, servers, profiles))
    observer.cell_finished(result)


def _record(recorder: Recorder, result: CellResult) -> CellResult:
    """Record a cell with its ratio to nginx, then the cells whose ratio it changes (the
    servers of an nginx cell); the cell as recorded."""
    result = ceiling_ratio.with_ratio(result, recorder.doc.cells)
    recorder.add(result)
    for cell in ceiling_ratio.refreshed(recorder.doc.cells):
        recorder.add(cell)
    return result


def _result(plan: Plan, state: _Cell, servers: ServerContext | None,
            profiles: list[dict[str, Any]] | None = None) -> CellResult:
    cell = state.cell
    metadata = _metadata(plan, cell, state.argv, servers)
    if profiles is not None:
        metadata["profiles"] = profiles
    result = with_cgroup(aggregate(cell.spec, cell.contender.name, cell.params,
                                 cell.contender.thread_budget(cell.spec.name, cell.params),
                                 state.runs, metadata,
                                 resolve_bounds(cell.contender.bounds, cell.params)
                                 if cell.spec.server else None),
                         cell.spec, cell.recorded_params)
    goal = plan.settings.precision
    if goal is not None:
        result.metadata["precision"] = precision_check.record(goal, result)
    return result
