"""Runs one contender process in its own process group and watches it from outside.

Timeout: SIGTERM to the whole group, SIGKILL 5 s later, then a final SIGKILL sweep so no
member of the group survives. Resource usage comes from wait4(2), the same rusage that
`/usr/bin/time -v` prints, combined with the sampler's view.

Peak RSS: a child forked from this (large) Python process inherits its RSS high-water mark
in ru_maxrss, so ru_maxrss only counts when it exceeds our own VmHWM; otherwise the
contender's own VmHWM, read by the sampler every tick, and the sampled RSS give the peak.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from concbench.runner.native_sampler import binary, make_sampler
from concbench.runner.sampler import Sample, own_hwm

KILL_GRACE_S = 5.0
STDERR_KEEP_BYTES = 16_384


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


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class _Watch:
    """Shared state of the threads that watch one process."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.marks: dict[str, dict[str, Any]] = {}
        self.stderr: collections.deque[bytes] = collections.deque()
        self.stderr_size = 0
        self.exited = threading.Event()
        self.wait_status = 0
        self.rusage: Any = None


def _read_stdout(stream, watch: _Watch, sampler) -> None:
    for raw in stream:
        line = raw.decode(errors="replace").strip()
        if not line:
            continue
        try:
            message = json.loads(line)
            if not isinstance(message, dict):
                raise ValueError("not an object")
        except ValueError:
            watch.errors.append(f"stdout line is not a JSON object: {line[:200]!r}")
            continue
        if message.get("type") == "mark":
            now = sampler.snapshot()  # RSS and threads at the moment the mark arrives
            mark = {"elapsed_ns": message.get("elapsed_ns"),
                    "rss_bytes": now.rss_bytes if now else None,
                    "threads": now.threads if now else None}
            watch.marks[str(message.get("name"))] = mark  # the last (measured) iteration's wins
        watch.messages.append(message)


def _read_stderr(stream, watch: _Watch) -> None:
    for chunk in iter(lambda: stream.read1(4096), b""):
        watch.stderr.append(chunk)
        watch.stderr_size += len(chunk)
        while watch.stderr_size > STDERR_KEEP_BYTES and len(watch.stderr) > 1:
            watch.stderr_size -= len(watch.stderr.popleft())


def _wait(pid: int, watch: _Watch) -> None:
    _, watch.wait_status, watch.rusage = os.wait4(pid, 0)
    watch.exited.set()


def not_started(argv: list[str], err: OSError) -> ProcessOutcome:
    """The outcome of a command that could not even start (shown as a crash, exit 127)."""
    return ProcessOutcome(
        exit_code=127, term_signal=None, wall_s=0.0, timed_out=False, mem_limited=False,
        messages=[], protocol_errors=[], stderr_tail=f"cannot start {argv[0]}: {err}; "
        "rebuild with ./concbench build --force", ru_maxrss_bytes=0, cpu_user_s=0.0,
        cpu_sys_s=0.0, ctx_voluntary=0, ctx_involuntary=0, peak_rss_sampled=0, peak_threads=0,
        final_threads=0, samples=[], marks={}, sampler_cpu_s=0.0, sampler_kind="none")


def execute(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
            rss_limit: int | None = None) -> ProcessOutcome:
    """Run argv to completion (or until the timeout / memory limit) and report what happened."""
    watch = _Watch()
    sampler_exe = binary()  # compiled before the contender starts, not while it runs
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as err:
        return not_started(argv, err)
    pgid = proc.pid  # start_new_session: the child leads its own group

    sampler = make_sampler(sampler_exe, proc.pid, started, rss_limit)
    threads = [
        threading.Thread(target=_wait, args=(proc.pid, watch), daemon=True),
        threading.Thread(target=_read_stdout, args=(proc.stdout, watch, sampler), daemon=True),
        threading.Thread(target=_read_stderr, args=(proc.stderr, watch), daemon=True),
    ]
    sampler.start()
    for t in threads:
        t.start()
    timed_out = not watch.exited.wait(timeout_s)
    if timed_out:
        _killpg(pgid, signal.SIGTERM)
        if not watch.exited.wait(KILL_GRACE_S):
            _killpg(pgid, signal.SIGKILL)
            watch.exited.wait()
    wall_s = time.perf_counter() - started
    _killpg(pgid, signal.SIGKILL)  # sweep: nothing of the group outlives the run
    proc.returncode = 0  # reaped by wait4 above; keep Popen from waiting again
    sampler.stop()
    for t in threads[1:]:
        t.join(timeout=KILL_GRACE_S)
    for stream in (proc.stdout, proc.stderr):
        stream.close()

    status, ru = watch.wait_status, watch.rusage
    return ProcessOutcome(
        exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        term_signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        wall_s=wall_s,
        timed_out=timed_out,
        mem_limited=sampler.limit_hit,
        messages=watch.messages,
        protocol_errors=watch.errors,
        stderr_tail=b"".join(watch.stderr).decode(errors="replace"),
        ru_maxrss_bytes=ru.ru_maxrss * 1024 if ru.ru_maxrss * 1024 > own_hwm() else 0,
        cpu_user_s=ru.ru_utime,
        cpu_sys_s=ru.ru_stime,
        ctx_voluntary=ru.ru_nvcsw,
        ctx_involuntary=ru.ru_nivcsw,
        peak_rss_sampled=max(sampler.peak_rss, sampler.root_hwm),
        peak_threads=sampler.peak_threads,
        final_threads=sampler.final_threads,
        samples=sampler.samples,
        marks=watch.marks,
        sampler_cpu_s=sampler.cpu_cost_s,
        sampler_kind=sampler.kind,
    )
