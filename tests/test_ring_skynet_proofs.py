"""ring and skynet measure what their columns say (issue 41): a run that did its work without
concurrent tasks is invalid; the CPU per hand-off is the contender's own clock over its timer,
never above the wall time on every usable CPU; a sampled ring gives latency, not throughput."""

from __future__ import annotations

import os

import pytest

from concbench.batch import own_cpu
from concbench.resultset.model import Iteration, RunResult
from concbench.stats.cell import cell_stats
from concbench.workloads import ring, skynet

RING = ["rings=3", "size=5", "passes=1001"]
SKYNET = ["size=1000", "branch=10"]


def _cell(fake_bench, workload: str, contender: str, params: list[str]) -> dict:
    args = [a for p in params for a in ("--param", p)]
    res = fake_bench("run", workload, "--contender", contender, *args, "--runs", "1",
                     "--warmup", "1", "--iterations", "2")
    assert res.code == 0, res.stderr
    return fake_bench.last()["cells"][0]


def test_a_ring_done_by_a_counting_loop_is_invalid(fake_bench):
    cell = _cell(fake_bench, "ring", "fake-seqring", RING)
    assert cell["status"] == "invalid"
    assert "tasks_alive=0, expected an integer ≥ 15" in cell["reason"], cell["reason"]


def test_a_skynet_done_by_a_plain_recursion_is_invalid(fake_bench):
    cell = _cell(fake_bench, "skynet", "fake-seqtree", SKYNET)
    assert cell["status"] == "invalid"
    assert "tasks_alive=0, expected an integer ≥ 4" in cell["reason"], cell["reason"]


def test_a_ring_or_tree_without_its_own_cpu_reading_is_invalid(fake_bench):
    cell = _cell(fake_bench, "skynet", "fake-nocpu", SKYNET)
    assert cell["status"] == "invalid" and "no cpu_ns" in cell["reason"], cell["reason"]


def test_a_cpu_reading_above_wall_time_on_every_cpu_is_invalid(fake_bench):
    cell = _cell(fake_bench, "ring", "fake-cpuover", RING)
    assert cell["status"] == "invalid" and "usable CPUs" in cell["reason"], cell["reason"]


@pytest.mark.measures
def test_cpu_spent_after_the_clock_stops_is_not_the_handoffs(fake_bench):
    cell = _cell(fake_bench, "ring", "fake-burnafter", ["rings=1", "size=2", "passes=1000",
                                                       "sample-every=0"])
    assert cell["status"] == "ok", cell["reason"]
    measured = [it for it in cell["runs"][0]["iterations"] if not it["warmup"]]
    # the harness's line-to-line reading holds the 0.3 s burnt after each clock stopped ...
    assert all(it["cpu_s"] >= 0.28 for it in measured), measured
    # ... the contender's own clock, read at its timer, does not
    per_unit = cell["stats"]["cpu_ns_per_unit"]["median"]
    assert per_unit < 0.05e9 / 1000, per_unit


@pytest.mark.measures
def test_cpu_over_wall_never_exceeds_the_usable_cpus(fake_bench):
    cell = _cell(fake_bench, "ring", "fake-burn", ["rings=1", "size=2", "passes=1000",
                                                   "sample-every=0"])
    assert cell["status"] == "ok", cell["reason"]
    cpus = len(os.sched_getaffinity(0))
    for it in cell["runs"][0]["iterations"]:
        assert it["cpu_ns"] >= 0.28e9  # the burn is inside the timer
        assert it["cpu_ns"] <= it["elapsed_ns"] * cpus + 2 * it["cpu_tick_ns"], it


def test_a_sampled_ring_gives_latency_and_a_clean_one_throughput(fake_bench):
    sampled = _cell(fake_bench, "ring", "fake-good", [*RING, "sample-every=1"])
    clean = _cell(fake_bench, "ring", "fake-good", [*RING, "sample-every=0"])
    assert sampled["status"] == clean["status"] == "ok", (sampled["reason"], clean["reason"])
    assert "throughput_per_s" not in sampled["stats"]
    assert "cpu_ns_per_unit" not in sampled["stats"]
    assert sampled["stats"]["result.handoff_p99_ns"]["median"] == 200
    assert clean["stats"]["throughput_per_s"]["median"] > 0
    assert "result.handoff_p50_ns" not in clean["stats"]


def _it(elapsed_ns: int, cpu_ns: int | None, tick: int | None, cpu_s: float | None = None,
        index: int = 1) -> Iteration:
    return Iteration(index=index, warmup=False, elapsed_ns=elapsed_ns, result={}, cpu_s=cpu_s,
                     cpu_ns=cpu_ns, cpu_tick_ns=tick)


def _run(*its: Iteration) -> RunResult:
    return RunResult(status="ok", reason=None, wall_s=1.0, startup_s=0.1, peak_rss_bytes=1,
                     peak_threads=1, final_threads=1, cpu_user_s=1.0, cpu_sys_s=0.0,
                     ctx_voluntary=0, ctx_involuntary=0, iterations=its)


def test_one_iteration_too_short_for_its_clock_leaves_the_whole_cell_without_cpu():
    params = {"rings": 1, "size": 2, "passes": 1000, "sample-every": 0}
    long_enough = _it(400_000_000, 300_000_000, 10_000_000)
    stats = cell_stats(ring.SPEC, params, [_run(long_enough, long_enough)])
    assert stats["cpu_ns_per_unit"].median == 300_000
    short = _it(100_000_000, 90_000_000, 10_000_000)  # 10 ticks of a 10 ms clock
    assert "cpu_ns_per_unit" not in cell_stats(ring.SPEC, params, [_run(long_enough, short)])


