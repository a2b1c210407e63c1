"""Every server as a ratio to nginx measured in the same round (concbench.stats.ceiling_ratio):
the pairing by round and parameters, the median and the interval on the logarithms, where no
ratio is defined, every view that shows it, and an interleaved plan of fake servers (a fake
nginx: a fake server named as the ceiling) recording a round per run and the ratio."""

from __future__ import annotations

import dataclasses
import json
import math
import statistics

import pytest

from concbench import workloads
from concbench.export import markdown_format
from concbench.report import markdown_sections
from concbench.report import html, summary, summary_text
from concbench.report.table import tables
from concbench.resultset.model import CellResult, ResultsDocument, RunResult
from concbench.stats import ceiling_ratio
from concbench.stats.cell import aggregate
from concbench.workloads.budget import UNBOUNDED
from sample_doc import _server_run

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time

HELLO = workloads.get("http-hello")
AGG = workloads.get("http-aggregate")
META = {"throughput_unit": "requests", "placement": {"server": [0], "client": [1]}}


def _runs(rates: list[float], rounds: list[int | None] | None = None) -> list[RunResult]:
    rounds = rounds if rounds is not None else list(range(len(rates)))
    return [dataclasses.replace(_server_run(rate, 3, 8, 30, 80, 90, 12, 6), round=r)
            for rate, r in zip(rates, rounds)]


def _cell(contender: str, rates: list[float], connections: int = 256,
          rounds: list[int | None] | None = None, spec=HELLO) -> CellResult:
    params = spec.resolve({"connections": connections})
    return aggregate(spec, contender, params, UNBOUNDED, _runs(rates, rounds), dict(META))


def _with_ratios(cells: list[CellResult]) -> dict[tuple[str, int], CellResult]:
    found = [ceiling_ratio.with_ratio(c, cells) for c in cells]
    return {(c.contender, c.params["connections"]): c for c in found}


def _doc(cells: list[CellResult]) -> ResultsDocument:
    return ResultsDocument(run_id="20260101-000000-ratio", concbench_revision="t",
                           created_at="2026-01-01", machine={}, toolchains={},
                           plan={"name": "t", "runs": 3, "interleave": True},
                           cells=tuple(ceiling_ratio.with_ratio(c, cells) for c in cells))


def test_each_run_is_divided_by_nginx_in_its_own_round():
    """A host twice as fast in round 1 moves both; the ratio stays (what pairing is for)."""
    cells = [_cell("nginx", [40000, 80000, 50000]), _cell("go", [20000, 40000, 30000])]
    go = _with_ratios(cells)[("go", 256)]
    pairs = go.metadata["nginx_ratio"]["rounds"]
    assert [p["round"] for p in pairs] == [0, 1, 2]
    assert [p["ratio"] for p in pairs] == [0.5, 0.5, 0.6]
    s = go.stats["nginx_ratio"]
    assert s.n == 3 and s.median == 0.5 and s.min == 0.5 and s.max == 0.6
    # the ratio of medians would read 30k / 50k = 0.6: the pairing is not that
    assert go.stats["requests_per_s"].median / 50000 == pytest.approx(0.6)


def test_the_interval_is_the_t_interval_of_the_geometric_mean_on_the_logarithms():
    from scipy import stats

    ratios = [0.42, 0.47, 0.51, 0.44]
    cells = [_cell("nginx", [100000] * 4), _cell("go", [r * 100000 for r in ratios])]
    s = _with_ratios(cells)[("go", 256)].stats["nginx_ratio"]
    logs = [math.log(r) for r in ratios]
    lo, hi = stats.t.interval(0.95, len(logs) - 1, loc=statistics.fmean(logs),
                              scale=stats.sem(logs))
    assert s.ci95 == pytest.approx((math.exp(lo), math.exp(hi)))
    assert s.mean == pytest.approx(math.exp(statistics.fmean(logs)))
    assert s.median == pytest.approx(statistics.median(ratios))
    assert s.ci95[0] < s.mean < s.ci95[1]


def test_a_single_pair_has_a_ratio_and_no_interval():
    cells = [_cell("nginx", [80000]), _cell("go", [20000])]
    s = _with_ratios(cells)[("go", 256)].stats["nginx_ratio"]
    assert s.n == 1 and s.median == 0.25 and s.ci95 is None


