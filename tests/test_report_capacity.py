"""What a reader sees of the open-loop and capacity runs: the latency–load chart, the capacity
bars and table, the system calls and CPU per request in the HTML report and results.csv, and
`compare` on those figures; from fake documents (tests/capacity_doc.py), no servers."""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
import re

import pytest

from concbench import workloads
from concbench.compare import compare
from concbench.export import FORMATS
from concbench.report import capacity_chart, capacity_table, compare_table, html, \
    latency_load_chart, load_curves, markdown_report, summary, summary_text
from concbench.stats.cell import unavailable
from concbench.workloads.budget import UNBOUNDED

import capacity_doc as cd
from sample_doc import sample_document


def _ids(svg: bytes, prefix: str) -> list[str]:
    """SVG element ids starting with prefix, in drawing order."""
    return re.findall(rf'id="({prefix}[^"]*)"', svg.decode())


def _scan_curve() -> load_curves.LoadCurve:
    (curve,) = load_curves.curves(cd.rate_scan_cells())
    return curve


def test_latency_load_chart_draws_one_line_per_contender_over_the_offered_rates():
    curve = _scan_curve()
    assert [line.contender for line in curve.lines] == ["nginx", "go", "node"]
    for line in curve.lines:
        assert [p.offered_per_s for p in line.points] == [1000.0, 2000.0, 4000.0]
    node = curve.lines[2]
    assert [p.p99_ms for p in node.points] == [6.0, 12.0, 24.0]
    svg = latency_load_chart.render(curve)
    assert _ids(svg, "load-line-") == ["load-line-nginx", "load-line-go", "load-line-node"]
    assert "p99 latency against offered load" in svg.decode()


def test_a_point_where_the_server_fell_behind_is_marked_and_named():
    curve = _scan_curve()
    marked = [(ln.contender, p.offered_per_s) for ln in curve.lines for p in ln.points
              if p.saturated]
    assert marked == [("node", 4000.0)]
    svg = latency_load_chart.render(curve)
    assert _ids(svg, "saturated-") == ["saturated-node"]
    assert latency_load_chart.HOLLOW_NOTE in svg.decode()
    kept_up = load_curves.curves(cd.rate_scan_cells(("nginx", "go")))[0]
    assert latency_load_chart.HOLLOW_NOTE not in latency_load_chart.render(kept_up).decode()


def test_the_target_is_drawn_when_the_cells_carry_one_with_the_search_windows():
    (curve,) = load_curves.curves(cd.capacity_cells())
    assert curve.target_ms == 10.0
    svg = latency_load_chart.render(curve)
    assert _ids(svg, "target-p99") == ["target-p99"] and "target p99 ≤ 10 ms" in svg.decode()
    assert "window-missed-go" in _ids(svg, "window-") and "window-held-go" in _ids(svg, "window-")
    go = next(ln for ln in curve.lines if ln.contender == "go")
    assert sum(w.held for w in go.windows) == 3 and len(go.windows) == 12  # 4 a run, 3 runs
    assert _ids(latency_load_chart.render(_scan_curve()), "target-p99") == []


def test_closed_loop_cells_give_no_latency_load_chart():
    assert load_curves.curves(sample_document(servers=True).cells) == []


def test_capacity_bars_are_highest_first_with_nginx_the_ceiling():
    (chart,) = capacity_chart.capacity_charts(cd.capacity_cells())  # node, go, nginx in the doc
    assert [b.contender for b in chart.bars] == ["nginx", "go", "node"]
    assert [b.median for b in chart.bars] == [8550.0, 5700.0, 1900.0]
    assert all(b.ci95 and b.ci95[0] < b.median < b.ci95[1] for b in chart.bars)
    svg = capacity_chart.render(chart)
    assert _ids(svg, "capacity-bar-") == ["capacity-bar-nginx", "capacity-bar-go",
                                          "capacity-bar-node"]
    assert _ids(svg, "capacity-ceiling") == ["capacity-ceiling"]
    assert "nginx (ceiling)" in svg.decode() and "capacity at p99 ≤ 10 ms" in svg.decode()
    (without,) = capacity_chart.capacity_charts(cd.capacity_cells(contenders=("go", "node")))
    assert _ids(capacity_chart.render(without), "capacity-ceiling") == []


