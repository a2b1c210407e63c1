"""A server cell's system calls, context switches and page faults per request (runs with
syscalls=true; server.syscall_counts), one value per run, as stats keys.

Per call: syscalls_<call>_per_request; per family (the calls one design uses where another
uses its sibling: epoll_wait or epoll_pwait, read or recvfrom, ...) the run's sum:
syscalls_<family>_per_request; and ctx_switches_per_request (perf), ctx_voluntary_per_request,
ctx_involuntary_per_request (/proc), page_faults_per_request.
"""

from __future__ import annotations

from typing import Any, Callable

from concbench.resultset.model import RunResult
from concbench.server.syscall_counts import CALLS, EVENTS

FAMILIES: dict[str, tuple[str, ...]] = {
    "epoll_wait_all": ("epoll_wait", "epoll_pwait", "epoll_pwait2"),
    "read_all": ("read", "readv", "recvfrom", "recvmsg"),
    "write_all": ("write", "writev", "sendto", "sendmsg"),
    "accept_all": ("accept", "accept4"),
}
REPORTED = (("epoll_ctl", "epoll_ctl"), ("epoll_wait_all", "epoll_(p)wait"),
            ("futex", "futex"), ("read_all", "read/recv"), ("write_all", "write/send"),
            ("accept_all", "accept"), ("close", "close"), ("io_uring_enter", "io_uring_enter"))
"""(family or call, header) of the per-request system calls the reports show and compare:
the ones seed 004 argues from."""
OTHERS = {"context-switches": "ctx_switches", "page-faults": "page_faults",
          "ctx_voluntary": "ctx_voluntary", "ctx_involuntary": "ctx_involuntary"}


def key(name: str) -> str:
    """The stats key of a call, a family or an event, per request."""
    if name in OTHERS:
        return f"{OTHERS[name]}_per_request"
    return f"syscalls_{name}_per_request"


def _per_request(run: RunResult) -> dict[str, float]:
    record = (run.server or {}).get("syscalls") or {}
    return record.get("per_request") or {}


def _family(run: RunResult, calls: tuple[str, ...]) -> float | None:
    """The family's sum; None when none of its calls was counted (no tracepoints)."""
    found = [v for c, v in _per_request(run).items() if c in calls]
    return sum(found) if found else None


def per_run() -> dict[str, Callable[[RunResult], Any]]:
    """Stats key → the run's figure (None when not counted), for stats.server_cell."""
    found: dict[str, Callable[[RunResult], Any]] = {
        key(name): (lambda r, n=name: _per_request(r).get(n))
        for name in (*CALLS, *EVENTS, "ctx_voluntary", "ctx_involuntary")}
    found.update({key(family): (lambda r, c=calls: _family(r, c))
                  for family, calls in FAMILIES.items()})
    return found


def note(runs: tuple[RunResult, ...] | list[RunResult]) -> str | None:
    """The first run's note about what could not be counted, if any."""
    for run in runs:
        record = (run.server or {}).get("syscalls") or {}
        if record.get("note"):
            return str(record["note"])
    return None