def test_pairs_need_the_same_parameters_and_the_same_round():
    cells = [_cell("nginx", [40000, 40000]), _cell("go", [20000, 20000], connections=10000),
             _cell("rust-tokio", [30000, 30000], rounds=[1, 2])]
    found = _with_ratios(cells)
    assert "nginx_ratio" not in found[("go", 10000)].stats  # no nginx at 10 000 connections
    rust = found[("rust-tokio", 256)]
    assert [p["round"] for p in rust.metadata["nginx_ratio"]["rounds"]] == [1]
    assert rust.metadata["nginx_ratio"]["unpaired"] == [
        {"round": 2, "why": "no nginx run in this round"}]
    assert "nginx_ratio" not in found[("nginx", 256)].stats  # nginx is not ranked against itself


def test_no_ratio_without_rounds_for_http_aggregate_or_without_nginx():
    sequential = [_cell("nginx", [40000, 40000], rounds=[None, None]),
                  _cell("go", [20000, 20000], rounds=[None, None])]
    assert all("nginx_ratio" not in c.stats for c in _with_ratios(sequential).values())
    # a plan whose http-aggregate cells sit beside an nginx http-hello cell of the same
    # connections: nginx serves only http-hello, so no ratio is defined
    agg = [_cell("nginx", [40000, 40000], connections=150),
           _cell("go", [247, 247], connections=150, spec=AGG)]
    assert "nginx_ratio" not in ceiling_ratio.with_ratio(agg[1], agg).stats
    alone = [_cell("go", [20000, 20000]), _cell("rust-tokio", [30000, 30000])]
    doc = _doc(alone)
    assert all("nginx_ratio" not in c.stats for c in doc.cells)
    names = [m.name for m in summary.metrics_for("http-hello")]
    assert names[names.index("requests/s") + 1] == "of nginx"
    assert not any(c.metric.name == "of nginx" for c in summary.summaries(doc.cells))
    (table,) = tables(doc.cells)
    assert "vs nginx" in table.headers  # the ratio of medians, as before
    assert markdown_sections.ceiling_note(doc) == []


def test_a_failed_or_unsettled_run_on_either_side_gives_no_ratio():
    nginx = _cell("nginx", [40000, 40000, 40000])
    unsettled = dataclasses.replace(
        nginx.runs[1], server={**nginx.runs[1].server, "warmup": {"settled": False}})
    nginx = dataclasses.replace(nginx, runs=(nginx.runs[0], unsettled, nginx.runs[2]))
    go = _cell("go", [20000, 20000, 20000])
    crashed = dataclasses.replace(go.runs[2], status="crash", reason="exit 1")
    go = dataclasses.replace(go, runs=(go.runs[0], go.runs[1], crashed))
    found = ceiling_ratio.with_ratio(go, [nginx, go])
    assert [p["round"] for p in found.metadata["nginx_ratio"]["rounds"]] == [0]
    assert found.metadata["nginx_ratio"]["unpaired"] == [
        {"round": 1, "why": "nginx warm-up did not settle"},
        {"round": 2, "why": "server run crash"}]


def test_with_one_continuous_load_the_windows_own_verdict_decides_the_ratio():
    """A run with a window verdict (server.steadiness) pairs when its window was steady, even
    after a warm-up that hit its cap, and not when its window drifted."""
    nginx = _cell("nginx", [40000, 40000, 40000])
    go = _cell("go", [20000, 20000, 20000])
    runs = list(go.runs)
    runs[0] = dataclasses.replace(runs[0], server={**runs[0].server, "warmup": {
        "settled": False}, "steadiness": {"steady": True}})
    runs[1] = dataclasses.replace(runs[1], server={**runs[1].server, "steadiness": {
        "steady": False}})
    found = ceiling_ratio.with_ratio(dataclasses.replace(go, runs=tuple(runs)), [nginx, go])
    assert [p["round"] for p in found.metadata["nginx_ratio"]["rounds"]] == [0, 2]
    assert found.metadata["nginx_ratio"]["unpaired"] == [
        {"round": 1, "why": "server run not steady in its window"}]


def test_a_new_nginx_run_refreshes_its_servers_and_nothing_else():
    cells = [_cell("nginx", [40000]), _cell("go", [20000, 30000]),
             _cell("go", [1000, 1000], connections=10000)]
    cells = [ceiling_ratio.with_ratio(c, cells) for c in cells]
    assert cells[1].stats["nginx_ratio"].n == 1
    assert ceiling_ratio.refreshed(cells) == []
    cells[0] = _cell("nginx", [40000, 60000])
    (changed,) = ceiling_ratio.refreshed(cells)
    assert changed.contender == "go" and changed.stats["nginx_ratio"].n == 2
    assert changed.stats["nginx_ratio"].median == pytest.approx((0.5 + 0.5) / 2)


