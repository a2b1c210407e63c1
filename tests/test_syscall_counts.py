"""System calls per request (syscalls=true, server.syscall_counts): perf stat over the measured
window of a fake server's whole tree, read back per request; a kernel without the syscall
tracepoints gets a note, not a crash.

The fake server (tests/fake/server.py) is Python's ThreadingHTTPServer: one thread per
connection, started after perf attached, so its counts only arrive through perf's inherited
counters. Its epollctl mode makes exactly two epoll_ctl calls per request (ADD, then DEL);
the good mode makes none.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from concbench import tools
from concbench.report import syscall_table
from concbench.resultset.io import from_dict
from concbench.server import syscall_counts, syscalls_window

pytestmark = pytest.mark.usefixtures("wrk")

LOAD = ["--param", "connections=4", "--param", "duration-s=2", "--param", "warmup-s=0",
        "--param", "syscalls=true", "--runs", "1"]
TOLERANCE = 0.05
"""Responses in flight when the window opens or closes are counted on one side only: with
4 connections and thousands of responses that is far below 5 %."""


def _perf_with_tracepoints() -> None:
    if tools.missing("perf"):
        pytest.skip(tools.missing("perf"))
    if "epoll_ctl" not in syscall_counts.tracepoints():
        pytest.skip("this kernel has no syscalls:sys_enter_epoll_ctl tracepoint")


def _run(fake_bench, contender: str) -> dict:
    res = fake_bench("run", "http-hello", "--contender", contender, *LOAD)
    assert res.code == 0, res.stderr
    assert "system calls, context switches and page faults per request" in res.stdout
    results = sorted((fake_bench.root / "results").glob("*/results.json"))[-1]
    markdown = (results.parent / "results.md").read_text()
    assert "#### http-hello: system calls, context switches and page faults" in markdown
    report = fake_bench.root / "report.md"
    assert fake_bench("report", str(results), "--markdown", str(report)).code == 0
    assert "#### http-hello: system calls, context switches and page faults" in report.read_text()
    cell = fake_bench.last()["cells"][0]
    assert cell["status"] == "ok", cell["reason"]
    return cell


def test_a_known_number_of_calls_per_request_is_read_back(fake_bench):
    _perf_with_tracepoints()
    cell = _run(fake_bench, "fake-server-epollctl")
    record = cell["runs"][0]["server"]["syscalls"]
    assert record["note"] is None and record["missing"] == [], record
    # counted in a window of their own after the measured one, which perf never slowed
    assert record["window"]["after_measured"] and record["window"]["seconds"] > 0, record
    assert record["requests"] > 100 and record["ctx_requests"] == \
        cell["runs"][0]["load"]["requests"], record
    assert record["per_request"]["epoll_ctl"] == pytest.approx(2.0, rel=TOLERANCE), record
    # every response is written by one of the per-connection threads
    assert record["per_request"]["sendto"] + record["per_request"]["write"] >= 0.95, record
    assert record["counts"]["context-switches"] > 0 and "page-faults" in record["counts"]
    assert cell["stats"]["syscalls_epoll_ctl_per_request"]["median"] == \
        pytest.approx(2.0, rel=TOLERANCE)


def test_a_server_without_those_calls_reads_zero_and_the_table_shows_it(fake_bench):
    _perf_with_tracepoints()
    cell = _run(fake_bench, "fake-server")
    record = cell["runs"][0]["server"]["syscalls"]
    assert record["per_request"]["epoll_ctl"] < 0.01, record
    doc = from_dict(fake_bench.last())
    tables = syscall_table.tables(doc.cells)
    assert len(tables) == 1 and tables[0].rows[0][0] == "fake-server"
    column = tables[0].headers.index("epoll_ctl")
    assert tables[0].rows[0][column] == "0.00"  # counted: none (not "—", not counted)


def test_off_by_default(fake_bench):
    res = fake_bench("run", "http-hello", "--contender", "fake-server", *LOAD[:-4],
                     "--runs", "1")
    assert res.code == 0, res.stderr
    run = fake_bench.last()["cells"][0]["runs"][0]
    assert run["server"]["syscalls"] is None


def _count_then_kill(child: subprocess.Popen) -> syscall_counts.SyscallWindow | None:
    """The child's calls counted for 0.2 s, as a server's window is, then the child killed."""
    try:
        counter = syscall_counts.begin(child.pid, None, {"syscalls": "true"})
        time.sleep(0.2)
        return syscall_counts.end(counter)
    finally:
        child.kill()
        child.wait()


def test_a_kernel_without_tracepoints_gets_a_note_not_a_crash(monkeypatch):
    """Counted in this process on a child that wakes every 10 ms: the probe says no
    tracepoints."""
    if tools.missing("perf"):
        pytest.skip(tools.missing("perf"))
    monkeypatch.setattr(syscall_counts, "tracepoints", lambda: frozenset())
    child = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(0.01)"])
    found = _count_then_kill(child)
    assert found is not None and found.missing == syscall_counts.CALLS
    assert "no syscalls:sys_enter_* tracepoints" in (found.note or "")
    assert set(found.counts) == set(syscall_counts.EVENTS) and found.counts["context-switches"]
    record = found.record(100, (3, 1))
    assert record["per_request"]["ctx_voluntary"] == 0.03 and "epoll_ctl" not in record["counts"]


def test_no_perf_is_a_note_too(monkeypatch):
    monkeypatch.setattr(syscall_counts.tools, "missing", lambda name: f"{name} not found")
    found = syscall_counts.end(syscall_counts.begin(os.getpid(), None, {"syscalls": "true"}))
    assert found is not None and found.counts == {} and found.note == "perf not found"


def test_a_remote_server_is_a_note():
    found = syscall_counts.end(syscall_counts.begin(1, "host-b", {"syscalls": "true"}))
    assert found is not None and "runs on host-b" in (found.note or "")


def test_the_table_notes_a_cell_counted_without_tracepoints():
    from concbench.resultset.model import CellResult, RunResult

    record = syscall_counts.SyscallWindow(
        {"context-switches": 50, "page-faults": 10}, syscall_counts.CALLS,
        syscall_counts.missing_note(syscall_counts.CALLS)).record(10, (4, 1))
    run = RunResult(status="ok", reason=None, wall_s=1.0, startup_s=None, peak_rss_bytes=0,
                    peak_threads=0, final_threads=0, cpu_user_s=0.0, cpu_sys_s=0.0,
                    ctx_voluntary=0, ctx_involuntary=0, iterations=(),
                    server={"syscalls": record})
    from concbench.stats.server_cell import server_stats

    cell = CellResult(workload="http-hello", contender="x", params={}, status="ok",
                      reason=None, ideal_s=None, efficiency=None, runs=(run,),
                      stats=server_stats([run]))
    table = syscall_table.tables([cell])[0]
    row = dict(zip(table.headers, table.rows[0]))
    assert row["epoll_ctl"] == "—" and row["ctx switches (vol / invol)"] == "5.00 (0.400 / 0.100)"
    assert "no system calls counted" in row["note"]
    text = "\n".join(syscall_table.markdown([cell], "http-hello"))
    assert "| x | — |" in text and "#### http-hello: system calls" in text


def test_a_thread_that_ends_while_perf_attaches_is_retried(monkeypatch):
    """perf stat -p fails as a whole (ESRCH) when one of the threads it listed has ended
    before it opened its counters (a thread-per-connection server): the attach is tried
    again with the threads of the moment. Simulated by a pid that has ended."""
    if tools.missing("perf"):
        pytest.skip(tools.missing("perf"))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    child = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(0.01)"])
    calls = []

    def tree(pid: int) -> list[int]:
        calls.append(pid)
        return [pid, gone.pid] if len(calls) == 1 else [pid]

    monkeypatch.setattr(syscall_counts.proc_tree, "tree", tree)
    found = _count_then_kill(child)
    assert len(calls) == 2 and found is not None and found.note is None, found
    assert found.counts["context-switches"] > 0


TREE = """
import os, select, sys, threading, time
sys.stdin.readline()  # begins once perf counts
def pairs(n):
    ep = select.epoll()
    for _ in range(n):
        ep.register(sys.stdin.fileno(), select.EPOLLIN)
        ep.unregister(sys.stdin.fileno())
