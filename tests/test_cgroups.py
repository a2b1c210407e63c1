"""Runs under a CPU quota and a memory limit (--cpus, --memory): each contender in a cgroup
the harness makes and removes (concbench.proc.cgroups, docs/containers.md).

On this kind of machine (root, cgroup v1 or v2 with the cpu and memory controllers) the
tests run the fake contenders in real cgroups; the v2 file formats are checked on a folder
laid out like a v2 hierarchy as well, since a host has only one of the two.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
from cgroup_support import needs_cgroups
from hang_plan import start_until_hang
from proc_state import alive, all_gone

from concbench.errors import UserError
from concbench.proc import cgroups
from concbench.proc.cgroups import layout as layout_mod
from concbench.proc.cgroups.group import PREFIX
from concbench.proc.cgroups.limits import Limits

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time

SLEEPS = ["--param", "tasks=10", "--param", "sleep-ms=10", "--param", "pool-size=10"]
BURN = ["--param", "rings=1", "--param", "size=2", "--param", "passes=1000"]


def _run_cgroups(cell: dict) -> list[dict]:
    return [r["cgroup"] for r in cell["runs"]]


def _gone(record: dict) -> bool:
    return not any(Path(p).exists() for p in record["paths"])


def _ours(pid: int) -> list[Path]:
    """The run cgroups a harness with this pid has made, in every hierarchy."""
    found = []
    for h in cgroups.machine_layout().hierarchies:
        found += [p for p in h.mount.rglob(f"{PREFIX}{pid}-*") if p.is_dir()]
    return found


# -- real cgroups ---------------------------------------------------------------------------

@needs_cgroups
def test_a_cpu_burner_under_a_quota_is_throttled_and_the_throttling_recorded(fake_bench):
    """fake-burn spins 0.3 s of CPU per iteration; under 0.2 CPUs (20 ms per 100 ms period)
    nearly every period it runs in ends throttled, in every iteration."""
    res = fake_bench("run", "ring", "--contender", "fake-burn", *BURN, "--runs", "1",
                     "--iterations", "3", "--cpus", "0.2")
    assert res.code == 0, res.stderr
    (cell,) = fake_bench.last()["cells"]
    assert cell["status"] == "ok", cell["reason"]
    assert cell["params"]["cpus"] == 0.2  # the limit is part of the cell
    (record,) = _run_cgroups(cell)
    assert record["quota_us"] == 20_000 and record["period_us"] == 100_000
    cpu = record["cpu"]
    assert cpu["periods"] >= 10  # 0.9 s of CPU at 20 ms per period: 45 periods or more
    assert cpu["throttled_periods"] >= cpu["periods"] // 2, cpu
    assert cpu["throttled_s"] > 0
    # the counters at each iteration's line: each iteration's own throttling
    at = record["cpu_at_iterations"]
    assert len(at) == 3
    per_iteration = [at[i]["throttled_s"] - at[i - 1]["throttled_s"] for i in (1, 2)]
    periods = [at[i]["periods"] - at[i - 1]["periods"] for i in (1, 2)]
    assert all(t > 0 for t in per_iteration) and all(p >= 10 for p in periods)
    stats = cell["stats"]
    assert stats["cgroup_throttled_ms"]["n"] == 2
    assert stats["cgroup_throttled_ms"]["median"] == pytest.approx(
        sorted(per_iteration)[0] * 500 + sorted(per_iteration)[1] * 500)
    assert stats["cgroup_throttled_ns_per_unit"]["median"] == pytest.approx(
        stats["cgroup_throttled_ms"]["median"] * 1e6 / 1000)
    assert stats["cgroup_throttled_percent"]["median"] >= 50
    assert stats["cgroup_throttled_s"]["median"] == cpu["throttled_s"]
    assert _gone(record)
    assert fake_bench.last()["plan"]["cells"][0]["limits"] == {"cpus": 0.2,
                                                                "memory_bytes": None}


@needs_cgroups
def test_without_limits_a_run_has_no_cgroup(fake_bench):
    res = fake_bench("run", "ring", "--contender", "fake-burn", *BURN, "--runs", "1")
    assert res.code == 0, res.stderr
    (cell,) = fake_bench.last()["cells"]
    assert cell["status"] == "ok" and "cpus" not in cell["params"]
    assert _run_cgroups(cell) == [None]
    assert not any(k.startswith("cgroup_") for k in cell["stats"])


@needs_cgroups
def test_a_run_past_its_memory_limit_is_recorded_as_killed_by_the_kernel(fake_bench):
    """fake-allocate touches 256 MiB: under a 64 MiB limit the kernel's OOM killer ends it,
    which the cgroup counts; the same contender without the limit completes."""
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-allocate", *SLEEPS, "--runs",
                     "2", "--memory", "64M")
    assert res.code == 0, res.stderr
    (cell,) = fake_bench.last()["cells"]
    assert cell["status"] == "mem-limit", cell["reason"]
    assert "OOM killer" in cell["reason"] and "64M" in cell["reason"]
    assert len(cell["runs"]) == 1  # a limit hit ends its cell, as the watchdog's does
    run = cell["runs"][0]
    assert run["exit_code"] is None  # killed by a signal, not an exit of its own
    record = run["cgroup"]
    assert record["memory_limit_bytes"] == 64 << 20
    assert record["memory"]["oom_kills"] >= 1
    assert record["memory"]["peak_bytes"] <= 64 << 20
    assert not run["warnings"], run["warnings"]
    assert _gone(record)
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-allocate", *SLEEPS, "--runs",
                     "1", "--memory", "512M")
    assert res.code == 0, res.stderr
    (cell,) = fake_bench.last()["cells"]
    assert cell["status"] == "ok", cell["reason"]
    assert cell["runs"][0]["cgroup"]["memory"]["oom_kills"] == 0
    assert cell["runs"][0]["cgroup"]["memory"]["peak_bytes"] >= 256 << 20


@needs_cgroups
def test_the_rss_watchdog_is_told_apart_from_the_kernel(fake_bench):
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-allocate", *SLEEPS, "--runs",
                     "1", "--mem-limit", "64M", "--memory", "1G")
    assert res.code == 0, res.stderr
    (cell,) = fake_bench.last()["cells"]
    assert cell["status"] == "mem-limit" and "RSS passed" in cell["reason"], cell["reason"]
    assert cell["runs"][0]["cgroup"]["memory"]["oom_kills"] == 0


@needs_cgroups
def test_the_cgroup_is_gone_after_a_timeout_and_a_crash(fake_bench, tmp_path):
    """fake-hang leaves a child that ignores SIGTERM; both are in the cgroup, which is
    emptied and removed when the run is stopped."""
    fake_bench.env["FAKE_PIDFILE"] = str(tmp_path / "hang.pids")
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-hang", "--contender",
                     "fake-crash", *SLEEPS, "--runs", "1", "--timeout", "2", "--cpus", "0.5",
                     "--memory", "256M")
    assert res.code == 0, res.stderr
    cells = {c["contender"]: c for c in fake_bench.last()["cells"]}
    assert cells["fake-hang"]["status"] == "timeout"
    assert cells["fake-crash"]["status"] == "crash"
    for cell in cells.values():
        (record,) = _run_cgroups(cell)
        assert record is not None and _gone(record), record
    for pid in map(int, (tmp_path / "hang.pids").read_text().split()):
        assert not alive(pid)


def _until_the_hang_runs(bench, tmp_path: Path) -> tuple[subprocess.Popen, list[int]]:
    """concbench running two fake-good runs, then fake-hang (started when this returns), each
    under a quota; fake-hang's pids."""
    return start_until_hang(bench, tmp_path / "hang.pids", "--runs", "2", "--cpus", "0.5",
                            ready=lambda proc: bool(_ours(proc.pid)))


