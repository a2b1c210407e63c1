"""docs/known-answers.md names, for every measured column of results.csv, the test that pins
its figure to a known answer. Checked here against the exporter's own columns
(export.csv_format), so a new measured column without a row, a row for a column that is
gone, a test renamed or removed, or a gap filled without saying so fails."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from concbench.export import csv_format

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "known-answers.md"
PACKAGE = REPO / "harness" / "concbench"
HEADER = ("column", "computed by", "known-answer test", "tolerance")
NONE_YET = "none yet"

NOT_MEASURED = frozenset({
    # which cell: its identity and parameters
    "workload", "contender", "params",
    # how it ended
    "status", "reason",
    # how many values its figures rest on
    "n", "cgroup_runs",
    # the unit its throughput counts (tasks, requests, hand-offs, ...)
    "throughput_unit",
    # the limits it ran under (--cpus / --memory), as asked of the cgroup
    "limit_cpus", "limit_memory_bytes",
    # what its runtime reported of itself (ready line or batch result), copied as is
    "runtime_cpus", "runtime_saw",
    # the server's HTTP stack, from the manifest
    "server_stack",
})
"""results.csv's columns that say what a cell is, not what it measured: they get no row."""

GAPS: frozenset[str] = frozenset()
"""Measured columns without a known-answer test yet (docs/known-answers.md, "Gaps"). Filling
one: name its test in the doc's row and take it out of here."""

TEST_NAME = re.compile(r"`?tests/([\w/]+\.py)::(\w+)(?:\[[^\]]*\])?`?")
COMPUTED_BY = re.compile(r"`([\w.]+):([\w.]+)`")


def exporter_columns() -> tuple[str, ...]:
    """Every column results.csv can have, the conditional groups included."""
    return (*csv_format.COLUMNS, *csv_format.LIMIT_COLUMNS, *csv_format.STACK_COLUMNS,
            *csv_format.SYSCALL_COLUMNS)


def measured_columns() -> list[str]:
    return [c for c in exporter_columns() if c not in NOT_MEASURED]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@functools.cache
def table() -> tuple[tuple[str, ...], ...]:
    """The doc's table: (column, computed by, known-answer test, tolerance) per row."""
    lines = DOC.read_text().splitlines()
    starts = [i for i, line in enumerate(lines)
              if line.startswith("|") and tuple(_cells(line)) == HEADER]
    assert len(starts) == 1, f"{DOC}: one table headed {' | '.join(HEADER)}"
    rows = []
    for line in lines[starts[0] + 2:]:
        if not line.startswith("|"):
            break
        cells = _cells(line)
        assert len(cells) == len(HEADER), f"{DOC}: a row of {len(cells)} cells: {line}"
        rows.append((cells[0].strip("`"), *cells[1:]))
    return tuple(rows)


def rows_by_column() -> dict[str, tuple[str, ...]]:
    return {row[0]: row for row in table()}


def named_tests(cell: str) -> list[tuple[str, str]]:
    """(file under tests/, function) of each test a row names (parametrized ids dropped)."""
    return TEST_NAME.findall(cell)


@functools.cache
def _defined(path: Path) -> frozenset[str]:
    """Every function, class and assigned name a module defines, at any depth."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return frozenset(names)


def test_the_exclusions_are_columns_of_the_exporter():
    assert NOT_MEASURED <= set(exporter_columns()), \
        sorted(NOT_MEASURED - set(exporter_columns()))


def test_every_measured_column_has_a_row():
    missing = [c for c in measured_columns() if c not in rows_by_column()]
    assert missing == [], f"measured columns without a row in {DOC.name}: {missing}"


def test_every_row_names_a_measured_column_of_the_exporter_once():
    columns = [row[0] for row in table()]
    assert len(columns) == len(set(columns)), \
        sorted({c for c in columns if columns.count(c) > 1})
    unknown = [c for c in columns if c not in exporter_columns()]
    assert unknown == [], f"rows for columns results.csv does not have: {unknown}"
    excluded = [c for c in columns if c in NOT_MEASURED]
    assert excluded == [], f"rows for columns listed as not measured: {excluded}"


def test_every_named_test_exists():
    found = [(row[0], file, name) for row in table() for file, name in named_tests(row[2])]
    assert found
    absent = [(column, f"tests/{file}::{name}") for column, file, name in found
              if not (REPO / "tests" / file).is_file()
              or name not in _defined(REPO / "tests" / file)]
    assert absent == [], absent


def test_the_rows_without_a_test_are_exactly_the_listed_gaps():
    """A row names at least one test and says its tolerance, or says `none yet` and nothing
    else; the `none yet` rows are GAPS."""
    malformed = [row[0] for row in table()
                 if (row[2] == NONE_YET) == bool(named_tests(row[2]))
                 or (row[2] != NONE_YET and not row[3])]
    assert malformed == [], malformed
    gaps = {row[0] for row in table() if row[2] == NONE_YET}
    assert gaps == GAPS, {"marked none yet, not in GAPS": sorted(gaps - GAPS),
                          "in GAPS, given a test": sorted(GAPS - gaps)}


def test_what_computes_each_figure_exists():
    """Each `module:name` of the "computed by" column is defined under harness/concbench."""
    absent = []
    for row in table():
        named = COMPUTED_BY.findall(row[1])
        if not named:
            absent.append((row[0], row[1]))
        for module, name in named:
            base = PACKAGE.joinpath(*module.split("."))
            path = base.with_suffix(".py") if base.with_suffix(".py").is_file() \
                else base / "__init__.py"
            if not path.is_file() or name.split(".")[-1] not in _defined(path):
                absent.append((row[0], f"{module}:{name}"))
    assert absent == [], absent


SUMMARY_HEADER = ("summary figure", "computed by", "known-answer test", "tolerance")


def test_the_summarys_figures_each_name_a_test_that_exists_and_what_computes_them():
    lines = DOC.read_text().splitlines()
    (start,) = [i for i, line in enumerate(lines)
                if line.startswith("|") and tuple(_cells(line)) == SUMMARY_HEADER]
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(_cells(line))
    assert len(rows) >= 7 and all(len(r) == len(SUMMARY_HEADER) and r[3] for r in rows), rows
    absent = []
    for figure, computed, tests, _ in rows:
        named = named_tests(tests)
        if not named or not COMPUTED_BY.findall(computed):
            absent.append(figure)
        for file, name in named:
            if not (REPO / "tests" / file).is_file() or name not in _defined(REPO / "tests" / file):
                absent.append(f"{figure}: tests/{file}::{name}")
        for module, name in COMPUTED_BY.findall(computed):
            path = PACKAGE.joinpath(*module.split(".")).with_suffix(".py")
            if not path.is_file() or name.split(".")[-1] not in _defined(path):
                absent.append(f"{figure}: {module}:{name}")
    assert absent == [], absent
