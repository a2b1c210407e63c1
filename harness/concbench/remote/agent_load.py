"""The agent's `load` command: one load generator on a client host, armed, then started on
the harness's word, so that several clients start together (server.client_load).

Over its session (JSON lines both ways):
1. it says `armed` once it has checked the command can run;
2. it answers each `ping` with its own clock (time.perf_counter()), so the harness can put
   this host's clock on its own (the ping with the shortest round trip);
3. on `go` it starts the generator, watches its write calls (/proc/<pid>/io syscw, one per
   request sent) every millisecond and says `started` with the moment of the first one;
4. it reads the generator's CPU-time clock every CPU_POLL_S (the harness cuts the measured
   window's CPU out of these readings), and when the generator ends says `done`: its exit,
   its CPU (wait4), the readings, and its stdout (oha's CSV log of every response), gzipped.

With `sources`, each connection binds to the next of those addresses first
(server.loadgen.source_bind). Its stdin is its lifeline, as for every agent command: once the harness's end closes, the
generator's process group is killed. Standard library and concbench's process helpers only.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from typing import Any, Callable

from concbench.proc.deathsig import dies_with_us
from concbench.proc.tree import exact_cpu_s
from concbench.server.loadgen import source_bind

CPU_POLL_S = 0.05
FIRST_SEND_LIMIT_S = 10.0
"""How long the agent waits for the generator's first request before saying it started
without one (its log's own start is then the reference)."""
STDERR_KEEP = 4000


def sent_writes(pid: int) -> int:
    """The write(2) calls a process has made (its requests sent, for oha)."""
    try:
        with open(f"/proc/{pid}/io", "rb") as f:
            for line in f:
                if line.startswith(b"syscw:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _running(pid: int) -> bool:
    """Whether the child has not exited yet (it is not reaped: wait4 gives its usage later)."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None


class ArmedGenerator:
    """One generator run, started by `go`, measured until it exits."""

    def __init__(self, spec: dict[str, Any], emit: Callable[[dict[str, Any]], None]):
        self.argv = [str(a) for a in spec["argv"]]
        self.timeout_s = float(spec["timeout_s"])
        self.sources = [str(a) for a in spec.get("sources") or ()]
        """Source addresses its connections bind to in turn (server.loadgen.source_bind)."""
        self.emit = emit
        self._tmp = tempfile.TemporaryDirectory(prefix="concbench-load-")
        self.proc: subprocess.Popen | None = None

    def check(self) -> str | None:
        """Why the command cannot run here, or None."""
        if shutil.which(self.argv[0]) is None:
            return f"{self.argv[0]} not found on this host"
        return source_bind.problem(self.sources) if self.sources else None

    def run(self) -> None:
        """Start, report the first send, sample CPU until exit, report the outcome."""
        out_path, err_path = (os.path.join(self._tmp.name, n) for n in ("out", "err"))
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            go = time.perf_counter()
            self.proc = subprocess.Popen(dies_with_us(self.argv), stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=err, start_new_session=True,
                                         env={**os.environ,
                                              **source_bind.environment(self.sources)})
        spawned = time.perf_counter()
        first = self._first_send()
        self.emit({"type": "started", "pid": self.proc.pid, "go": go, "spawned": spawned,
                   "first_sent": first})
        samples, status, usage = self._sample()
        ended = time.perf_counter()
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
        with open(out_path, "rb") as f:
            log = f.read()
        with open(err_path, "rb") as f:
            stderr = f.read().decode(errors="replace")[-STDERR_KEEP:]
        self.emit({"type": "done", "returncode": code, "ended": ended,
                   "cpu_s": usage.ru_utime + usage.ru_stime if usage else None,
                   "wall_s": ended - spawned, "cpu_samples": samples, "stderr": stderr,
                   "log_gz": base64.b64encode(zlib.compress(log, 6)).decode(),
                   "log_bytes": len(log)})

    def _first_send(self) -> float | None:
        assert self.proc is not None
        deadline = time.perf_counter() + FIRST_SEND_LIMIT_S
        while time.perf_counter() < deadline and _running(self.proc.pid):
            if sent_writes(self.proc.pid) > 0:
                return time.perf_counter()
            time.sleep(0.001)
        return None

    def _sample(self) -> tuple[list[list[float]], int, Any]:
        """CPU readings every CPU_POLL_S until the generator exits (killed at its timeout)."""
        assert self.proc is not None
        pid, samples = self.proc.pid, []
        deadline = time.perf_counter() + self.timeout_s
        self.proc.returncode = 0  # reaped by wait4 below; Popen must not wait again
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done == pid:
                _kill_group(pid)  # anything it left behind in its group
                return samples, status, usage
            samples.append([time.perf_counter(), exact_cpu_s(pid)])
            if time.perf_counter() > deadline:
                _kill_group(pid)
                _, status, usage = os.wait4(pid, 0)
                return samples, status, usage
            time.sleep(CPU_POLL_S)

    def kill(self) -> None:
        if self.proc is not None:
            _kill_group(self.proc.pid)

    def close(self) -> None:
        self._tmp.cleanup()


def load(arg: str | None, emit: Callable[[dict[str, Any]], None]) -> None:
    """The `load` command (the module docstring)."""
    gen = ArmedGenerator(json.loads(arg or "{}"), emit)
    problem = gen.check()
    if problem:
        emit({"type": "error", "error": problem})
        return
    emit({"type": "armed"})
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("cmd") == "ping":
            emit({"type": "pong", "t": time.perf_counter()})
        elif request.get("cmd") == "go":
            break
    else:
        return  # the harness went away before go

    def lifeline() -> None:
        sys.stdin.read()
        gen.kill()
        os._exit(1)
    threading.Thread(target=lifeline, daemon=True).start()
    try:
        gen.run()
    except OSError as err:
        emit({"type": "error", "error": f"cannot start {gen.argv[0]}: {err}"})
    finally:
        gen.close()