@needs_cgroups
def test_each_runs_cgroup_is_gone_when_the_next_starts_and_after_an_interrupt(fake_bench,
                                                                               tmp_path):
    proc, hang = _until_the_hang_runs(fake_bench, tmp_path)
    try:
        hierarchies = len(cgroups.machine_layout().hierarchies)
        assert len(_ours(proc.pid)) == hierarchies  # fake-hang's alone: fake-good's are gone
    finally:
        proc.send_signal(signal.SIGTERM)  # as Ctrl-C: the run is stopped, its cgroup removed
        assert proc.wait(timeout=30) == 130
    assert not _ours(proc.pid)
    assert not any(alive(p) for p in hang)


@needs_cgroups
@pytest.mark.alone  # any concbench that starts removes the leftover: only this test's may
def test_a_cgroup_left_by_a_killed_concbench_is_removed_at_the_next_start(fake_bench,
                                                                           tmp_path):
    killed, hang = _until_the_hang_runs(fake_bench, tmp_path)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    left = _ours(killed.pid)
    assert left  # nothing removed them: the harness had no chance
    # (the native sampler, whose parent died, kills the run's process group itself; what the
    # group does not hold would still be in the cgroup and is killed at the next start)
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-good", *SLEEPS, "--runs", "1")
    assert res.code == 0, res.stderr
    assert "left by a killed concbench" in res.stderr
    assert not any(folder.exists() for folder in left)
    assert all_gone(hang)


