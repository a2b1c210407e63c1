"""Workload specs: expected results, ideal times, parameter bounds."""

from __future__ import annotations

import pytest

from concbench import workloads
from concbench.errors import UserError
from concbench.manifest import check_budget_table as check_table
from concbench.workloads.budget import UNBOUNDED, ThreadBudget, resolve


def test_fanout_expected_and_ideal():
    spec = workloads.get("fanout")
    p = spec.resolve({"requests": 1000})
    assert spec.expected(p) == {"profiles": 1000, "id_sum": 500500, "id_sq_sum": 333_833_500,
                                "items": 5000}
    assert spec.ideal_s(p, UNBOUNDED) == 1.0  # 500 + max(500, 500, 500) ms, one wave
    assert spec.ideal_s(p, resolve(None, True, p)) == 5.0  # five waves of pool-size 200
    bounded = spec.resolve({"requests": 1000, "concurrency": 100, "user-ms": 100,
                            "orders-ms": 50, "prefs-ms": 70, "notifications-ms": 20})
    assert spec.ideal_s(bounded, UNBOUNDED) == pytest.approx(1.7)  # 10 waves × 170 ms


def test_fanout_ideal_follows_the_styles_thread_budget():
    spec = workloads.get("fanout")
    p = spec.resolve({"requests": 1000, "pool-size": 200})
    subs = ["orders", "prefs", "notifications"]
    # java-platform: pool-size request threads, the three sub-fetches on a second pool of
    # pool-size: 1000 × 1.5 s / 200 = 7.5 s, not the request pool's five 1 s waves
    platform = resolve({"request-threads": "pool-size", "async-threads": "pool-size",
                        "async-waits": subs}, True, p)
    assert platform == ThreadBudget(200, 200, tuple(subs))
    assert spec.ideal_s(p, platform) == pytest.approx(7.5)
    # a sub-pool three times as wide: the request threads bound it again
    wide = resolve({"request-threads": "pool-size", "async-threads": "3*pool-size",
                    "async-waits": subs}, True, p)
    assert wide.async_threads == 600 and spec.ideal_s(p, wide) == pytest.approx(5.0)
    # every fetch on one pool (CompletableFuture): 1000 × 2 s / 200 = 10 s
    cf = resolve({"async-threads": "pool-size", "async-waits": ["user", *subs]}, True, p)
    assert spec.ideal_s(p, cf) == pytest.approx(10.0)


@pytest.mark.parametrize("table,message", [
    ({"fanout": {"async-waits": ["orderz"]}}, "async-waits = \\['orderz'\\] is not valid"),
    ({"fanout": {"async-threads": "two*pool-size"}}, "is not valid"),
    ({"fanout": {"threads": 3}}, "unknown key 'threads'"),
    ({"nosuch": {}}, "unknown workload"),
])
def test_a_bad_budget_table_is_a_message(table, message):
    with pytest.raises(UserError, match=message):
        check_table(table, "contenders.x.budget")


def test_sleep_tasks_expected_and_ideal():
    spec = workloads.get("sleep-tasks")
    p = spec.resolve({"tasks": 10_000, "cpu-iters": 2, "cpu-seed": 0})
    # two steps of x ← 1664525·x + 1013904223 (mod 2³²) from 0: 1013904223, then 1196435762
    assert spec.expected(p) == {"tasks": 10_000,
                                "cpu_sum": 10_000 * ((1013904223 + 1196435762) % 2**32)}
    assert spec.ideal_s(p, resolve(None, True, p)) == pytest.approx(5.0)  # 100 ms × ⌈10000/200⌉
    assert spec.ideal_s(p, UNBOUNDED) == pytest.approx(0.1)


def test_channel_expected_per_etype():
    spec = workloads.get("channel")
    spread = {"min_events": 4, "max_events": 4}
    assert spec.expected(spec.resolve({"workers": 2, "events": 4})) == \
        {"events": 8, "value_sum": 12, **spread}
    assert spec.expected(spec.resolve({"workers": 2, "events": 4, "etype": "str",
                                       "esize": 10})) == {"events": 8, "bytes": 80,
                                                          "same_as_prev": 0, **spread}
    shared = spec.resolve({"workers": 2, "events": 4, "etype": "str_ptr", "esize": 10})
    assert spec.expected(shared)["same_as_prev"] == 2 * 3  # every event but each first
    empty = spec.resolve({"workers": 2, "events": 4, "etype": "str_clone", "esize": 0})
    assert "same_as_prev" not in spec.expected(empty)  # no allocation to tell apart


def test_check_reports_each_wrong_field_and_the_pool_size():
    spec = workloads.get("sleep-tasks")
    p = spec.resolve({"tasks": 10, "cpu-iters": 0, "sleep-ms": 5, "pool-size": 4})
    good = {"tasks": 10, "cpu_sum": 0, "pool_size": 4, "slept_min_ns": 5_000_000}
    assert spec.check(p, good, pooled=True) == []
    assert spec.check(p, {**good, "pool_size": None}, pooled=False) == []
    problems = spec.check(p, {**good, "cpu_sum": 49}, pooled=True)
    assert problems == ["cpu_sum=49, expected 0"]
    assert spec.check(p, good, pooled=False) == ["pool_size=4, expected None"]
    assert spec.check(p, "nope", pooled=True) == ["result is not an object: 'nope'"]


def test_spawn_idle_late_mark_is_a_problem():
    spec = workloads.get("spawn-idle")
    p = spec.resolve({"tasks": 10, "hold-ms": 100})
    assert spec.check_marks(p, {"all-spawned": {"elapsed_ns": 50_000_000}}) == []
    assert "hold-ms" in spec.check_marks(p, {"all-spawned": {"elapsed_ns": 150_000_000}})[0]
    assert spec.check_marks(p, {}) == ["no all-spawned mark"]
    # the last task started just before the mark: it sleeps its hold after it
    mark = {"all-spawned": {"elapsed_ns": 50_000_000}}
    assert spec.check_marks(p, mark, 151_000_000) == []
    assert "after the all-spawned mark" in spec.check_marks(p, mark, 101_000_000)[0]


def test_param_bounds_and_choices():
    spec = workloads.get("channel")
    assert spec.param("workers").parse("1_000") == 1000
    with pytest.raises(UserError, match="below the minimum"):
        spec.param("queue").parse("0")
    with pytest.raises(UserError, match="not one of"):
        spec.param("etype").parse("bytes")
    with pytest.raises(UserError, match="its parameters: workers"):
        spec.param("colour")
