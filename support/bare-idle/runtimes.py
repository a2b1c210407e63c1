"""The runtimes measure.py runs: where their bare programs are and how each is started."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILD = HERE / "build"  # ignored by the repository's .gitignore (build/)
sys.path.insert(0, str(ROOT / "harness"))  # the harness's own modules (stdlib only) for the others

PY = ROOT / "contenders" / "python" / ".venv" / "bin" / "python"
JVM_LOG_FLAGS = ["-Xlog:disable", "-Xlog:all=warning:stderr:uptime,level,tags"]
BIG, SMALL = 1_000_000, 100_000


@dataclass
class Runtime:
    name: str
    ns: tuple[int, int]
    hold_ms: int
    argv: Callable[[int, int], list[str]]
    lazy_start: bool = False
    """Tasks arm their timers only when first run, after the mark (asyncio): the first task
    can end no sooner than hold after the mark rather than hold after the process start."""


def erlang_procs(n: int) -> int:
    """+P as contenders/erlang/run-erlang computes it for spawn-idle."""
    return min(max(n + 1024, 262144), 134217727)


def runtimes(java: Path | None) -> list[Runtime]:
    jv = str(java / "bin" / "java") if java else "java"
    b = BUILD
    return [
        Runtime("go", (SMALL, BIG), 10_000,
                lambda n, h: [str(b / "go" / "bare-idle-go"), str(n), str(h)]),
        Runtime("rust-tokio", (SMALL, BIG), 10_000,
                lambda n, h: [str(b / "rust" / "release" / "bare-idle-tokio"), str(n), str(h)]),
        Runtime("java-virtual", (SMALL, BIG), 10_000,
                lambda n, h: [jv, *JVM_LOG_FLAGS, "-cp", str(b / "java"), "BareThreads", "virtual",
                              str(n), str(h)]),
        # an OS thread per task: pid_max (32768) caps N; starting 30 000 threads takes tens of
        # seconds, slower as the count grows, so a longer hold
        Runtime("java-platform", (10_000, 30_000), 90_000,
                lambda n, h: [jv, *JVM_LOG_FLAGS, "-cp", str(b / "java"), "BareThreads", "platform",
                              str(n), str(h)]),
        Runtime("kotlin-coroutines", (SMALL, BIG), 10_000,
                lambda n, h: [jv, "-jar", str(b / "kotlin" / "bare-idle-kotlin.jar"),
                              str(n), str(h)]),
        Runtime("node", (SMALL, BIG), 10_000,
                lambda n, h: ["node", "--max-old-space-size=16384",
                              str(HERE / "node" / "bare_idle.mjs"), str(n), str(h)]),
        Runtime("python-asyncio", (SMALL, BIG), 30_000,
                lambda n, h: [str(PY), str(HERE / "python" / "bare_idle.py"), "asyncio",
                              str(n), str(h)], lazy_start=True),
        Runtime("python-uvloop", (SMALL, BIG), 30_000,
                lambda n, h: [str(PY), str(HERE / "python" / "bare_idle.py"), "uvloop",
                              str(n), str(h)], lazy_start=True),
        # the task as a function that awaits the sleep: the "1M tasks" posts' form and the
        # contenders' (an async function / coroutine per task, not the bare timer)
        Runtime("node-async-fn", (SMALL, BIG), 10_000,
                lambda n, h: ["node", "--max-old-space-size=16384",
                              str(HERE / "node" / "bare_idle.mjs"), str(n), str(h), "async"]),
        Runtime("python-asyncio-coro", (SMALL, BIG), 30_000,
                lambda n, h: [str(PY), str(HERE / "python" / "bare_idle.py"), "asyncio",
                              str(n), str(h), "coro"], lazy_start=True),
        Runtime("python-uvloop-coro", (SMALL, BIG), 30_000,
                lambda n, h: [str(PY), str(HERE / "python" / "bare_idle.py"), "uvloop",
                              str(n), str(h), "coro"], lazy_start=True),
        Runtime("erlang", (SMALL, BIG), 10_000,
                lambda n, h: ["erl", "+P", str(erlang_procs(n)), "-noinput", "-pa",
                              str(b / "erlang"), "-s", "bare_idle", "main", "-extra",
                              str(n), str(h)]),
    ]
