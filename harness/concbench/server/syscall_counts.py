"""System calls, context switches and page faults of a server, counted by `perf stat`
(parameter syscalls=true; docs/servers.md, docs/contract.md) over a window of their own just
after the measured window, at the same load (server.syscalls_window): perf slows every system
call of the threads it traces, so the measured window, whose CPU per request is published,
runs without it.

perf stat attaches to every process of the server's tree with its events disabled (`-D -1`)
and is switched on and off through its control pipe (`--control fd:`), each switch
acknowledged, so it counts exactly from just before the window's first /proc reading to just
after its last. Counters are inherited: threads and children created after it attached are
counted too (their counts folded into their parent's when they exit), so the figures cover
every thread of the tree, including a thread-per-connection server's. System calls are the
kernel's `syscalls:sys_enter_<name>` tracepoints; a kernel built without them (no
CONFIG_FTRACE_SYSCALLS) still gets the context switches and page faults, and a note naming
what it lacks. Counting is not free: every system call of a traced thread takes the kernel's
slow path (docs/servers.md gives the measured overhead), hence off by default.
"""

from __future__ import annotations

import functools
import os
import select
import signal
import subprocess
from dataclasses import dataclass, field
from typing import Any

from concbench import tools
from concbench.proc import tree as proc_tree
from concbench.proc.deathsig import dies_with_us

PARAM = "syscalls"
CALLS = ("epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "futex", "read", "readv",
         "recvfrom", "recvmsg", "write", "writev", "sendto", "sendmsg", "accept", "accept4",
         "close", "io_uring_enter")
"""The system calls counted: readiness (epoll_*; io_uring_enter for io_uring runtimes),
blocking and waking (futex), moving bytes, and connections (accept*, close)."""
EVENTS = ("context-switches", "page-faults")
"""perf's software events, counted on every kernel."""
TRACEPOINT = "syscalls:sys_enter_{}"
ACK_TIMEOUT_S = 30.0
"""perf attaches one counter per event per thread: a server with thousands of threads takes a
while before its first acknowledgement."""
STOP_TIMEOUT_S = 30.0
ATTACH_ATTEMPTS = 3
"""perf stat -p lists the threads of each pid, then opens its counters on each: a thread that
ends in between (a thread-per-connection server closing a connection) fails the whole attach
with ESRCH, so it is tried again with the threads of the moment."""


