"""Precision on demand (--precision, --max-runs; concbench.precision): more processes of a cell
until its headline's interval is as narrow as asked, or the cap; the record says which; bad
input is exit 2."""

from __future__ import annotations

import pytest

from concbench.errors import UserError
from concbench.precision import Precision

SMALL = ["--param", "tasks=100", "--param", "sleep-ms=1", "--param", "pool-size=10",
         "--iterations", "2"]


@pytest.mark.parametrize("interleave", [[], ["--interleave"]], ids=["cell by cell", "rounds"])
def test_a_target_too_narrow_runs_to_the_cap_and_a_wide_one_stops_at_the_plan(fake_bench,
                                                                               interleave):
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-good", "--contender",
                     "fake-noisy", *SMALL, "--runs", "2", "--precision", "0.0001%",
                     "--max-runs", "4", *interleave)
    assert res.code == 0, res.stderr
    noisy, good = sorted(fake_bench.last()["cells"], key=lambda c: c["contender"] != "fake-noisy")
    assert noisy["status"] == "invalid" and len(noisy["runs"]) == 2  # no more for a failed cell
    assert noisy["metadata"]["precision"]["stopped"] == "the cell is invalid"
    for cell in (good,):
        record = cell["metadata"]["precision"]
        assert len(cell["runs"]) == 4 and record["runs"] == 4
        assert record["stopped"] == "max runs (4)" and record["headline"] == "elapsed_s"
        assert record["reached_pct"] > 0.0001 and cell["stats"]["elapsed_s"]["processes"] == 4
        assert record["two_level"]["processes"] == 4
    # three processes: a 99 % half-width holds their spread up to about ±40 % (t = 4.3 on
    # two degrees of freedom), which a busy machine's millisecond sleeps stay within; two
    # (t = 12.7) would need them within about ±8 %
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-good", *SMALL, "--runs", "3",
                     "--precision", "99%", "--max-runs", "4", *interleave)
    assert res.code == 0, res.stderr
    (cell,) = fake_bench.last()["cells"]
    assert len(cell["runs"]) == 3 and cell["metadata"]["precision"]["stopped"] == "reached"
    assert fake_bench.last()["plan"]["precision"] == {"target_pct": 99.0, "max_runs": 4}


@pytest.mark.parametrize("args,message", [
    (["--precision", "abc"], "--precision 'abc': give the interval's half-width"),
    (["--precision", "0%"], "above 0 and below 100"),
    (["--precision", "3%", "--max-runs", "2", "--runs", "3"], "--max-runs 2 is below"),
    (["--max-runs", "5"], "give --precision too"),
])
def test_bad_precision_is_bad_input(cli, args, message):
    res = cli("run", "sleep-tasks", "--contender", "fake-good", *args)
    assert res.code == 2 and message in res.stderr and "Traceback" not in res.stderr, res


def test_the_goal_parses_with_or_without_its_percent_sign():
    assert Precision.parse("3%", None, 3) == Precision(3.0, 10)
    assert Precision.parse(" 2.5 ", 20, 3) == Precision(2.5, 20)
    with pytest.raises(UserError):
        Precision.parse("150", None, 3)


def test_a_result_set_says_how_precise_it_got():
    from concbench import precision_check, workloads
    from concbench.resultset.model import Iteration, RunResult
    from concbench.stats.cell import aggregate
    from concbench.workloads.budget import UNBOUNDED

    spec = workloads.get("sleep-tasks")

    def cell(name: str, times: list[float]):
        runs = [RunResult(status="ok", reason=None, wall_s=1.0, startup_s=0.1,
                          peak_rss_bytes=1 << 20, peak_threads=1, final_threads=1,
                          cpu_user_s=0.1, cpu_sys_s=0.0, ctx_voluntary=1, ctx_involuntary=1,
                          iterations=(Iteration(0, False, int(t * 1e9), {}),)) for t in times]
        return aggregate(spec, name, spec.resolve({}), UNBOUNDED, runs, {})

    # 1.0, 1.1, 0.9: mean 1.0, s = 0.1, t(2) = 4.303: ±24.8 %; 2.0, 2.0: ±0 %; 1.0, 1.02:
    # t(1) = 12.706 · 0.01414 / √2 / 1.01: ±12.6 % (the median; the mean would be 12.5)
    text = precision_check.overview([cell("a", [1.0, 1.1, 0.9]), cell("b", [2.0, 2.0]),
                                     cell("d", [1.0, 1.02]), cell("c", [3.0])])
    assert text == ("precision: each cell's headline 95 % interval is ±12.6 % (median over 3 "
                    "cells), widest ±24.8 % (sleep-tasks · a); 1 cell(s) rest on one process, "
                    "with no interval")
