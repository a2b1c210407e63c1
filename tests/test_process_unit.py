"""The process is the unit of every interval and verdict (concbench.stats.inference): a
synthetic two-level data set whose processes differ far more than their iterations, where
pooling the iterations calls a difference that is only the processes' luck; the
Benjamini–Hochberg limit on known p-values; Kalibera & Jones's variance components."""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import replace

import pytest

from concbench import workloads
from concbench.compare import compare, samples
from concbench.report import summary
from concbench.resultset.model import CellResult, Iteration, RunResult
from concbench.stats import inference
from concbench.stats.cell import aggregate
from concbench.workloads.budget import UNBOUNDED
from sample_doc import sample_document

SLEEP = workloads.get("sleep-tasks")
PARAMS = SLEEP.resolve({"tasks": 1000, "sleep-ms": 100})
ITERATIONS = 30


def _run(process_mean_s: float, rng: random.Random) -> RunResult:
    """One process: ITERATIONS iterations within ±0.5 % of its own mean."""
    its = tuple(Iteration(i, False, int(process_mean_s * rng.uniform(0.995, 1.005) * 1e9), {})
                for i in range(ITERATIONS))
    return RunResult(status="ok", reason=None, wall_s=3.0, startup_s=0.1,
                     peak_rss_bytes=10 << 20, peak_threads=4, final_threads=4, cpu_user_s=0.1,
                     cpu_sys_s=0.0, ctx_voluntary=1, ctx_involuntary=1, iterations=its)


def _cell(name: str, process_means: list[float], seed: int) -> CellResult:
    rng = random.Random(seed)
    return aggregate(SLEEP, name, PARAMS, UNBOUNDED, [_run(m, rng) for m in process_means],
                     {"throughput_unit": "tasks"})


# Both from one distribution: the processes land where a JIT, a heap layout and the host's
# phase put them (±15 %), their iterations within ±0.5 % of that. A's processes happened to
# land 4 % lower on average.
A = _cell("a", [0.100, 0.118, 0.086], seed=1)
B = _cell("b", [0.112, 0.097, 0.123], seed=2)


def _pooled(cell: CellResult) -> list[float]:
    return [it.elapsed_ns / 1e9 for r in cell.runs for it in r.measured()]


def test_pooling_the_iterations_calls_the_processes_luck_a_difference():
    """The premise: 90 iterations against 90 give an interval that excludes 1."""
    pooled = inference.ratio_test(_pooled(A), _pooled(B))
    assert pooled.ci95 is not None and pooled.ci95[0] > 1 and pooled.significant


def test_with_the_process_as_the_unit_compare_sees_no_difference():
    doc = sample_document()
    found = compare(replace(doc, cells=(A,)), replace(doc, cells=(replace(B, contender="a"),)))
    time = next(c for c in found if c.metric == "time")
    assert time.test is not None and time.test.n_base == time.test.n_new == 3
    low, high = time.test.ci95
    assert low < 1 < high and time.verdict == "not significant"
    assert samples(A, "time") == pytest.approx(
        [math.exp(statistics.fmean(math.log(t) for t in g))
         for g in ([it.elapsed_ns / 1e9 for it in r.measured()] for r in A.runs)])


def test_the_summary_ties_them_and_the_cells_interval_is_over_the_processes():
    case = summary.summarize_case([A, B], summary.TIME, {})
    second = case.standings[1]
    assert second.n == 3 and second.tied and second.rank == 1
    assert second.ci95[0] < 1 < second.ci95[1]
    stat = A.stats["elapsed_s"]
    means = [statistics.fmean(it.elapsed_ns / 1e9 for it in r.measured()) for r in A.runs]
    assert stat.n == 90 and stat.processes == 3
    half = inference.t_975(2) * statistics.stdev(means) / math.sqrt(3)
    assert stat.ci95 == pytest.approx((statistics.fmean(means) - half,
                                       statistics.fmean(means) + half))


def test_one_process_has_no_interval_and_says_so():
    one = _cell("one", [0.1], seed=3)
    assert one.stats["elapsed_s"].ci95 is None and one.stats["elapsed_s"].processes == 1
    assert any(w.startswith("time rests on one process (30 iterations")
               for w in one.warnings), one.warnings
    case = summary.summarize_case([one, _cell("two", [0.2], seed=4)], summary.TIME, {})
    assert case.standings[1].ci95 is None and not case.tested
    assert [f.label for f in case.common] == ["n = 1"]