@needs_cgroups
def test_a_server_under_a_quota_runs_unpinned_and_records_its_windows_throttling(fake_bench,
                                                                                  wrk):
    res = fake_bench("run", "http-hello", "--contender", "fake-server", "--param",
                     "duration-s=2", "--param", "warmup-s=0", "--param", "connections=4",
                     "--runs", "1", "--cpus", "0.3", timeout=180)
    assert res.code == 0, res.stderr
    (cell,) = fake_bench.last()["cells"]
    assert cell["status"] == "ok", cell["reason"]
    run = cell["runs"][0]
    assert run["server"]["cpus"] == [] and "taskset" not in run["server"]["command"]
    assert cell["metadata"]["placement"]["server"] == []
    assert cell["metadata"]["placement"]["client"]  # the generator keeps its own CPUs
    record = run["cgroup"]
    window, whole = record["window_cpu"], record["cpu"]
    assert 0 < window["periods"] <= whole["periods"]
    assert window["throttled_periods"] > 0  # a Python server under load wants more than 0.3
    assert cell["stats"]["cgroup_throttled_ns_per_unit"]["median"] == pytest.approx(
        window["throttled_s"] * 1e9 / run["load"]["requests"])
    assert _gone(record)


# -- a machine where cgroups cannot be made -------------------------------------------------

@pytest.mark.parametrize("found", [
    layout_mod.Layout((), "no cgroup filesystem is mounted"),
    layout_mod.Layout((layout_mod.Hierarchy(1, Path("/proc/sys"), Path("/proc/sys"),
                                            frozenset({"cpu", "memory"})),)),
], ids=["none mounted", "not writable"])
def test_a_machine_without_cgroups_gets_a_clear_message_and_exit_2(cli, monkeypatch, found):
    monkeypatch.setattr(cgroups, "machine_layout", lambda: found)
    res = cli("run", "sleep-tasks", "--contender", "fake-good", *SLEEPS, "--cpus", "1")
    assert res.code == 2, res.stderr
    assert "cannot create cgroups here" in res.stderr and "Traceback" not in res.stderr
    assert not list((cli.root / "results").glob("*/results.json"))  # nothing ran


@pytest.mark.parametrize("option,value,fragment", [
    ("--cpus", "abc", "number of CPUs"), ("--cpus", "0", "at least 0.01"),
    ("--cpus", "-1", "at least 0.01"), ("--cpus", "nan", "at least 0.01"),
    ("--memory", "lots", "size such as"), ("--memory", "1k", "under 4M"),
])
def test_bad_limits_are_refused(cli, option, value, fragment):
    res = cli("run", "sleep-tasks", "--contender", "fake-good", *SLEEPS, option, value)
    assert res.code == 2 and fragment in res.stderr and "Traceback" not in res.stderr


def test_a_limit_with_a_remote_server_is_refused(cli, monkeypatch):
    from concbench import cli as cli_mod
    monkeypatch.setattr(cli_mod, "_hosts", lambda opts: {"server_host": "elsewhere"})
    res = cli("run", "http-hello", "--contender", "fake-server", "--cpus", "1")
    assert res.code == 2 and "--server-host" in res.stderr, res.stderr


# -- plans and suites -----------------------------------------------------------------------

