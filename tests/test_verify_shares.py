"""`verify --share K/N`: the plan split into shares of about equal cost, whole contenders each,
so that N processes at once verify everything once."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from concbench import manifest, paths, verify
from concbench.server import placement, setup

CONTENDERS = manifest.discover(paths.REPO_ROOT / "contenders")


def _cost(cells) -> int:
    return sum(verify.contender_cost([c for c in cells if c.contender.name == n])
               for n in {c.contender.name for c in cells})


@pytest.mark.parametrize("count", [2, 3])
def test_the_shares_hold_every_cell_once_and_each_contender_whole(count):
    whole = verify.plan(CONTENDERS, [], []).cells
    parts = [verify.plan(CONTENDERS, [], [], (k, count)).cells for k in range(1, count + 1)]
    assert Counter(c.key for p in parts for c in p) == Counter(c.key for c in whole)
    owners = [{c.contender.name for c in p} for p in parts]
    assert all(not (a & b) for i, a in enumerate(owners) for b in owners[i + 1:])
    heaviest = max(_cost([c for c in whole if c.contender.name == n])
                   for n in {c.contender.name for c in whole})
    costs = [_cost(p) for p in parts]
    assert max(costs) - min(costs) <= heaviest, costs


def test_a_jvm_server_cell_costs_more_than_another_server_and_a_batch_cell():
    cells = {(c.contender.name, c.spec.server is None): c
             for c in verify.plan(CONTENDERS, [], []).cells}
    costs = [verify._cost(cells[k]) for k in (("spring-mvc", False), ("go", False),
                                               ("go", True))]
    assert costs == sorted(costs, reverse=True) and len(set(costs)) == 3


@pytest.mark.parametrize("bad", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_a_bad_share_is_exit_2(cli, bad):
    res = cli("verify", "--share", bad)
    assert res.code == 2 and "--share" in res.stderr, res


def test_a_cell_on_the_server_start_before_it_costs_a_load_not_a_start():
    cells = [c for c in verify.plan(CONTENDERS, ["spring-mvc"], ["http-hello"]).cells]
    assert [c.params["keepalive"] for c in cells] == ["true", "false"]
    assert verify.contender_cost(cells) == verify._cost(cells[0]) + 1
    aggregate = verify.plan(CONTENDERS, ["spring-mvc"], ["http-aggregate"]).cells
    assert len(aggregate) == 2, "inproc and http downstreams: two server commands"
    assert verify.contender_cost(list(aggregate)) == 2 * verify._cost(aggregate[0])


def test_a_share_floats_over_the_cpus_and_the_whole_plan_is_pinned():
    """Shares run at once: pinned, every share's servers would take the same CPU (the lower
    half), so a share leaves its servers and generators unpinned; the whole plan keeps the
    usual split."""
    whole = verify.plan(CONTENDERS, [], ["http-hello"])
    part = verify.plan(CONTENDERS, [], ["http-hello"], (1, 3))
    assert setup.placement_of(part.settings) == placement.UNPINNED
    assert setup.placement_of(whole.settings) == placement.choose(None, None)
    if len(os.sched_getaffinity(0)) >= 2:
        assert setup.placement_of(whole.settings).pinned
