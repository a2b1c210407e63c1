"""Flame graphs of a run, from one flag (issue 11): perf + inferno for native runtimes,
async-profiler for the JVM. A profile is taken in an extra run after a cell's measured runs,
so the measured figures never carry a profiler's cost; that run's own figure beside theirs
states the overhead."""

from __future__ import annotations

from pathlib import Path

from concbench.profiling.async_profiler import AsyncProfiler
from concbench.profiling.base import Profiler, ProfileError
from concbench.profiling.go_pprof import GoPprofProfiler
from concbench.profiling.perf import PerfProfiler
from concbench.toolchains import ToolEnv

__all__ = ["Profiler", "ProfileError", "profilers_for"]


def profilers_for(tools: ToolEnv, folder: Path, stem: str, server: bool) -> list[Profiler]:
    """The profilers a contender gets: a JVM (its toolchain resolved a `java`) gets
    async-profiler in CPU and in wall-clock mode, which show where virtual threads park;
    anything else gets perf sampling the CPU, and a Go batch run also the Go runtime's own
    pprof profile."""
    java = tools.placeholders.get("java")
    if java:
        jcmd = Path(java).parent / "jcmd"
        return [AsyncProfiler(jcmd, folder, stem, "cpu"), AsyncProfiler(jcmd, folder, stem, "wall")]
    found: list[Profiler] = [PerfProfiler(folder, stem)]
    go = tools.placeholders.get("go")
    if go and not server:
        found.append(GoPprofProfiler(Path(go), folder, stem))
    return found
