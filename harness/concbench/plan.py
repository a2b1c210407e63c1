"""The plan: which cells (workload × contender × params) to run, and how often."""

from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from concbench.errors import UserError
from concbench.manifest import Contender
from concbench.precision import Precision
from concbench.proc.cgroups.limits import Limits
from concbench.workloads import WorkloadSpec
from concbench.workloads.rate_forms import expand_auto
from concbench.workloads.server import limit_problem, open_loop_problem

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class CellPlan:
    spec: WorkloadSpec
    contender: Contender
    params: dict[str, Any]
    runs: int | None = None
    """This cell's own number of runs (a suite entry's `runs`); None: the plan's."""
    warmup: int | None = None
    """This cell's own in-process warm-up iterations (a suite entry's `warmup`: spawn-idle's
    memory is measured cold in suites that warm the time workloads); None: the plan's."""
    iterations: int | None = None
    """This cell's own measured iterations per process; None: the plan's."""
    limits: Limits = Limits()
    """The CPU quota and memory limit its processes run under (none: no cgroup)."""

    @property
    def recorded_params(self) -> dict[str, Any]:
        """The parameters as the results record them: the workload's, then the limits
        (cpus, memory) when there are any, so cells under different limits stay apart in
        every table, comparison and --resume."""
        return {**self.params, **self.limits.as_params()}

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.spec.name, self.contender.name, repr(sorted(self.recorded_params.items())))


@dataclass(frozen=True)
class Settings:
    """How each cell is run (the same for every cell of a plan)."""

    runs: int = 3
    warmup: int = 0
    iterations: int = 1
    timeout_s: float = 600.0
    rss_limit: int | None = None
    reference: str | None = None
    server_cpus: str | None = None
    """Server workloads: CPUs of the server (None: the lower half of the usable CPUs)."""
    client_cpus: str | None = None
    """Server workloads: CPUs of the load generator (None: the rest)."""
    profile: bool = False
    """After each cell's measured runs, one more run per profiler with a flame graph."""
    interleave: bool = False
    """Run in rounds (run 1 of every cell, then run 2, …, every other round in reverse
    order) instead of cell after cell: a drift of the machine then falls on every cell alike,
    which is what a before/after comparison needs."""
    hosts: dict[str, Any] = field(default_factory=dict)
    """Server workloads on other hosts: server_host, client_host, backend_host, hosts_file,
    known_hosts as given on the command line (none: everything on this machine);
    client_host is a list when the load is split over several clients."""
    limits: Limits = Limits()
    """--cpus / --memory: the cgroup limits of every cell that sets none of its own."""
    precision: Precision | None = None
    """--precision: more processes of a cell until its headline's interval is this narrow."""
    pin_servers: bool = True
    """Server and generator on CPUs of their own (server.placement); False: both float over
    every CPU, for verify's shares, which run at once and check answers, not speed."""
    share_server_starts: bool = False
    """Consecutive one-run cells of one server contender and workload whose server command is
    the same run on one server start, one after another (scheduler.shared_start): verify's,
    which check answers, not start-up or memory."""


@dataclass(frozen=True)
class Plan:
    name: str
    cells: tuple[CellPlan, ...]
    settings: Settings = field(default_factory=Settings)

    def to_dict(self) -> dict[str, Any]:
        s = self.settings
        return {
            "name": self.name, "runs": s.runs, "warmup": s.warmup, "iterations": s.iterations,
            "timeout_s": s.timeout_s, "mem_limit_bytes": s.rss_limit, "reference": s.reference,
            "server_cpus": s.server_cpus, "client_cpus": s.client_cpus,
            **({"profile": True} if s.profile else {}),
            **({"interleave": True} if s.interleave else {}),
            **({"hosts": s.hosts} if s.hosts else {}),
            **({"limits": s.limits.to_dict()} if s.limits else {}),
            **({"precision": s.precision.to_dict()} if s.precision else {}),
            **({"share_server_starts": True} if s.share_server_starts else {}),
            "cells": [{"workload": c.spec.name, "contender": c.contender.name,
                       "params": c.params, **({"runs": c.runs} if c.runs else {}),
                       **({"warmup": c.warmup} if c.warmup is not None else {}),
                       **({"iterations": c.iterations} if c.iterations else {}),
                       **({"limits": c.limits.to_dict()} if c.limits else {})}
                      for c in self.cells],
        }

    def runs_of(self, cell: CellPlan) -> int:
        return cell.runs or self.settings.runs

    def warmup_of(self, cell: CellPlan) -> int:
        return self.settings.warmup if cell.warmup is None else cell.warmup

    def iterations_of(self, cell: CellPlan) -> int:
        return cell.iterations or self.settings.iterations

    @property
    def total_runs(self) -> int:
        return sum(self.runs_of(c) for c in self.cells)


