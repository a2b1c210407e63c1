"""A run from the command line to results.json, with a fake contender per outcome."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from proc_state import all_gone

SMALL = ["--param", "tasks=100", "--param", "sleep-ms=1", "--param", "pool-size=10"]


def _only_cell(doc: dict) -> dict:
    assert len(doc["cells"]) == 1
    return doc["cells"][0]


def test_good_run_records_measures_stats_and_exports(fake_bench):
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-good", *SMALL, "--runs", "2",
                     "--warmup", "1", "--iterations", "2")
    assert res.code == 0, res.stderr
    doc = fake_bench.last()
    assert doc["schema_version"] == 1 and doc["machine"]["logical_cores"] >= 1
    cell = _only_cell(doc)
    assert cell["status"] == "ok" and cell["reason"] is None
    assert len(cell["runs"]) == 2
    run = cell["runs"][0]
    assert [it["warmup"] for it in run["iterations"]] == [True, False, False]
    assert run["peak_rss_bytes"] >= 20 * 1024 * 1024  # the fake touches 20 MiB
    assert run["peak_threads"] >= 1 and run["cpu_user_s"] + run["cpu_sys_s"] > 0
    assert 0 < run["startup_s"] < run["wall_s"]
    assert cell["stats"]["elapsed_s"]["n"] == 4  # 2 runs × 2 measured iterations
    # ideal: sleep × ⌈100/10⌉ for a pooled contender = 10 ms
    assert cell["ideal_s"] == 0.01 and cell["efficiency"] > 0
    folder = Path(fake_bench.root / "results" / doc["run_id"])
    assert (folder / "results.csv").exists() and (folder / "results.md").exists()
    assert (folder / run["samples_file"]).read_text().startswith("t_s,rss_bytes,threads,cpu_s")
    assert "fake-good" in res.stdout and "ok" in res.stdout


def test_wrong_result_is_invalid(fake_bench):
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-wrong", *SMALL, "--runs", "1")
    assert res.code == 0
    cell = _only_cell(fake_bench.last())
    assert cell["status"] == "invalid"
    assert "cpu_sum" in cell["reason"] and cell["stats"] == {}


def test_wrong_value_sum_is_invalid(fake_bench):
    res = fake_bench("run", "channel", "--contender", "fake-wrong", "--param", "workers=3",
                     "--param", "events=10", "--runs", "1")
    assert res.code == 0
    cell = _only_cell(fake_bench.last())
    assert cell["status"] == "invalid" and "value_sum" in cell["reason"]


def test_pool_size_must_match_the_manifest(fake_bench):
    fake_bench("run", "sleep-tasks", "--contender", "fake-unbounded", *SMALL, "--runs", "1")
    cell = _only_cell(fake_bench.last())
    assert cell["status"] == "invalid" and "pool_size" in cell["reason"]


def test_non_json_stdout_is_invalid(fake_bench):
    fake_bench("run", "sleep-tasks", "--contender", "fake-noisy", *SMALL, "--runs", "1")
    cell = _only_cell(fake_bench.last())
    assert cell["status"] == "invalid" and "not a JSON object" in cell["reason"]


def test_crash_keeps_stderr(fake_bench):
    res = fake_bench("run", "fanout", "--contender", "fake-crash", "--runs", "1")
    assert res.code == 0
    cell = _only_cell(fake_bench.last())
    assert cell["status"] == "crash"
    assert "exit code 3" in cell["reason"] and "simulated failure" in cell["reason"]
    assert "simulated failure" in cell["runs"][0]["stderr_tail"]


def test_hang_times_out_and_the_process_group_is_gone(fake_bench, tmp_path):
    pidfile = tmp_path / "pids"
    fake_bench.env["FAKE_PIDFILE"] = str(pidfile)
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-hang", "--contender",
                     "fake-good", *SMALL, "--runs", "2", "--timeout", "1")
    assert res.code == 0, res.stderr
    cells = {c["contender"]: c for c in fake_bench.last()["cells"]}
    assert cells["fake-hang"]["status"] == "timeout"
    assert len(cells["fake-hang"]["runs"]) == 1  # the second run would only time out again
    assert any("stopped after 1 of 2" in w for w in cells["fake-hang"]["warnings"])
    assert cells["fake-good"]["status"] == "ok"  # the rest of the plan went on
    assert "timeout" in res.stdout  # the table still shows the cell
    pids = [int(p) for p in pidfile.read_text().split()]
    assert all_gone(pids), "a process of the hung contender survived"


def test_spawn_idle_mark_is_recorded_and_a_late_mark_is_invalid(fake_bench):
    params = ["--param", "tasks=10", "--param", "hold-ms=50", "--runs", "1"]
    fake_bench("run", "spawn-idle", "--contender", "fake-good", "--contender",
               "fake-latemark", *params)
    cells = {c["contender"]: c for c in fake_bench.last()["cells"]}
    mark = cells["fake-good"]["runs"][0]["marks"]["all-spawned"]
    assert mark["rss_bytes"] >= 20 * 1024 * 1024 and mark["threads"] >= 1
    assert "all-spawned_rss_bytes" in cells["fake-good"]["stats"]
    # spawn-idle's throughput is the tasks over the time to the mark (a spawn rate), not over
    # the iteration, which lasts the hold-ms besides (docs/known-answers.md)
    throughput = cells["fake-good"]["stats"]["throughput_per_s"]["median"]
    assert throughput == pytest.approx(10 / (mark["elapsed_ns"] / 1e9), rel=1e-9)
    iteration_s = cells["fake-good"]["runs"][0]["iterations"][-1]["elapsed_ns"] / 1e9
    assert iteration_s >= 0.05 and throughput > 10 * 10 / iteration_s
    assert cells["fake-latemark"]["status"] == "invalid"
    assert "hold-ms" in cells["fake-latemark"]["reason"]


def test_scan_makes_one_cell_per_value(fake_bench):
    res = fake_bench("run", "fanout", "--contender", "fake-good", "--scan",
                     "requests=10,100,1000", "--runs", "1", "--param", "user-ms=0")
    assert res.code == 0, res.stderr
    cells = fake_bench.last()["cells"]
    assert [c["params"]["requests"] for c in cells] == [10, 100, 1000]
    assert [c["runs"][0]["iterations"][0]["result"]["id_sum"] for c in cells] == \
        [55, 5050, 500500]


def test_memory_hungry_run_is_stopped_as_mem_limit(fake_bench):
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-good", *SMALL, "--runs", "1",
                     "--mem-limit", "12M")
    assert res.code == 0, res.stderr
    cell = _only_cell(fake_bench.last())
    assert cell["status"] == "mem-limit" and "limit" in cell["reason"]


def test_run_saves_and_compares_with_a_baseline(fake_bench):
    args = ["run", "sleep-tasks", "--contender", "fake-good", *SMALL, "--runs", "3"]
    missing = fake_bench(*args, "--baseline", "nope")
    assert missing.code == 2 and "no baseline named 'nope'" in missing.stderr
    assert fake_bench.results() == []  # nothing ran
    first = fake_bench(*args, "--save-baseline", "main")
    assert first.code == 0, first.stderr
    assert (fake_bench.root / "results" / "baselines" / "main.json").exists()
    second = fake_bench(*args, "--baseline", "main")
    assert second.code == 0, second.stderr
    assert "baseline main" in second.stdout and "fake-good" in second.stdout


def test_two_runs_at_once_share_the_store_and_never_a_folder(fake_bench):
    """Started together (likely the same second, so the same run id): two folders, both runs
    complete, each recorded once in the shared SQLite store."""
    import subprocess
    import sys

    args = [sys.executable, "-m", "concbench", "run", "sleep-tasks", "--contender", "fake-good",
            *SMALL, "--runs", "2"]
    procs = [subprocess.Popen(args, env=fake_bench.env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    docs = fake_bench.results()
    assert len(docs) == 2 and docs[0]["run_id"] != docs[1]["run_id"]
    assert all(len(d["cells"]) == 1 and len(d["cells"][0]["runs"]) == 2 for d in docs)
    from concbench.resultset.store import HistoryFilter, Store

    store = Store(fake_bench.env["CONCBENCH_STORE"])
    try:
        assert [store.count_runs(d["run_id"]) for d in docs] == [2, 2]
        assert sorted(row[0] for row in store.history(HistoryFilter())) == \
            sorted(d["run_id"] for d in docs)
    finally:
        store.close()


def test_interleaved_runs_go_in_rounds_and_each_round_is_recorded(fake_bench):
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-good", "--contender",
                     "fake-noisy", "--contender", "fake-crash", *SMALL, "--runs", "3",
                     "--interleave")
    order = re.findall(r"sleep-tasks · (fake-\w+) · run (\d)/3", res.stdout + res.stderr)
    assert order == [("fake-good", "1"), ("fake-noisy", "1"), ("fake-crash", "1"),
                     ("fake-crash", "2"), ("fake-noisy", "2"), ("fake-good", "2"),
                     ("fake-good", "3"), ("fake-noisy", "3"), ("fake-crash", "3")], order
    doc = fake_bench.last()
    assert doc["plan"]["interleave"] is True
    cells = {c["contender"]: c for c in doc["cells"]}
    assert [len(c["runs"]) for c in cells.values()] == [3, 3, 3]
    assert cells["fake-good"]["status"] == "ok" and cells["fake-crash"]["status"] == "crash"


