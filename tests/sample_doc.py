"""A small, fixed results document (no clocks, no machine reads) for golden-file tests."""

from __future__ import annotations

from concbench.resultset.model import CellResult, Iteration, ResultsDocument, RunResult
from concbench.stats.cell import aggregate, unavailable
from concbench import workloads


def _run(elapsed_ms: list[float], rss_mib: int, threads: int, status: str = "ok",
         reason: str | None = None) -> RunResult:
    its = tuple(Iteration(index=i, warmup=False, elapsed_ns=int(ms * 1e6),
                          result={"tasks": 1000, "cpu_sum": 500000, "pool_size": None})
                for i, ms in enumerate(elapsed_ms))
    return RunResult(status=status, reason=reason, wall_s=sum(elapsed_ms) / 1e3 + 0.25,
                     startup_s=0.25, peak_rss_bytes=rss_mib << 20, peak_threads=threads,
                     final_threads=threads, cpu_user_s=0.5, cpu_sys_s=0.125, ctx_voluntary=100,
                     ctx_involuntary=7, iterations=its if status == "ok" else (),
                     exit_code=0 if status == "ok" else 1, samples_file=None)


def sample_document() -> ResultsDocument:
    spec = workloads.get("sleep-tasks")
    small = spec.resolve({"tasks": 1000, "sleep-ms": 100, "pool-size": 100})
    big = spec.resolve({"tasks": 10000, "sleep-ms": 100, "pool-size": 100})
    meta = {"throughput_unit": "tasks", "style": "test"}
    cells = (
        aggregate(spec, "go", small, False, [_run([101.0], 12, 5), _run([103.0], 12, 5),
                                             _run([102.0], 13, 5)], meta),
        aggregate(spec, "java-platform", small, True,
                  [_run([1005.0], 80, 120), _run([1010.0], 81, 121)], meta),
        aggregate(spec, "go", big, False, [_run([120.0], 40, 5), _run([118.0], 41, 5)], meta),
        aggregate(spec, "java-platform", big, True,
                  [_run([], 0, 0, "timeout", "still running after 20 s; process group killed")],
                  meta),
        unavailable(spec, "rust-tokio", big, False, "cargo not found: install Rust", meta),
    )
    return ResultsDocument(
        run_id="20260101-000000-sample", concbench_revision="abc123", created_at="2026-01-01",
        machine={"cpu_model": "Test CPU", "logical_cores": 2, "memory_bytes": 24 << 30,
                 "os": "Debian 12", "kernel": "6.1"},
        toolchains={"go": {"status": "built", "versions": {"go version": "go1.26"}}},
        plan={"name": "sample", "reference": "go"}, cells=cells)
