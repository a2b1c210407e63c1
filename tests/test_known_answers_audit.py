"""The known-answer audit (support/known-answers-audit) breaks each figure's computation and
expects its tests to fail; checked here without running it: every row of docs/known-answers.md
(the measured columns and the summary's figures) has at least one breakage, and every
breakage names a row, a text found exactly once in its file, and tests that row names."""

from __future__ import annotations

import sys
from pathlib import Path

import test_known_answers_table as doc_table

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "support" / "known-answers-audit"))

import audit  # noqa: E402


def _rows() -> dict[str, str]:
    """Each row's figure → the cell naming its tests, both tables of the doc."""
    lines = doc_table.DOC.read_text().splitlines()
    found = {}
    for header in (doc_table.HEADER, doc_table.SUMMARY_HEADER):
        (start,) = [i for i, line in enumerate(lines)
                    if line.startswith("|") and tuple(doc_table._cells(line)) == header]
        for line in lines[start + 2:]:
            if not line.startswith("|"):
                break
            cells = doc_table._cells(line)
            found[cells[0].strip("`")] = cells[2]
    return found


def test_every_row_has_a_breakage():
    rows, mutations = _rows(), audit.all_mutations()
    assert len(rows) >= 60
    missing = sorted(set(rows) - {m.figure for m in mutations})
    assert missing == [], f"rows of docs/known-answers.md without a breakage: {missing}"


def test_every_breakage_names_a_row_a_text_found_once_and_that_rows_tests():
    rows = _rows()
    wrong = []
    for m in audit.all_mutations():
        path = REPO / m.file
        if m.figure not in rows:
            wrong.append((m.figure, "no such row"))
            continue
        if not path.is_file() or path.read_text().count(m.old) != 1 or m.old == m.new:
            wrong.append((m.figure, f"{m.file}: the text to break is not there exactly once"))
        named = {f"tests/{f}::{n}" for f, n in doc_table.named_tests(rows[m.figure])}
        for test in m.tests:
            if test.split("[")[0] not in named:
                wrong.append((m.figure, f"{test} is not among the row's tests"))
    assert wrong == [], wrong
