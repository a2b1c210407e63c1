"""The calibration suite's arithmetic (concbench.calibration) on result sets whose answer is
known: twins that differ only by noise, cells whose work differs by a known factor, a twin
that is really slower (a false positive the rate must count), the exact binomial interval;
and the suite itself: its A/B cells differ by exactly 5 % and 10 % of work."""

from __future__ import annotations

import random

import pytest

from concbench import calibration, manifest, paths, suites, workloads
from concbench.resultset.model import CellResult, Iteration, ResultsDocument, RunResult
from concbench.stats.cell import aggregate
from concbench.workloads.budget import UNBOUNDED

FANOUT = workloads.get("fanout")
WAITS = ("user-ms", "orders-ms", "prefs-ms", "notifications-ms")


def _run(seconds: float) -> RunResult:
    its = tuple(Iteration(i, False, int(seconds * 1e9), {}) for i in range(3))
    return RunResult(status="ok", reason=None, wall_s=1.0, startup_s=0.1,
                     peak_rss_bytes=10 << 20, peak_threads=4, final_threads=4,
                     cpu_user_s=0.1, cpu_sys_s=0.0, ctx_voluntary=1, ctx_involuntary=1,
                     iterations=its)


def _cell(contender: str, waits: tuple[int, int, int, int], seconds: list[float]) -> CellResult:
    params = FANOUT.resolve({"requests": 500, **dict(zip(WAITS, waits))})
    return aggregate(FANOUT, contender, params, UNBOUNDED, [_run(s) for s in seconds],
                     {"throughput_unit": "requests"})


def _doc(cells: list[CellResult]) -> ResultsDocument:
    return ResultsDocument("20260101-000000-calibration", "test", "2026-01-01T00:00:00Z", {}, {},
                           {"name": "calibration"}, tuple(cells))


def _noisy(centre: float, rng: random.Random, n: int = 5) -> list[float]:
    return [centre * rng.uniform(0.99, 1.01) for _ in range(n)]


def test_twins_are_a_a_and_known_factors_are_a_b():
    rng = random.Random(7)
    cells = [_cell("go", (20, 40, 30, 35), _noisy(0.060, rng)),
             _cell("go-twin", (20, 40, 30, 35), _noisy(0.060, rng)),
             _cell("go", (21, 42, 31, 37), _noisy(0.063, rng)),
             _cell("go", (22, 44, 33, 38), _noisy(0.066, rng))]
    found = calibration.calibrate(_doc(cells))
    aa = [c for c in found.cases if c.kind == "A/A"]
    assert {(c.contender, c.metric) for c in aa} == {("go", "time"), ("go", "memory")}
    ab = sorted((c for c in found.cases if c.kind == "A/B"), key=lambda c: c.factor)
    assert [(c.metric, round(c.factor, 3)) for c in ab] == [("time", 1.05), ("time", 1.1)]
    assert found.false_positives().hits == 0 and found.false_positives().tested == 2
    assert found.detections(1.1).text().startswith("1 of 1 = 100.0%")
    assert found.factors() == [1.05, 1.1]


def test_a_twin_that_is_really_slower_is_counted_a_false_positive():
    rng = random.Random(8)
    cells = [_cell("go", (20, 40, 30, 35), _noisy(0.060, rng)),
             _cell("go-twin", (20, 40, 30, 35), _noisy(0.072, rng))]
    found = calibration.calibrate(_doc(cells))
    assert found.false_positives().hits == 1
    assert "false positive" in calibration.report(_doc(cells))


def test_a_change_the_wrong_way_is_not_a_detection():
    rng = random.Random(9)
    cells = [_cell("go", (20, 40, 30, 35), _noisy(0.060, rng)),
             _cell("go", (22, 44, 33, 38), _noisy(0.050, rng))]  # more work, yet faster
    found = calibration.calibrate(_doc(cells))
    (case,) = [c for c in found.cases if c.kind == "A/B"]
    assert case.called(found.limit) and not case.detected(found.limit)
    assert found.detections(1.1).hits == 0


def test_rates_carry_their_exact_binomial_interval():
    # Clopper–Pearson: 0 of 60 → [0, 1 − 0.025^(1/60)]; 3 of 60 → [0.0104, 0.1392]
    low, high = calibration.Rate(0, 60).interval()
    assert low == 0.0 and high == pytest.approx(1 - 0.025 ** (1 / 60), rel=1e-6)
    low, high = calibration.Rate(3, 60).interval()
    assert (low, high) == pytest.approx((0.010432, 0.139236), abs=1e-5)
    assert calibration.Rate(0, 0).text() == "none tested"


def test_the_suites_a_b_cells_differ_by_exactly_five_and_ten_percent_of_work():
    plan = suites.load("calibration", paths.suites_dir(),
                       manifest.discover(paths.contenders_dir()), {})
    factors: dict[tuple[str, str], set[float]] = {}
    for workload, work in calibration.WORK.items():
        cells = [c for c in plan.cells if c.spec.name == workload
                 and not c.contender.name.endswith(calibration.TWIN)]
        knobs = calibration.KNOBS[workload]
        groups: dict[tuple[str, str], list[float]] = {}
        for c in cells:
            rest = repr(sorted((k, repr(v)) for k, v in c.params.items() if k not in knobs))
            groups.setdefault((c.contender.name, rest), []).append(work(c.params))
        for (name, _), values in groups.items():
            if len(values) > 1:
                factors[(workload, name)] = {round(v / min(values), 6) for v in values}
    assert set(w for w, _ in factors) == set(calibration.WORK)
    assert all(f == {1.0, 1.05, 1.1} for f in factors.values()), factors
    twins = {c.contender.name for c in plan.cells if c.contender.name.endswith("-twin")}
    assert twins == {"go-twin", "rust-tokio-twin", "java-virtual-twin", "node-twin"}


def test_no_suite_but_calibration_runs_a_twin():
    """The A/A twins exist for the calibration suite: a variant runs only where named, and no
    other suite names one, so they never reach quick's report or any ranking of a user's."""
    contenders = manifest.discover(paths.contenders_dir())
    twins = sorted(n for n in contenders if n.endswith(calibration.TWIN))
    assert twins and all(contenders[n].variant_of for n in twins)
    for name in suites.available(paths.suites_dir()):
        if name == "calibration":
            continue
        plan = suites.load(name, paths.suites_dir(), contenders, {})
        assert not [c.contender.name for c in plan.cells
                    if c.contender.name.endswith(calibration.TWIN)], name


def test_the_report_says_where_the_power_is_by_workload():
    """Each workload's detections at each factor, beside its median A/A interval: a workload
    that misses is named, not averaged away."""
    rng = random.Random(11)
    cells = [_cell("go", (20, 40, 30, 35), _noisy(0.060, rng)),
             _cell("go-twin", (20, 40, 30, 35), _noisy(0.060, rng)),
             _cell("go", (21, 42, 31, 37), _noisy(0.063, rng)),
             _cell("go", (22, 44, 33, 38), _noisy(0.060, rng))]  # the 10 % change not made
    found = calibration.calibrate(_doc(cells))
    assert found.detections(1.1, "fanout").text().startswith("0 of 1")
    assert found.detections(1.05, "fanout").text().startswith("1 of 1")
    assert found.detections(1.1, "ring").tested == 0
    row = next(line for line in calibration.report(_doc(cells)).splitlines()
               if line.startswith("| fanout |"))
    width = found.median_half_width_pct("fanout")
    assert width is not None and 0 < width < 5
    assert row == f"| fanout | 1 of 1 | 0 of 1 | ±{width:.1f} % |"
