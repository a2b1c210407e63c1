"""One contender process under supervision: its own process group, its stdout read as JSON
lines, its stderr tail kept, a sampler watching it from outside, and a stop that leaves
nothing of the group alive.

The batch executor runs such a process to completion; the server runner keeps it alive
across its lifecycle (ready, verification, loads) and stops it with SIGTERM.

Peak RSS: a child forked from this (large) Python process inherits its RSS high-water mark
in ru_maxrss, so ru_maxrss only counts when it exceeds our own VmHWM; otherwise the
contender's own VmHWM, read by the sampler every tick, and the sampled RSS give the peak.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from concbench.proc.jit_threads import jit_cpu_s
from concbench.proc import cgroups, orphans, private_tmp
from concbench.proc.native_sampler import binary, make_sampler
from concbench.proc.sampler import Sample, own_hwm

KILL_GRACE_S = 5.0
STDERR_KEEP_BYTES = 16_384
MAX_LINE_BYTES = 1 << 20
"""A stdout line longer than this is a protocol error, not something to parse."""


CPU_AT_LINE = "harness_cpu_s"
"""Key the harness adds to each iteration message: the process tree's CPU seconds (utime +
stime from /proc, 10 ms ticks) when the line arrived; differences give each iteration's CPU."""
JIT_AT_LINE = "harness_jit_cpu_s"
"""Key the harness adds to each iteration message: the CPU seconds of the tree's JIT compiler
threads when the line arrived (proc.jit_threads; absent for a process without a JIT)."""
RSS_AT_LINE, T_AT_LINE = "harness_rss_bytes", "harness_t_s"
"""Keys the harness adds to each iteration message: the tree's RSS when the line arrived and
when (the sampler's seconds since spawn), so an iteration's memory can be read above the RSS
at the previous line, just before it started."""


@dataclass(frozen=True)
class ProcessOutcome:
    """Everything observed about one process run, before interpretation."""

    exit_code: int | None
    """Exit status, or None when killed by a signal."""
    term_signal: int | None
    wall_s: float
    timed_out: bool
    mem_limited: bool
    messages: list[dict[str, Any]]
    """The JSON lines the process printed, in order."""
    protocol_errors: list[str]
    stderr_tail: str
    ru_maxrss_bytes: int
    """The child's ru_maxrss, or 0 when it is no more than the harness's own (see above)."""
    cpu_user_s: float
    cpu_sys_s: float
    ctx_voluntary: int
    ctx_involuntary: int
    peak_rss_sampled: int
    """Max of the sampled tree RSS and the root's last VmHWM."""
    peak_threads: int
    final_threads: int
    samples: list[Sample] = field(repr=False)
    marks: dict[str, dict[str, Any]]
    sampler_cpu_s: float
    sampler_kind: str
    """native (the C sampler) or python."""
    escaped: tuple[int, ...] = ()
    """Descendants that outlived the run outside its process group, killed by the sweep."""
    cgroup: cgroups.CgroupRecord | None = None
    """Runs under --cpus / --memory: the cgroup's limits and counters at the end."""


def killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def not_started(argv: list[str], err: OSError) -> ProcessOutcome:
    """The outcome of a command that could not even start (shown as a crash, exit 127)."""
    return ProcessOutcome(
        exit_code=127, term_signal=None, wall_s=0.0, timed_out=False, mem_limited=False,
        messages=[], protocol_errors=[], stderr_tail=f"cannot start {argv[0]}: {err}; "
        "rebuild with ./concbench build --force", ru_maxrss_bytes=0, cpu_user_s=0.0,
        cpu_sys_s=0.0, ctx_voluntary=0, ctx_involuntary=0, peak_rss_sampled=0, peak_threads=0,
        final_threads=0, samples=[], marks={}, sampler_cpu_s=0.0, sampler_kind="none")