def test_the_plan_keeps_its_limits_for_resume(tmp_path):
    from concbench import manifest, suites
    from concbench.plan import plan_from_dict

    fake = manifest.discover(Path(__file__).resolve().parent)
    (tmp_path / "box.toml").write_text(
        'memory = "256M"\n'
        '[[cells]]\nworkload = "ring"\ncontenders = ["fake-good"]\n'
        '[[cells]]\nworkload = "ring"\ncontenders = ["fake-good"]\ncpus = 0.5\n'
        '[[cells]]\nworkload = "ring"\ncontenders = ["fake-good"]\ncpus = 1\nmemory = "1G"\n')
    plan = suites.load("box", tmp_path, fake, {})
    assert [c.limits for c in plan.cells] == [Limits(None, 256 << 20), Limits(0.5, 256 << 20),
                                              Limits(1.0, 1 << 30)]
    assert len({c.key for c in plan.cells}) == 3
    again = plan_from_dict(plan.to_dict(), fake)
    assert [c.limits for c in again.cells] == [c.limits for c in plan.cells]
    assert [c.key for c in again.cells] == [c.key for c in plan.cells]
    assert again.settings.limits == plan.settings.limits == Limits(None, 256 << 20)
    # the command line's limit goes to the cells without their own
    plan = suites.load("box", tmp_path, fake, {"limits": Limits(2.0, None)})
    assert [c.limits.cpus for c in plan.cells] == [2.0, 0.5, 1.0]
    # ... and two cells made alike by it are refused
    with pytest.raises(UserError, match="two cells of the plan are the same"):
        suites.load("box", tmp_path, fake, {"limits": Limits(0.5, None)})


def test_a_suite_limit_that_cannot_be_read_names_its_cell(tmp_path):
    from concbench import manifest, suites

    fake = manifest.discover(Path(__file__).resolve().parent)
    (tmp_path / "bad.toml").write_text(
        '[[cells]]\nworkload = "ring"\ncontenders = ["fake-good"]\ncpus = "half"\n')
    with pytest.raises(UserError, match=r"cells\[0\]: cpus='half'"):
        suites.load("bad", tmp_path, fake, {})


def test_a_suite_cell_with_a_list_of_limits_is_one_cell_per_value(tmp_path):
    from concbench import manifest, suites

    fake = manifest.discover(Path(__file__).resolve().parent)
    (tmp_path / "many.toml").write_text(
        '[[cells]]\nworkload = "ring"\ncontenders = ["fake-good", "fake-burn"]\n'
        'cpus = [1, 0.5]\nmemory = ["128M", "1G"]\n')
    plan = suites.load("many", tmp_path, fake, {})
    assert sorted((c.contender.name, c.limits.cpus, c.limits.memory) for c in plan.cells) == [
        (name, cpus, memory) for name in ("fake-burn", "fake-good") for cpus in (0.5, 1.0)
        for memory in (128 << 20, 1 << 30)]
    (tmp_path / "none.toml").write_text(
        '[[cells]]\nworkload = "ring"\ncontenders = ["fake-good"]\ncpus = []\n')
    with pytest.raises(UserError, match=r"cpus = \[\] names no value"):
        suites.load("none", tmp_path, fake, {})


def test_the_containers_suite_loads_with_distinct_cells():
    from concbench import manifest, paths, suites

    plan = suites.load("containers", paths.suites_dir(),
                       manifest.discover(paths.contenders_dir()), {})
    limits = {c.limits for c in plan.cells}
    assert Limits() in limits and Limits(1.0) in limits and Limits(0.5) in limits
    assert any(c.limits.memory for c in plan.cells)
    assert {c.spec.name for c in plan.cells} >= {"fanout", "sleep-tasks", "channel",
                                                  "http-hello"}
    assert len({c.key for c in plan.cells}) == len(plan.cells)


def test_limits_appear_among_the_parameters_as_given():
    assert Limits(1.0, 256 << 20).as_params() == {"cpus": 1, "memory": "256M"}
    assert Limits(0.5).as_params() == {"cpus": 0.5}
    assert Limits().as_params() == {} and not Limits()
    assert Limits(0.25).quota_us == 25_000
