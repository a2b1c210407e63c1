"""Fault injection: contenders that crash, hang, print garbage or leave processes behind.

One plan runs every fault and then a good contender: each fault gets its status and reason,
the plan goes on, results.json and the store hold every cell once, and no process of any
fault is left (checked by pid, including a grandchild that left the process group).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from proc_state import alive

SMALL = ["--param", "tasks=100", "--param", "sleep-ms=1", "--param", "pool-size=10"]

FAULTS = [  # contender, status, a fragment of the reason (None: no reason)
    ("fake-crash", "crash", "simulated failure"),
    ("fake-crashmid", "crash", "crashed after its first iteration"),
    ("fake-hang", "timeout", "still running after 3 s"),
    ("fake-closeout", "timeout", "still running after 3 s"),
    ("fake-ignoreterm", "timeout", "still running after 3 s"),
    ("fake-malformed", "invalid", "not a JSON object"),
    ("fake-hugeline", "invalid", "longer than 1048576 bytes"),
    ("fake-binary", "invalid", "not a JSON object"),
    ("fake-silent", "invalid", "reported 0 iterations"),
    ("fake-wrong", "invalid", "iteration 0"),
    ("fake-daemon", "ok", None),
]


def _plan(fake_bench, piddir: Path) -> subprocess.CompletedProcess:
    fake_bench.env["FAKE_PIDDIR"] = str(piddir)
    names = [arg for name, _, _ in FAULTS for arg in ("--contender", name)]
    return subprocess.run([sys.executable, "-m", "concbench", "run", "sleep-tasks", *names,
                           "--contender", "fake-good", *SMALL, "--runs", "1", "--iterations",
                           "2", "--timeout", "3"], env=fake_bench.env, capture_output=True,
                          text=True, timeout=240)


@pytest.fixture(scope="module")
def faulty_run(bench_factory):
    bench = bench_factory("faults")
    piddir = bench.root / "pids"
    piddir.mkdir()
    done = _plan(bench, piddir)
    return bench, piddir, done


def test_the_plan_goes_on_past_every_fault(faulty_run):
    bench, _, done = faulty_run
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    cells = bench.last()["cells"]
    assert [c["contender"] for c in cells] == [name for name, _, _ in FAULTS] + ["fake-good"]
    assert cells[-1]["status"] == "ok"


@pytest.mark.parametrize("name,status,fragment", FAULTS, ids=[f[0] for f in FAULTS])
def test_each_fault_is_recorded_with_its_reason(faulty_run, name, status, fragment):
    bench, _, _ = faulty_run
    (cell,) = [c for c in bench.last()["cells"] if c["contender"] == name]
    (run,) = cell["runs"]
    assert run["status"] == status, run["reason"]
    if fragment:
        assert fragment in (run["reason"] or ""), run["reason"]


def test_results_and_store_hold_every_cell_once(faulty_run):
    from concbench.resultset.store import Store

    bench, _, _ = faulty_run
    doc = bench.last()
    store = Store(bench.env["CONCBENCH_STORE"])
    try:
        assert store.count_runs(doc["run_id"]) == len(FAULTS) + 1
    finally:
        store.close()


def test_no_process_of_any_fault_is_left(faulty_run):
    _, piddir, _ = faulty_run
    recorded = {f.name: [int(p) for p in f.read_text().split()] for f in piddir.iterdir()}
    assert {"closeout", "ignoreterm", "daemon", "hugeline"} <= set(recorded)
    left = {mode: [p for p in pids if alive(p)] for mode, pids in recorded.items()}
    assert not any(left.values()), left


def test_a_grandchild_that_left_the_group_is_killed_and_reported(faulty_run):
    bench, piddir, _ = faulty_run
    _, _, grandchild = (int(p) for p in (piddir / "daemon").read_text().split())
    (cell,) = [c for c in bench.last()["cells"] if c["contender"] == "fake-daemon"]
    (warning,) = [w for w in cell["runs"][0]["warnings"] if "outlived it" in w]
    assert str(grandchild) in warning


def test_the_harness_memory_stays_bounded_whatever_a_contender_prints(fake_bench, tmp_path):
    """A 100 MB line costs the harness at most one line buffer (1 MiB), not 100 MB: the peak
    RSS of the harness and its children, as the kernel counts it, next to a good run's."""
    def peak_kib(contender: str) -> int:
        script = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:]); "
                  "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        done = subprocess.run([sys.executable, "-c", script, sys.executable, "-m", "concbench",
                               "run", "sleep-tasks", "--contender", contender, *SMALL,
                               "--runs", "1"], env=fake_bench.env, capture_output=True,
                              text=True, timeout=120)
        return int(done.stdout.split()[-1])

    assert peak_kib("fake-hugeline") < peak_kib("fake-good") + 40 * 1024
