"""ring and skynet: the checks that make a skipped pass or an unspawned tree invalid, and the
parameter combinations that are refused before anything runs."""

from __future__ import annotations

import pytest

from concbench.errors import UserError
from concbench.workloads import ring, skynet

RING = ["ring", "--param", "rings=3", "--param", "size=5", "--param", "passes=1001"]
SKYNET = ["skynet", "--param", "size=1000", "--param", "branch=10"]


def _cell(fake_bench, contender: str, args: list[str]) -> dict:
    res = fake_bench("run", *args[:1], "--contender", contender, *args[1:], "--runs", "1",
                     "--warmup", "1", "--iterations", "2")
    assert res.code == 0, res.stderr
    return fake_bench.last()["cells"][0]


def test_a_real_ring_and_tree_pass(fake_bench):
    for args in (RING, SKYNET):
        cell = _cell(fake_bench, "fake-good", args)
        assert cell["status"] == "ok", cell["reason"]


def test_a_ring_that_skips_passes_is_invalid(fake_bench):
    cell = _cell(fake_bench, "fake-skippass", RING)
    assert cell["status"] == "invalid"
    assert "passes=" in cell["reason"] and "holder_" in cell["reason"], cell["reason"]


def test_a_closed_form_skynet_without_a_tree_is_invalid(fake_bench):
    cell = _cell(fake_bench, "fake-closedform", SKYNET)
    assert cell["status"] == "invalid" and "tasks=1, expected 1111" in cell["reason"], \
        cell["reason"]


@pytest.mark.parametrize("size, passes, holder", [(2, 1, 2), (2, 2, 1), (503, 1006, 1),
                                                   (503, 1007, 2), (5, 4, 5)])
def test_the_final_holder_follows_the_passes(size, passes, holder):
    want = ring.SPEC.expected({"rings": 2, "size": size, "passes": passes, "sample-every": 1})
    assert want == {"rings": 2, "passes": 2 * passes, "holder_min": holder,
                    "holder_max": holder}


def test_skynet_expects_the_public_sum_and_every_task():
    want = skynet.SPEC.expected({"size": 1_000_000, "branch": 10})
    assert want == {"sum": 499_999_500_000, "tasks": 1_111_111}
    assert skynet.SPEC.units_per_iteration({"size": 8, "branch": 2}) == 15


@pytest.mark.parametrize("spec, given, words", [
    (skynet.SPEC, {"size": 1000, "branch": 3}, "not a power of branch 3"),
    (skynet.SPEC, {"size": 999, "branch": 10}, "not a power of branch 10"),
    (ring.SPEC, {"rings": 2000, "size": 503}, "at most 1 000 000"),
    (ring.SPEC, {"passes": 10_000_001}, "at most 10,000,000"),
])
def test_impossible_combinations_are_refused(spec, given, words):
    with pytest.raises(UserError, match=words):
        spec.resolve(given)


def test_a_bad_combination_on_the_command_line_is_exit_2(fake_bench):
    res = fake_bench("run", "skynet", "--contender", "fake-good", "--param", "size=1000",
                     "--param", "branch=7")
    assert res.code == 2 and "not a power of branch 7" in res.stderr
    assert "Traceback" not in res.stderr
