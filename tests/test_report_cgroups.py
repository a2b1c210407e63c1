"""The cgroup figures of runs under --cpus / --memory in every view: the terminal's tables, the
Markdown, the HTML report and the CSV (report.cgroup_columns, report.runtime_saw,
export.csv_format; docs/containers.md). Each figure shown is checked against what the run
recorded in its results.json, and a plan without limits gets none of the columns.

The fake contenders run in real cgroups, as in tests/test_cgroups.py: fake-burn spins 0.3 s
of CPU per iteration (throttled under 0.2 CPUs), fake-allocate touches 256 MiB (the kernel's
OOM killer ends it under 64 MiB), and fake-server's ready line reports its CPUs.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from cgroup_support import needs_cgroups

from concbench.report import cgroup_columns, units
from concbench.report.cgroup_columns import nanoseconds
from concbench.report.table import tables
from concbench.resultset import io as results_io

BURN = ["--param", "rings=1", "--param", "size=2", "--param", "passes=1000"]
SLEEPS = ["--param", "tasks=10", "--param", "sleep-ms=10", "--param", "pool-size=10"]

SAW = '''"""fake-burn whose iterations also report Tokio's worker count, as rust-tokio's do: the
fake contender's own code, with its emit wrapped (one process, no wrapper process)."""
import os
source = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "contender.py")).read()
body = source[:source.rindex("main()")]
space = {"__name__": "fake_contender"}
exec(compile(body, "contender.py", "exec"), space)
emit = space["emit"]
def with_workers(obj):
    if obj.get("type") == "iteration":
        obj["result"]["tokio_workers"] = len(os.sched_getaffinity(0))
    emit(obj)
