"""Warm by default, cold apart: per-cell warm-up in suites, `--cold`, the cold column."""

from __future__ import annotations

import pytest

from concbench import manifest, suites
from concbench.errors import UserError
from concbench.export import FORMATS
from concbench.paths import suites_dir

TIME_SUITES = ("quick", "loom-vs-coroutines", "vt-vs-pool", "bench-of-chan")


def _plan(tmp_path, text: str, overrides: dict | None = None):  # noqa: D103
    (tmp_path / "s.toml").write_text(text)
    found = manifest.discover(tmp_path.parent / "no-contenders")
    return suites.load("s", tmp_path, found, overrides or {})


def _contenders():
    from concbench import paths
    return manifest.discover(paths.contenders_dir())


@pytest.mark.parametrize("name", TIME_SUITES)
def test_time_suites_are_warm_and_spawn_idle_stays_cold(name):
    plan = suites.load(name, suites_dir(), _contenders(), {})
    for cell in plan.cells:
        if cell.spec.server is not None:
            continue
        if cell.spec.name == "spawn-idle":
            assert plan.warmup_of(cell) == 0 and plan.iterations_of(cell) == 1, cell.key
        else:
            assert plan.warmup_of(cell) >= 1 and plan.iterations_of(cell) >= 2, cell.key


def test_bench_of_chan_warms_every_cell_with_10_million_events():
    """The JVMs settle after several million events (suites/bench-of-chan.toml): every channel
    cell's warm-up passes at least 10 M, whatever its worker count."""
    plan = suites.load("bench-of-chan", suites_dir(), _contenders(), {})
    for cell in plan.cells:
        warm_events = plan.warmup_of(cell) * cell.params["workers"] * cell.params["events"]
        assert warm_events >= 10_000_000, cell.key


def test_command_line_wins_over_a_cells_own_warmup():
    plan = suites.load("quick", suites_dir(), _contenders(), {"warmup": 0, "iterations": 1})
    assert {(plan.warmup_of(c), plan.iterations_of(c)) for c in plan.cells} == {(0, 1)}
    stored = plan.to_dict()
    assert all("warmup" not in c for c in stored["cells"])


def test_a_cells_warmup_survives_the_stored_plan():
    from concbench.plan import plan_from_dict

    all_c = _contenders()
    plan = suites.load("quick", suites_dir(), all_c, {})
    again = plan_from_dict(plan.to_dict(), all_c)
    assert [(again.warmup_of(c), again.iterations_of(c)) for c in again.cells] == \
        [(plan.warmup_of(c), plan.iterations_of(c)) for c in plan.cells]


@pytest.mark.parametrize("entry,message", [
    ('warmup = -1', "warmup must be an integer >= 0"),
    ('iterations = 0', "iterations must be a positive integer"),
    ('warmup = "one"', "warmup must be an integer >= 0"),
])
def test_a_bad_cell_count_is_a_message(tmp_path, entry, message):
    with pytest.raises(UserError, match=message):
        _plan(tmp_path, f'[[cells]]\nworkload = "fanout"\n{entry}\n')


@pytest.mark.parametrize("entry,message", [
    ('runs = "x"', "runs must be a positive integer"),
    ('warmup = -1', "warmup must be an integer >= 0"),
])
def test_a_bad_suite_count_is_a_message_too(tmp_path, entry, message):
    with pytest.raises(UserError, match=message):
        _plan(tmp_path, f'{entry}\n[[cells]]\nworkload = "fanout"\n')


def test_cold_flag_is_the_single_shot_and_clashes_with_warmup(cli):
    res = cli("suite", "quick", "--cold", "--warmup", "2")
    assert res.code == 2 and "--cold means --warmup 0 --iterations 1" in res.stderr


def test_the_first_warm_up_iteration_is_reported_cold_and_apart(fake_bench):
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-good", "--param", "tasks=50",
                     "--param", "sleep-ms=1", "--param", "pool-size=10", "--runs", "2",
                     "--warmup", "1", "--iterations", "2")
    assert res.code == 0, res.stderr
    doc = fake_bench.last()
    cell = doc["cells"][0]
    firsts = sorted(r["iterations"][0]["elapsed_ns"] / 1e9 for r in cell["runs"])
    assert cell["stats"]["cold_s"]["n"] == 2
    assert cell["stats"]["cold_s"]["median"] == pytest.approx(sum(firsts) / 2)
    assert cell["stats"]["elapsed_s"]["n"] == 4  # the cold ones are not among the measured
    from concbench.resultset import io
    text = FORMATS["markdown"][1](io.from_dict(doc)).decode()
    assert "cold (1st iteration)" in text


def test_no_cold_column_without_a_warm_up(fake_bench):
    res = fake_bench("run", "sleep-tasks", "--contender", "fake-good", "--param", "tasks=50",
                     "--param", "sleep-ms=1", "--param", "pool-size=10", "--runs", "1")
    assert res.code == 0, res.stderr
    cell = fake_bench.last()["cells"][0]
    assert "cold_s" not in cell["stats"]
