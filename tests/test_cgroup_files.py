"""The cgroup layouts and file formats, v1 and v2, read from text laid out as the kernel
writes it (a host has only one of the two hierarchies, so both are checked here on files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from concbench.proc.cgroups import layout as layout_mod
from concbench.proc.cgroups.group import PREFIX, Cgroup
from concbench.proc.cgroups.limits import Limits
from concbench.proc.cgroups.stats import cpu_counters, memory_counters


V1_MOUNTS = """\
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
V1_SELF = "4:memory:/docker/abc/inner\n2:cpu,cpuacct:/user/1\n0::/\n"


def test_v1_layout_takes_each_controllers_hierarchy_and_its_mount_root():
    found = layout_mod.detect(V1_MOUNTS, V1_SELF)
    assert found.problem is None and found.version == 1
    cpu, memory = found.carrying("cpu"), found.carrying("memory")
    assert cpu.own == Path("/sys/fs/cgroup/cpu,cpuacct/user/1")
    assert memory.own == Path("/sys/fs/cgroup/memory/inner")  # relative to the mount's root


def test_no_controller_anywhere_is_a_problem_not_a_silent_run():
    found = layout_mod.detect("41 31 0:38 / /x rw - cgroup2 cgroup2 rw\n", "0::/\n")
    assert found.problem and "cpu" in found.problem


def _v2_root(tmp_path: Path) -> tuple[Path, layout_mod.Layout]:
    root = tmp_path / "unified"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (root / "cgroup.subtree_control").write_text("")
    mounts = f"41 31 0:38 / {root} rw,relatime - cgroup2 cgroup2 rw\n"
    return root, layout_mod.detect(mounts, "0::/\n")


def test_v2_limits_are_written_as_cpu_max_and_memory_max(tmp_path):
    root, found = _v2_root(tmp_path)
    assert found.version == 2 and found.hierarchies[0].own == root
    group = Cgroup(found, Limits(0.5, 256 << 20), "t")
    try:
        ((_, folder),) = group.folders
        assert folder.parent == root and folder.name.startswith(f"{PREFIX}{os.getpid()}-")
        assert (root / "cgroup.subtree_control").read_text() == "+cpu +memory"
        assert (folder / "cpu.max").read_text() == "50000 100000"
        assert (folder / "memory.max").read_text() == str(256 << 20)
    finally:
        for f in folder.iterdir():
            f.unlink()
        group.remove()
    assert not folder.exists()


def test_v2_counters_are_read_from_cpu_stat_memory_peak_and_memory_events(tmp_path):
    (tmp_path / "cpu.stat").write_text(
        "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\nnr_periods 40\n"
        "nr_throttled 30\nthrottled_usec 1500000\nnr_bursts 0\nburst_usec 0\n")
    (tmp_path / "memory.peak").write_text("67108864\n")
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n"
                                            "oom_group_kill 0\n")
    cpu = cpu_counters(tmp_path, 2)
    assert (cpu.periods, cpu.throttled_periods, cpu.throttled_s, cpu.usage_s) == (40, 30, 1.5,
                                                                                  2.5)
    memory = memory_counters(tmp_path, 2)
    assert (memory.peak_bytes, memory.limit_hits, memory.oom_kills) == (64 << 20, 12, 1)


def test_v1_counters_are_read_from_cpu_stat_and_the_memory_files(tmp_path):
    (tmp_path / "cpu.stat").write_text("nr_periods 12\nnr_throttled 9\n"
                                       "throttled_time 420387079\n")
    (tmp_path / "memory.max_usage_in_bytes").write_text("67108864\n")
    (tmp_path / "memory.failcnt").write_text("36\n")
    (tmp_path / "memory.memsw.failcnt").write_text("40\n")
    (tmp_path / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\n"
                                                 "oom_kill 1\n")
    cpu = cpu_counters(tmp_path, 1)
    assert (cpu.periods, cpu.throttled_periods, cpu.usage_s) == (12, 9, None)
    assert cpu.throttled_s == pytest.approx(0.420387079)
    memory = memory_counters(tmp_path, 1)
    assert (memory.peak_bytes, memory.limit_hits, memory.oom_kills) == (64 << 20, 40, 1)
