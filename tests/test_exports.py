"""Golden files for the CSV and Markdown exports; a round trip of results.json."""

from __future__ import annotations

import csv
import io as text_io
import json
import os
from pathlib import Path

import pytest

from concbench.export import FORMATS
from concbench.resultset import io
from concbench.export import csv_format
from conditional_columns_doc import conditional_document
from sample_doc import check_golden, sample_document


@pytest.mark.parametrize("fmt", ["csv", "markdown"])
def test_export_matches_golden_file(fmt):
    filename, serialize = FORMATS[fmt]
    check_golden(f"sample.{filename}", serialize(sample_document(servers=True)))


def test_every_conditional_column_group_matches_its_golden_file():
    """Limits and throttling, server_stack, system calls per request, CPU per request, the
    open-loop and capacity figures: a column of them dropped, renamed, moved or fed from
    another figure changes the file (tests/conditional_columns_doc.py)."""
    check_golden("conditional.results.csv", FORMATS["csv"][1](conditional_document()))


def test_the_conditional_document_fills_every_conditional_column():
    """So the golden file above holds a value for each of them, not an empty string that a
    column fed from a missing figure would also give."""
    header, *rows = csv.reader(text_io.StringIO(FORMATS["csv"][1](conditional_document())
                                                .decode()))
    groups = (*csv_format.LIMIT_COLUMNS, *csv_format.STACK_COLUMNS,
              *csv_format.SYSCALL_COLUMNS)
    assert tuple(header) == (*csv_format.COLUMNS, *groups)
    filled = ("server_cpu_us_per_request", "generator_cpu_us_per_request", "offered_per_s",
              "achieved_ratio", "saturated", "capacity_per_s", *groups)
    empty = [name for name in filled if not any(row[header.index(name)] for row in rows)]
    assert empty == []


def test_failed_cells_show_status_not_numbers():
    text = FORMATS["markdown"][1](sample_document()).decode()
    timeout_row = next(line for line in text.splitlines()
                       if line.startswith("| java-platform") and "timeout" in line)
    assert "timeout: still running" in timeout_row and " s |" not in timeout_row
    assert "unavailable: cargo not found" in text


def test_results_json_round_trip(tmp_path):
    doc = sample_document(servers=True)
    path = tmp_path / "results.json"
    io.write_atomically(path, io.to_json(doc))
    again = io.read(path)
    assert again == doc
    assert io.to_json(again) == io.to_json(doc)
    raw = json.loads(path.read_text())
    assert raw["schema_version"] == 1
    cell = raw["cells"][0]
    for key in ("workload", "contender", "params", "status", "reason", "ideal_s", "efficiency",
                "runs", "stats"):
        assert key in cell
    run = cell["runs"][0]
    for key in ("status", "wall_s", "startup_s", "peak_rss_bytes", "peak_threads",
                "cpu_user_s", "cpu_sys_s", "ctx_voluntary", "ctx_involuntary", "iterations",
                "marks"):
        assert key in run
    assert set(cell["stats"]["elapsed_s"]) >= {"n", "median", "mean", "stddev", "min", "max",
                                               "mad", "ci95", "cv"}


def test_a_real_results_file_round_trips(fake_bench):
    fake_bench("run", "fanout", "--contender", "fake-good", "--param", "requests=10",
               "--runs", "2")
    path = next((fake_bench.root / "results").glob("*/results.json"))
    doc = io.read(path)
    assert io.to_json(doc) == path.read_bytes()


def test_unknown_schema_version_is_refused(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"schema_version": 99}))
    with pytest.raises(Exception, match="schema_version 99"):
        io.read(path)


def test_bench_of_chan_csv_has_the_seed_layout(fake_bench):
    res = fake_bench("run", "channel", "--contender", "fake-good", "--contender", "fake-crash",
                     "--scan", "etype=int,str", "--scan", "workers=2,3", "--param", "events=5",
                     "--runs", "1")
    assert res.code == 0, res.stderr
    folder = next((fake_bench.root / "results").glob("*/"))
    rows = (folder / "bench-of-chan.csv").read_text().splitlines()
    assert rows[0] == "program,etype,worker,event,time,speed"
    assert len(rows) == 1 + 2 * 2 * 2  # program × etype × worker
    good = [r.split(",") for r in rows[1:] if r.startswith("fake-good")]
    assert {(r[1], r[2], r[3]) for r in good} == {("int", "2", "5"), ("int", "3", "5"),
                                                  ("str", "2", "5"), ("str", "3", "5")}
    for r in good:
        assert float(r[4]) > 0 and int(r[5]) > 0
    crashed = [r.split(",") for r in rows[1:] if r.startswith("fake-crash")]
    assert all(r[4] == "" and r[5] == "" for r in crashed)  # no figure for a failed cell


