"""The closed set of warnings concbench gives; each message says what to do next."""

from __future__ import annotations

from concbench.resultset.model import ResultsDocument, Summary

CV_LIMIT = 0.10


def high_cv(metric: str, s: Summary) -> str | None:
    if s.cv is not None and s.cv > CV_LIMIT:
        return (f"{metric} varies by {s.cv:.1%} across {s.n} measurements (above 10%): "
                "close other programs, or add --runs to narrow the interval")
    return None


def outliers(metric: str, s: Summary) -> str | None:
    if s.outliers:
        shown = ", ".join(f"{v:.4g}" for v in s.outliers[:3])
        return (f"{len(s.outliers)} outlier(s) in {metric} ({shown}): something else may have "
                "run meanwhile; rerun to confirm")
    return None


def failed_runs(failed: int, total: int, status: str) -> str:
    return (f"{failed} of {total} runs failed ({status}); the statistics use the ok runs only: "
            "see each run's reason")


def single_measurement(metric: str) -> str:
    return f"{metric} rests on one measurement: add --runs (3 or more) for an interval"


def single_process(metric: str, iterations: int) -> str:
    return (f"{metric} rests on one process ({iterations} iterations, which share its JIT, "
            "heap and machine phase and so give no interval): add --runs (3 or more)")


def runs_cut_short(done: int, planned: int, status: str) -> str:
    return (f"stopped after {done} of {planned} runs ({status}): the remaining runs would "
            "hit the same limit; raise --timeout or --mem-limit to measure this cell")


def generator_bound(generator_pct: float, server_pct: float) -> str:
    return (f"generator-bound: the load generator used {generator_pct:.0f}% of its CPUs while "
            f"the server used {server_pct:.0f}% of its own: requests/s here is a floor of what "
            "the server can do, not its capacity; give the generator more CPUs "
            "(--client-cpus, --param threads=N) or run it on another host")


def generator_and_server_saturated(generator_pct: float, server_pct: float) -> str:
    return (f"generator-bound: the load generator used {generator_pct:.0f}% of its CPUs and "
            f"the server {server_pct:.0f}% of its own: both sides are saturated, so requests/s "
            "measures the pair and may be a floor of the server's capacity; cells flagged so "
            "are not ranked against each other; give the generator more CPUs "
            "(--client-cpus, --param threads=N) or run it on another host")


def errors_under_load(runs_with_errors: int, runs: int, errors: dict[str, int]) -> str:
    kinds = ", ".join(f"{k} {v}" for k, v in errors.items() if v)
    return (f"errors under load in {runs_with_errors} of {runs} runs (first: {kinds}): "
            "see the errors column; connect errors at many connections usually mean the "
            "listen backlog or the open-file limit")


def backend_busy(backend_pct: float) -> str:
    return (f"the latency backend used {backend_pct:.0f}% of its CPUs: it may be the "
            "bottleneck; give it a CPU of its own (--client-cpus) or use downstream=inproc")


def latency_near_window(p99_ms: float, duration_s: float) -> str:
    return (f"p99 latency ({p99_ms / 1000:.1f} s) is over half the {duration_s:g} s load window: "
            "the window started from an idle server and requests slower than it never "
            "complete, so these percentiles are a floor; lengthen duration-s to measure them")


def warmup_unsettled(cap_s: float, rates: list[float], jit_work: list[int] | None,
                     jit_share: float | None) -> str:
    """A steady warm-up that reached its cap (server.warmup). jit_work: per window, the
    compilations finished or given up and methods thrown away (the JVM's counters)."""
    shown = ", ".join(f"{r:,.0f}" for r in rates)
    if jit_work is not None:
        jit = f"; the JIT's compilations in them: {', '.join(map(str, jit_work))}"
    elif jit_share is not None:
        jit = f"; JIT compiler threads used {jit_share:.0%} of its CPU"
    else:
        jit = ""
    return (f"warm-up did not settle within {cap_s:g} s (last windows {shown} requests/s{jit}): "
            "the run is unsettled, its figures may catch the server still warming up and are "
            "left out of rankings; raise warmup-s")


def jit_in_window(compiled: int, failed: int, invalidated: int, compile_s: float,
                  warmed: str) -> str:
    """A JVM whose JIT still worked during the measured window, after a warm-up that did not
    judge it steady (server.warmup.window_jit_warning)."""
    extra = (f", {failed} given up" if failed else "") + \
        (f", {invalidated} compiled methods thrown away" if invalidated else "")
    return (f"not steady: the JIT finished {compiled} compilations during the measured window "
            f"({compile_s:.2f} s in compilations{extra}; the JVM's own counters) after {warmed}: "
            "the figures catch the JVM still warming up and are left out of rankings; measure "
            "it with a steady warm-up (warmup-steady-pct > 0, as the c10k suite does)")


def jit_in_iterations(share: float, budget: float, jit_s: float, iterations: int) -> str:
    """A batch JVM whose compiler threads were busy in the measured iterations (stats.cell)."""
    return (f"not steady: the JIT's compiler threads used {share:.1%} of the CPU of the "
            f"{iterations} measured iterations ({jit_s:.2f} s; budget {budget:.0%}): the times "
            "catch the JVM still compiling and are left out of rankings; give it more warm-up "
            "(--warmup, or more work per iteration)")


def escaped_processes(pids: tuple[int, ...]) -> str:
    return (f"{len(pids)} process(es) of the contender outlived it outside its process group "
            f"(setsid) and were killed by the harness: pids {', '.join(map(str, pids[:10]))}")


def other_load(busy_pct: float) -> str:
    return (f"other programs used {busy_pct:.0f}% of the CPUs just before the plan started: "
            "their load moves every figure; stop them (see top) and rerun")


def stolen_cpu(percent: float, runs: int, total: int) -> str:
    return (f"the hypervisor withheld up to {percent:.1f}% of the CPUs' time (steal) in {runs} "
            f"of {total} runs: the host is busy with other machines and every figure moves with it; rerun when "
            "it is quiet, or on dedicated CPUs, and compare only runs taken together "
            "(--interleave)")


def frequency_scaling(governors: dict[str, list[int]]) -> str:
    shown = "; ".join(f"'{g}' on CPUs {', '.join(map(str, cpus))}" for g, cpus in governors.items())
    return (f"CPU frequency governor {shown}: clock speed follows load, so early runs are "
            "slower; set 'performance' (cpupower frequency-set -g performance) for stable figures")


def too_few_cpus_for_pinning(cpus: int) -> str:
    return (f"only {cpus} usable CPU: server and load generator share it, so a server's "
            "figures include the generator's cost; use a machine with 2 or more CPUs")


def document_warnings(doc: ResultsDocument) -> list[tuple[str, str]]:
    """(where, warning) for every warning of a results document: the machine's first."""
    check = doc.machine.get("system_check") or {}
    return [("machine", w) for w in check.get("warnings", ())] + \
        [(f"{c.workload} / {c.contender}", w) for c in doc.cells for w in c.warnings]


def cpu_clocks_disagree(iterations: int, own_ms: float, harness_ms: float) -> str:
    return (f"the contender's own CPU clock saw {own_ms:.1f} ms over its {iterations} timed "
            f"iterations, more than the {harness_ms:.1f} ms the harness read from /proc from "
            "the spawn to the last line, which holds them all: the contender may read another "
            "clock than its process's CPU time; check its cpu_ns against docs/contract.md")