def parse_assignments(pairs: tuple[str, ...] | list[str], option: str) -> dict[str, str]:
    """K=V strings into a dict; a malformed one is a user error naming the option."""
    found: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key or not value:
            raise UserError(f"{option} expects KEY=VALUE, got {pair!r}")
        if key.strip() in found:
            raise UserError(f"{option} {key.strip()} is given twice "
                            f"({found[key.strip()]!r} and {value.strip()!r}); give it once")
        found[key.strip()] = value.strip()
    return found


def with_limits(cells: list[CellPlan], default: Limits) -> list[CellPlan]:
    """Each cell under its own limits, or under `default` where it sets none (a suite cell's
    cpus and memory are what set it apart from its neighbours, so they are kept); two cells
    that end up alike are a user error, not one cell measured twice under one key."""
    found = [c if not default else dataclasses.replace(c, limits=c.limits.over(default))
             for c in cells]
    seen: dict[tuple[str, str, str], CellPlan] = {}
    for cell in found:
        if cell.key in seen:
            shown = ", ".join(f"{k}={v}" for k, v in cell.recorded_params.items())
            raise UserError(f"two cells of the plan are the same: {cell.spec.name} on "
                            f"{cell.contender.name} with {shown}; a limit given on the command "
                            "line applies to the cells without their own, so give different "
                            "ones or none")
        seen[cell.key] = cell
    return found


def parse_size(text: str) -> int:
    """'2G', '512m', '1000000' → bytes."""
    match = _SIZE.match(text)
    if not match:
        raise UserError(f"cannot read size {text!r}; use a number with an optional K, M, G or T")
    scale = 1024 ** " kmgt".index((match.group(2) or " ").lower())
    return int(float(match.group(1)) * scale)


def cells_for(spec: WorkloadSpec, contenders: list[Contender], given: dict[str, str],
              scans: dict[str, str]) -> list[CellPlan]:
    """Every combination of the scanned values (in the order given) × every contender."""
    if spec.server is not None:
        given, scans = expand_auto(given, scans)  # rate=auto: workloads.rate_forms
    fixed = {k: spec.param(k).parse(v) for k, v in given.items()}
    axes: list[list[tuple[str, Any]]] = []
    for key, values in scans.items():
        param = spec.param(key)
        if key in fixed:
            raise UserError(f"{key} is both a --param and a --scan; give it once")
        parsed = [param.parse(v) for v in values.split(",") if v.strip()]
        if not parsed:
            raise UserError(f"--scan {key}= needs at least one value")
        axes.append([(key, v) for v in parsed])
    cells = []
    for combo in itertools.product(*axes) if axes else [()]:
        params = spec.resolve({**fixed, **dict(combo)})
        if spec.server is not None:
            problem = limit_problem(params, spec.server.uses_backend(params)) \
                or open_loop_problem(params)
            if problem:
                raise UserError(problem)
        cells += [CellPlan(spec, c, params) for c in contenders]
    return cells


def plan_from_dict(d: dict[str, Any], contenders: dict[str, Contender]) -> Plan:
    """The plan stored in a results.json (for --resume)."""
    from concbench import workloads

    settings = Settings(runs=d["runs"], warmup=d["warmup"], iterations=d["iterations"],
                        timeout_s=d["timeout_s"], rss_limit=d.get("mem_limit_bytes"),
                        reference=d.get("reference"), server_cpus=d.get("server_cpus"),
                        client_cpus=d.get("client_cpus"), profile=bool(d.get("profile")),
                        interleave=bool(d.get("interleave")), hosts=d.get("hosts") or {},
                        limits=Limits.from_dict(d.get("limits")),
                        precision=Precision.from_dict(d.get("precision")),
                        share_server_starts=bool(d.get("share_server_starts")))
    cells = []
    for c in d["cells"]:
        if c["contender"] not in contenders:
            raise UserError(f"the stored plan names contender {c['contender']}, "
                            "which no manifest declares any more")
        cells.append(CellPlan(workloads.get(c["workload"]), contenders[c["contender"]],
                              dict(c["params"]), c.get("runs"), c.get("warmup"),
                              c.get("iterations"), Limits.from_dict(c.get("limits"))))
    return Plan(d["name"], tuple(cells), settings)