def test_the_two_cpu_readings_disagree_only_beyond_a_tick_of_each():
    # the second line was read late: its span missed 20 ms its timer saw, the first's holds them
    late = [_it(10**9, 500_000_000, 1, cpu_s=0.6, index=0),
            _it(10**9, 500_000_000, 1, cpu_s=0.48, index=1)]
    assert own_cpu.disagreement(late, cpus=2) is None
    # a tick truncated, and a tick unaccounted on each of two running CPUs
    within_ticks = [_it(10**9, 500_000_000, 1, cpu_s=0.471, index=0)]
    assert own_cpu.disagreement(within_ticks, cpus=2) is None
    apart = [_it(10**9, 500_000_000, 1, cpu_s=0.3, index=0)]
    assert "more than the 300.0 ms the harness read" in own_cpu.disagreement(apart, cpus=2)


def test_a_wall_clock_read_as_the_cpu_clock_is_a_warning(fake_bench):
    cell = _cell(fake_bench, "ring", "fake-cpuwall", ["rings=1", "size=2", "passes=1000",
                                                      "sample-every=0"])
    assert cell["status"] == "ok", cell["reason"]  # 0.25 s on one of the CPUs: not impossible
    assert any("own CPU clock saw" in w for w in cell["warnings"]), cell["warnings"]
    good = _cell(fake_bench, "ring", "fake-burn", ["rings=1", "size=2", "passes=1000",
                                                   "sample-every=0"])
    assert not any("own CPU clock saw" in w for w in good["warnings"]), good["warnings"]


@pytest.mark.parametrize("change, words", [
    ({"handoff_samples": 999}, "handoff_samples=999, expected 1,000"),
    ({"handoff_p50_ns": 300}, "0 ≤ p50 ≤ p99"),
    ({"handoff_p99_ns": 1.5}, "expected integers"),
    ({"clock_read_ns": None}, "clock_read_ns=None"),
])
def test_the_rings_handoff_keys_are_checked(change, words):
    params = {"rings": 1, "size": 2, "passes": 1000, "sample-every": 1}
    good = {"rings": 1, "passes": 1000, "holder_min": 1, "holder_max": 1, "tasks_alive": 2,
            "clock_read_ns": 20, "handoff_samples": 1000, "handoff_p50_ns": 100,
            "handoff_p99_ns": 200}
    assert ring.SPEC.check(params, good, False) == []
    problems = ring.SPEC.check(params, {**good, **change}, False)
    assert any(words in p for p in problems), problems


def test_skynet_asks_for_the_first_leaf_and_its_ancestors_alive():
    assert skynet.alive_at_first_leaf({"size": 1_000_000, "branch": 10}) == 7
    assert skynet.alive_at_first_leaf({"size": 1, "branch": 10}) == 1


@pytest.mark.measures
def test_skynets_bytes_per_task_are_above_the_rss_just_before_the_tree(fake_bench):
    """fake-treemem holds 48 MiB during every tree and keeps 64 MiB after its warm-up: the
    measured tree's figure is its own 48 MiB, not the process's peak (20 + 64 + 48 MiB)."""
    cell = _cell(fake_bench, "skynet", "fake-treemem", SKYNET)
    assert cell["status"] == "ok", cell["reason"]
    tasks = skynet.tasks_in_tree({"size": 1000, "branch": 10})
    grown = cell["stats"]["rss_growth_bytes_per_unit"]["median"] * tasks / 2**20
    assert 40 <= grown <= 56, grown
    assert cell["runs"][0]["iterations"][0]["rss_growth_bytes"] is None  # no line before it


def test_a_cold_tree_has_no_bytes_per_task(fake_bench):
    res = fake_bench("run", "skynet", "--contender", "fake-good", "--param", "size=1000",
                     "--param", "branch=10", "--runs", "1", "--warmup", "0", "--iterations", "1")
    assert res.code == 0, res.stderr
    cell = fake_bench.last()["cells"][0]
    assert cell["status"] == "ok" and "rss_growth_bytes_per_unit" not in cell["stats"]


@pytest.mark.parametrize("passes, every, left_out", [
    (1_000_000, 0, {"result.handoff_p99_ns"}),  # no samples at all
    (1_000_000, 1, {"throughput_per_s", "cpu_ns_per_unit"}),  # a clock read in every pass
    (20_000, 100, {"throughput_per_s", "cpu_ns_per_unit", "result.handoff_p99_ns"}),  # 200
    (1_000_000, 1000, set()),  # reads cost < 0.1 ns a pass, 1 000 samples
])
def test_what_a_ring_cell_cannot_show(passes, every, left_out):
    params = {"rings": 1, "size": 2, "passes": passes, "sample-every": every}
    assert set(ring.SPEC.unmeasured(params)) == left_out


def test_a_cpu_reading_may_pass_its_timer_by_the_clocks_reads_and_no_more():
    """On one CPU, 28.5 ms of timer: its wall time × 1.05 (the clocks' rates), 12 ms for the
    reads at its two ends and two ticks of a 1 ns clock; a microsecond more is not this
    process's CPU over the timed region."""
    limit = round(28_500_000 * 1.05) + 12_000_000 + 2
    assert own_cpu.problems(ring.SPEC, [_it(28_500_000, limit, 1)], cpus=1) == []
    over = own_cpu.problems(ring.SPEC, [_it(28_500_000, limit + 1_000, 1)], cpus=1)
    assert len(over) == 1 and "over 28.5 ms of wall time on 1 usable CPUs" in over[0]
    # two CPUs double the timer's share, not the reads'
    assert own_cpu.problems(ring.SPEC, [_it(28_500_000, limit + 28_000_000, 1)], cpus=2) == []
