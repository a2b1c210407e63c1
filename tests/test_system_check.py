"""The system check before a plan: what it observes, when it warns, where the warnings go."""

from __future__ import annotations

import dataclasses

import pytest

from concbench import system_check
from concbench.report.markdown_sections import warnings_section
from concbench.report import html
from sample_doc import sample_document

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time

SMALL = ["run", "sleep-tasks", "--contender", "fake-good", "--runs", "1", "--param", "tasks=10",
         "--param", "sleep-ms=1", "--param", "pool-size=2"]


def _sys_root(tmp_path, thp: str | None, governors: dict[int, str]):
    if thp is not None:
        (tmp_path / "kernel/mm/transparent_hugepage").mkdir(parents=True)
        (tmp_path / "kernel/mm/transparent_hugepage/enabled").write_text(thp + "\n")
    for cpu, name in governors.items():
        folder = tmp_path / f"devices/system/cpu/cpu{cpu}/cpufreq"
        folder.mkdir(parents=True)
        (folder / "scaling_governor").write_text(name + "\n")
    return tmp_path


def test_huge_pages_and_governors_are_read_as_the_kernel_shows_them(tmp_path):
    root = _sys_root(tmp_path, "always [madvise] never", {0: "powersave", 1: "performance",
                                                          2: "powersave"})
    assert system_check.transparent_hugepages(root) == "madvise"
    assert system_check.governors([0, 1, 2, 3], root) == {"powersave": [0, 2],
                                                          "performance": [1]}
    empty = tmp_path / "vm"
    empty.mkdir()
    assert system_check.transparent_hugepages(empty) is None
    assert system_check.governors([0, 1], empty) == {}  # a VM without cpufreq


def test_only_the_variables_runtimes_read_are_recorded():
    env = {"GOGC": "50", "GOMAXPROCS": "1", "HOME": "/root", "RUSTFLAGS": "-C target-cpu=native",
           "JAVA_TOOL_OPTIONS": "-Xmx1g", "SECRET_TOKEN": "x", "MALLOC_ARENA_MAX": "2"}
    assert system_check.observed_env(env) == {
        "GOGC": "50", "GOMAXPROCS": "1", "JAVA_TOOL_OPTIONS": "-Xmx1g",
        "MALLOC_ARENA_MAX": "2", "RUSTFLAGS": "-C target-cpu=native"}


def test_busy_cpus_scaling_governors_and_one_cpu_for_servers_are_warned_about():
    assert system_check.judge(3.0, {"performance": [0, 1]}, 2, True) == ()
    (busy,) = system_check.judge(55.0, {}, 2, False)
    assert "other programs used 55% of the CPUs" in busy
    (scaling,) = system_check.judge(0.0, {"powersave": [0, 1], "performance": [2]}, 3, False)
    assert "'powersave' on CPUs 0, 1" in scaling and "performance" in scaling
    assert system_check.judge(0.0, {}, 1, False) == ()  # batch workloads need no pinning
    (one,) = system_check.judge(0.0, {}, 1, True)
    assert "only 1 usable CPU" in one


def test_the_busy_share_reads_proc_stat_deltas(tmp_path, monkeypatch):
    """Busy = everything but idle and iowait, as a share of all jiffies between the two
    readings (steal counts as busy: those CPUs were not ours to use)."""
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 1 2 3 4\n")
    assert system_check.busy_percent(0.01, tmp_path) == 0.0  # no time passed in the file
    slept = []

    def later(seconds: float) -> None:  # while "sleeping", 1000 jiffies pass: 30 idle, 20
        slept.append(seconds)           # iowait, 600 user, 50 nice, 200 system, 100 irq+softirq
        stat.write_text("cpu  700 50 300 830 20 60 40 0 0 0\n")  # and 0 steal → 950 busy

    monkeypatch.setattr(system_check.time, "sleep", later)
    assert system_check.busy_percent(0.25, tmp_path) == pytest.approx(95.0)
    assert slept == [0.25]
    stat.write_text("cpu  100 0 100 800 0 0 0 0 0 0\n")
    monkeypatch.setattr(system_check.time, "sleep", lambda _s: stat.write_text(
        "cpu  100 0 100 1700 0 0 0 100 0 0\n"))  # 900 idle, 100 stolen
    assert system_check.busy_percent(0.25, tmp_path) == pytest.approx(10.0)


def test_a_run_records_the_check_in_its_results(fake_bench):
    fake_bench.env["GOGC"] = "77"
    res = fake_bench(*SMALL)
    assert res.code == 0, res.stderr
    check = fake_bench.last()["machine"]["system_check"]
    assert check["env"]["GOGC"] == "77"
    assert set(check) >= {"transparent_hugepages", "governors", "loadavg", "busy_percent",
                          "cpus", "warnings"}


def test_machine_warnings_are_listed_in_the_reports():
    doc = sample_document()
    doc = dataclasses.replace(doc, machine={**doc.machine, "system_check": {
        "warnings": ["other programs used 55% of the CPUs | now"]}})
    assert "- machine: other programs used 55% of the CPUs \\| now" in warnings_section(doc, "##")
    assert "machine: other programs used 55% of the CPUs | now" in html.render([(doc, None)])
