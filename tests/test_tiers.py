"""The tests' own sorting (tests/conftest.py): a test's tier follows from its fixtures, the
tests that measure run as one unit of xdist's work, one at a time, never beside each other, and
an `alone` test runs while no other test does (tests/alone.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

import alone
import conftest
import measuring_group


class _Item:
    """What the sorting reads of a collected test: its fixtures and its markers."""

    def __init__(self, fixtures: tuple[str, ...] = (), marks: tuple[str, ...] = ()):
        self.fixturenames = list(fixtures)
        self._marks = [getattr(pytest.mark, name).mark for name in marks]

    def iter_markers(self, name: str | None = None) -> Iterator[pytest.Mark]:
        return iter([m for m in self._marks if name is None or m.name == name])

    def get_closest_marker(self, name: str) -> pytest.Mark | None:
        return next(self.iter_markers(name), None)

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self._marks.append(marker.mark)


@pytest.mark.parametrize("fixtures, marks, tier, measuring", [
    ((), (), "fast", False),
    (("cli", "tmp_path"), ("measures",), "fast", False),  # runs no process: measures nothing
    (("fake_bench",), (), "middle", False),
    (("fake_bench",), ("measures",), "middle", True),
    (("fake_bench", "wrk"), (), "middle", True),  # a server under load
    (("real_bench",), (), "slow", True),
    (("verified_servers",), (), "slow", True),
    (("verified_batch",), ("answers_only",), "slow", False),  # answers, not time: beside them
    (("fake_bench", "wrk"), ("answers_only",), "middle", False),
    (("tmp_path",), ("middle",), "middle", False),  # a marked tier counts when slower
    (("real_bench",), ("middle",), "slow", True),
    (("fake_bench",), ("alone",), "middle", True),  # waits only on the other worker's short tests
])
def test_a_tests_tier_and_group_follow_from_its_fixtures_and_marks(fixtures, marks, tier,
                                                                  measuring):
    item = _Item(fixtures, marks)
    assert conftest._tier(item) == tier
    assert conftest.measures(item) is measuring


def test_the_collection_hook_gives_each_test_its_tier_and_time_limit(monkeypatch):
    monkeypatch.setattr(conftest.measuring_group, "record", lambda ids: None)
    items = [_Item(("real_bench",)), _Item(("cli",), ("measures",)), _Item(("fake_bench",)),
             _Item(("fake_bench", "wrk"))]
    conftest.pytest_collection_modifyitems(items)
    tiers = [[m.name for m in i.iter_markers() if m.name in conftest.TIERS] for i in items]
    assert tiers == [["slow"], ["fast"], ["middle"], ["middle"]]
    limits = [[m.args[0] for m in i.iter_markers("timeout")] for i in items]
    assert limits == [[conftest.TIMEOUT_S[t[0]]] for t in tiers]
    assert [conftest.measures(i) for i in items] == [True, False, False, True]


PROBE = '''\
import os

def pytest_runtest_setup(item):
    with open(os.environ["NODEID_LOG"], "a") as log:
        log.write(os.environ["PYTEST_XDIST_WORKER"] + " " + item.nodeid + "\\n")
    raise RuntimeError("probe: the test itself is not run")
'''


@pytest.mark.middle
def test_under_xdist_the_measuring_tests_run_in_one_worker_the_rest_in_the_other(tmp_path):
    """Two measuring tests and a free one on two workers: without the group each would be a
    unit of its own and the first two would go to different workers."""
    (tmp_path / "nodeid_probe.py").write_text(PROBE)
    log = tmp_path / "nodeids"
    measuring = ["tests/test_cgroups.py::test_without_limits_a_run_has_no_cgroup",
                 "tests/test_servers.py::test_a_wrong_body_is_invalid_before_any_load"]
    free = "tests/test_runs.py::test_wrong_result_is_invalid"
    env = {**os.environ, "NODEID_LOG": str(log),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(conftest.REPO / "harness")])}
    subprocess.run([sys.executable, "-m", "pytest", "-p", "nodeid_probe", "-q", "-n", "2",
                    "-p", "no:cacheprovider", *measuring, free], cwd=conftest.REPO, env=env,
                   capture_output=True, timeout=120)
    worker = dict(reversed(line.split()) for line in log.read_text().splitlines())
    assert sorted(worker) == sorted([*measuring, free]), worker
    assert worker[measuring[0]] == worker[measuring[1]] != worker[free], worker


HOLDER = """\
import sys, time
from pathlib import Path
import alone
here = Path(sys.argv[1])
with alone.machine(alone=False):
    (here / "in").touch()
    while not (here / "go").exists():
        time.sleep(0.01)
    (here / "out").touch()
"""


@pytest.mark.middle
def test_an_alone_test_waits_until_the_other_workers_test_has_ended(tmp_path, monkeypatch):
    """Another worker's test (a process holding the shared lock until told to end) is running:
    an `alone` test blocks until it has ended, and starts then."""
    monkeypatch.setenv(measuring_group.FOLDER_ENV, str(tmp_path))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], env=env)
    deadline = time.monotonic() + 60
    while not (tmp_path / "in").exists():
        assert holder.poll() is None and time.monotonic() < deadline, "the holder never started"
        time.sleep(0.01)
    other_ended: list[bool] = []

    def alone_test() -> None:
        with alone.machine(alone=True):
            other_ended.append((tmp_path / "out").exists())

    waiting = threading.Thread(target=alone_test)
    waiting.start()
    waiting.join(1.0)  # room to start at once, which it must not
    still_blocked = waiting.is_alive()
    (tmp_path / "go").touch()
    waiting.join(60)
    assert holder.wait(60) == 0
    assert still_blocked and other_ended == [True], other_ended
