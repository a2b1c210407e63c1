"""The interface every load generator implements, and what a load run yields.

A generator is one module with a class that has `name`, `missing()` (why it cannot run
here, or None) and `run(LoadSpec) -> LoadResult`. The server runner never knows which one
it drives; `loadgen=wrk|oha` picks it (server.loadgen.GENERATORS).
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from concbench.proc.deathsig import dies_with_us

PERCENTILE_POINTS = (50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0)
"""The latency distribution kept for the report's percentile plot (HdrHistogram style)."""


@dataclass(frozen=True)
class LoadSpec:
    """One load run against one server."""

    url: str
    """Base URL, e.g. http://127.0.0.1:8080 (the path comes from path/varied_ids)."""
    path: str
    """Request path, e.g. /hello or /user/1001."""
    varied_ids: bool
    """Vary the numeric id at the end of the path per request (path must end in a number)."""
    connections: int
    duration_s: float
    threads: int
    keepalive: bool
    rate: int
    """Requests/s for open-loop load; 0 for closed loop (as fast as responses come)."""
    cpus: tuple[int, ...]
    """CPUs the generator is pinned to (empty: not pinned)."""
    timeout_s: float
    """Per-request timeout of the generator (longer than the run, so none is cut short)."""
    runner: "CommandRunner | None" = None
    """Where the generator runs: None is this machine; a remote client host otherwise."""
    think_ms: int = 0
    """Each connection's pause between a response and its next request (wrk only; 0: none)."""

    @property
    def where(self) -> "CommandRunner":
        return self.runner or LOCAL


@dataclass(frozen=True)
class LoadResult:
    """What one load run measured, in the keys of DESIGN.md §5's `load` block."""

    generator: str
    requests: int
    """Completed responses, any status."""
    ok_requests: int
    """Responses with status 200 (oha); for wrk, responses below 400, all it can tell apart
    (a 204 or 304 shows in the bytes per response instead: server.load_checks)."""
    duration_s: float
    requests_per_s: float
    """ok responses per second of the run."""
    latency_ms: dict[str, float | None]
    """p50, p90, p99, p999, max, min, mean (ms)."""
    percentiles: list[tuple[float, float]]
    """(percentile, ms) at PERCENTILE_POINTS."""
    errors: dict[str, int]
    """connect, read, write, timeout, status (responses not ok), other; 0 when none."""
    cpu_s: float
    """User + system CPU of the generator process."""
    wall_s: float
    cpus: tuple[int, ...]
    command: list[str]
    corrected: bool
    """True when latencies are corrected for coordinated omission (oha with a rate)."""
    bytes_received: int | None = None
    """Bytes of every response received, as the generator counts them (`bytes_counted`)."""
    bytes_counted: str = "wire"
    """"wire": status lines, headers and bodies (wrk); "body": bodies only (oha)."""
    ok_body_sizes: dict[int, int] | None = None
    """Body bytes → ok responses of that size, when the generator logs every response (oha
    in one continuous load): each response's size checked, not only the mean."""
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def errors_total(self) -> int:
        return sum(self.errors.values())

    @property
    def bytes_per_response(self) -> float | None:
        if self.bytes_received is None or self.requests == 0:
            return None
        return self.bytes_received / self.requests

    def cpu_percent(self) -> float | None:
        """CPU used as a share of the CPUs it was pinned to (100 = all of them busy)."""
        if self.wall_s <= 0:
            return None
        n = len(self.cpus) or os.cpu_count() or 1
        return 100.0 * self.cpu_s / self.wall_s / n

    def to_dict(self) -> dict[str, Any]:
        return {"generator": self.generator, "requests": self.requests,
                "ok_requests": self.ok_requests, "duration_s": self.duration_s,
                "requests_per_s": self.requests_per_s, "latency_ms": self.latency_ms,
                "percentiles": [list(p) for p in self.percentiles], "errors": self.errors,
                "errors_total": self.errors_total, "cpu_s": self.cpu_s, "wall_s": self.wall_s,
                "cpu_percent": self.cpu_percent(), "cpus": list(self.cpus),
                "command": self.command, "corrected": self.corrected,
                "bytes_received": self.bytes_received, "bytes_counted": self.bytes_counted,
                "bytes_per_response": self.bytes_per_response,
                **({"ok_body_sizes": {str(k): v for k, v in self.ok_body_sizes.items()}}
                   if self.ok_body_sizes is not None else {}), **self.notes}