def test_no_bench_of_chan_csv_without_channel_cells(fake_bench):
    fake_bench("run", "fanout", "--contender", "fake-good", "--param", "requests=5", "--runs", "1")
    folder = next((fake_bench.root / "results").glob("*/"))
    assert not (folder / "bench-of-chan.csv").exists()


def test_a_failed_write_keeps_the_previous_file_whole(tmp_path, monkeypatch):
    """The atomic writer: a write that fails midway leaves the old file and no temporary."""
    import os

    import pytest

    from concbench import outputs
    from concbench.errors import UserError

    target = tmp_path / "results.json"
    outputs.write(target, b'{"old": true}')

    def fail(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(UserError, match="cannot write .*No space left on device"):
        outputs.write(target, b'{"new": true}')
    assert target.read_bytes() == b'{"old": true}'
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_results_json_built_from_kept_cell_texts_is_the_plain_dump():
    """The recorder rewrites results.json after every run from each cell's kept text: the bytes
    must be those of one json.dumps of the whole document, after a cell changes too."""
    import json
    from dataclasses import replace as swap

    from concbench.resultset import io as results_io
    from sample_doc import sample_document

    doc = sample_document(servers=True)
    fragments = results_io.CellFragments()

    def plain(d):
        return (json.dumps(results_io.to_dict(d), indent=1, ensure_ascii=False) + "\n").encode()

    assert results_io.to_json(doc, fragments) == plain(doc)
    changed = swap(doc, cells=doc.cells[:1] + (swap(doc.cells[1], warnings=("é ünïcode",)),)
                   + doc.cells[2:])
    assert results_io.to_json(changed, fragments) == plain(changed)
    empty = swap(doc, cells=())
    assert results_io.to_json(empty, fragments) == plain(empty)
    assert results_io.from_dict(json.loads(results_io.to_json(changed))) == changed


EXPORT_RUN = ["run", "sleep-tasks", "--contender", "fake-good", "--contender", "fake-crash",
              "--runs", "1", "--param", "tasks=10", "--param", "sleep-ms=1", "--param",
              "pool-size=2"]
FOLDER_FILE = {"json": "results.json", "csv": "results.csv", "markdown": "results.md",
               "html": "results.html"}


def test_every_export_target_gets_the_whole_file(fake_bench, tmp_path):
    """Each --export-* file holds what the results folder holds, and it is the run's."""
    targets = {fmt: tmp_path / "out" / f"r.{fmt}" for fmt in FOLDER_FILE}
    res = fake_bench(*EXPORT_RUN, *(a for fmt, path in targets.items()
                                    for a in (f"--export-{fmt}", str(path))))
    assert res.code == 0, res.stderr
    folder = next((fake_bench.root / "results").glob("*/results.json")).parent
    for fmt, path in targets.items():
        assert path.read_bytes() == (folder / FOLDER_FILE[fmt]).read_bytes(), fmt
    doc = json.loads(targets["json"].read_text())
    assert [c["contender"] for c in doc["cells"]] == ["fake-good", "fake-crash"]
    rows = targets["csv"].read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("workload,") and "fake-crash" in rows[2]
    assert "| fake-good |" in targets["markdown"].read_text()
    assert 'data-status="crash"' in targets["html"].read_text()


def _full_device(tmp_path: Path) -> Path:
    """A device that refuses every byte, like /dev/full: one made here (root), so that a
    harness that renames over its target replaces this node, never the system's."""
    import stat

    if os.geteuid() != 0:
        return Path("/dev/full")  # not root: nothing can be renamed into /dev
    node = tmp_path / "full"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    return node


def test_an_export_that_cannot_be_written_whole_is_exit_2_after_every_cell(fake_bench,
                                                                           tmp_path):
    full = _full_device(tmp_path)
    md = tmp_path / "r.md"
    res = fake_bench(*EXPORT_RUN, "--export-csv", str(full), "--export-markdown", str(md))
    assert res.code == 2, (res.stdout, res.stderr)
    text = " ".join(res.stderr.split())
    assert f"cannot write {full}: No space left on device" in text, res.stderr
    assert "Traceback" not in res.stderr and "every measured cell is safe" in text
    assert full.exists() and not full.is_file(), "the device was replaced by a file"
    doc = fake_bench.last()
    assert [(c["contender"], c["status"]) for c in doc["cells"]] == [("fake-good", "ok"),
                                                                     ("fake-crash", "crash")]
    assert "| fake-good |" in md.read_text()  # the other export is written all the same
