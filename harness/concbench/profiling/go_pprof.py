"""The Go runtime's own CPU profile (runtime/pprof, 100 Hz), kept beside perf's flame graph
for go contenders' batch runs: it names goroutines' Go frames exactly (inlined calls
included) where perf sees frame-pointer stacks. The contender writes it when
CONCBENCH_CPUPROFILE names a file; `go tool pprof -traces` turns it into folded stacks for
the same inferno flame graph, and `-top` into a text summary beside it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from concbench.profiling.base import ProfileError, summary

TOOL_TIMEOUT_S = 120
_VALUE = re.compile(r"^\s*(\d+(?:\.\d+)?)(ns|us|µs|ms|s)\s+(\S.*)$")
_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}
SAMPLE_MS = 10.0
"""runtime/pprof samples at 100 Hz: one sample is 10 ms of CPU."""


class GoPprofProfiler:
    name = "go-pprof"
    mode = "cpu"

    def __init__(self, go: Path, folder: Path, stem: str):
        self.go, self.folder, self.stem = go, folder, stem
        self.profile = folder / f"{stem}.pprof"

    def missing(self) -> str | None:
        return None if self.go.exists() else f"{self.go} not found (the Go toolchain)"

    def launch(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        self.folder.mkdir(parents=True, exist_ok=True)
        return argv, {**env, "CONCBENCH_CPUPROFILE": str(self.profile)}

    def start(self, pid: int) -> None:
        raise ProfileError("the Go runtime's pprof profile covers batch runs only; "
                           "a server's is perf's")

    def stop(self) -> dict[str, Any]:
        if not self.profile.exists() or self.profile.stat().st_size == 0:
            raise ProfileError("the contender wrote no pprof profile (CONCBENCH_CPUPROFILE)")
        traces = self._pprof("-traces")
        folded = self.folder / f"{self.stem}.pprof.folded"
        folded.write_text("".join(f"{stack} {n}\n" for stack, n in fold_traces(traces).items()))
        (self.folder / f"{self.stem}.pprof.top.txt").write_text(self._pprof("-top"))
        found = summary(self.name, self.mode, folded,
                        self.folder / f"{self.stem}.pprof.svg", self.folder.parent)
        return {**found, "pprof": str(self.profile.relative_to(self.folder.parent))}

    def _pprof(self, report: str) -> str:
        done = subprocess.run([str(self.go), "tool", "pprof", report, str(self.profile)],
                              capture_output=True, text=True, timeout=TOOL_TIMEOUT_S)
        if done.returncode != 0:
            raise ProfileError(f"go tool pprof {report} failed: {done.stderr[-300:]}")
        return done.stdout


def fold_traces(text: str) -> dict[str, int]:
    """`go tool pprof -traces` blocks (a value and the leaf frame, then callers, one per
    line, between dashed lines) → folded stacks root-first, counted in 10 ms samples."""
    folded: dict[str, int] = {}
    frames: list[str] = []
    value_ms = 0.0

    def flush() -> None:
        if frames and value_ms > 0:
            stack = ";".join(reversed(frames))
            folded[stack] = folded.get(stack, 0) + max(1, round(value_ms / SAMPLE_MS))

    for line in text.splitlines():
        if line.startswith("-----"):
            flush()
            frames, value_ms = [], 0.0
            continue
        head = _VALUE.match(line)
        if head and not frames:
            value_ms = float(head.group(1)) * _UNIT_MS[head.group(2)]
            frames.append(head.group(3).strip())
        elif frames and line.strip():
            frames.append(line.strip())
    flush()
    return folded
