"""A server's HTTP stack (manifest `server_stack`: standard or minimal) recorded in each
server cell's results and named beside the contender in the server tables and the summary of
every view (report.stack; docs/contract.md, "Manifest keys for servers"), so a minimal server
is compared knowingly; batch cells have none and get no column.

Two fake servers, the same script declared with either stack, are run as a plan; every
name shown is checked against what results.json recorded.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tomllib

import pytest

from concbench.report import stack
from concbench.report.table import tables
from concbench.resultset import io as results_io

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time

LOAD = ["--param", "connections=4", "--param", "duration-s=1", "--param", "warmup-s=0",
        "--runs", "1"]
STANDARD = '''
[contenders.fake-server-standard]
run = ["{python}", "server.py", "good"]
workloads = ["http-hello"]
server_stack = "standard"
'''


def _folder(bench):
    return sorted((bench.root / "results").glob("*/results.json"))[-1].parent


@pytest.fixture(scope="module")
def served(bench_factory, wrk):
    bench = bench_factory("stacks")
    manifest = bench.root / "contenders" / "fake" / "contenders.toml"
    manifest.write_text(manifest.read_text() + STANDARD)
    declared = tomllib.loads(manifest.read_text())["contenders"]
    res = bench("run", "http-hello", "--contender", "fake-server", "--contender",
                "fake-server-standard", *LOAD, timeout=180)
    assert res.code == 0, res.stderr
    folder = _folder(bench)
    return {"declared": declared, "stdout": res.stdout, "folder": folder,
            "raw": json.loads((folder / "results.json").read_text()),
            "doc": results_io.read(folder / "results.json")}


def test_each_server_cell_records_its_stack(served):
    recorded = {c["contender"]: c["metadata"]["server_stack"] for c in served["raw"]["cells"]}
    assert recorded == {name: served["declared"][name]["server_stack"] for name in recorded}
    assert set(recorded.values()) == {"standard", "minimal"}


def test_the_server_table_names_the_stack_beside_the_contender(served):
    (table,) = tables(served["doc"].cells)
    assert table.headers[:2] == ("contender", stack.HEADER)
    shown = {row[0]: row[1] for row in table.rows}
    assert shown == {c["contender"]: c["metadata"]["server_stack"]
                     for c in served["raw"]["cells"]}
    markdown = (served["folder"] / "results.md").read_text()
    html = (served["folder"] / "results.html").read_text()
    for name, kind in shown.items():
        assert re.search(rf"^\| {re.escape(name)} \| {kind} \|", markdown, re.M)
        assert f"<td>{name}</td><td>{kind}</td>" in html
        assert re.search(rf"│ {re.escape(name)}\s+│ {kind}\s+│", served["stdout"])
    rows = csv.DictReader(io.StringIO((served["folder"] / "results.csv").read_text()))
    assert {r["contender"]: r["server_stack"] for r in rows} == shown


def test_the_summary_names_each_server_with_its_stack(served):
    names = [f"{c['contender']} ({c['metadata']['server_stack']})"
             for c in served["raw"]["cells"]]
    summary = served["stdout"][served["stdout"].index("Summary"):]
    markdown = (served["folder"] / "results.md").read_text()
    html = (served["folder"] / "results.html").read_text()
    top = markdown[:markdown.index("### http-hello")]  # the summary at the top
    for name in names:
        assert name in summary and name in top and name in html, name


BOTH = '''
[contenders.fake-both]
run = ["{python}", "contender.py", "good"]
workloads = ["sleep-tasks", "http-hello"]
pooled = ["sleep-tasks"]
server_stack = "minimal"
'''
"""A contender that serves an http-* workload too (its stack declared), run on a batch one."""


def test_batch_cells_have_no_stack(bench_factory):
    bench = bench_factory("no-stack")
    manifest = bench.root / "contenders" / "fake" / "contenders.toml"
    manifest.write_text(manifest.read_text() + BOTH)
    res = bench("run", "sleep-tasks", "--contender", "fake-both", "--param", "tasks=10",
                "--param", "sleep-ms=10", "--param", "pool-size=10", "--runs", "1")
    assert res.code == 0, res.stderr
    folder = _folder(bench)
    (cell,) = json.loads((folder / "results.json").read_text())["cells"]
    assert "server_stack" not in cell["metadata"]
    (table,) = tables(results_io.read(folder / "results.json").cells)
    assert stack.HEADER not in table.headers
    assert "server_stack" not in (folder / "results.csv").read_text().splitlines()[0]
