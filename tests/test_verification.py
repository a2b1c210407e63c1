"""A contender that does less than the workload asks cannot pass: one fake per hole
(tests/fake/contender.py), each rejected as invalid with a reason that names the hole."""

from __future__ import annotations

import pytest

FANOUT = ["fanout", "--param", "requests=20", "--param", "user-ms=20", "--param", "orders-ms=10",
          "--param", "prefs-ms=5", "--param", "notifications-ms=5", "--param", "pool-size=50"]
SLEEP = ["sleep-tasks", "--param", "tasks=100", "--param", "sleep-ms=30", "--param",
         "pool-size=50"]
SPAWN = ["spawn-idle", "--param", "tasks=10", "--param", "hold-ms=50"]
CHANNEL = ["channel", "--param", "workers=3", "--param", "events=10", "--param", "etype=str",
           "--param", "esize=8"]


def _status(fake_bench, contender: str, args: list[str], *more: str) -> tuple[str, str]:
    res = fake_bench("run", *args[:1], "--contender", contender, *args[1:], "--runs", "1", *more)
    assert res.code == 0, res.stderr
    cell = fake_bench.last()["cells"][0]
    return cell["status"], cell["reason"] or ""


@pytest.mark.parametrize("args", [FANOUT, SLEEP, SPAWN], ids=["fanout", "sleep-tasks",
                                                               "spawn-idle"])
def test_skipping_the_waits_is_faster_than_physics(fake_bench, args):
    status, reason = _status(fake_bench, "fake-skipwait", args)
    assert status == "invalid" and "below the workload's lower bound" in reason, reason
    good, _ = _status(fake_bench, "fake-good", args)
    assert good == "ok"


@pytest.mark.parametrize("contender, args, words", [
    ("fake-dupid", FANOUT, "id_sq_sum"),
    ("fake-sharedstr", CHANNEL, "same_as_prev"),
    ("fake-floats", SLEEP, "tasks=100.0"),
    ("fake-flags", SLEEP, "warmup=False, expected True"),
    ("fake-onemark", SPAWN, "no 'all-spawned' mark"),
    ("fake-zerotime", SLEEP, "elapsed_ns 0 is not positive"),
    ("fake-uneven", CHANNEL, "min_events"),
    ("fake-reorder", SLEEP, "iteration at position 0 has index 1"),
])
def test_each_cheat_is_invalid(fake_bench, contender, args, words):
    status, reason = _status(fake_bench, contender, args, "--warmup", "1", "--iterations", "2")
    assert status == "invalid" and words in reason, reason


def test_the_good_fake_passes_the_same_checks(fake_bench):
    for args in (FANOUT, SLEEP, SPAWN, CHANNEL):
        status, reason = _status(fake_bench, "fake-good", args, "--warmup", "1",
                                 "--iterations", "2")
        assert status == "ok", (args[0], reason)


@pytest.mark.parametrize("wrong_at, kind", [(0, "warm-up"), (2, "second measured"),
                                            (3, "last measured")])
def test_every_iteration_is_checked_not_one(fake_bench, wrong_at, kind):
    """Right in every iteration but one (of one warm-up and three measured): still invalid,
    and the reason names that iteration."""
    fake_bench.env["FAKE_WRONG_AT"] = str(wrong_at)
    status, reason = _status(fake_bench, "fake-wrongat", SLEEP, "--warmup", "1",
                             "--iterations", "3")
    assert status == "invalid" and f"iteration {wrong_at}: cpu_sum=" in reason, (kind, reason)
