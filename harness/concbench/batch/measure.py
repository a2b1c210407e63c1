"""One measured run of one cell: build the command line, execute, verify, classify."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from concbench import warnings
from concbench.batch.contract_check import (lower_bound_problems, mark_problems, parse_iterations,
                                            sequence_problems)
from concbench.batch import iteration_memory, own_cpu
from concbench.batch.executor import ProcessOutcome, execute
from concbench.manifest import Contender
from concbench.proc.cgroups import Limits
from concbench.proc.cgroups.verdict import oom_failure, oom_warning
from concbench.proc.launch import contender_env, contender_head
from concbench.proc.sampler import write_samples
from concbench.profiling import ProfileError, Profiler
from concbench.resultset.model import Iteration, RunResult
from concbench.toolchains import ToolEnv
from concbench.workloads import WorkloadSpec


@dataclass(frozen=True)
class RunRequest:
    """What to run: a contender on a workload with fully resolved parameters."""

    spec: WorkloadSpec
    contender: Contender
    tools: ToolEnv
    params: dict[str, Any]
    warmup: int
    iterations: int
    timeout_s: float
    rss_limit: int | None = None
    profiler: Profiler | None = None
    """A profiled run (--profile): the whole process is sampled, start-up included."""
    limits: Limits | None = None
    """CPU quota and memory limit of the run's cgroup (None: no cgroup)."""

    def argv(self) -> list[str]:
        head = contender_head(self.contender, self.tools)
        args = [f"--{k}={v}" for k, v in self.params.items()]
        return [*head, self.spec.name, *args, f"--warmup={self.warmup}",
                f"--iterations={self.iterations}"]


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "(no stderr)"


def classify(req: RunRequest, out: ProcessOutcome,
             iterations: list[Iteration], problems: list[str]) -> tuple[str, str | None]:
    """Status and reason of a finished run: the first failure in order of severity wins."""
    if out.timed_out:
        return "timeout", f"still running after {req.timeout_s:g} s; process group killed"
    if out.mem_limited:
        return "mem-limit", f"RSS passed the limit of {req.rss_limit} bytes; process group killed"
    oom = oom_failure(out.cgroup, "ok" if out.exit_code == 0 else "crash")
    if oom:
        return oom
    if out.exit_code != 0:
        how = f"exit code {out.exit_code}" if out.exit_code is not None \
            else f"killed by signal {out.term_signal}"
        return "crash", f"{how}: {_last_line(out.stderr_tail)}"
    problems = out.protocol_errors + problems
    problems += sequence_problems(iterations, req.warmup, req.iterations)
    pooled = req.contender.is_pooled(req.spec.name)
    for it in iterations:
        problems += [f"iteration {it.index}: {p}"
                     for p in req.spec.check(req.params, it.result, pooled)]
    problems += lower_bound_problems(req.spec, req.params,
                                     req.contender.thread_budget(req.spec.name, req.params),
                                     iterations)
    problems += mark_problems(req.spec, req.params, out.messages, iterations)
    problems += own_cpu.problems(req.spec, iterations, own_cpu.usable_cpus())
    if problems:
        return "invalid", "; ".join(problems[:5]) + (" …" if len(problems) > 5 else "")
    return "ok", None


class _Profiling:
    """A profiler around one batch run: it launches the contender (perf as its parent, a JVM
    agent through its environment) and collects after it; its failures become run warnings."""

    def __init__(self, profiler: Profiler | None):
        self.profiler = profiler
        self.notes: list[str] = []

    def launch(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        return self.profiler.launch(argv, env) if self.profiler else (argv, env)

    def finish(self) -> tuple[dict[str, Any], ...]:
        if self.profiler is None:
            return ()
        try:
            return (self.profiler.stop(),)
        except ProfileError as err:
            self.notes.append(f"no profile: {err}")
            return ()


def measure(req: RunRequest, samples_path: Path | None = None) -> RunResult:
    """Run the contender once and return the verified, classified result."""
    profiling = _Profiling(req.profiler)
    argv, env = profiling.launch(req.argv(), contender_env(req.contender, req.tools))
    out = execute(argv, req.contender.toolchain.folder, env, req.timeout_s, req.rss_limit,
                  req.limits)
    profiles = profiling.finish()
    iterations, problems = parse_iterations(out.messages)
    grown = iteration_memory.growth(out.messages, out.samples)
    iterations = [dataclasses.replace(it, rss_growth_bytes=grown.get(it.index))
                  for it in iterations]
    status, reason = classify(req, out, iterations, problems)
    reported_s = sum(it.elapsed_ns for it in iterations) / 1e9
    return RunResult(
        status=status,
        reason=reason,
        wall_s=out.wall_s,
        startup_s=out.wall_s - reported_s if iterations else None,
        peak_rss_bytes=max(out.peak_rss_sampled, out.ru_maxrss_bytes),
        peak_threads=out.peak_threads,
        final_threads=out.final_threads,
        cpu_user_s=out.cpu_user_s,
        cpu_sys_s=out.cpu_sys_s,
        ctx_voluntary=out.ctx_voluntary,
        ctx_involuntary=out.ctx_involuntary,
        iterations=tuple(iterations),
        marks=out.marks,
        exit_code=out.exit_code,
        samples_file=write_samples(out.samples, samples_path),
        stderr_tail=out.stderr_tail if status != "ok" else out.stderr_tail[-2000:],
        sampler_cpu_s=out.sampler_cpu_s,
        sampler_kind=out.sampler_kind,
        warnings=((warnings.escaped_processes(out.escaped),) if out.escaped else ())
        + tuple(profiling.notes)
        + tuple(w for w in (own_cpu.disagreement(iterations, own_cpu.usable_cpus()),) if w)
        + tuple(w for w in (oom_warning(out.cgroup),) if w and status == "ok"),
        profiles=profiles,
        cgroup=out.cgroup.to_dict() if out.cgroup else None,
    )
