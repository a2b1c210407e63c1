"""Two cells of one interleaved plan compared round by round (concbench.stats.rounds,
inference.paired_ratio_test): a host whose speed changes from round to round slows both runs
of a round alike, so their ratio holds a small difference that the rounds' spread hides from
an unpaired test; where nothing differs, pairing calls nothing; fewer than PAIRED_ROUNDS
shared rounds, or two result sets, stay unpaired."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from concbench import workloads
from concbench.compare import samples, within_plan_test
from concbench.report import summary
from concbench.resultset.model import CellResult, Iteration, RunResult
from concbench.stats import inference, rounds
from concbench.stats.cell import aggregate
from concbench.workloads.budget import UNBOUNDED

SLEEP = workloads.get("sleep-tasks")
PARAMS = SLEEP.resolve({"tasks": 1000, "sleep-ms": 100})
# The host's speed in eight rounds: phases up to 1.4x apart, shared by every run of a round
PHASES = [1.00, 1.25, 0.92, 1.40, 1.08, 0.95, 1.31, 1.12]


def _run(seconds: float, round_: int | None) -> RunResult:
    its = tuple(Iteration(i, False, int(seconds * 1e9), {}) for i in range(3))
    return RunResult(status="ok", reason=None, wall_s=1.0, startup_s=0.1,
                     peak_rss_bytes=10 << 20, peak_threads=4, final_threads=4, cpu_user_s=0.1,
                     cpu_sys_s=0.0, ctx_voluntary=1, ctx_involuntary=1, iterations=its,
                     round=round_)


def _cell(name: str, work: float, seed: int, rounds_: int = len(PHASES),
          with_rounds: bool = True) -> CellResult:
    """A process per round: the round's phase × the work × its own ±0.5 % luck."""
    rng = random.Random(seed)
    runs = [_run(0.1 * work * PHASES[r] * rng.uniform(0.995, 1.005),
                 r if with_rounds else None) for r in range(rounds_)]
    return aggregate(SLEEP, name, PARAMS, UNBOUNDED, runs, {"throughput_unit": "tasks"})


def test_a_five_percent_change_under_the_hosts_phases_is_seen_round_by_round():
    a, b = _cell("a", 1.00, seed=1), _cell("b", 1.05, seed=2)
    unpaired = inference.ratio_test([0.1 * 1.00 * p for p in PHASES],
                                    [0.1 * 1.05 * p for p in PHASES])
    assert unpaired.ci95 is not None and unpaired.ci95[0] < 1 < unpaired.ci95[1]
    test = within_plan_test(a, b, "time")
    assert test.ci95 is not None and 1.04 < test.ci95[0] < test.ratio < test.ci95[1] < 1.06
    assert test.significant and test.n_base == test.n_new == len(PHASES)


def test_the_paired_figures_are_those_of_the_rounds_ratios():
    pairs = [(0.100, 0.104), (0.125, 0.131), (0.092, 0.0962), (0.140, 0.1470)]
    found = inference.paired_ratio_test(pairs)
    logs = [math.log(n / b) for b, n in pairs]
    half = inference.t_975(3) * statistics.stdev(logs) / 2
    assert found.ratio == pytest.approx(math.exp(statistics.fmean(logs)))
    assert found.ci95 == pytest.approx((math.exp(statistics.fmean(logs) - half),
                                        math.exp(statistics.fmean(logs) + half)))
    t = statistics.fmean(logs) / (statistics.stdev(logs) / 2)
    assert found.p_value == pytest.approx(2 * inference._stats().t.sf(t, 3))


def test_twins_under_the_same_phases_are_not_called_different():
    a, b = _cell("a", 1.0, seed=3), _cell("b", 1.0, seed=4)
    test = within_plan_test(a, b, "time")
    assert test.ci95 is not None and test.ci95[0] < 1 < test.ci95[1]
    assert not test.significant


def test_fewer_shared_rounds_or_none_recorded_stay_unpaired():
    few = within_plan_test(_cell("a", 1.0, 1, rounds_=4), _cell("b", 1.05, 2, rounds_=4), "time")
    assert not few.significant  # four rounds: one value per process a side, phases and all
    a, b = _cell("a", 1.0, 1, with_rounds=False), _cell("b", 1.05, 2, with_rounds=False)
    loose = within_plan_test(a, b, "time")
    assert loose == inference.ratio_test(samples(a, "time"), samples(b, "time"))
    assert not loose.significant
    assert rounds.by_round(_cell("a", 1.0, 1, with_rounds=False), lambda c: [1.0]) == {}


def test_the_summary_ranks_round_by_round():
    a, b = _cell("a", 1.00, seed=1), _cell("b", 1.05, seed=2)
    case = summary.summarize_case([b, a], summary.TIME, {})
    first, second = case.standings
    assert (first.contender, second.contender) == ("a", "b")
    assert second.rank == 2 and not second.tied
    assert second.ci95 is not None and second.ci95[0] > 1.04
