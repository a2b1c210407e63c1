"""Flame graphs from one flag: perf + inferno for native runtimes, async-profiler for JVMs.

The real-profiler tests build nothing themselves (the go and java toolchains come from the
cache, as in test_conformance) and install perf, inferno and async-profiler on first use."""

from __future__ import annotations

import os
import shutil

import pytest

from concbench.profiling.base import folded_samples
from concbench.report import html
from sample_doc import rendered, sample_document

STRICT = bool(os.environ.get("CONCBENCH_STRICT"))


def test_folded_stacks_are_counted(tmp_path):
    folded = tmp_path / "x.folded"
    folded.write_text("main;work;spin 40\nmain;idle 2\n\nbroken line\nmain;a b;c 3\n")
    assert folded_samples(folded) == 45


def test_the_report_links_each_flame_graph_with_its_overhead():
    import dataclasses

    doc = sample_document()
    cell = dataclasses.replace(doc.cells[0], metadata={**doc.cells[0].metadata, "profiles": [
        {"profiler": "perf", "mode": "cpu", "samples": 812, "flamegraph": "profiles/cell000.cpu.svg",
         "folded": "profiles/cell000.cpu.folded",
         "run": {"status": "ok", "figure": 0.104, "unprofiled_median": 0.102, "unit":
                 "s per iteration", "ratio": 1.0196}},
        {"profiler": "async-profiler", "mode": "wall", "problem": "jcmd not found at /x/jcmd"}]})
    page = html.render([(dataclasses.replace(doc, cells=(cell, *doc.cells[1:])), None)])
    section = page[page.index("<h3>Flame graphs</h3>"):]
    assert '<a href="profiles/cell000.cpu.svg">' in section and "812" in section
    assert "0.104 s per iteration vs 0.102 unprofiled (×1.020)" in section
    assert "jcmd not found at /x/jcmd" in section
    assert "<h3>Flame graphs</h3>" not in rendered("sample")


def _needs_root_and_perf():
    if os.geteuid() != 0 and not shutil.which("perf"):
        pytest.skip("perf is not installed and cannot be installed without root")


def _profiled(real_bench, *args: str) -> list[dict]:
    res = real_bench("profile", *args, timeout=1800)
    text = res.stdout + res.stderr
    if "unavailable" in text and not STRICT:
        pytest.skip(f"unavailable here: {text.strip().splitlines()[-2:]}")
    assert res.code == 0, text[-3000:]
    (cell,) = real_bench.last()["cells"]
    assert cell["status"] == "ok", cell["reason"]
    assert len(cell["runs"]) == 1, "the profiled runs are not in the statistics"
    return cell["metadata"]["profiles"]


def _check_graph(real_bench, profile: dict) -> None:
    assert "problem" not in profile, profile.get("problem")
    assert profile["samples"] > 0 and profile["run"]["status"] == "ok"
    folder = real_bench.root / "results" / real_bench.last()["run_id"]
    svg = (folder / profile["flamegraph"]).read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert 0.2 < profile["run"]["ratio"] < 5  # a figure was measured with the profiler on
    page = (folder / "results.html").read_text()
    assert f'href="{profile["flamegraph"]}"' in page


def test_perf_flame_graph_of_a_go_batch_run(real_bench):
    _needs_root_and_perf()
    profile, pprof = _profiled(real_bench, "sleep-tasks", "--contender", "go", "--param",
                               "tasks=200", "--param", "sleep-ms=1", "--param",
                               "cpu-iters=2000000")
    assert profile["profiler"] == "perf" and profile["mode"] == "cpu"
    _check_graph(real_bench, profile)
    folder = real_bench.root / "results" / real_bench.last()["run_id"]
    assert "main." in (folder / profile["folded"]).read_text()  # Go symbols resolved by perf
    assert pprof["profiler"] == "go-pprof"  # the runtime's own profile beside perf's
    _check_graph(real_bench, pprof)
    assert "main." in (folder / pprof["folded"]).read_text()
    assert (folder / pprof["pprof"]).stat().st_size > 0


def test_go_pprof_traces_fold_root_first_in_10_ms_samples():
    from concbench.profiling.go_pprof import fold_traces

    text = """File: concbench-go
Type: cpu
-----------+-------------------------------------------------------
      30ms   main.spin
             main.task.func1
             runtime.goexit
-----------+-------------------------------------------------------
      10ms   runtime.futex
             runtime.goexit
-----------+-------------------------------------------------------
      20ms   main.spin
             main.task.func1
             runtime.goexit
-----------+-------------------------------------------------------
"""
    assert fold_traces(text) == {"runtime.goexit;main.task.func1;main.spin": 5,
                                 "runtime.goexit;runtime.futex": 1}


def test_async_profiler_cpu_and_wall_of_a_jvm_server_window(real_bench):
    profiles = _profiled(real_bench, "http-hello", "--contender", "java-virtual", "--param",
                         "connections=16", "--param", "duration-s=2", "--param", "warmup-s=1",
                         "--param", "warmup-steady-pct=0")
    assert [(p["profiler"], p["mode"]) for p in profiles] == [("async-profiler", "cpu"),
                                                              ("async-profiler", "wall")]
    for profile in profiles:
        _check_graph(real_bench, profile)


def test_async_profiler_cpu_and_wall_of_a_jvm_batch_run(real_bench):
    """The agent starts with the JVM; its own messages must not reach the JSON-lines stdout
    (they once did: every profiled JVM batch run was invalid, "Profiling started")."""
    profiles = _profiled(real_bench, "sleep-tasks", "--contender", "java-virtual", "--param",
                         "tasks=2000", "--param", "sleep-ms=1", "--param", "cpu-iters=200000")
    assert [(p["profiler"], p["mode"]) for p in profiles] == [("async-profiler", "cpu"),
                                                              ("async-profiler", "wall")]
    folder = real_bench.root / "results" / real_bench.last()["run_id"]
    for profile in profiles:
        _check_graph(real_bench, profile)
        assert "concbench/" in (folder / profile["folded"]).read_text()  # the workload's frames
