"""The interface every profiler has, and the flame graph renderer they share (inferno)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, Protocol

from concbench import tools

RENDER_TIMEOUT_S = 300


class ProfileError(Exception):
    """A profiler could not start, stop or render; the message says why."""


class Profiler(Protocol):
    name: str
    """e.g. perf-cpu, async-profiler-wall."""

    def missing(self) -> str | None:
        """None when it can run here; else what to install."""

    def launch(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """A batch run: the command line and environment that start the contender profiled
        from its first instruction (then stop() collects what it wrote)."""

    def start(self, pid: int) -> None:
        """A server: begin sampling the running process (and its threads)."""

    def stop(self) -> dict[str, Any]:
        """End sampling; render; {profiler, mode, flamegraph, folded, samples}."""


def folded_samples(folded: Path) -> int:
    """Samples in a folded-stacks file ('frame;frame;frame COUNT' per line)."""
    total = 0
    for line in folded.read_text(errors="replace").splitlines():
        head, _, count = line.rpartition(" ")
        if head and count.isdigit():
            total += int(count)
    return total


def render(folded: Path, svg: Path, title: str) -> None:
    """inferno-flamegraph: folded stacks to an interactive SVG flame graph."""
    exe = tools.path("inferno-flamegraph")
    if exe is None:
        raise ProfileError(tools.missing("inferno-flamegraph") or "inferno-flamegraph missing")
    with folded.open("rb") as src, svg.open("wb") as dst:
        done = subprocess.run([str(exe), "--title", title, "--countname", "samples"],
                              stdin=src, stdout=dst, stderr=subprocess.PIPE,
                              timeout=RENDER_TIMEOUT_S)
    if done.returncode != 0:
        raise ProfileError(f"inferno-flamegraph failed: {done.stderr.decode()[-300:]}")


def summary(name: str, mode: str, folded: Path, svg: Path, root: Path) -> dict[str, Any]:
    samples = folded_samples(folded)
    if samples:
        render(folded, svg, f"{name} ({mode}), {samples} samples")
    return {"profiler": name, "mode": mode, "samples": samples,
            "folded": str(folded.relative_to(root)),
            "flamegraph": str(svg.relative_to(root)) if samples else None}
