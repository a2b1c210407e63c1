"""The batch workloads' proofs of the work (docs/contract.md): fanout's sub-fetches count and
time themselves, sleep-tasks' tasks each time their own sleep, spawn-idle's last task cannot
wake before the hold has passed since the mark, sleep-tasks' CPU loop is a seeded chain no
compiler folds. One fake per hole (tests/fake/contender.py), each rejected as invalid with a
reason that names it; the good fake passes the same checks."""

from __future__ import annotations

import pytest

from concbench import workloads

FANOUT = ["fanout", "--param", "requests=20", "--param", "user-ms=20", "--param", "orders-ms=10",
          "--param", "prefs-ms=5", "--param", "notifications-ms=5", "--param", "pool-size=50"]
SLEEP = ["sleep-tasks", "--param", "tasks=100", "--param", "sleep-ms=30", "--param",
         "pool-size=50", "--param", "cpu-seed=4242"]
SPAWN = ["spawn-idle", "--param", "tasks=10", "--param", "hold-ms=50"]


def _cell(fake_bench, contender: str, args: list[str]) -> dict:
    res = fake_bench("run", args[0], "--contender", contender, *args[1:], "--runs", "1",
                     "--warmup", "1", "--iterations", "2")
    assert res.code == 0, res.stderr
    return fake_bench.last()["cells"][0]


@pytest.mark.parametrize("contender, args, words", [
    ("fake-sharedsleep", FANOUT, "prefs fetches slept at least 0.002 ms"),
    ("fake-sharedtimer", SLEEP, "a task slept 25.000 ms"),
    ("fake-sharedtimer", SPAWN, "after the all-spawned mark"),
    ("fake-foldcpu", SLEEP, "cpu_sum="),
])
def test_each_shortcut_is_invalid(fake_bench, contender, args, words):
    cell = _cell(fake_bench, contender, args)
    assert cell["status"] == "invalid" and words in cell["reason"], cell["reason"]


@pytest.mark.parametrize("args", [FANOUT, SLEEP, SPAWN], ids=lambda a: a[0])
def test_the_good_fake_proves_its_work(fake_bench, args):
    cell = _cell(fake_bench, "fake-good", args)
    assert cell["status"] == "ok", cell["reason"]


def test_the_cpu_loop_sum_is_the_loop_run_as_written():
    from concbench.workloads.sleep_tasks import task_cpu_sum

    def loop(seed: int, k: int) -> int:
        x, s = seed, 0
        for _ in range(k):
            x = (x * 1664525 + 1013904223) % 2**32
            s = (s + x) % 2**32
        return s

    for seed, k in ((0, 0), (0, 1), (1, 2), (12345, 1000), (2**32 - 1, 4097)):
        assert task_cpu_sum(seed, k) == loop(seed, k), (seed, k)
    spec = workloads.get("sleep-tasks")
    p = spec.resolve({"tasks": 3, "cpu-iters": 1000, "cpu-seed": 7})
    assert spec.expected(p)["cpu_sum"] == 3 * loop(7, 1000)
    assert task_cpu_sum(7, 1000) != 1000 // 2  # not the old Σ i % 2


def test_fanout_proofs_are_checked_kind_by_kind():
    spec = workloads.get("fanout")
    p = spec.resolve({"requests": 10, "user-ms": 20, "orders-ms": 10, "prefs-ms": 5,
                      "notifications-ms": 5, "pool-size": 4})
    kinds = ("user", "orders", "prefs", "notifications")
    good = {**spec.expected(p), "pool_size": None,
            "fetched": {k: 10 for k in kinds},
            "slept_min_ns": {"user": 20_100_000, "orders": 10_000_000, "prefs": 4_500_000,
                             "notifications": 5_000_000}}
    assert spec.check(p, good, pooled=False) == []
    assert spec.check(p, {**good, "fetched": {**good["fetched"], "orders": 9}}, False) == \
        ["fetched orders=9, expected 10 (each orders fetch counts itself after its own sleep)"]
    short = {**good, "slept_min_ns": {**good["slept_min_ns"], "user": 18_000_000}}
    assert "user fetches slept at least 18.000 ms" in spec.check(p, short, False)[0]
    missing = {k: v for k, v in good.items() if k != "slept_min_ns"}
    assert "slept_min_ns missing" in spec.check(p, missing, False)[0]
    floats = {**good, "fetched": {k: 10.0 for k in kinds}}
    assert len(spec.check(p, floats, False)) == 4
