"""The documented thresholds, each pinned at its boundary: a value just inside it and one just
outside, so moving a threshold (or turning > into >=) fails a test here."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import pytest
from scipy import stats as scipy_stats

from concbench.compare import notes, ratio_test
from concbench.stats.server_cell import server_stats, server_warnings
from concbench.stats.summary import summarize
from sample_doc import _server_run, sample_document


def test_outliers_are_past_a_modified_z_of_3_5():
    """Median 100, MAD 1: a modified z-score 0.6745·|x − 100| of 3.5 is |x − 100| = 5.189."""
    inside, outside = 100 + 5.18, 100 - 5.20  # z = 3.494 and 3.507
    s = summarize([99, 99, 100, 100, 100, 101, 101, inside, outside])
    assert (s.median, s.mad) == (100, 1)
    assert s.outliers == (outside,)


def test_outliers_need_five_values():
    assert summarize([1.0, 2.0, 3.0, 100.0]).outliers == ()  # z of 100 is 65, but n = 4
    assert summarize([1.0, 2.0, 3.0, 3.5, 100.0]).outliers == (100.0,)


BASE = [100.0, 110.0, 90.0, 105.0, 95.0]


def _scaled_to(share_of_critical: float) -> list[float]:
    """BASE times the ratio whose Welch test on the logs is share × the critical t."""
    logs = [math.log(v) for v in BASE]
    se = math.sqrt(2 * statistics.variance(logs) / len(BASE))
    d = scipy_stats.t.ppf(0.975, 2 * len(BASE) - 2) * se * share_of_critical
    return [v * math.exp(d) for v in BASE]


@pytest.mark.parametrize("share, significant", [(1.01, True), (0.99, False)])
def test_a_change_is_significant_below_p_0_05(share, significant):
    t = ratio_test(BASE, _scaled_to(share))
    assert t.p_value == pytest.approx(0.0482 if significant else 0.0518, abs=5e-4)
    assert t.significant is significant
    assert (t.ci95[0] > 1) is significant  # the interval excludes 1 exactly when significant


def _probed(doc, ms: float):
    return replace(doc, cells=tuple(replace(c, runs=tuple(replace(r, probe_ms=ms)
                                                          for r in c.runs))
                                    for c in doc.cells))


@pytest.mark.parametrize("ratio, noted", [(1.051, True), (1.049, False)])
def test_a_machine_slower_by_more_than_5_percent_is_noted(ratio, noted):
    base = _probed(sample_document(), 10.0)
    said = [n for n in notes(base, _probed(base, 10.0 * ratio)) if "machine itself" in n]
    assert bool(said) is noted, said


@pytest.mark.parametrize("steal, noted", [(2.01, True), (2.0, False)])
def test_runs_that_lost_more_than_2_percent_to_the_hypervisor_are_noted(steal, noted):
    base = sample_document()
    first = base.cells[0]
    robbed = replace(first, runs=(replace(first.runs[0], steal_percent=steal),
                                  *first.runs[1:]))
    said = [n for n in notes(base, replace(base, cells=(robbed, *base.cells[1:])))
            if "hypervisor" in n]
    assert bool(said) is noted, said


def _generator_bound(gen_cpu: float, server_cpu: float) -> list[str]:
    runs = [_server_run(70000, 3.0, 6.0, 10, gen_cpu, server_cpu, 10, 2) for _ in range(3)]
    found = server_warnings(runs, server_stats(runs), {"server": [0], "client": [1]}, 10.0)
    return [w for w in found if w.startswith("generator-bound")]


@pytest.mark.parametrize("gen_cpu, bound", [(90.0, True), (89.9, False)])
def test_a_generator_at_90_percent_cpu_is_generator_bound(gen_cpu, bound):
    found = _generator_bound(gen_cpu, 50.0)
    assert bool(found) is bound, found
    assert not found or "floor of what the server can do" in found[0]


@pytest.mark.parametrize("server_cpu, both", [(85.0, True), (84.9, False)])
def test_a_server_at_85_percent_cpu_beside_it_is_both_saturated(server_cpu, both):
    (found,) = _generator_bound(95.0, server_cpu)
    assert ("both sides are saturated" in found) is both, found
