"""A run interrupted (Ctrl-C, SIGTERM, SIGKILL, at random moments, mid-round of an interleaved
plan) keeps every finished cell, leaves no process behind, and `--resume` completes the plan
with each cell measured exactly once."""

from __future__ import annotations

import json
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hang_plan import start_until_hang
from proc_state import all_gone

from concbench.proc import private_tmp
from concbench.resultset.store import Store

SMALL = ["--param", "tasks=100", "--param", "sleep-ms=1", "--param", "pool-size=10"]


def test_resume_keeps_finished_cells_and_runs_the_rest(fake_bench):

    fake_bench("run", "sleep-tasks", "--contender", "fake-good", "--contender",
               "fake-wrong", *SMALL, "--runs", "1")
    doc = fake_bench.last()
    path = fake_bench.root / "results" / doc["run_id"] / "results.json"
    first = doc["cells"][0]
    path.write_text(json.dumps({**doc, "cells": [first]}))  # as if killed after one cell
    res = fake_bench("run", "sleep-tasks", "--resume", doc["run_id"])
    assert res.code == 0, res.stderr
    resumed = json.loads(path.read_text())
    assert [c["contender"] for c in resumed["cells"]] == ["fake-good", "fake-wrong"]
    assert resumed["cells"][0] == first  # not measured again


def test_results_json_is_rewritten_after_every_cell(fake_bench, tmp_path):
    """Ctrl-C mid-plan: the finished cell is on disk, the running contender and its child
    (which ignores SIGTERM) are gone."""
    proc, pids = start_until_hang(fake_bench, tmp_path / "pids", "--runs", "1")
    cells = fake_bench.last()["cells"]  # written before the second cell started
    assert [c["contender"] for c in cells] == ["fake-good"] and cells[0]["status"] == "ok"
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) == 130
    assert all_gone(pids), "a process of the interrupted contender survived Ctrl-C"
    assert [c["contender"] for c in fake_bench.last()["cells"]] == ["fake-good"]


def test_sigterm_is_an_interrupt_too(fake_bench, tmp_path):
    """kill (SIGTERM) takes Ctrl-C's path: finished cells kept, a --resume hint, nothing left."""
    err = tmp_path / "stderr"
    with err.open("wb") as sink:
        proc, pids = start_until_hang(fake_bench, tmp_path / "pids", "--runs", "1", stderr=sink)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 130
    assert all_gone(pids), "a process of the contender survived SIGTERM to the harness"
    # the hint may be wrapped to the terminal's width anywhere between its words
    assert re.search(r"continue with\s+--resume\s+\S", err.read_text())
    assert [c["contender"] for c in fake_bench.last()["cells"]] == ["fake-good"]


def test_nothing_outlives_a_harness_killed_with_sigkill(fake_bench, tmp_path):
    """SIGKILL gives the harness no chance to clean up: the sampler, as the contender's
    guardian (PR_SET_PDEATHSIG), kills its process group and tree, then removes the run's own
    temporary directory (proc.private_tmp); and the sampler's file has no name, so the
    harness's temporary directory is left as it was."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: the native sampler (the guardian) cannot be built")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    fake_bench.env["TMPDIR"] = str(scratch)
    proc, pids = start_until_hang(fake_bench, tmp_path / "pids", "--runs", "1")
    assert [f.name for f in scratch.iterdir() if f.name.startswith(private_tmp.PREFIX)], \
        "the hanging run has a temporary directory of its own"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert all_gone(pids), "the contender outlived a harness killed with SIGKILL"
    deadline = time.monotonic() + 10
    while list(scratch.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not list(scratch.iterdir()), "a killed harness left files in its TMPDIR"


def _runs_in_store(bench, run_id: str) -> int:
    store = Store(bench.env["CONCBENCH_STORE"])
    try:
        return store.count_runs(run_id)
    finally:
        store.close()


def _new_results(root: Path, before: set[str]) -> list[Path]:
    return [d for d in (root / "results").glob("*/results.json") if d.parent.name not in before]


def _cells_written(results: list[Path]) -> int:
    """Cells in the run's results.json (written whole by os.replace), -1 before it exists."""
    return len(json.loads(results[0].read_text())["cells"]) if results else -1