space["emit"] = with_workers
space["main"]()
'''

MANIFEST = '''
[contenders.fake-burn-saw]
run = ["{python}", "saw.py", "burn"]
workloads = ["ring"]
'''


pytestmark = [pytest.mark.measures, needs_cgroups]


class Views:
    """One run's results.json and every view written of it, with the terminal's output."""

    def __init__(self, bench, stdout: str):
        folder = sorted((bench.root / "results").glob("*/results.json"))[-1].parent
        self.raw = json.loads((folder / "results.json").read_text())
        self.doc = results_io.read(folder / "results.json")
        self.terminal = stdout
        self.markdown = (folder / "results.md").read_text()
        self.html = (folder / "results.html").read_text()
        self.csv = list(csv.DictReader(io.StringIO((folder / "results.csv").read_text())))

    def row(self, contender: str) -> dict[str, str]:
        """The cell's row of its table, by header (as every view renders it)."""
        (table,) = tables(self.doc.cells)
        row = next(r for r in table.rows if r[0] == contender)
        return dict(zip(table.headers, row))

    def every_view_shows(self, *texts: str) -> None:
        assert all(f"<th>{h}</th>" in self.html for h in cgroup_columns.HEADERS)
        for text in texts:
            assert text in self.terminal, text
            assert text in self.markdown, text
            assert text in self.html, text


def _run(bench, *args: str, timeout: float = 180) -> Views:
    res = bench("run", *args, timeout=timeout)
    assert res.code == 0, res.stderr
    return Views(bench, res.stdout)


@pytest.fixture(scope="module")
def burn(bench_factory) -> Views:
    bench = bench_factory("cgroup-burn")
    fake = bench.root / "contenders" / "fake"
    (fake / "saw.py").write_text(SAW)
    with open(fake / "contenders.toml", "a") as manifest:
        manifest.write(MANIFEST)
    return _run(bench, "ring", "--contender", "fake-burn-saw", *BURN, "--runs", "1",
                "--iterations", "3", "--cpus", "0.2")


def test_a_quota_shows_its_limit_throttling_per_unit_and_the_cgroups_peak(burn):
    (cell,) = burn.raw["cells"]
    assert cell["status"] == "ok", cell["reason"]
    stats = cell["stats"]
    per_unit = stats["cgroup_throttled_ns_per_unit"]["median"]
    share = stats["cgroup_throttled_percent"]["median"]
    assert per_unit > 0 and share > 0  # fake-burn wants 1.5 times its quota: it is throttled
    throttled = f"{nanoseconds(per_unit)}/hand-off ({share:.0f}%)"
    peak = units.size(stats["cgroup_peak_bytes"]["median"])
    limit = f"{cell['runs'][0]['cgroup']['cpus']:g} CPU"
    row = burn.row("fake-burn-saw")
    assert (row["limits"], row["throttled (periods)"], row["cgroup peak"],
            row["OOM kills"]) == (limit, throttled, peak, "0")
    burn.every_view_shows(*cgroup_columns.HEADERS, limit, throttled, peak)
    (line,) = burn.csv
    assert float(line["limit_cpus"]) == cell["runs"][0]["cgroup"]["cpus"]
    assert line["limit_memory_bytes"] == ""
    for key in ("cgroup_throttled_ns_per_unit", "cgroup_throttled_percent",
                "cgroup_throttled_ms", "cgroup_throttled_s", "cgroup_peak_bytes"):
        assert float(line[key]) == pytest.approx(stats[key]["median"]), key
    assert (line["cgroup_oom_kills"], line["cgroup_oom_ended_runs"], line["cgroup_runs"]) == \
        ("0", "0", "1")


def test_what_the_runtime_saw_is_shown_from_its_results(burn):
    (cell,) = burn.raw["cells"]
    (workers,) = {it["result"]["tokio_workers"] for it in cell["runs"][0]["iterations"]}
    assert burn.row("fake-burn-saw")["runtime saw"] == f"Tokio workers {workers}"
    burn.every_view_shows(f"Tokio workers {workers}")
    (line,) = burn.csv
    assert (line["runtime_cpus"], line["runtime_saw"]) == \
        (str(workers), f"Tokio workers={workers}")


@pytest.fixture(scope="module")
def killed(bench_factory) -> Views:
    return _run(bench_factory("cgroup-oom"), "sleep-tasks", "--contender", "fake-allocate",
                *SLEEPS, "--runs", "2", "--memory", "64M")


def test_a_kernel_oom_kill_shows_with_the_kernels_count(killed):
    (cell,) = killed.raw["cells"]
    assert cell["status"] == "mem-limit", cell["reason"]
    kills = sum(r["cgroup"]["memory"]["oom_kills"] for r in cell["runs"])
    assert kills >= 1
    shown = f"{kills} (1 of {len(cell['runs'])} runs mem-limit)"
    limit = units.size(cell["runs"][0]["cgroup"]["memory_limit_bytes"])
    row = killed.row("fake-allocate")
    assert (row["limits"], row["OOM kills"]) == (limit, shown)
    assert row["throttled (periods)"] == "—"  # no CPU quota
    assert row["cgroup peak"] == "—"  # a failed cell shows its status, not figures
    killed.every_view_shows(shown, limit)
    (line,) = killed.csv
    assert (line["cgroup_oom_kills"], line["cgroup_oom_ended_runs"]) == (str(kills), "1")
    assert int(line["limit_memory_bytes"]) == cell["runs"][0]["cgroup"]["memory_limit_bytes"]


def test_a_server_under_a_quota_shows_what_its_ready_line_said(bench_factory, wrk):
    views = _run(bench_factory("cgroup-server"), "http-hello", "--contender", "fake-server",
                 "--param", "duration-s=2", "--param", "warmup-s=0", "--param",
                 "connections=4", "--runs", "1", "--cpus", "0.3")
    (cell,) = views.raw["cells"]
    assert cell["status"] == "ok", cell["reason"]
    cpus = cell["runs"][0]["server"]["runtime"]["cpus"]
    stats = cell["stats"]
    throttled = (f"{nanoseconds(stats['cgroup_throttled_ns_per_unit']['median'])}/request "
                 f"({stats['cgroup_throttled_percent']['median']:.0f}%)")
    row = views.row("fake-server")
    assert (row["runtime saw"], row["throttled (periods)"]) == (f"cpus {cpus}",
                                                                         throttled)
    views.every_view_shows(f"cpus {cpus}", throttled, "0.3 CPU")
    assert views.csv[0]["runtime_cpus"] == str(cpus)


def test_without_limits_no_cgroup_column_is_added(bench_factory):
    views = _run(bench_factory("cgroup-none"), "sleep-tasks", "--contender", "fake-good",
                 *SLEEPS, "--runs", "1")
    (table,) = tables(views.doc.cells)
    assert not set(cgroup_columns.HEADERS) & set(table.headers)
    for header in cgroup_columns.HEADERS:
        assert header not in views.terminal and header not in views.markdown
        assert f"<th>{header}</th>" not in views.html
    assert not any(k.startswith(("limit_", "cgroup_", "runtime_")) for k in views.csv[0])
