"""The summary (concbench.report.summary): the leader, every other contender as a ratio to it
with its interval, ties not ranked, flags beside the figure they qualify, failed cells last."""

from __future__ import annotations

import math
import statistics

import pytest
from quick_doc import quick_document
from scipy import stats as scipy_stats

from concbench import warnings, workloads
from concbench.report import flags, summary
from concbench.resultset.model import CellResult, Iteration, RunResult
from concbench.server.load_checks import runtime_cpus_warning
from concbench.stats.cell import aggregate
from concbench.stats.summary import summarize as summary_of
from concbench.workloads.budget import UNBOUNDED

SLEEP = workloads.get("sleep-tasks")
PARAMS = SLEEP.resolve({"tasks": 1000, "sleep-ms": 100})


def _run(times_s: list[float], rss: int = 10 << 20, status: str = "ok",
         steal: float | None = None) -> RunResult:
    its = tuple(Iteration(i, False, int(t * 1e9), {}) for i, t in enumerate(times_s))
    return RunResult(status=status, reason=None if status == "ok" else "exit 1",
                     wall_s=sum(times_s) + 0.2, startup_s=0.2, peak_rss_bytes=rss,
                     peak_threads=4, final_threads=4, cpu_user_s=0.1, cpu_sys_s=0.0,
                     ctx_voluntary=1, ctx_involuntary=1,
                     iterations=its if status == "ok" else (), steal_percent=steal)


def _cell(name: str, runs: list[RunResult], params: dict | None = None) -> CellResult:
    return aggregate(SLEEP, name, params or PARAMS, UNBOUNDED, runs,
                     {"throughput_unit": "tasks"})


def _time_case(cells: list[CellResult]) -> summary.CaseSummary:
    return summary.summarize_case(cells, summary.TIME, {})


def test_the_leader_and_each_ratio_with_the_welch_interval_of_the_logs():
    fast = [0.100, 0.102, 0.101, 0.110]  # skewed: its median (0.1015) is not its mean
    slow = [0.150, 0.155, 0.149, 0.152]
    case = _time_case([_cell("slow", [_run([t]) for t in slow]),
                       _cell("fast", [_run([t]) for t in fast])])  # one process each
    lead, other = case.standings
    assert lead.contender == "fast" and lead.ratio == 1.0 and lead.rank == 1
    assert lead.figure == pytest.approx(statistics.median(fast)) and lead.n == 4
    gm = lambda xs: math.exp(statistics.fmean(math.log(x) for x in xs))  # noqa: E731
    assert other.ratio == pytest.approx(gm(slow) / gm(fast))
    welch = scipy_stats.ttest_ind([math.log(x) for x in slow], [math.log(x) for x in fast],
                                  equal_var=False).confidence_interval(0.95)
    assert other.ci95 == pytest.approx((math.exp(welch.low), math.exp(welch.high)))
    assert not other.tied and other.rank == 2


def test_a_rate_leads_by_the_highest_figure_and_the_ratio_stays_above_one():
    case = summary.summarize_case([_cell("slow", [_run([0.2, 0.21, 0.2])]),
                                   _cell("fast", [_run([0.1, 0.1, 0.11])])], summary.RATE, {})
    assert [s.contender for s in case.standings] == ["fast", "slow"]
    assert case.standings[0].figure == pytest.approx(1000 / 0.1)  # tasks per second
    assert case.standings[1].ratio == pytest.approx(2.0, rel=0.05)


def test_contenders_a_test_cannot_separate_are_not_ranked_against_each_other():
    a = _cell("a", [_run([t]) for t in (0.100, 0.110, 0.095, 0.105)])
    b = _cell("b", [_run([t]) for t in (0.101, 0.112, 0.096, 0.104)])
    c = _cell("c", [_run([t]) for t in (0.300, 0.310, 0.305, 0.302)])
    case = _time_case([c, b, a])
    second, third = case.standings[1], case.standings[2]
    assert second.tied and second.like_previous and second.rank == 1
    assert second.ci95[0] <= 1 <= second.ci95[1]
    assert not third.tied and not third.like_previous and third.rank == 3


def test_one_measurement_gives_no_interval_and_says_so():
    case = _time_case([_cell("a", [_run([0.1])]), _cell("b", [_run([0.2])])])
    assert case.standings[1].ci95 is None and not case.standings[1].tied
    assert not case.tested
    assert [f.label for f in case.common] == ["n = 1"]  # every figure: said once
    assert all(not s.flags for s in case.standings)
    memory = summary.summarize_case([_cell("a", [_run([0.1, 0.1], rss=5 << 20)]),
                                     _cell("b", [_run([0.1, 0.1], rss=6 << 20)])],
                                    summary.MEMORY, {})  # one run each, no warning about it
    assert [f.label for f in memory.common] == ["n = 1"] and memory.standings[1].ci95 is None


def test_failed_cells_come_last_with_their_status_and_no_figure():
    crashed = _cell("crashed", [_run([], status="crash")])
    case = _time_case([crashed, _cell("a", [_run([0.1, 0.1])]), _cell("b", [_run([0.2, 0.2])])])
    last = case.standings[-1]
    assert (last.contender, last.status, last.figure, last.ratio) == ("crashed", "crash", None,
                                                                      None)
    assert case.leader is not None and case.leader.contender == "a"


