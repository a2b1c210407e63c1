"""The HTML report: self-contained, every workload's table and charts, statuses not numbers."""

from __future__ import annotations

import re

from concbench.report import html
from sample_doc import MIXED_REASON, rendered, sample_document


def _render() -> str:
    return rendered("sample")


def test_report_is_self_contained_with_inline_charts():
    page = _render()
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "no network resources"
    assert "<script src" not in page and "<link" not in page
    section = page[page.index('data-workload="sleep-tasks"'):]
    assert section.count("<svg") >= 3  # headline, peak RSS, threads
    assert "time per iteration" in section and "peak RSS" in section


def test_failed_cells_show_their_status():
    page = _render()
    rows = re.findall(r'<tr class="failed" data-status="([^"]+)">(.*?)</tr>', page)
    assert {s for s, _ in rows} == {"timeout", "unavailable"}
    for _, row in rows:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert all(c in ("—", "java-platform", "rust-tokio", "10000") for c in cells[:-1])
    assert "timeout: still running after 20 s" in page
    assert "rust-tokio: unavailable" in page  # marked on the charts too


def test_scaling_fits_machine_and_warnings_are_shown():
    page = _render()
    assert "Scaling over tasks" in page and "/task" in page
    assert "Test CPU" in page and "go1.26" in page


def _warning_items(page: str) -> list[str]:
    listed = re.search(r'<ul class="warnings">(.*?)</ul>', page, re.S)
    return re.findall(r"<li>(.*?)</li>", listed.group(1), re.S) if listed else []


def test_each_warning_of_a_cell_is_listed_under_warnings():
    items = _warning_items(rendered("troubled"))
    assert any("sleep-tasks / go: time varies by" in w for w in items), items
    assert any("1 of 3 runs failed (crash)" in w for w in items), items
    assert _warning_items(rendered("sample")) == []


def test_a_mixed_cell_shows_its_status_and_its_reason_escaped():
    page = rendered("troubled")
    rows = re.findall(r'<tr class="failed" data-status="([^"]+)">(.*?)</tr>', page, re.S)
    assert [s for s, _ in rows] == ["crash"]
    assert "naïve | pipe ✗ &lt;b&gt;bold&lt;/b&gt;" in page
    assert MIXED_REASON not in page  # the markup is shown, never rendered


def test_a_three_size_scan_shows_memory_at_the_mark_and_its_fit():
    page = rendered("troubled")
    section = page[page.index('data-workload="spawn-idle"'):]
    assert "RSS with every task alive" in section
    assert "Scaling over tasks" in section and "/task" in section


def test_run_writes_results_html_and_export_html(fake_bench, tmp_path):
    target = tmp_path / "out" / "report.html"
    res = fake_bench("run", "fanout", "--contender", "fake-good", "--contender", "fake-crash",
                     "--scan", "requests=10,100", "--param", "user-ms=1", "--runs", "2",
                     "--export-html", str(target))
    assert res.code == 0, res.stderr
    page = target.read_text()
    folder = next((fake_bench.root / "results").glob("*/results.html"))
    assert folder.read_text() == page
    assert 'data-status="crash"' in page and "timeseries" in page
    again = tmp_path / "again.html"
    res = fake_bench("report", str(folder.parent), "--html", str(again))
    assert res.code == 0, res.stderr
    assert again.read_text().count("<svg") == page.count("<svg")


def test_report_of_a_missing_file_is_a_user_error(cli, tmp_path):
    res = cli("report", str(tmp_path / "nothing"), "--html", str(tmp_path / "r.html"))
    assert res.code == 2 and "no results at" in res.stderr and "Traceback" not in res.stderr


def test_server_sections_show_latency_by_percentile_and_the_generator_bound_row():
    page = rendered("servers")
    hello = page[page.index('data-workload="http-hello"'):page.index('data-workload="http-aggregate"')]
    assert 'class="chart latency"' in hello and "latency by percentile" in hello
    assert "99.9%" in hello and ">max<" in hello
    assert "ok, generator-bound" in hello and 'class="ok" data-status="ok"' in hello
    assert "vs nginx" in hello and "84%" in hello  # go: 65k of nginx's 77k
    agg = page[page.index('data-workload="http-aggregate"'):]
    assert "of bound" in agg and "96% pool" in agg  # 14.4 of the 12 ÷ 0.8 s = 15/s pool bound
    assert "p99 latency" in agg and "server peak RSS" in agg


def test_a_contender_keeps_its_colour_whatever_its_position():
    from concbench.report import charts
    from concbench.report.views import Series

    colors = charts.palette(["go", "nginx", "rust-tokio"])
    assert len(set(colors.values())) == 3
    assert charts._color(Series("rust-tokio connections=10", (), "rust-tokio"), 0, colors) \
        == colors["rust-tokio"]
    assert charts._color(Series("go", (), "go"), 2, colors) == colors["go"]


def test_runtime_diagnostics_are_shown_per_cell():
    import dataclasses

    from concbench.stats.summary import summarize

    doc = sample_document()
    cell = doc.cells[0]
    cell = dataclasses.replace(cell, stats={**cell.stats,
                                            "result.go_gc_cycles": summarize([3, 4, 5]),
                                            "result.jvm_vt_pinned": summarize([0, 0, 0])})
    page = html.render([(dataclasses.replace(doc, cells=(cell, *doc.cells[1:])), None)])
    section = page[page.index("<h3>Runtime diagnostics</h3>"):page.index("<h3>Machine</h3>")]
    assert cell.contender in section
    assert "GC cycles 4" in section and "VT pinned events 0" in section
    from concbench.report.diagnostics import OUTSIDE

    bare = tuple(dataclasses.replace(c, stats={k: v for k, v in c.stats.items()
                                               if k not in OUTSIDE and not k.startswith("result.")})
                 for c in doc.cells)
    assert "<h3>Runtime diagnostics</h3>" not in html.render(
        [(dataclasses.replace(doc, cells=bare), None)])