def test_the_table_markdown_html_and_summary_show_the_ratio_with_its_interval():
    cells = [_cell("nginx", [40000, 80000, 50000]), _cell("go", [20000, 41000, 30000]),
             _cell("rust-tokio", [30000, 70000, 45000])]
    doc = _doc(cells)
    (table,) = tables(doc.cells)
    column = table.headers.index("vs nginx, same round (95% CI)")
    rows = {r[0]: r for r in table.rows}
    go = doc.cells[1].stats["nginx_ratio"]
    assert rows["go"][column] == (f"{go.median:.0%} ({go.ci95[0]:.0%}–{go.ci95[1]:.0%})")
    assert rows["nginx"][column] == "—"
    (case,) = [c for c in summary.summaries(doc.cells) if c.metric.name == "of nginx"]
    assert [s.contender for s in case.standings] == ["rust-tokio", "go"]  # nginx not ranked
    assert case.standings[0].figure == doc.cells[2].stats["nginx_ratio"].median
    assert summary_text.items(case)[0].value == f"{case.standings[0].figure:.0%}"
    md = markdown_format.serialize(doc).decode()
    assert "of nginx, same round" in md and "vs nginx, same round (95% CI)" in md
    assert "Student-t 95% interval of their geometric mean" in md
    page = html.render([(doc, None)])
    assert "of nginx, same round" in page and rows["go"][column] in page


def test_the_markdown_says_http_aggregate_has_no_nginx_ratio():
    cells = [_cell("nginx", [40000, 80000]), _cell("go", [20000, 41000]),
             _cell("go", [247, 246], connections=150, spec=AGG)]
    assert "Not defined for http-aggregate" in "".join(markdown_sections.ceiling_note(_doc(cells)))


FAKE_NGINX = """
[contenders.nginx]
style = "a fake server named as the ceiling (tests/test_ceiling_ratio.py)"
run = ["{python}", "server.py", "good"]
workloads = ["http-hello"]
server_stack = "standard"
"""


@pytest.mark.usefixtures("wrk")
def test_an_interleaved_plan_records_each_runs_round_and_the_ratio(fake_bench):
    manifest = fake_bench.root / "contenders" / "fake" / "contenders.toml"
    manifest.write_text(manifest.read_text() + FAKE_NGINX)
    # wrk, a generator per window: no window verdict, so every round pairs (a 1 s window of
    # the Python fake may drift, and a window not steady gives no ratio: tested apart)
    res = fake_bench("run", "http-hello", "--contender", "nginx", "--contender", "fake-server",
                     "--param", "connections=4", "--param", "duration-s=1",
                     "--param", "warmup-s=0", "--param", "loadgen=wrk", "--runs", "3",
                     "--interleave")
    assert res.code == 0, res.stderr[-2000:]
    doc = fake_bench.last()
    cells = {c["contender"]: c for c in doc["cells"]}
    assert [r["round"] for r in cells["nginx"]["runs"]] == [0, 1, 2]
    assert [r["round"] for r in cells["fake-server"]["runs"]] == [0, 1, 2]
    paired = cells["fake-server"]["metadata"]["nginx_ratio"]["rounds"]
    for pair, run, top in zip(paired, cells["fake-server"]["runs"], cells["nginx"]["runs"]):
        assert pair["ratio"] == run["load"]["requests_per_s"] / top["load"]["requests_per_s"]
    stat = cells["fake-server"]["stats"]["nginx_ratio"]
    assert stat["n"] == 3 and stat["median"] == statistics.median(p["ratio"] for p in paired)
    assert "nginx_ratio" not in cells["nginx"]["stats"]
    assert "vs nginx, same round" in res.stdout
    md = (fake_bench.root / "results" / doc["run_id"] / "results.md").read_text()
    assert "of nginx, same round" in md
    # resumed without its last run, the server runs again in a new round (3, not 0: rounds
    # are numbered on from the last one recorded), where nginx has no run to pair with it
    path = fake_bench.root / "results" / doc["run_id"] / "results.json"
    cells["fake-server"]["runs"] = cells["fake-server"]["runs"][:2]
    path.write_text(json.dumps(doc))
    res = fake_bench("run", "http-hello", "--resume", doc["run_id"])
    assert res.code == 0, res.stderr[-2000:]
    resumed = {c["contender"]: c for c in json.loads(path.read_text())["cells"]}
    assert [r["round"] for r in resumed["fake-server"]["runs"]] == [0, 1, 3]
    assert resumed["fake-server"]["stats"]["nginx_ratio"]["n"] == 2
    assert resumed["fake-server"]["metadata"]["nginx_ratio"]["unpaired"] == [
        {"round": 3, "why": "no nginx run in this round"}]
