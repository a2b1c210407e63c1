"""System calls per request and their families (server.syscall_counts, stats.syscall_cell;
docs/contract.md "System calls per request") from made-up perf counts: every count non-zero,
each call's figure a distinct power of two, so a family's sum names exactly its members and a
call moved between families, dropped or counted twice changes a sum.

The divisor is the window's responses, any status (`load.requests`), as for CPU per request.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from concbench.resultset.model import RunResult
from concbench.server.loadgen import LoadResult
from concbench.server.syscall_counts import CALLS, EVENTS, SyscallWindow
from concbench.server.window import WindowMeasures
from concbench.stats import syscall_cell
from concbench.stats.server_cell import server_stats

REQUESTS = 400
"""Responses in the window: 300 ok, 100 answered with another status."""
POWER = {call: 2.0 ** i for i, call in enumerate(CALLS)}
"""Each call's per-request figure: epoll_ctl 1, epoll_wait 2, epoll_pwait 4, ... so any sum
of them is one set of calls."""
FAMILY_SUMS = {
    "syscalls_epoll_wait_all_per_request": 2 + 4 + 8,  # epoll_wait, epoll_pwait, epoll_pwait2
    "syscalls_read_all_per_request": 32 + 64 + 128 + 256,  # read, readv, recvfrom, recvmsg
    "syscalls_write_all_per_request": 512 + 1024 + 2048 + 4096,  # write, writev, sendto, sendmsg
    "syscalls_accept_all_per_request": 8192 + 16384,  # accept, accept4
}


def _window() -> SyscallWindow:
    counts = {call: int(POWER[call] * REQUESTS) for call in CALLS}
    counts.update({"context-switches": 1200, "page-faults": 60})
    return SyscallWindow(counts)


def test_the_calls_are_the_ones_the_families_are_made_of():
    assert CALLS == ("epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "futex", "read",
                     "readv", "recvfrom", "recvmsg", "write", "writev", "sendto", "sendmsg",
                     "accept", "accept4", "close", "io_uring_enter")
    assert EVENTS == ("context-switches", "page-faults")


def test_each_count_is_divided_by_the_windows_responses():
    record = _window().record(REQUESTS, (300, 100))
    assert record["requests"] == REQUESTS
    assert record["counts"]["ctx_voluntary"] == 300 and record["counts"]["ctx_involuntary"] == 100
    per = record["per_request"]
    assert {call: per[call] for call in CALLS} == POWER
    assert (per["context-switches"], per["page-faults"]) == (3.0, 0.15)
    assert (per["ctx_voluntary"], per["ctx_involuntary"]) == (0.75, 0.25)
    assert _window().record(0, None)["per_request"] == {}
    assert _window().record(None, None)["per_request"] == {}


def test_the_run_divides_by_every_response_and_takes_the_windows_context_switches():
    """server.result's record: perf's counts over the responses of their own window (800, any
    status), /proc's context switches over the measured window's (load.requests, 400, any
    status, not load.ok_requests, 300)."""
    from concbench.server.result import _syscalls

    load = LoadResult(generator="wrk", requests=REQUESTS, ok_requests=300, duration_s=2.0,
                      requests_per_s=150.0, latency_ms={}, percentiles=[],
                      errors={"status": 100}, cpu_s=0.1, wall_s=2.0, cpus=(), command=[],
                      corrected=False)
    window = WindowMeasures(window_s=2.0, cpu_s=0.5, cpu_percent=25.0, ctx_voluntary=300,
                            ctx_involuntary=100, peak_fds=5, peak_rss_bytes=None,
                            mean_rss_bytes=None, peak_threads=None, mean_threads=None)
    run = SimpleNamespace(syscalls=_window(), load=load, warnings=[],
                          syscalls_requests=2 * REQUESTS, syscalls_seconds=2.0)
    record = _syscalls(run, window)  # type: ignore[arg-type]
    assert record is not None and record["requests"] == 2 * REQUESTS
    assert record["ctx_requests"] == REQUESTS
    assert record["per_request"]["write"] == 256.0  # 204800 / 800
    assert record["per_request"]["ctx_involuntary"] == 0.25  # 100 / 400; over the ok: 0.33


def _run(scale: float) -> RunResult:
    per = {call: value * scale for call, value in POWER.items()}
    per.update({"context-switches": 3.0 * scale, "page-faults": 0.15 * scale,
                "ctx_voluntary": 0.75 * scale, "ctx_involuntary": 0.25 * scale})
    return RunResult(status="ok", reason=None, wall_s=3.0, startup_s=0.5, peak_rss_bytes=1,
                     peak_threads=1, final_threads=1, cpu_user_s=0.1, cpu_sys_s=0.1,
                     ctx_voluntary=1, ctx_involuntary=1, iterations=(),
                     server={"syscalls": {"per_request": per, "requests": REQUESTS}})


def test_each_family_is_the_sum_of_exactly_its_calls():
    figures = {k: read(_run(1.0)) for k, read in syscall_cell.per_run().items()}
    for family, total in FAMILY_SUMS.items():
        assert figures[family] == total, family
    assert figures["syscalls_epoll_ctl_per_request"] == 1
    assert figures["syscalls_futex_per_request"] == 16
    assert figures["syscalls_close_per_request"] == 32768
    assert figures["syscalls_io_uring_enter_per_request"] == 65536
    assert (figures["ctx_switches_per_request"], figures["page_faults_per_request"]) == (3, 0.15)
    assert (figures["ctx_voluntary_per_request"], figures["ctx_involuntary_per_request"]) == \
        (0.75, 0.25)


def test_a_family_none_of_whose_calls_was_counted_is_empty_not_zero():
    run = _run(1.0)
    assert run.server is not None
    per = run.server["syscalls"]["per_request"]
    for call in ("accept", "accept4"):
        del per[call]
    assert syscall_cell.per_run()["syscalls_accept_all_per_request"](run) is None
    assert syscall_cell.per_run()["syscalls_write_all_per_request"](run) == 7680


def test_the_cells_family_figure_is_the_median_of_the_runs_sums():
    stats = server_stats([_run(1.0), _run(2.0), _run(4.0)])
    assert stats["syscalls_write_all_per_request"].median == 2 * 7680
    assert stats["syscalls_read_all_per_request"].min == 480
    assert stats["ctx_switches_per_request"].median == 6.0