def test_a_cell_with_a_failed_run_keeps_its_figure_and_is_flagged():
    part = _cell("part", [_run([0.2, 0.2]), _run([], status="crash")])
    case = _time_case([_cell("a", [_run([0.1, 0.1])]), part])
    assert part.status == "crash" and case.standings[1].ratio is not None
    assert [f.label for f in case.standings[1].flags] == ["1 of 2 runs failed"]


def test_flags_stand_beside_the_figure_they_qualify():
    stolen = _cell("stolen", [_run([0.2, 0.21], steal=9.0), _run([0.2, 0.2], steal=1.0)])
    time_case = _time_case([_cell("a", [_run([0.1, 0.1]), _run([0.1, 0.1])]), stolen])
    assert [f.label for f in time_case.standings[1].flags] == ["stolen CPU (9.0%)"]
    assert "hypervisor withheld" in time_case.standings[1].flags[0].text
    assert not time_case.standings[0].flags


@pytest.mark.parametrize("warning, label, applies, not_applies", [
    (warnings.high_cv("time", summary_of([1.0, 1.5, 2.0])), "not steady (cv 33.3%)", "time",
     "memory"),
    (warnings.outliers("time", summary_of([1.0, 1.1, 0.9, 1.05, 0.95, 9.0])), "outliers", "rate",
     "memory"),
    (warnings.single_measurement("time"), "n = 1", "time", "memory"),
    (warnings.failed_runs(1, 3, "crash"), "1 of 3 runs failed", "memory", None),
    (warnings.runs_cut_short(1, 3, "timeout"), "cut short", "time", None),
    (warnings.generator_bound(97, 40), "generator-bound", "requests/s", "server memory"),
    (warnings.generator_and_server_saturated(97, 95), "generator-bound", "p99", "memory"),
    (warnings.errors_under_load(1, 2, {"connect": 3}), "errors", "requests/s", None),
    (warnings.backend_busy(90), "backend busy", "p99", "server memory"),
    (runtime_cpus_warning({"runtime": {"cpus": 8}}, (0,)), "CPUs ≠ pinned", "requests/s", None),
    (warnings.latency_near_window(6000, 10), "p99 a floor", "p99", "requests/s"),
    (warnings.escaped_processes((1, 2)), "escaped processes", "time", None),
    (warnings.stolen_cpu(4.25, 1, 3), "stolen CPU (4.2%)", "server memory", None),
    ("warm-up did not settle within 60 s (last windows 1, 2 requests/s): raise warmup-s",
     "unsettled", "requests/s", "time"),
])
def test_each_warning_the_harness_gives_has_its_flag(warning, label, applies, not_applies):
    assert [f.label for f in flags.cell_flags([warning], applies)] == [label]
    if not_applies:
        assert flags.cell_flags([warning], not_applies) == []


def test_an_unknown_warning_is_still_flagged_and_a_profile_note_is_not():
    assert [f.label for f in flags.cell_flags(["something new"], "time")] == ["warning"]
    assert flags.cell_flags(["no profile: perf is not installed"], "time") == []


def test_the_machine_check_flags_every_figure():
    check = {"warnings": [warnings.other_load(40), warnings.too_few_cpus_for_pinning(1)]}
    found = summary.machine_flags({"system_check": check})
    assert [f.label for f in found] == ["other load", "one CPU"]


def test_a_scan_is_summed_up_at_its_largest_size_on_top_and_every_size_below():
    small = SLEEP.resolve({"tasks": 1000})
    big = SLEEP.resolve({"tasks": 10000})
    cells = [_cell(n, [_run([t, t])], p) for n, t, p in (("a", 0.1, small), ("b", 0.2, small),
                                                        ("a", 0.5, big), ("b", 0.3, big))]
    top = summary.summaries(cells, largest_only=True)
    assert {(c.case["tasks"], c.metric.name) for c in top} == {(10000, "time"), (10000, "memory")}
    assert top[0].leader.contender == "b" and "largest tasks" in top[0].note
    every = summary.summaries(cells)
    assert [(c.case["tasks"], c.leader.contender) for c in every if c.metric.name == "time"] \
        == [(1000, "a"), (10000, "b")]


def test_the_quick_suite_has_one_case_per_parameter_set_and_the_metrics_of_its_kind():
    doc = quick_document()
    cases = summary.summaries(doc.cells, largest_only=True)
    by = {(c.workload, tuple(sorted(c.case.items()))): [] for c in cases}
    for c in cases:
        by[(c.workload, tuple(sorted(c.case.items())))].append(c.metric.name)
    assert by[("fanout", ())] == ["time", "memory"]
    assert by[("spawn-idle", ())] == ["memory"]
    assert by[("http-hello", ())] == ["requests/s", "p99", "server memory"]
    assert sum(1 for w, _ in by if w == "channel") == 4  # etype × the Python runtimes' size
    for case in cases:  # contenders only ever compared on identical parameters
        params = {repr(sorted(c.params.items())) for c in doc.cells
                  if c.workload == case.workload and c.contender in
                  {s.contender for s in case.standings}
                  and all(c.params.get(k) == v for k, v in case.case.items())}
        assert len(params) == 1, case
