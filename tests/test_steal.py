"""Steal time: read from /proc/stat, per run, warned about per cell."""

from __future__ import annotations

from dataclasses import replace

import pytest

from concbench import steal, workloads
from concbench.stats.cell import aggregate
from concbench.workloads.budget import UNBOUNDED
from sample_doc import _run


def _stat(tmp_path, steal_jiffies: int, idle: int):
    path = tmp_path / "stat"
    path.write_text(f"cpu  1000 0 200 {idle} 10 0 5 {steal_jiffies} 0 0\ncpu0 1 2 3\n")
    return path


def test_steal_is_the_share_of_all_cpu_time_between_two_readings(tmp_path):
    before = steal.cpu_jiffies(_stat(tmp_path, 100, 5000))
    after = steal.cpu_jiffies(_stat(tmp_path, 150, 5950))
    assert before == (100, 1000 + 200 + 5000 + 10 + 5 + 100)
    assert steal.steal_percent(before, after) == pytest.approx(100 * 50 / 1000)


def test_no_steal_field_or_no_file_is_none_not_zero(tmp_path):
    (tmp_path / "old").write_text("cpu 1 2 3 4\n")
    assert steal.cpu_jiffies(tmp_path / "old") is None
    assert steal.cpu_jiffies(tmp_path / "missing") is None
    assert steal.steal_percent(None, (1, 2)) is None


def test_a_cell_whose_runs_lost_cpu_time_says_so_once():
    spec = workloads.get("sleep-tasks")
    params = spec.resolve({"tasks": 1000, "sleep-ms": 100, "pool-size": 100})
    runs = [replace(_run([101.0], 12, 5), steal_percent=p) for p in (0.2, 6.0, 3.5)]
    cell = aggregate(spec, "go", params, UNBOUNDED, runs, {})
    said = [w for w in cell.warnings if "hypervisor" in w]
    assert len(said) == 1 and "up to 6.0%" in said[0] and "in 2 of 3 runs" in said[0]
    quiet = aggregate(spec, "go", params, UNBOUNDED, runs[:1], {})
    assert not [w for w in quiet.warnings if "hypervisor" in w]


def test_a_batch_runs_own_warning_reaches_its_cell():
    spec = workloads.get("sleep-tasks")
    params = spec.resolve({"tasks": 1000, "sleep-ms": 100, "pool-size": 100})
    run = replace(_run([101.0], 12, 5), warnings=("left 1 process behind",))
    cell = aggregate(spec, "go", params, UNBOUNDED, [run, run], {})
    assert cell.warnings.count("left 1 process behind") == 1


def test_the_speed_probe_is_the_fastest_of_its_timings_in_ms(monkeypatch):
    """probe_ms times the same loop `tries` times and keeps the fastest, in milliseconds."""
    from concbench import speed_probe

    clock = iter([10.0, 10.005, 20.0, 20.003, 30.0, 30.004])  # 5, 3 and 4 ms
    loops: list[int] = []
    monkeypatch.setattr(speed_probe.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(speed_probe, "_loop", loops.append)
    assert speed_probe.probe_ms(loop=1234, tries=3) == pytest.approx(3.0)
    assert loops == [1234] * 3
    monkeypatch.undo()
    assert speed_probe._loop(8) == sum(i * i & 7 for i in range(8))  # a fixed amount of work


def test_compare_notes_a_machine_slower_in_one_set():
    from concbench.compare import notes
    from sample_doc import sample_document

    def probed(doc, ms):
        return replace(doc, cells=tuple(replace(c, runs=tuple(replace(r, probe_ms=ms)
                                                                for r in c.runs))
                                        for c in doc.cells))

    base = probed(sample_document(), 11.0)
    said = [n for n in notes(base, probed(base, 17.6)) if "machine itself" in n]
    assert said and "1.60x slower during new" in said[0]
    assert not [n for n in notes(base, probed(base, 11.3)) if "machine itself" in n]
