"""The terminal: the summary is the last screen and fits it, tables fit the width without
breaking a contender's name (--wide keeps every column), progress names a cell by what
varies in the plan."""

from __future__ import annotations

import io
import re

import pytest
from rich.cells import cell_len
from rich.console import Console

from concbench import manifest, ui, workloads
from concbench.plan import CellPlan
from concbench.report import summary, summary_terminal
from concbench.report.cell_names import CellNames
from concbench.report.table import tables
from quick_doc import quick_document

DOC = quick_document()
CASES = summary.summaries(DOC.cells, largest_only=True)
NAMES = {c.contender for c in DOC.cells}


def _lines(width: int, height: int | None) -> list[str]:
    return [t.plain for t in summary_terminal.render(CASES, summary.machine_flags(DOC.machine),
                                                     width, height)]


def _names_in(line: str) -> set[str]:
    return {n for n in NAMES if re.search(rf"(^|[\s·≈✗]){re.escape(n)} ", line)}


@pytest.mark.parametrize("width, height", [(180, 50), (120, 50), (100, 40), (80, 40)])
def test_the_summary_fits_the_screen_and_breaks_no_name(width, height):
    lines = _lines(width, height)
    assert len(lines) <= height - summary_terminal.RESERVED_LINES + 2  # the legend may wrap
    body = lines[3:]
    assert all(cell_len(line) <= width for line in body), max(body, key=cell_len)
    for word in " ".join(body).split():  # a name cut in two leaves a piece that is none
        assert word in NAMES or not any(n.startswith(word) and "-" in n for n in NAMES) \
            or word in {"java", "python", "rust", "kotlin", "spring", "http"}, word
    for case in CASES:  # every leader is named, and every contender is named or counted
        assert any(case.leader.contender in line for line in body)


def test_with_room_or_wide_every_contender_is_named():
    shown = "\n".join(_lines(180, None))
    for case in CASES:
        for standing in case.standings:
            assert standing.contender in shown
    assert "more, to" not in shown


def test_on_a_short_screen_the_tail_is_counted_not_dropped():
    lines = _lines(120, 30)
    hidden = [int(m.group(1)) for m in (re.search(r"… (\d+) more", line) for line in lines)
              if m]
    assert hidden, "30 lines cannot hold every contender of quick"
    fanout = next(line for line in lines if line.startswith("fanout"))
    assert "rust-tokio" in fanout and "java-structured timeout" in "\n".join(lines[3:6])


def test_flags_stand_beside_the_figure():
    shown = "\n".join(_lines(180, None))
    assert re.search(r"nginx \d\.\d\d× \[generator-bound\]", shown)
    assert re.search(r"node \d\.\d\d×±\d+% \[stolen CPU \(6\.5%\)\]", shown)
    assert "(every figure: n = 1)" in shown and "machine: other load" in shown


def _capture(width: int, wide: bool = False) -> str:
    buffer = io.StringIO()
    out, err = ui.out, ui.err
    ui.out = Console(file=buffer, width=width, height=60, force_terminal=True, color_system=None)
    ui.err = Console(file=io.StringIO(), width=width)
    ui.set_wide(wide)
    try:
        ui.print_tables(DOC)
    finally:
        ui.out, ui.err = out, err
        ui.set_wide(False)
    return buffer.getvalue()


def test_tables_fit_the_terminal_and_say_which_columns_they_left_out():
    text = _capture(120)
    table_lines = [line for line in text.splitlines() if line.startswith(("┃", "│", "┏"))]
    assert table_lines and all(cell_len(line) <= 120 for line in table_lines)
    assert "left out to fit 120 columns: cold (1st iteration)" in text
    rows = [line for line in table_lines if line.startswith("│")]
    first_cells = {line.split("│")[1].strip() for line in rows} - {""}
    assert first_cells <= NAMES and "java-thread-per-conn" in first_cells  # never cut


def test_wide_keeps_every_column():
    text = _capture(120, wide=True)
    assert "left out" not in text
    for table in tables(DOC.cells):
        header_text = re.sub(r"\s+", " ", text)
        assert all(h.split(" ")[0] in header_text for h in table.headers)
    assert max(cell_len(line) for line in text.splitlines()) > 120


def test_the_summary_is_the_last_thing_printed():
    text = _capture(180)
    tail = text[text.rindex("Summary"):]
    assert "┃" not in tail and "rust-tokio 201.0 ms" in tail


def _plan_cells(workload: str, contenders: list[str], params: list[dict]) -> list[CellPlan]:
    from concbench import paths

    known = manifest.discover(paths.contenders_dir())
    spec = workloads.get(workload)
    return [CellPlan(spec, known[c], spec.resolve(p)) for p in params for c in contenders]


def test_progress_names_a_cell_by_what_varies_and_leaves_out_what_does_not_apply():
    cells = _plan_cells("sleep-tasks", ["go", "java-platform"],
                        [{"tasks": 1000, "pool-size": 50}, {"tasks": 1000, "pool-size": 100}])
    names = CellNames(cells)
    by = {(c.contender.name, c.params["pool-size"]): names.name(
        c.spec.name, c.contender.name, c.params) for c in cells}
    assert by[("java-platform", 50)] == "sleep-tasks · java-platform · pool-size=50"
    assert by[("go", 50)] == "sleep-tasks · go"  # go keeps no pool: pool-size does not apply
    assert "tasks=" not in by[("java-platform", 100)]  # the same in every cell: not said


def test_a_pool_in_a_thread_budget_or_a_server_bound_counts_as_applying():
    cells = _plan_cells("http-aggregate", ["java-platform", "go"],
                        [{"pool-size": 10}, {"pool-size": 20}])
    names = CellNames(cells)
    assert names.params("http-aggregate", "java-platform", cells[0].params) == "pool-size=10"
    assert names.params("http-aggregate", "go", cells[1].params) == ""