def test_killed_at_random_moments_a_resume_completes_the_plan_exactly_once(fake_bench):
    """6 seeded tries: the run is killed (SIGINT or SIGKILL) at a random moment of its course,
    then resumed; every planned cell ends up in results.json and the store exactly once. The
    moment is drawn in the plan's progress (after 0, 1 or 2 of its 3 cells are written, plus a
    random part of one cell's time), not on the clock, so that a loaded machine still kills
    most runs mid-plan; the test fails if most kills only found finished plans."""


    rng = random.Random(20261122)
    plan = ["run", "sleep-tasks", "--contender", "fake-good", "--scan", "tasks=100,200,300",
            "--param", "sleep-ms=10", "--param", "pool-size=10", "--runs", "2"]
    started = time.monotonic()
    assert fake_bench(*plan).code == 0
    one_cell = (time.monotonic() - started) / 3  # where the kills land, not a figure checked
    attempts, unfinished = 6, 0
    for attempt in range(attempts):
        before = {p.name for p in (fake_bench.root / "results").glob("*") if p.is_dir()}
        proc = subprocess.Popen([sys.executable, "-m", "concbench", *plan], env=fake_bench.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after_cells = rng.randrange(3)
        deadline = time.monotonic() + 120
        while (proc.poll() is None and time.monotonic() < deadline
               and _cells_written(_new_results(fake_bench.root, before)) < after_cells):
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.8) * one_cell)
        proc.send_signal(rng.choice([signal.SIGINT, signal.SIGKILL]))
        proc.wait(timeout=30)
        new = _new_results(fake_bench.root, before)
        if not new:  # killed before the run had a results file: nothing to resume
            continue
        (results,) = new
        kept = {c["params"]["tasks"]: c for c in json.loads(results.read_text())["cells"]}
        unfinished += len(kept) < 3
        done = fake_bench("run", "sleep-tasks", "--resume", results.parent.name)
        assert done.code == 0, (attempt, done.stderr[-1500:])
        doc = json.loads(results.read_text())
        assert sorted(c["params"]["tasks"] for c in doc["cells"]) == [100, 200, 300], attempt
        assert all(len(c["runs"]) == 2 for c in doc["cells"]), attempt
        for cell in doc["cells"]:  # a cell finished before the kill is not measured again
            assert kept.get(cell["params"]["tasks"], cell) == cell, attempt
        assert _runs_in_store(fake_bench, doc["run_id"]) == 6, attempt
    assert unfinished >= attempts // 2, f"only {unfinished} of {attempts} kills left work"


def _recorded_runs(path: Path) -> dict[str, list[dict]]:
    try:
        doc = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    return {c["contender"]: c["runs"] for c in doc["cells"]}


def test_an_interleaved_plan_killed_mid_round_keeps_each_run_and_resumes(fake_bench):
    """results.json is rewritten after every run of an interleaved plan, so a kill keeps every
    run done; --resume goes on from those runs (not measured again) to the planned count."""


    plan = ["run", "sleep-tasks", "--contender", "fake-good", "--contender", "fake-wrong",
            "--param", "tasks=10", "--param", "sleep-ms=300", "--param", "pool-size=10",
            "--runs", "4", "--interleave"]
    proc = subprocess.Popen([sys.executable, "-m", "concbench", *plan], env=fake_bench.env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while True:  # round 1 done (one run of each cell on disk): stop it in round 2
        found = {p.parent: _recorded_runs(p)
                 for p in (fake_bench.root / "results").glob("*/results.json")}
        runs = next(iter(found.values()), {})
        if sum(map(len, runs.values())) >= 2:
            break
        assert proc.poll() is None, "the plan ended before a run of it was on disk"
        assert time.monotonic() < deadline, "results.json never showed a run of the plan"
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    (folder,) = found
    kept = _recorded_runs(folder / "results.json")
    assert set(kept) == {"fake-good", "fake-wrong"}
    assert all(1 <= len(r) < 4 for r in kept.values()), {k: len(r) for k, r in kept.items()}
    res = fake_bench("run", "sleep-tasks", "--resume", folder.name)
    assert res.code == 0, res.stderr[-2000:]
    doc = json.loads((folder / "results.json").read_text())
    final = {c["contender"]: c for c in doc["cells"]}
    assert {k: len(c["runs"]) for k, c in final.items()} == {"fake-good": 4, "fake-wrong": 4}
    assert (final["fake-good"]["status"], final["fake-wrong"]["status"]) == ("ok", "invalid")
    for name, runs in kept.items():  # the runs before the kill, kept as they were
        assert final[name]["runs"][:len(runs)] == runs, name
    assert _runs_in_store(fake_bench, doc["run_id"]) == 8


def test_resume_retries_an_unavailable_cell_once_its_tool_is_there(fake_bench, tmp_path):
    """A toolchain whose tool is missing makes its cells unavailable; after the tool is
    installed, --resume measures them (and keeps the cells that were measured)."""
    needy = fake_bench.root / "contenders" / "needy"
    needy.mkdir()
    (needy / "contenders.toml").write_text(
        '[toolchain]\nname = "needy"\nrequires = ["concbench-test-tool"]\n'
        'version = [["{python}", "--version"]]\nbuild = []\n\n'
        '[contenders.needy-good]\nrun = ["{python}", "../fake/contender.py", "good"]\n'
        'workloads = ["sleep-tasks"]\npooled = ["sleep-tasks"]\n')
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-good", "--contender",
                     "needy-good", *SMALL, "--runs", "1")
    assert res.code == 0, res.stderr[-2000:]
    first = {c["contender"]: c for c in fake_bench.last()["cells"]}
    assert first["needy-good"]["status"] == "unavailable"
    assert "concbench-test-tool not found" in first["needy-good"]["reason"]
    tool = tmp_path / "bin" / "concbench-test-tool"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    fake_bench.env["PATH"] = f"{tool.parent}:{fake_bench.env['PATH']}"
    res = fake_bench("run", "sleep-tasks", "--resume", fake_bench.last()["run_id"])
    assert res.code == 0, res.stderr[-2000:]
    again = {c["contender"]: c for c in fake_bench.last()["cells"]}
    assert again["needy-good"]["status"] == "ok", again["needy-good"]["reason"]
    assert again["fake-good"] == first["fake-good"]  # measured once, kept
