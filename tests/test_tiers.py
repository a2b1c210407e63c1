"""The tests' own sorting (tests/conftest.py): a test's tier follows from its fixtures, and the
tests that measure run in one xdist group, one at a time, never beside each other."""

from __future__ import annotations

from typing import Iterator

import pytest

import conftest


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
    (("verified",), (), "slow", True),
    (("tmp_path",), ("middle",), "middle", False),  # a marked tier counts when slower
    (("real_bench",), ("middle",), "slow", True),
])
def test_a_tests_tier_and_group_follow_from_its_fixtures_and_marks(fixtures, marks, tier,
                                                                  measuring):
    item = _Item(fixtures, marks)
    assert conftest._tier(item) == tier
    assert conftest.measures(item) is measuring


def test_the_collection_hook_gives_each_test_its_tier_time_limit_and_group():
    items = [_Item(("real_bench",)), _Item(("cli",), ("measures",)), _Item(("fake_bench",)),
             _Item(("fake_bench", "wrk"))]
    conftest.pytest_collection_modifyitems(items)
    tiers = [[m.name for m in i.iter_markers() if m.name in conftest.TIERS] for i in items]
    assert tiers == [["slow"], ["fast"], ["middle"], ["middle"]]
    limits = [[m.args[0] for m in i.iter_markers("timeout")] for i in items]
    assert limits == [[conftest.TIMEOUT_S[t[0]]] for t in tiers]
    groups = [[m.args[0] for m in i.iter_markers("xdist_group")] for i in items]
    assert groups == [[conftest.MEASURING], [], [], [conftest.MEASURING]]
