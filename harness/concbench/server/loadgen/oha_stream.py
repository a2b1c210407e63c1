"""One oha process for a server run's whole load: warm-up and measured window on the same
open connections, stopped by SIGINT, every response logged (server.request_log).

oha stops on SIGINT and then writes what it has received, in the chosen format, only in the
modes that pace requests (its unpaced closed-loop worker ignores SIGINT's results), so the
load is always paced:
- closed loop: oha's burst pacing (`--burst-delay`, `--burst-rate`) hands out TOKEN_BURST
  request tokens every TOKEN_DELAY_MS, far above what any server here answers; a connection
  sends its next request as soon as its response is in, as wrk does, and the tokens left over
  wait in oha's queue. A server within TOKEN_RATE_SHARE of the token rate is generator-bound
  (server.continuous says so);
- open loop: `-q RATE --latency-correction`, as server.loadgen.oha.

Latencies run from send to response (closed loop) or from the moment a request was due (open
loop). The log holds responses only (any status); requests that got none are missing from it
(open loop: counted as missed per window; closed loop: the kernel's counters and the
connections held say what broke). While it runs, oha's write calls (/proc/<pid>/io syscw:
it writes each request with one write(2), and nothing else while it runs) give the request
rate as it goes, without reading its log; its CPU comes from its CPU-time clock, at any two
moments.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from concbench import tools
from concbench.proc.deathsig import dies_with_us
from concbench.proc.tree import exact_cpu_s
from concbench.server.loadgen.base import LoadError, LoadSpec, pinned
from concbench.server.loadgen.oha import target

TOKEN_DELAY_MS = 2
TOKEN_BURST = 1000
TOKEN_RATE_PER_S = TOKEN_BURST * 1000 // TOKEN_DELAY_MS
"""500 000 request tokens a second: the most a closed-loop load can send."""
TOKEN_RATE_SHARE = 0.8
REQUESTS_UNBOUNDED = 10 ** 12
"""oha's request count: the load runs until SIGINT."""
STOP_GRACE_S = 60.0
"""How long oha may take to write its log after SIGINT (millions of rows take seconds)."""
STOP_POLL_S = 0.05


def command(spec: LoadSpec) -> list[str]:
    """The oha command line of a continuous load (pinned when spec.cpus). Its log goes to
    stdout: Rust's stdout writes a line at a time, where `-o FILE` writes each formatted piece
    of a row with a system call of its own (13 a row)."""
    argv = [str(tools.path("oha")), "-n", str(REQUESTS_UNBOUNDED), "-c", str(spec.connections),
            "--no-tui", "--output-format", "csv",
            "--worker-threads", str(spec.threads), "-t", f"{math.ceil(spec.timeout_s)}s"]
    if spec.rate > 0:
        argv += ["-q", str(spec.rate), "--latency-correction"]
    else:
        argv += ["--burst-delay", f"{TOKEN_DELAY_MS}ms", "--burst-rate", str(TOKEN_BURST)]
    return pinned([*argv, *target(spec)], spec.cpus)


@dataclass(frozen=True)
class Reading:
    """The generator at one moment, on the harness's clock."""

    at_s: float
    """time.perf_counter()."""
    sent_writes: int
    """write(2) calls so far: one per request sent."""
    cpu_s: float


class RunningLoad:
    """A started continuous load; stop() ends it and returns its log's text."""

    def __init__(self, spec: LoadSpec):
        if spec.runner is not None:
            raise LoadError("a continuous load runs its generator on this machine only")
        missing = tools.missing("oha")
        if missing:
            raise LoadError(missing)
        self.spec = spec
        self._tmp = tempfile.TemporaryDirectory(prefix="concbench-stream-")
        self.out = Path(self._tmp.name) / "log.csv"
        self.argv = command(spec)
        self._err = open(Path(self._tmp.name) / "stderr", "w+b")
        self._log = open(self.out, "wb")
        self.started = time.perf_counter()
        try:
            self.proc = subprocess.Popen(dies_with_us(self.argv), stdin=subprocess.DEVNULL,
                                         stdout=self._log, stderr=self._err,
                                         start_new_session=True)
        except OSError as err:
            self.close()
            raise LoadError(f"cannot start oha: {err}") from None
        self.first_sent_s = self._first_send()

    def _first_send(self, limit_s: float = 10.0) -> float | None:
        """When oha wrote its first request (the harness's clock), polled every millisecond:
        where its log's clock stands against the harness's."""
        deadline = time.perf_counter() + limit_s
        while time.perf_counter() < deadline and self.proc.poll() is None:
            if self.read().sent_writes > 0:
                return time.perf_counter()
            time.sleep(0.001)
        return None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def running(self) -> bool:
        return self.proc.poll() is None

    def read(self) -> Reading:
        now = time.perf_counter()
        sent = 0
        try:
            with open(f"/proc/{self.proc.pid}/io", "rb") as f:
                for line in f:
                    if line.startswith(b"syscw:"):
                        sent = int(line.split()[1])
        except OSError:
            pass
        return Reading(now, sent, exact_cpu_s(self.proc.pid))

    def stderr_tail(self) -> str:
        self._err.seek(0)
        return self._err.read().decode(errors="replace").strip()[-400:]

    def stop(self, while_writing: Callable[[], None] | None = None) -> Path:
        """SIGINT, then the file of oha's log (its CSV; read it before close()); LoadError
        when it wrote none. `while_writing` is called every STOP_POLL_S until oha has exited
        (to read the log as it grows)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        deadline = time.perf_counter() + STOP_GRACE_S
        try:
            while while_writing is not None and self.proc.poll() is None:
                if time.perf_counter() > deadline:
                    raise subprocess.TimeoutExpired(self.argv, STOP_GRACE_S)
                while_writing()
                time.sleep(STOP_POLL_S)
            code = self.proc.wait(max(0.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:
            self.kill()
            raise LoadError(f"oha did not write its log within {STOP_GRACE_S:g} s of SIGINT; "
                            "killed") from None
        self._log.flush()
        size = self.out.stat().st_size if self.out.exists() else 0
        if code != 0 or not size:
            raise LoadError(f"oha exited {code} without a log: {self.stderr_tail()}")
        return self.out

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()

    def close(self) -> None:
        if getattr(self, "proc", None) is not None and self.proc.poll() is None:
            self.kill()
        self._log.close()
        self._err.close()
        self._tmp.cleanup()