def test_a_capacity_cell_without_a_figure_shows_its_status_not_a_bar():
    spec = workloads.get("http-hello")
    params = spec.resolve({"loadgen": "oha", "slo-p99-ms": 10, "connections": 64,
                           "syscalls": "false"})
    gone = unavailable(spec, "erlang", params, UNBOUNDED, "erl not found", {})
    (chart,) = capacity_chart.capacity_charts([*cd.capacity_cells(), gone])
    assert chart.bars[-1].contender == "erlang" and chart.bars[-1].median is None
    svg = capacity_chart.render(chart)
    assert _ids(svg, "capacity-failed-") == ["capacity-failed-erlang"]
    assert "capacity-bar-erlang" not in svg.decode() and "unavailable" in svg.decode()


def test_capacity_table_gives_each_cell_its_capacity_and_windows():
    (table,) = capacity_table.tables(cd.capacity_cells())
    rows = {r[0]: dict(zip(table.headers, r)) for r in table.rows}
    assert rows["go"]["capacity/s"] == "5,700" and rows["go"]["target p99"] == "10.0 ms"
    assert rows["go"]["windows held / missed"] == "3 / 9" and rows["go"]["n"] == "3"
    assert rows["nginx"]["closed-loop peak/s"] == "17.1k"
    md = FORMATS["markdown"][1](cd.document(cd.capacity_cells())).decode()
    assert "| go | 10.0 ms | 5,700 | 5,371–6,092 | 11.4k | 3 / 9 | 3 |  |" in md
    assert capacity_table.tables(sample_document(servers=True).cells) == []


@functools.cache
def _page() -> str:
    doc = cd.document([*cd.rate_scan_cells(), *cd.capacity_cells(syscalls=True)])
    return html.render([(doc, None)])


def test_html_report_embeds_the_load_and_capacity_charts_and_tables():
    section = _page()[_page().index('data-workload="http-hello"'):]
    assert section.count('<figure class="chart latency-load">') == 2  # the scan, the search
    assert section.count('<figure class="chart capacity">') == 1
    capacity = re.search(r'<table class="capacity">(.*?)</table>', section, re.S).group(1)
    assert "<td>nginx</td><td>10.0 ms</td><td>8,550</td>" in capacity


def test_html_report_has_the_syscall_table():
    table = re.search(r'<table class="syscalls">(.*?)</table>', _page(), re.S).group(1)
    go = re.search(r"<tr><td>go</td>(.*?)</tr>", table).group(1)
    assert re.findall(r"<td>(.*?)</td>", go)[2] == "2.50"  # futex per request
    assert '<table class="syscalls">' not in html.render([(cd.document(cd.capacity_cells()),
                                                            None)])


def _csv(cells) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(FORMATS["csv"][1](cd.document(cells)).decode())))


def test_csv_has_the_per_request_syscall_and_capacity_columns():
    rows = {r["contender"]: r for r in _csv(cd.capacity_cells(syscalls=True))}
    assert rows["go"]["syscalls_futex_per_request"] == "2.5"
    assert rows["nginx"]["syscalls_futex_per_request"] == "0.1"
    assert rows["go"]["ctx_switches_per_request"] == "3"
    assert rows["go"]["syscalls_accept_all_per_request"] == ""  # not counted: no figure
    assert rows["go"]["capacity_per_s"] == "5700"
    assert rows["go"]["server_cpu_us_per_request"] == "40"
    uncounted = _csv(cd.capacity_cells())
    assert "syscalls_futex_per_request" not in uncounted[0]
    assert uncounted[0]["capacity_per_s"] != ""


def _verdicts(base, new) -> dict[tuple[str, str], tuple[str, bool | None]]:
    return {(c.contender, c.metric): (c.verdict, c.better) for c in compare(base, new)}


def test_compare_tells_which_is_better_on_capacity_cpu_and_syscalls():
    base = cd.document(cd.capacity_cells(syscalls=True))
    new = cd.document(cd.capacity_cells(syscalls=True, scale=1.5), "20260402-000000-new")
    found = _verdicts(base, new)
    assert found[("go", "capacity/s")] == ("higher capacity", True)
    assert found[("go", "server CPU/req")] == ("more server CPU/req", False)
    assert found[("go", "futex/req")] == ("more futex/req", False)
    back = _verdicts(new, base)
    assert back[("go", "capacity/s")] == ("lower capacity", False)
    assert back[("go", "server CPU/req")] == ("less server CPU/req", True)
    assert back[("go", "futex/req")] == ("fewer futex/req", True)
    text = compare_table.markdown(compare(base, new), "a", "b", [], "welch")
    row = next(ln for ln in text.splitlines() if "| go |" in ln and "server CPU/req" in ln)
    assert "40.0 µs" in row and "60.0 µs" in row


