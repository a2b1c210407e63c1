"""The results model. Keys and units follow DESIGN.md §5, which other tools read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Iteration:
    """One iteration as the contender reported it."""

    index: int
    """Position in the process, warm-up iterations first, from 0."""
    warmup: bool
    """True for in-process warm-up iterations (not in the statistics)."""
    elapsed_ns: int
    """Time of the workload alone, measured inside the process (ns)."""
    result: dict[str, Any]
    """The verification fields of DESIGN.md §3 (and any extra informational keys)."""
    cpu_s: float | None = None
    """CPU seconds (user + system) of the process tree from the previous iteration's line (the
    first: from the spawn) to this one's, read by the harness from /proc as each line arrived
    (10 ms ticks): the iteration's own CPU plus the moments between iterations. None when not
    read (older results, a tree already gone)."""
    cpu_ns: int | None = None
    """The process's CPU time (user + system, every thread) between the contender's own timer
    start and stop, read by the contender with its runtime's process CPU clock (ns); None when
    it reports none (docs/contract.md, "Output")."""
    cpu_tick_ns: int | None = None
    """The resolution of the clock behind cpu_ns, as the contender reports it (ns)."""
    rss_growth_bytes: int | None = None
    """The highest RSS of the process tree sampled during the iteration minus its RSS at the
    previous iteration's line, just before this one started (bytes; batch.iteration_memory).
    None for the first iteration, which has no line before it."""
    jit_cpu_s: float | None = None
    """CPU seconds of the JIT compiler threads over the same span as cpu_s (proc.jit_threads);
    None for a process without a JIT."""


@dataclass(frozen=True)
class RunResult:
    """One contender process: what it reported and what the harness saw from outside."""

    status: str
    """ok | crash | timeout | invalid | mem-limit."""
    reason: str | None
    """Why, when status is not ok."""
    wall_s: float
    """Seconds from spawn to exit, measured by the harness."""
    startup_s: float | None
    """wall_s minus the iterations' reported time (start-up and shutdown)."""
    peak_rss_bytes: int
    """Max of the sampled tree RSS and the child's ru_maxrss (bytes)."""
    peak_threads: int
    """Most threads of the tree seen by the sampler."""
    final_threads: int
    """Threads in the last sample before exit."""
    cpu_user_s: float
    """User CPU seconds from rusage at exit."""
    cpu_sys_s: float
    """System CPU seconds from rusage at exit."""
    ctx_voluntary: int
    """Voluntary context switches (rusage)."""
    ctx_involuntary: int
    """Involuntary context switches (rusage)."""
    iterations: tuple[Iteration, ...]
    """Every iteration reported, warm-up ones included."""
    marks: dict[str, dict[str, Any]] = field(default_factory=dict)
    """name -> {elapsed_ns, rss_bytes, threads} read by the harness when the mark arrived."""
    exit_code: int | None = None
    """Exit status; None when the process ended by a signal."""
    samples_file: str | None = None
    """CSV of the sampled time series (t_s, rss_bytes, threads, cpu_s), relative to the run folder."""
    stderr_tail: str = ""
    """The end of the process's stderr, kept for crashes."""
    sampler_cpu_s: float = 0.0
    """CPU seconds the harness's sampler spent watching this run (its cost)."""
    sampler_kind: str = ""
    """native (the C sampler) or python (the fallback without a C compiler)."""
    load: dict[str, Any] | None = None
    """Server workloads, the measured load: requests_per_s, latency_ms {p50, p90, p99, p999,
    max, min, mean}, percentiles [[p, ms]…], errors by kind, the generator's CPU and command."""
    server: dict[str, Any] | None = None
    """Server workloads: port, ready_s, the runtime's own report (cpus …), its CPUs, the
    measured window (CPU %, RSS, threads, context switches, open fds), verification, stop."""
    backend: dict[str, Any] | None = None
    """http-aggregate with downstream=http: the latency backend's window and request count."""
    warnings: tuple[str, ...] = ()
    """Run-level warnings (e.g. a server that did not stop on SIGTERM)."""
    profiles: tuple[dict[str, Any], ...] = ()
    """Profiled runs only (--profile): {profiler, mode, samples, folded, flamegraph}."""
    cgroup: dict[str, Any] | None = None
    """Runs under --cpus / --memory (docs/containers.md): the cgroup's version and paths,
    the limits written (cpus, period_us, quota_us, memory_limit_bytes), cpu {periods,
    throttled_periods, throttled_s, usage_s}, memory {peak_bytes, limit_hits, oom_kills} and,
    for servers, window_cpu: the cpu counters over the measured window alone."""
    steal_percent: float | None = None
    """Share of this machine's CPU time the hypervisor withheld while the run ran (steal in
    /proc/stat, all CPUs); None where the kernel reports none."""
    probe_ms: float | None = None
    """The machine's speed just before the run: ms of concbench.speed_probe's fixed Python loop
    (best of three; higher is slower). Not a correction, a witness: see speed_probe."""
    round: int | None = None
    """The round of an interleaved plan this run belongs to (scheduler: round r runs
    every cell once; a resumed plan numbers its rounds on from the last recorded one); None
    when the plan ran cell after cell. Runs of two cells with the same round are paired, as
    for the ratio to nginx (concbench.stats.ceiling_ratio)."""

    @property
    def cpu_s(self) -> float:
        return self.cpu_user_s + self.cpu_sys_s

    def measured(self) -> list[Iteration]:
        return [it for it in self.iterations if not it.warmup]


@dataclass(frozen=True)
class Summary:
    """Descriptive statistics of one sample (see concbench.stats.summary for the methods)."""

    n: int
    median: float
    mean: float
    stddev: float
    min: float
    max: float
    mad: float
    ci95: tuple[float, float] | None
    cv: float | None
    outliers: tuple[float, ...] = ()
    processes: int | None = None
    """How many processes measured the values when each measured several (iterations): the
    interval is then over their means; None when each value is one process."""


@dataclass(frozen=True)
class CellResult:
    """One (workload, contender, params) cell: its runs and their statistics."""

    workload: str
    contender: str
    params: dict[str, Any]
    status: str
    """ok | crash | timeout | invalid | mem-limit | unavailable (the worst run's status)."""
    reason: str | None
    ideal_s: float | None
    """Ideal time of one iteration; None where the workload has none."""
    efficiency: float | None
    """ideal_s / median elapsed; None without an ideal or without ok runs."""
    runs: tuple[RunResult, ...]
    stats: dict[str, Summary]
    """elapsed_s, wall_s, peak_rss_bytes, peak_threads, cpu_s, throughput_per_s over ok runs;
    servers: requests_per_s, latency_*_ms, … and, in an interleaved plan with an nginx cell of
    the same parameters, nginx_ratio (concbench.stats.ceiling_ratio)."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Contender style and notes, warm-up and iteration counts, throughput unit."""
    warnings: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.workload, self.contender, repr(sorted(self.params.items())))


@dataclass(frozen=True)
class ResultsDocument:
    """One results.json: a plan and every cell measured so far."""

    run_id: str
    concbench_revision: str
    created_at: str
    machine: dict[str, Any]
    toolchains: dict[str, Any]
    plan: dict[str, Any]
    cells: tuple[CellResult, ...]
    schema_version: int = 1
