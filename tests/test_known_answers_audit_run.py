"""The audit's verdict itself (support/known-answers-audit/audit.py: check), on a toy tree of
one module and its test: a breakage the test sees is caught; one it cannot see is not; a test
that fails unbroken proves nothing; a text that is not there once is not applied; and the file
is put back every time."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "support" / "known-answers-audit"))

import audit  # noqa: E402

pytestmark = pytest.mark.middle  # starts pytest in a process of its own

MODULE = "def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef unused():\n    return 1\n"
TEST = "from figure import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 6]) == 3\n"


def _tree(tmp_path: Path, test: str = TEST) -> Path:
    (tmp_path / "figure.py").write_text(MODULE)
    (tmp_path / "test_figure.py").write_text(test)
    return tmp_path


def _mutation(old: str, new: str) -> audit.Mutation:
    return audit.Mutation("mean_s", "figure.py", old, new, ("test_figure.py::test_mean",),
                          "a breakage")


def test_a_breakage_its_test_sees_is_caught_and_the_file_put_back(tmp_path):
    tree = _tree(tmp_path)
    caught, said = audit.check(_mutation("/ len(xs)", "/ (len(xs) - 1)"), tree, {})
    assert caught, said
    assert (tree / "figure.py").read_text() == MODULE


def test_a_breakage_its_test_cannot_see_is_not_caught(tmp_path):
    caught, said = audit.check(_mutation("return 1", "return 2"), _tree(tmp_path), {})
    assert not caught and "passed" in said


def test_a_test_that_fails_unbroken_proves_nothing(tmp_path):
    tree = _tree(tmp_path, TEST.replace("== 3", "== 4"))
    caught, said = audit.check(_mutation("/ len(xs)", "/ (len(xs) - 1)"), tree, {})
    assert not caught and "fail without the breakage" in said


def test_a_text_not_there_exactly_once_is_not_applied(tmp_path):
    caught, said = audit.check(_mutation("return", "yield"), _tree(tmp_path), {})
    assert not caught and "occurs 2 times" in said
