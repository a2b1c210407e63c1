"""A JVM's JIT is a diagnostic with a budget: the warm-up goes on while its compiler threads
take more than JIT_BUDGET of the server's CPU, and HotSpot's own counters (server.jvm_counters,
what `jstat -compiler` reads) are recorded in every window; a JVM that still finishes a
compilation now and then while its rate is flat is steady. A warm-up that hits its cap is
unsettled, and a JVM still compiling in a measured window that no steady warm-up vouched for
is "not steady": both flagged in every view and left out of rankings.

The parser is checked against jstat twice: on a recorded hsperfdata file with the jstat output
taken at the same moment (tests/recorded/hsperfdata: Churn.java run with a small C2 node limit,
so it has failed compilations too), and on a live JVM. The decision runs on recorded sequences
of counters; one real JVM contender runs briefly through the harness.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import subprocess
import time
from pathlib import Path

import pytest
from sample_doc import _server_run

from concbench import warnings, workloads
from concbench.report import flags, summary, summary_text
from concbench.report.table import tables
from concbench.server import jvm_counters
from concbench.server.jvm_counters import CountersError, JitDelta, JitReading
from concbench.server.loadgen import LoadResult
from concbench.server.warmup import (WarmupPolicy, WarmupWindow, is_steady, warm_up,
                                     window_jit_warning)
from concbench.stats import ceiling_ratio
from concbench.stats.cell import aggregate
from concbench.workloads.budget import UNBOUNDED

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time

RECORDED = Path(__file__).parent / "recorded" / "hsperfdata"


def _jstat_row(text: str) -> dict[str, str]:
    """`jstat -compiler` output as {column: value} (FailedMethod holds a space: "Class method")."""
    header, row = text.splitlines()[:2]
    names, values = header.split(), row.split()
    found = dict(zip(names[:5], values[:5]))
    found["FailedMethod"] = " ".join(values[5:])
    return found


def _matches_jstat(counters: dict[str, int | str], jstat: dict[str, str]) -> None:
    reading = JitReading.of(counters)
    assert reading.compiled == int(jstat["Compiled"])
    assert reading.failed == int(jstat["Failed"])
    assert reading.invalidated == int(jstat["Invalid"])
    assert f"{reading.compile_s:.2f}" == jstat["Time"]
    assert counters["sun.ci.lastFailedType"] == int(jstat["FailedType"])
    assert counters["sun.ci.lastFailedMethod"] == jstat["FailedMethod"]


def test_the_recorded_file_reads_as_jstat_read_it():
    data = gzip.decompress((RECORDED / "churn-jdk25.hsperfdata.gz").read_bytes())
    jstat = _jstat_row((RECORDED / "churn-jdk25.jstat-compiler.txt").read_text())
    counters = jvm_counters.parse(data)
    _matches_jstat(counters, jstat)
    assert int(jstat["Failed"]) > 0, "the recording has failed compilations to check"
    assert counters["sun.os.hrt.frequency"] > 0 and len(counters) > 100


def test_a_file_that_is_not_hsperfdata_is_refused():
    data = gzip.decompress((RECORDED / "churn-jdk25.hsperfdata.gz").read_bytes())
    with pytest.raises(CountersError, match="magic"):
        jvm_counters.parse(b"\0" * 64)
    with pytest.raises(CountersError, match="accessible"):
        jvm_counters.parse(data[:7] + b"\0" + data[8:])
    with pytest.raises(CountersError, match="runs past"):
        jvm_counters.parse(data[:40])
    assert jvm_counters.read_tree(os.getpid()) is None, "a Python process has no counters"


def test_a_live_jvm_reads_as_jstat_reads_it(tmp_path, jdk25, processes):
    src = tmp_path / "Spin.java"
    src.write_text("public class Spin { public static void main(String[] a) throws Exception {"
                   " long s = 0; for (int i = 0; i < 3_000_000; i++)"
                   " s += Integer.toString(i % 999).hashCode();"
                   " System.gc(); System.out.println(s); Thread.sleep(30_000); } }")
    # a 16 MiB heap: the loop's strings fill the young generation many times over, and
    # System.gc() adds a full collection, so the collectors' counters have something to sum
    proc = subprocess.Popen([str(jdk25 / "bin" / "java"), "-Xmx16m", str(src)],
                            stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        before, after = None, jvm_counters.read_tree(proc.pid)
        deadline = time.monotonic() + 20
        while before != after and time.monotonic() < deadline:  # until the JIT is done
            time.sleep(0.3)
            before, after = after, jvm_counters.read_tree(proc.pid)
        jstat = subprocess.run([str(jdk25 / "bin" / "jstat"), "-compiler", str(proc.pid)],
                               capture_output=True, text=True, check=True).stdout
        path = jvm_counters.perf_file(proc.pid)
        assert path is not None
        counters = jvm_counters.parse(path.read_bytes())
        assert JitReading.of(counters) == after, "the JIT moved while jstat ran"
        _matches_jstat(counters, _jstat_row(jstat))
        assert after is not None and after.compiled > 0
        gcutil = subprocess.run([str(jdk25 / "bin" / "jstat"), "-gcutil", str(proc.pid)],
                                capture_output=True, text=True, check=True).stdout
        header, row = gcutil.splitlines()[:2]
        gc = dict(zip(header.split(), row.split()))
        assert after.gc_collections == sum(int(gc[k]) for k in ("YGC", "FGC", "CGC")
                                           if gc.get(k, "-") != "-") > 1, gcutil
        assert f"{after.gc_s:.3f}" == gc["GCT"], gcutil
    finally:
        proc.kill()
        proc.wait()


# -- the decision, on recorded sequences ---------------------------------------------------

JAVA_PLATFORM_64 = (1633, 1658, 1675, 1680, 1693, 1699, 1708, 1714, 1714, 1714, 1716, 1716,
                    1716, 1717)
"""sun.ci.totalCompiles at the ends of 5 s wrk windows (64 connections) of a java-platform
http-hello server pinned to one CPU, recorded here: a trickle of compilations long after the
rate has flattened."""


def _readings(totals: tuple[int, ...]) -> list[JitReading]:
    return [JitReading(t, 0, 0, t / 1000, "") for t in totals]


def _load(rate: float) -> LoadResult:
    return LoadResult(generator="fake", requests=int(rate), ok_requests=int(rate), duration_s=5,
                      requests_per_s=rate, latency_ms={"p99": 1.0}, percentiles=[], errors={},
                      cpu_s=0.1, wall_s=5, cpus=(), command=[], corrected=False)


def _window_counters(totals: tuple[int, ...]):
    """Each window reads the counters before and after its load: the reading after one window
    is the reading before the next."""
    readings = _readings(totals)
    calls = iter(range(10_000))
    return lambda: readings[min(len(readings) - 1, (next(calls) + 1) // 2)]


def _share(jit_cpu: tuple[float, ...]):
    """A CPU probe whose server uses 1 s of CPU per window and its JIT threads jit_cpu[i]."""
    totals = [(float(i), sum(jit_cpu[:i])) for i in range(len(jit_cpu) + 1)]
    calls = iter(range(10_000))
    return lambda: totals[min(len(totals) - 1, (next(calls) + 1) // 2)]


def test_a_flat_rate_is_steady_once_the_compiler_threads_are_within_budget():
    out = warm_up(WarmupPolicy(cap_s=120, window_s=5, steady_pct=5),
                  _share((0.4, 0.2, 0.05, 0.02, 0.005, 0.004, 0.0, 0.0, 0.0, 0.0)),
                  lambda s: _load(20_000), jit=_window_counters(JAVA_PLATFORM_64))
    compiled = [w.jit.compiled for w in out.windows if w.jit]
    assert compiled == [25, 17, 5, 13, 6], "methods still compile: recorded, not a verdict"
    assert out.settled is True and len(out.windows) == 5, \
        "steady at the first flat window whose JIT threads used at most 1 % of the CPU"
    assert out.to_dict()["jit_evidence"] == "counters"
    assert out.to_dict()["windows"][-1]["jit_share"] == pytest.approx(0.005)


def test_the_compiler_threads_share_decides_counters_or_not():
    flat = [WarmupWindow(5, 16_000, 1.0, 0, 1.0, None) for _ in range(3)]
    assert is_steady([*flat, WarmupWindow(5, 16_000, 1.0, 0, 1.0, 0.01)], 5)
    assert not is_steady([*flat, WarmupWindow(5, 16_000, 1.0, 0, 1.0, 0.2)], 5)
    assert not is_steady([*flat, WarmupWindow(5, 16_000, 1.0, 0, 1.0, 0.02,
                                              JitDelta(0, 0, 0, 0.0, ""))], 5), \
        "no compilation finished, but the compiler threads were busy"
    assert is_steady([*flat, WarmupWindow(5, 16_000, 1.0, 0, 1.0, 0.005,
                                          JitDelta(4, 0, 1, 0.1, ""))], 5), \
        "a few compilations within the budget"
    assert is_steady([*flat, WarmupWindow(5, 16_000, 1.0, 0, 1.0, None)], 5), "no JIT at all"


def test_a_warm_up_that_hits_its_cap_is_unsettled_with_the_counts_as_evidence():
    climbing = tuple(1000 + 50 * i for i in range(20))
    out = warm_up(WarmupPolicy(cap_s=30, window_s=5, steady_pct=5), _share((0.3,) * 10),
                  lambda s: _load(20_000), jit=_window_counters(climbing))
    assert out.settled is False and len(out.windows) == 6
    text = out.warning() or ""
    assert text.startswith("warm-up did not settle within 30 s")
    assert "the JIT's compilations in them: 50, 50, 50, 50" in text
    (flag,) = flags.cell_flags([text], "requests/s")
    assert flag.label == "unsettled" and flag.unranked


def test_the_measured_window_is_judged_only_when_no_steady_warm_up_vouched_for_it():
    fixed = warm_up(WarmupPolicy(cap_s=1, window_s=5, steady_pct=0), lambda: (0.0, 0.0),
                    lambda s: _load(3_000), jit=_window_counters((100, 400)))
    busy = JitDelta(160, 2, 1, 1.54, "x y")
    text = window_jit_warning(fixed, busy) or ""
    assert text.startswith("not steady: the JIT finished 160 compilations")
    assert "after 1 s of fixed warm-up" in text and "2 given up" in text
    assert "no warm-up" in (window_jit_warning(None, busy) or "")
    assert window_jit_warning(fixed, JitDelta(0, 0, 0, 0.0, "")) is None
    assert window_jit_warning(fixed, None) is None, "not a JVM (or its counters unreadable)"
    settled = warm_up(WarmupPolicy(cap_s=120, window_s=5, steady_pct=5), lambda: (0.0, 0.0),
                      lambda s: _load(20_000), jit=_window_counters(JAVA_PLATFORM_64))
    assert settled.settled is True and window_jit_warning(settled, busy) is None


# -- every view, and no ranking --------------------------------------------------------------

HELLO = workloads.get("http-hello")
META = {"throughput_unit": "requests", "placement": {"server": [0], "client": [1]}}


def _cell(name: str, rates: list[float], run_warnings: list[str | None] | None = None):
    runs = [_server_run(r, 3, 8, 30, 80, 90, 12, 6) for r in rates]
    if run_warnings:
        runs = [dataclasses.replace(r, warnings=(w,) if w else (), server={
            **(r.server or {}), "warmup": {"settled": not (w or "").startswith("warm-up")}})
            for r, w in zip(runs, run_warnings)]
    return aggregate(HELLO, name, HELLO.resolve({"connections": 256}), UNBOUNDED, runs,
                     dict(META))


def _jit(n: int) -> str:
    return warnings.jit_in_window(n, 0, 0, 1.0, "1 s of fixed warm-up")


def _cells():
    unsettled = warnings.warmup_unsettled(60, [9_000, 10_500], [30, 12], None)
    return [_cell("go", [60_000, 61_000, 59_000]),
            _cell("java-platform", [90_000, 91_000, 89_000], [_jit(160), _jit(103), _jit(126)]),
            _cell("spring-mvc", [95_000, 96_000, 94_000], [unsettled, None, None]),
            _cell("node", [30_000, 31_000, 29_000])]


def test_unsettled_and_not_steady_cells_are_shown_but_not_ranked():
    case = summary.summarize_case(_cells(), summary.REQUESTS, {})
    assert case.leader is not None and case.leader.contender == "go", \
        "the faster unsteady figures do not lead"
    by_name = {s.contender: s for s in case.standings}
    assert by_name["node"].ranked and by_name["node"].ratio == pytest.approx(2.0, rel=0.01)
    for name, label in (("java-platform", "not steady (103–160 JIT compilations)"),
                        ("spring-mvc", "unsettled")):
        held = by_name[name]
        assert not held.ranked and held.rank is None and held.ratio is None
        assert held.status == label and held.figure and held.figure > 80_000
    assert [s.contender for s in case.standings] == ["go", "node", "java-platform", "spring-mvc"]
    items = {i.contender: i for i in summary_text.items(case)}
    assert items["java-platform"].kind == "held"
    assert "not steady (103–160 JIT compilations)" in summary_text.flag_words(
        items["java-platform"].flags)
    markdown = "\n".join(summary_text.markdown_rows([case]))
    assert "java-platform 90.00 kreq/s *[not steady (103–160 JIT compilations)" in markdown
    assert "spring-mvc 95.00 kreq/s *[unsettled" in markdown
    (table,) = tables(_cells())
    status = {row[0]: row[-1] for row in table.rows}
    assert status["java-platform"] == "ok, not steady (103–160 JIT compilations)"
    assert status["spring-mvc"] == "ok, unsettled" and status["go"] == "ok"


def test_a_not_steady_ratio_to_nginx_is_not_ranked_either():
    cells = [_cell("nginx", [100_000, 100_000, 100_000]), *_cells()]
    cells = [dataclasses.replace(c, runs=tuple(dataclasses.replace(r, round=i)
                                               for i, r in enumerate(c.runs))) for c in cells]
    cells = [ceiling_ratio.with_ratio(c, cells) for c in cells]
    case = summary.summarize_case([c for c in cells if c.contender != "nginx"],
                                  summary.OF_CEILING, {})
    by_name = {s.contender: s for s in case.standings}
    assert case.leader is not None and case.leader.contender == "spring-mvc"
    assert case.leader.n == 2, "its unsettled round has no ratio (stats.ceiling_ratio)"
    assert by_name["go"].ranked and by_name["go"].ratio == pytest.approx(0.95 / 0.6, rel=0.01)
    assert not by_name["java-platform"].ranked
    assert by_name["java-platform"].status.startswith("not steady")
    assert by_name["java-platform"].figure == pytest.approx(0.90, rel=0.02)


def test_a_flag_for_each_new_warning():
    assert [f.label for f in flags.cell_flags([_jit(7)], "p99")] == [
        "not steady (7 JIT compilations)"]
    assert flags.cell_flags([_jit(7)], "time") == []
    assert all(f.unranked for f in flags.cell_flags([_jit(7), _jit(9)], "requests/s"))
    assert not any(f.unranked for f in flags.cell_flags(
        [warnings.generator_bound(97, 40)], "requests/s"))


# -- one real JVM contender, briefly --------------------------------------------------------

def test_a_real_jvm_server_records_its_jit_counters_and_is_marked_when_still_compiling(
        real_bench):
    done = real_bench("run", "http-hello", "--contender", "java-platform", "--runs", "1",
                      "--param", "connections=16", "--param", "warmup-s=1",
                      "--param", "warmup-steady-pct=0", "--param", "duration-s=1")
    assert done.code == 0, done.stderr[-2000:]
    (cell,) = real_bench.last()["cells"]
    (run,) = cell["runs"]
    assert run["status"] == "ok"
    warm = run["server"]["warmup"]
    assert warm["jit_evidence"] == "counters"
    assert warm["windows"][0]["jit"]["compiled"] > 0, "a JVM's first second under load compiles"
    window = run["server"]["window_jit"]
    assert window is not None and window["compiled"] >= 0
    verdict = run["server"]["steadiness"]
    assert verdict["jit_share"] is not None, "the compiler threads' share of the window"
    assert run["server"]["cpu_per_request"]["jit_cpu_s"] is not None
    marked = [w for w in cell["warnings"] if w.startswith("not steady in the measured window")]
    assert bool(marked) == (not verdict["steady"]), (verdict, cell["warnings"])
    if verdict["jit_share"] > 0.01:
        assert marked and "compiler threads used" in marked[0]
    if marked:
        assert "not steady" in done.stdout


# -- batch JVMs: the same budget over the measured iterations ---------------------------------

def test_a_batch_jvm_still_compiling_in_its_measured_iterations_is_flagged_and_not_ranked():
    from sample_doc import _run

    from concbench.resultset.model import Iteration

    spec = workloads.get("channel")
    params = spec.resolve({})

    def run(jit_per_iteration: float | None, cpu: float = 1.0) -> object:
        base = _run([1000, 1000, 1000], 50, 8)
        its = (Iteration(index=0, warmup=True, elapsed_ns=10**9, result={}, cpu_s=2.0,
                         jit_cpu_s=None if jit_per_iteration is None else 1.5),) + tuple(
            dataclasses.replace(it, index=i + 1, cpu_s=cpu, jit_cpu_s=jit_per_iteration)
            for i, it in enumerate(base.iterations))
        return dataclasses.replace(base, iterations=its)

    busy = aggregate(spec, "java-virtual", params, UNBOUNDED, [run(0.04), run(0.02)], {})
    (note,) = [w for w in busy.warnings if "compiler threads" in w]
    assert "used 3.0% of the CPU of the 6 measured iterations" in note, note
    (flag,) = [f for f in flags.cell_flags(list(busy.warnings), "time")
               if f.label.startswith("not steady")]
    assert flag.label == "not steady (JIT 3.0% of CPU)" and flag.unranked
    quiet = aggregate(spec, "java-virtual", params, UNBOUNDED, [run(0.005), run(0.01)], {})
    assert not any("compiler threads" in w for w in quiet.warnings), "within the 1 % budget"
    ticks = aggregate(spec, "java-virtual", params, UNBOUNDED,
                      [run(0.01 / 3, cpu=0.5 / 3)], {})
    assert not any("compiler threads" in w for w in ticks.warnings), \
        "one 10 ms tick in 0.5 s is within what /proc's ticks can tell apart"
    none = aggregate(spec, "go", params, UNBOUNDED, [run(None)], {})
    assert not any("compiler threads" in w for w in none.warnings), "no JIT"