class LoadError(Exception):
    """The generator could not run or produced no result (message says why)."""


class LoadGenerator(Protocol):
    name: str

    def missing(self) -> str | None:
        """Why this generator cannot run here (with what to install), or None."""

    def run(self, spec: LoadSpec) -> LoadResult: ...


def pinned(argv: list[str], cpus: tuple[int, ...]) -> list[str]:
    """argv under taskset when CPUs are given (taskset execs, so the process is argv[0])."""
    if not cpus:
        return argv
    return ["taskset", "-c", ",".join(str(c) for c in cpus), *argv]


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str
    cpu_s: float
    wall_s: float
    output: str | None = None
    """The contents of the file `{out}` named in the command, if it wrote one."""


class CommandRunner(Protocol):
    """Runs a generator to completion on some host, measured by wait4 there. `{out}` in the
    argv or the environment's values names a fresh file whose contents come back."""

    host: str | None

    def path(self, local: Path) -> str:
        """Where a file of concbench's own (a Lua script) is on that host."""

    def run(self, argv: list[str], timeout_s: float, env: dict[str, str]) -> Finished: ...


class LocalRunner:
    host = None

    def path(self, local: Path) -> str:
        return str(local)

    def run(self, argv: list[str], timeout_s: float, env: dict[str, str]) -> Finished:
        with tempfile.TemporaryDirectory(prefix="concbench-load-") as tmp:
            out = os.path.join(tmp, "out")
            argv = [a.replace("{out}", out) for a in argv]
            full_env = {**os.environ, **{k: v.replace("{out}", out) for k, v in env.items()}}
            done = run_measured(argv, timeout_s, full_env)
            text = Path(out).read_text() if os.path.exists(out) else None
        return Finished(done.returncode, done.stdout, done.stderr, done.cpu_s, done.wall_s, text)


LOCAL = LocalRunner()


def run_measured(argv: list[str], timeout_s: float, env: dict[str, str] | None = None) -> Finished:
    """Run a generator to completion in its own group; wait4 gives its own CPU time."""
    argv = dies_with_us(argv)
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    except OSError as err:
        raise LoadError(f"cannot start {argv[0]}: {err}") from None
    chunks: dict[str, bytes] = {}
    readers = [threading.Thread(target=_drain, args=(stream, name, chunks), daemon=True)
               for name, stream in (("out", proc.stdout), ("err", proc.stderr))]
    for r in readers:
        r.start()
    try:
        status, usage = _wait4(proc.pid, started + timeout_s)
    except BaseException:
        _kill_group(proc.pid)
        os.wait4(proc.pid, 0)
        raise
    finally:
        proc.returncode = 0  # reaped by wait4; Popen must not wait again
    if status is None:
        _kill_group(proc.pid)
        os.wait4(proc.pid, 0)
        raise LoadError(f"{argv[0]} still running {timeout_s:.0f} s after it started; killed")
    _kill_group(proc.pid)  # anything it left behind in its group
    for r in readers:
        r.join(timeout=5)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
    return Finished(code, chunks.get("out", b"").decode(errors="replace"),
                    chunks.get("err", b"").decode(errors="replace"),
                    usage.ru_utime + usage.ru_stime, time.perf_counter() - started)


def _drain(stream: Any, name: str, into: dict[str, bytes]) -> None:
    into[name] = stream.read()
    stream.close()


def _wait4(pid: int, deadline: float) -> tuple[int | None, Any]:
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done == pid:
            return status, usage
        if time.perf_counter() >= deadline:
            return None, None
        time.sleep(0.02)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