@functools.lru_cache(maxsize=1)
def tracepoints() -> frozenset[str]:
    """The system calls whose entry tracepoint this kernel has (`perf list`), empty when
    perf cannot list them."""
    exe = tools.path("perf")
    if exe is None:
        return frozenset()
    try:
        listed = subprocess.run([str(exe), "list", TRACEPOINT.format("*")], capture_output=True,
                                text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    prefix = TRACEPOINT.format("")
    return frozenset(word[len(prefix):] for line in listed.splitlines()
                     for word in line.split()[:1] if word.startswith(prefix))


def missing_note(missing: tuple[str, ...]) -> str | None:
    if not missing:
        return None
    if set(missing) == set(CALLS):
        return ("no system calls counted: this kernel has no syscalls:sys_enter_* tracepoints "
                "(`perf list 'syscalls:sys_enter_*'` lists none; a kernel needs "
                "CONFIG_FTRACE_SYSCALLS and a mounted tracefs, and perf the right to read it); "
                "context switches and page faults are counted")
    return (f"not counted, no tracepoint on this kernel: {', '.join(missing)} "
            "(they may not exist on this architecture)")


@dataclass(frozen=True)
class SyscallWindow:
    """What perf stat counted over one measured window."""

    counts: dict[str, int]
    """System call name or software event → count over the window (whole process tree)."""
    missing: tuple[str, ...] = ()
    """Calls of CALLS this kernel has no tracepoint for."""
    note: str | None = None
    """Why some or all figures are absent (None: everything was counted)."""
    command: list[str] = field(default_factory=list)

    def record(self, requests: int | None, ctx: tuple[int, int] | None,
               ctx_requests: int | None = None) -> dict[str, Any]:
        """The run's `server.syscalls` (docs/contract.md): the counts and, over the responses
        of the window they were counted in, per request; `ctx`: the tree's (voluntary,
        involuntary) context switches from /proc over a window of `ctx_requests` responses
        (the measured window, which perf did not slow; default: this one's)."""
        counts = dict(self.counts)
        per = {k: v / requests for k, v in counts.items()} if requests else {}
        if ctx is not None:
            counts["ctx_voluntary"], counts["ctx_involuntary"] = ctx
            over = requests if ctx_requests is None else ctx_requests
            if over:
                per["ctx_voluntary"], per["ctx_involuntary"] = ctx[0] / over, ctx[1] / over
        return {"counts": counts, "per_request": per, "requests": requests,
                "ctx_requests": ctx_requests if ctx is not None else None,
                "missing": list(self.missing), "note": self.note, "command": self.command}


def off(note: str) -> SyscallWindow:
    return SyscallWindow({}, note=note)


def _parse(text: str, wanted: tuple[str, ...]) -> dict[str, int]:
    """perf stat -x , lines (`count,unit,event,...`) into {call or event: count}.
    <not counted> is perf's word for a counter whose threads never ran while it was enabled:
    nothing happened, 0; <not supported> is left out."""
    found: dict[str, int] = {}
    prefix = TRACEPOINT.format("")
    for line in text.splitlines():
        parts = line.split(",")
        count = parts[0].strip()
        if len(parts) < 3 or not (count.isdigit() or count == "<not counted>"):
            continue
        name = parts[2].strip().removeprefix(prefix)
        name = name.split(":")[0] if name not in wanted else name  # e.g. page-faults:u
        if name in wanted:
            found[name] = found.get(name, 0) + (int(count) if count.isdigit() else 0)
    return found


class SyscallCounter:
    """perf stat on one process tree, counting between begin() and end() only."""

    def __init__(self, pid: int):
        self._pid = pid
        self._proc: subprocess.Popen[bytes] | None = None
        self._ctl = self._ack = -1
        self._calls: tuple[str, ...] = ()
        self._missing: tuple[str, ...] = ()
        self._command: list[str] = []
        self.failed: str | None = None

    def _argv(self, perf: str, ctl: int, ack: int) -> list[str]:
        events = [TRACEPOINT.format(c) for c in self._calls] + list(EVENTS)
        pids = ",".join(str(p) for p in proc_tree.tree(self._pid) or [self._pid])
        return [perf, "stat", "-x", ",", "-D", "-1", "--control", f"fd:{ctl},{ack}",
                "-e", ",".join(events), "-p", pids]

    def begin(self) -> None:
        """Attach and switch counting on; on failure `failed` says why (never raises)."""
        problem = tools.missing("perf")
        if problem:
            self.failed = problem
            return
        have = tracepoints()
        self._calls = tuple(c for c in CALLS if c in have)
        self._missing = tuple(c for c in CALLS if c not in have)
        for attempt in range(ATTACH_ATTEMPTS):
            self.failed = None
            if self._attach() or self._proc is None:
                return
            if attempt + 1 < ATTACH_ATTEMPTS:
                self._discard()

    def _attach(self) -> bool:
        """Start perf stat on the tree's threads as they are now and switch it on."""
        ctl_r, self._ctl = os.pipe()
        self._ack, ack_w = os.pipe()
        argv = self._argv(str(tools.path("perf")), ctl_r, ack_w)
        self._command = [*argv[:-1], "<pids of the server's tree>"]
        try:
            self._proc = subprocess.Popen(dies_with_us(argv), pass_fds=(ctl_r, ack_w),
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE)
        except OSError as err:
            self.failed = f"cannot start perf: {err}"
            os.close(self._ctl)
            os.close(self._ack)
            return False
        finally:
            os.close(ctl_r)
            os.close(ack_w)
        if not self._switch(b"enable"):
            self.failed = "perf stat did not start counting (no acknowledgement)"
            return False
        return True

    def _discard(self) -> None:
        """Stop a perf that could not start counting (before trying again)."""
        assert self._proc is not None
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.communicate()
        os.close(self._ctl)
        os.close(self._ack)
        self._proc = None

    def _switch(self, command: bytes) -> bool:
        """Send a control command and wait for perf's acknowledgement."""
        try:
            os.write(self._ctl, command + b"\n")
            ready, _, _ = select.select([self._ack], [], [], ACK_TIMEOUT_S)
            return bool(ready) and os.read(self._ack, 64).startswith(b"ack")
        except OSError:
            return False

    def end(self) -> SyscallWindow:
        """Switch counting off and read the counts (perf ends on SIGINT and prints them)."""
        if self._proc is None:
            return off(self.failed or "perf stat was not started")
        stopped = self._switch(b"disable")
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGINT)
        try:
            _, err = self._proc.communicate(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.communicate()
            return off("perf stat did not stop within 30 s of SIGINT")
        finally:
            os.close(self._ctl)
            os.close(self._ack)
        text = err.decode(errors="replace")
        counts = _parse(text, self._calls + EVENTS)
        if self.failed or not stopped or not counts:
            tail = " ".join(text.strip().splitlines()[-2:])[-300:]
            return off(f"{self.failed or 'perf stat counted nothing'}: {tail or '(no output)'}")
        unread = tuple(c for c in self._calls + EVENTS if c not in counts)
        note = "; ".join(n for n in (missing_note(self._missing), (
            f"perf could not read: {', '.join(unread)}" if unread else None)) if n)
        return SyscallWindow(counts, self._missing, note or None, self._command)


def begin(pid: int, where: str | None, params: dict[str, Any]) -> SyscallCounter | str | None:
    """A started counter when the run asks for one (None when not asked); a note when it
    cannot count here."""
    if params.get(PARAM) != "true":
        return None
    if where is not None:
        return f"system calls not counted: the server runs on {where} (perf runs here only)"
    counter = SyscallCounter(pid)
    counter.begin()
    return counter


def end(counter: SyscallCounter | str | None) -> SyscallWindow | None:
    if counter is None:
        return None
    return off(counter) if isinstance(counter, str) else counter.end()