thread = threading.Thread(target=pairs, args=(300,))
thread.start()
thread.join()
if os.fork() == 0:
    pairs(200)
    os._exit(0)
os.wait()
print("done", flush=True)
time.sleep(30)
"""


def test_threads_and_children_started_after_attaching_are_counted(monkeypatch):
    """A thread (300 ADD/DEL pairs) and a forked child (200) both start after perf attached
    and both end before the window does: 1 000 epoll_ctl, all counted."""
    _perf_with_tracepoints()
    parent = subprocess.Popen([sys.executable, "-c", TREE], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        counter = syscall_counts.begin(parent.pid, None, {"syscalls": "true"})
        assert parent.stdin is not None and parent.stdout is not None
        parent.stdin.write("go\n")
        parent.stdin.flush()
        assert parent.stdout.readline() == "done\n"
        found = syscall_counts.end(counter)
    finally:
        parent.kill()
        parent.wait()
    assert found is not None and found.note is None, found
    assert found.counts["epoll_ctl"] == 1000, found.counts


def test_counts_and_the_measured_windows_context_switches_each_over_their_own_responses():
    counted = syscall_counts.SyscallWindow({"epoll_ctl": 400, "context-switches": 50})
    record = syscalls_window.record(counted, 200, 2.0, (30, 10), 100)
    assert record is not None
    assert record["per_request"]["epoll_ctl"] == 2.0  # 400 calls in 200 responses
    assert record["per_request"]["context-switches"] == 0.25
    assert record["per_request"]["ctx_voluntary"] == 0.3  # /proc's 30 over the measured 100
    assert record["per_request"]["ctx_involuntary"] == 0.1
    assert record["requests"] == 200 and record["ctx_requests"] == 100
    assert record["window"] == {"after_measured": True, "seconds": 2.0}
    assert syscalls_window.record(None, 200, 2.0, None, 100) is None