def test_compare_leaves_out_what_neither_side_recorded():
    doc = sample_document(servers=True)
    metrics = {c.metric for c in compare(doc, doc)}
    assert metrics == {"time", "memory", "requests/s", "p99"}


def test_markdown_report_links_the_load_and_capacity_charts():
    doc = cd.document([*cd.rate_scan_cells(), *cd.capacity_cells()])
    text, files = markdown_report.render([doc], "charts")
    linked = re.findall(r"!\[[^\]]*\]\((charts/[^)]*-(?:load|capacity)-\d+\.svg)\)", text)
    # one latency–load chart (the scan and the search of the same parameters) and one capacity
    assert len(linked) == 2 and all(name in files for name in linked)
    assert "capacity at a p99 target" in text


def test_a_capacity_search_joins_the_rate_scan_of_its_other_parameters():
    """The search's windows and target are drawn on the same curve as the scan's points."""
    (curve,) = load_curves.curves(cd.rate_scan_cells() + cd.capacity_cells())
    assert curve.target_ms == 10.0 and curve.case == ""
    go = next(ln for ln in curve.lines if ln.contender == "go")
    assert len(go.windows) == 12 and 1000.0 in [p.offered_per_s for p in go.points]


def test_runs_that_found_no_capacity_are_counted_and_keep_the_cell_unranked():
    cells = cd.capacity_cells()
    node = next(c for c in cells if c.contender == "node")
    runs = [dataclasses.replace(r, server={**r.server, "capacity": {**r.server["capacity"],
                                                                    "capacity_per_s": 0.0}})
            if i < 2 else r for i, r in enumerate(node.runs)]
    crashed = dataclasses.replace(node.runs[0], status="crash")  # no search result: not counted
    cells = [dataclasses.replace(c, runs=(*runs, crashed)) if c is node else c for c in cells]
    (found,) = [s for s in summary.summaries(cells)
                if s.metric is summary.CAPACITY]
    standing = {s.contender: s for s in found.standings}
    assert standing["node"].status == "2 of 3 found none" and not standing["node"].ranked
    # the one run that found one, shown
    assert standing["node"].figure == runs[2].server["capacity"]["capacity_per_s"] > 0
    assert standing["go"].ranked and standing["nginx"].ranked
    none = [dataclasses.replace(r, server={**r.server, "capacity": {**r.server["capacity"],
                                                                    "capacity_per_s": 0.0}})
            for r in node.runs]
    cells = [dataclasses.replace(c, runs=tuple(none)) if c.contender == "node" else c
             for c in cells]
    (found,) = [s for s in summary.summaries(cells)
                if s.metric is summary.CAPACITY]
    assert {s.contender: s.status for s in found.standings}["node"] == "3 of 3 found none"


def test_an_open_loop_case_is_headed_by_the_servers_cpu_per_request():
    """At a fixed offered rate every server does the same work, and its CPU per request is
    the figure that repeats best across rounds (docs/servers.md): it heads the case, ranked
    lowest first (nginx 20 µs, go 40, node 90), before p99; a closed-loop case, where each
    server runs at its own peak, has no such metric."""
    cells = [c for c in cd.rate_scan_cells() if c.params["rate"] == 1000]
    cases = summary.summaries(cells)
    assert [c.metric.name for c in cases] == ["server CPU/request", "p99", "server memory"]
    cpu = {s.contender: s for s in cases[0].standings}
    assert [s.contender for s in cases[0].standings] == ["nginx", "go", "node"]
    assert cpu["nginx"].figure == 20.0 and cpu["go"].ratio == pytest.approx(2.0)
    assert cpu["node"].ratio == pytest.approx(4.5) and cpu["node"].rank == 3
    (row,) = summary_text.glance(cases)
    assert row.cells["cost"].leader == "nginx" and row.cells["cost"].figure == "20 µs"
    closed = [dataclasses.replace(c, params={**c.params, "rate": 0}) for c in cells]
    assert "server CPU/request" not in [c.metric.name for c in summary.summaries(closed)]