class Supervised:
    """A started process and the threads that watch it. Use: start(), wait(), stop(), outcome()."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str],
                 rss_limit: int | None = None,
                 on_message: Callable[[dict[str, Any]], None] | None = None,
                 limits: cgroups.Limits | None = None):
        self.argv = argv
        self._cwd, self._env, self._rss_limit = cwd, env, rss_limit
        self._limits = limits
        self.cgroup: cgroups.Cgroup | None = None
        self._cgroup_record: cgroups.CgroupRecord | None = None
        self._on_message = on_message
        self.messages: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.marks: dict[str, dict[str, Any]] = {}
        self._stderr: collections.deque[bytes] = collections.deque()
        self._stderr_size = 0
        self.exited = threading.Event()
        self._wait_status = 0
        self._rusage: Any = None
        self.started = 0.0
        self.pid = 0
        self.sampler: Any = None
        self._proc: subprocess.Popen | None = None
        self._threads: list[threading.Thread] = []
        self._timed_out = False
        self.cookie = orphans.new_cookie()
        self._escaped: list[int] = []
        self._tmp: Path | None = None
        """Its own temporary directory (proc.private_tmp), removed once the group is gone."""

    def start(self) -> None:
        """Spawn in a new session (its own process group), in a cgroup of its own when
        limits are given (entered before exec: proc.cgroups.group); raises OSError if it
        cannot."""
        sampler_exe = binary()  # compiled before the contender starts, not while it runs
        if self._limits:
            try:
                self.cgroup = cgroups.create(self._limits, self.cookie)
            except cgroups.CgroupError as err:
                raise OSError(f"no cgroup for the run: {err}") from None
        self._tmp = private_tmp.make()
        self.started = time.perf_counter()
        try:
            self._proc = subprocess.Popen(
                self.argv, cwd=self._cwd, env={**self._env, orphans.COOKIE_VAR: self.cookie,
                                               private_tmp.ENV: str(self._tmp)},
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, preexec_fn=self.cgroup.enter if self.cgroup else None)
        except (OSError, subprocess.SubprocessError) as err:
            self._release()
            if isinstance(err, OSError):
                raise
            raise OSError(f"could not enter its cgroup before exec ({err})") from None
        self.pid = self._proc.pid
        self._jit_seen: bool | None = None
        """Whether the tree had JIT compiler threads at its first iteration line."""
        self.sampler = make_sampler(sampler_exe, self.pid, self.started, self._rss_limit,
                                    self._tmp)
        self._threads = [
            threading.Thread(target=self._wait, daemon=True),
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        self.sampler.start()
        for t in self._threads:
            t.start()

    def _wait(self) -> None:
        _, self._wait_status, self._rusage = os.wait4(self.pid, 0)
        self.exited.set()

    def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stream = self._proc.stdout
        while True:
            raw = stream.readline(MAX_LINE_BYTES)
            if not raw:
                break
            if len(raw) >= MAX_LINE_BYTES and not raw.endswith(b"\n"):
                self.errors.append(f"stdout line longer than {MAX_LINE_BYTES} bytes")
                while raw and not raw.endswith(b"\n"):  # skip the rest of it, bounded memory
                    raw = stream.readline(MAX_LINE_BYTES)
                continue
            self._handle_line(raw)

    def _handle_line(self, raw: bytes) -> None:
        line = raw.decode(errors="replace").strip()
        if not line:
            return
        try:
            message = json.loads(line)
            if not isinstance(message, dict):
                raise ValueError("not an object")
        except ValueError:
            if len(self.errors) < 100:
                self.errors.append(f"stdout line is not a JSON object: {line[:200]!r}")
            return
        if message.get("type") == "iteration":
            now = self.sampler.snapshot()  # the tree's CPU and RSS when the line arrives
            message[CPU_AT_LINE] = now.cpu_s if now else None
            message[RSS_AT_LINE] = now.rss_bytes if now else None
            message[T_AT_LINE] = now.t_s if now else None
            # the thread scan only while the tree has a JIT: HotSpot starts its compiler
            # threads with the VM, so a first line without them means there is none, and the
            # scan of every thread's stat would only take CPU from the next iteration
            jit = jit_cpu_s(self.pid) if self._jit_seen is not False else None
            if self._jit_seen is None:
                self._jit_seen = jit is not None
            if jit is not None:
                message[JIT_AT_LINE] = jit
            if self.cgroup is not None:  # and its cgroup's throttling
                self.cgroup.mark_iteration()
        if message.get("type") == "mark":
            now = self.sampler.snapshot()  # RSS and threads at the moment the mark arrives
            self.marks[str(message.get("name"))] = {
                "elapsed_ns": message.get("elapsed_ns"),
                "rss_bytes": now.rss_bytes if now else None,
                "threads": now.threads if now else None}  # the last (measured) iteration's wins
        if len(self.messages) < 100_000:
            self.messages.append(message)
        if self._on_message is not None:
            self._on_message(message)

    def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        stream = self._proc.stderr
        for chunk in iter(lambda: stream.read1(4096), b""):
            self._stderr.append(chunk)
            self._stderr_size += len(chunk)
            while self._stderr_size > STDERR_KEEP_BYTES and len(self._stderr) > 1:
                self._stderr_size -= len(self._stderr.popleft())

    def stderr_tail(self) -> str:
        return b"".join(self._stderr).decode(errors="replace")

    def wait(self, timeout_s: float | None) -> bool:
        """True when the process has exited within the timeout."""
        return self.exited.wait(timeout_s)

    def stop(self, sig: int = signal.SIGTERM, grace_s: float = KILL_GRACE_S) -> bool:
        """Signal the group, SIGKILL it after grace_s; True when the root exited within the
        grace. Whatever is left of the group afterwards (children that ignore the signal)
        is swept with SIGKILL."""
        killpg(self.pid, sig)
        clean = self.exited.wait(grace_s)
        killpg(self.pid, signal.SIGKILL)
        self.exited.wait()
        self._escaped += [p for p in orphans.kill_left(self.cookie) if p not in self._escaped]
        self._release()
        return clean

    def _release(self) -> None:
        """Read the run's cgroup and remove it, killing anything left in it (once); then remove
        the temporary directory, whose writers are all gone by now."""
        if self.cgroup is not None and self._cgroup_record is None:
            try:
                self._cgroup_record = self.cgroup.release()
            except cgroups.CgroupError as err:  # removed at exit or by the next start
                self._cgroup_record = dataclasses.replace(self.cgroup.record(), problem=str(err))
        private_tmp.remove(self._tmp)
        self._tmp = None

    def time_out(self) -> None:
        """The run took too long: stop it and remember why."""
        self._timed_out = True
        self.stop()

    def outcome(self) -> ProcessOutcome:
        """Sweep the group, stop the watchers, and report (the process must have exited)."""
        self.exited.wait()
        wall_s = time.perf_counter() - self.started
        killpg(self.pid, signal.SIGKILL)  # sweep: nothing of the group outlives the run
        self._escaped += [p for p in orphans.kill_left(self.cookie)  # nor what left the group
                          if p not in self._escaped]
        self._release()
        assert self._proc is not None
        self._proc.returncode = 0  # reaped by wait4 above; keep Popen from waiting again
        self.sampler.stop()
        for t in self._threads[1:]:
            t.join(timeout=KILL_GRACE_S)
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()
        status, ru = self._wait_status, self._rusage
        return ProcessOutcome(
            exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            term_signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            wall_s=wall_s,
            timed_out=self._timed_out,
            mem_limited=self.sampler.limit_hit,
            messages=self.messages,
            protocol_errors=self.errors,
            stderr_tail=self.stderr_tail(),
            ru_maxrss_bytes=ru.ru_maxrss * 1024 if ru.ru_maxrss * 1024 > own_hwm() else 0,
            cpu_user_s=ru.ru_utime,
            cpu_sys_s=ru.ru_stime,
            ctx_voluntary=ru.ru_nvcsw,
            ctx_involuntary=ru.ru_nivcsw,
            peak_rss_sampled=max(self.sampler.peak_rss, self.sampler.root_hwm),
            peak_threads=self.sampler.peak_threads,
            final_threads=self.sampler.final_threads,
            samples=self.sampler.samples,
            marks=self.marks,
            sampler_cpu_s=self.sampler.cpu_cost_s,
            sampler_kind=self.sampler.kind,
            escaped=tuple(self._escaped),
            cgroup=self._cgroup_record,
        )