def test_benjamini_hochberg_steps_up_to_the_largest_p_under_its_line():
    assert inference.fdr_limit([0.01, 0.02, 0.03, 0.04, 0.5]) == 0.04
    assert inference.fdr_limit([0.011, 0.02, 0.5]) == 0.02
    # 0.02 is above its own line (1/3 · 0.05) but below the limit a larger p sets: step-up
    assert inference.fdr_limit([0.02, 0.021, 0.022]) == 0.022
    assert inference.fdr_limit([0.02, 0.5, 0.9]) == 0.0
    assert inference.fdr_limit([None, 0.001]) == 0.001 and inference.fdr_limit([]) == 0.0


def test_a_test_judged_at_the_familys_limit():
    t = inference.ratio_test([1.0, 1.01, 0.99], [1.1, 1.12, 1.09])
    assert t.significant and t.p_value is not None
    assert not t.at(t.p_value / 2).significant and t.at(t.p_value).significant
    assert not inference.ratio_test([1.0], [2.0]).at(1.0).significant  # one process: never


def test_the_two_level_components_of_kalibera_and_jones():
    found = inference.two_level([[1.0, 3.0], [5.0, 7.0]])
    # process means 2 and 6: S1² = 8; each process's variance 2: S2² = 2; T1² = 8 − 2/2
    assert (found.processes, found.iterations, found.between, found.within) == (2, 2, 8.0, 2.0)
    assert found.between_only == 7.0 and found.process_share == pytest.approx(7 / 8)
    assert inference.two_level([[1.0, 2.0]]) is None


def test_compare_calls_significant_over_the_whole_family_not_test_by_test():
    """Two processes a side, requests/s 65 000 → 51 500: p ≈ 0.011 alone, but one of 15 tests
    (Benjamini–Hochberg's line for the smallest of 15 is 0.05/15): not significant."""
    from concbench.compare import method_note
    from sample_doc import _server_run

    doc = sample_document(servers=True)
    go = next(c for c in doc.cells if c.contender == "go" and c.workload == "http-hello")
    slower = replace(go, runs=(_server_run(51000, 4.4, 10.1, 30, 80, 92, 12, 6),
                               _server_run(52000, 4.3, 10.3, 28, 81, 93, 12, 6)))
    found = compare(doc, replace(doc, cells=tuple(slower if c is go else c for c in doc.cells)))
    rps = next(c for c in found if c.contender == "go" and c.metric == "requests/s")
    assert rps.test is not None and rps.test.p_value < 0.05
    assert rps.verdict == "not significant"
    tested = [c for c in found if c.test and min(c.test.n_base, c.test.n_new) >= 2]
    assert len(tested) == 15
    assert method_note(found) == ("one value per process; significant at a false-discovery "
                                  "rate of 5% over the 15 tests (Benjamini–Hochberg: no p was "
                                  "low enough): 0 called significant")


def _one_iteration_runs(name: str, times: list[float], tasks: int) -> CellResult:
    rng = random.Random(0)
    runs = [replace(_run(t, rng), iterations=(Iteration(0, False, int(t * 1e9), {}),))
            for t in times]
    return aggregate(SLEEP, name, SLEEP.resolve({"tasks": tasks, "sleep-ms": 100}), UNBOUNDED,
                     runs, {"throughput_unit": "tasks"})


def test_the_summary_ranks_at_the_limit_of_all_its_tests_at_once():
    """One case where b is 3.5 % slower at p ≈ 0.013, five where a and b are the same (p = 1):
    12 tests (time and memory), whose Benjamini–Hochberg line for the smallest p is 0.05/12,
    so b is not called slower; alone, at α = 0.05, it would be."""
    same = [0.100, 0.101, 0.102]
    cells = [_one_iteration_runs("a", same, 1000), _one_iteration_runs("b", [0.1035, 0.1045,
                                                                             0.1055], 1000)]
    for tasks in (2000, 3000, 4000, 5000, 6000):
        cells += [_one_iteration_runs("a", same, tasks), _one_iteration_runs("b", same, tasks)]
    first = next(c for c in summary.summaries(cells) if c.metric is summary.TIME
                 and c.case.get("tasks") == 1000)
    assert first.standings[1].contender == "b" and first.standings[1].tied
    alone = summary.summarize_case(cells[:2], summary.TIME, {})
    assert not alone.standings[1].tied and alone.standings[1].rank == 2
