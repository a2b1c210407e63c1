"""Each iteration's CPU, read by the harness from /proc as the iteration's line arrives (the
cross-check of the contender's own reading), and the per-unit CPU and context-switch
figures."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time

RING = ["ring", "--param", "rings=1", "--param", "size=2", "--param", "passes=1000",
        "--param", "sample-every=0"]


def test_each_iteration_carries_the_cpu_it_spent(fake_bench):
    res = fake_bench("run", *RING[:1], "--contender", "fake-burn", *RING[1:], "--runs", "1",
                     "--warmup", "1", "--iterations", "2")
    assert res.code == 0, res.stderr
    cell = fake_bench.last()["cells"][0]
    assert cell["status"] == "ok", cell["reason"]
    iterations = cell["runs"][0]["iterations"]
    # the fake spins 0.3 s of its own CPU per iteration; /proc counts in 10 ms ticks
    for it in iterations[1:]:
        assert 0.28 <= it["cpu_s"] <= 0.3 + 0.15, iterations
    # the first line's reading also holds the interpreter's start-up
    assert iterations[0]["cpu_s"] >= 0.28
    per_unit = cell["stats"]["cpu_ns_per_unit"]["median"]
    assert 0.28e9 / 1000 <= per_unit <= 0.45e9 / 1000
    run = cell["runs"][0]
    # the run's CPU (wait4: user + system) holds the three iterations' 0.9 s of spinning and
    # the interpreter's start-up, a fraction of a second (results.csv's cpu_s)
    assert 0.9 <= run["cpu_user_s"] + run["cpu_sys_s"] <= 0.9 + 0.6, run
    assert cell["stats"]["cpu_s"]["median"] == pytest.approx(run["cpu_user_s"] + run["cpu_sys_s"])
    switches = run["ctx_voluntary"] + run["ctx_involuntary"]
    assert switches > 0  # every iteration sleeps at least once
    assert cell["stats"]["ctx_switches_per_unit"]["median"] == switches / (1000 * 3)


def test_an_iterations_cpu_is_the_difference_of_two_readings():
    from concbench.batch.contract_check import parse_iterations
    from concbench.proc.process import CPU_AT_LINE

    lines = [{"type": "iteration", "index": i, "warmup": False, "elapsed_ns": 1, "result": {},
              CPU_AT_LINE: at} for i, at in enumerate((0.5, 0.75, None, 2.0))]
    found, problems = parse_iterations(lines)
    assert not problems
    assert [it.cpu_s for it in found] == [0.5, 0.25, None, None]
