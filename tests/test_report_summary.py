"""The report opens on the answer: the summary first (each workload's leader, by how much),
then a table of contents, each workload's summary before its tables and charts, charts in
the order of their figure, one colour per contender, the time series and diagnostics folded;
self-contained and under 1 MB at the quick suite's size."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from concbench.export import markdown_format
from concbench.report import html, markdown_report
from concbench.resultset.model import CellResult
from quick_doc import quick_document

MAX_BYTES = 1_000_000


@cache
def _report(folder: str) -> str:
    """The quick-shaped report, its samples written to `folder` as a run writes them."""
    return html.render([(quick_document(Path(folder)), Path(folder))])


def _page(tmp_path_factory) -> str:
    return _report(str(tmp_path_factory.getbasetemp() / "quick-run"))


def _expected_leaders() -> dict[str, str]:
    """Each workload's first case's leader on its first metric, found here from the medians
    (not by the summary module): lowest time or memory, highest rate."""
    found: dict[str, str] = {}
    for workload in ("fanout", "sleep-tasks", "spawn-idle", "channel", "ring", "skynet",
                     "http-hello", "http-aggregate"):
        cells = [c for c in quick_document().cells if c.workload == workload]
        first = [c for c in cells if c.params == cells[0].params and c.stats]
        key, sign = {"spawn-idle": ("all-spawned_rss_bytes", 1), "channel": ("throughput_per_s",
                     -1), "http-hello": ("requests_per_s", -1),
                     "http-aggregate": ("requests_per_s", -1)}.get(workload, ("elapsed_s", 1))
        found[workload] = min(first, key=lambda c: sign * c.stats[key].median).contender
    return found


def test_the_summary_is_the_first_thing_after_the_title(tmp_path_factory):
    page = _page(tmp_path_factory)
    body = page[page.index("<body>") + len("<body>"):]
    body = body[body.index("</h1>") + len("</h1>"):]
    assert body.lstrip().startswith('<section class="answers"')
    assert page.index('<section class="answers"') < page.index('<nav class="toc">') \
        < page.index('class="workload"')


def test_the_glance_names_each_workloads_leader(tmp_path_factory):
    page = _page(tmp_path_factory)
    start = page.index('<table class="glance">')
    glance = page[start:page.index("</table>", start)]
    for workload, leader in _expected_leaders().items():
        row = re.search(rf'<tr data-workload-leader="{workload}">(.*?)</tr>', glance, re.S)
        assert row is not None, workload
        assert f'<b class="leader-name">{leader}</b>' in row.group(1), (workload, leader)


def test_each_workload_opens_on_its_summary_and_folds_what_is_long(tmp_path_factory):
    page = _page(tmp_path_factory)
    for workload in _expected_leaders():
        start = page.index(f'data-workload="{workload}"')
        section = page[start:page.index("</section>", start)]
        assert section.index('<div class="workload-summary">') < section.index(
            '<table class="summary">') < section.index('<figure class="chart">')
        assert '<details class="timeseries">' in section  # closed: no `open`
        assert f'href="#20260301-000000-quick-{workload}"' in page  # in the contents
    assert "<svg" not in page[page.index('<details class="timeseries">'):][:3000]


def test_the_quick_report_is_self_contained_and_under_a_megabyte(tmp_path_factory):
    page = _page(tmp_path_factory)
    assert len(page.encode()) < MAX_BYTES, len(page.encode())
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    data = re.findall(r'<script type="application/json" class="series-data">(.*?)</script>',
                      page, re.S)
    ok = sum(1 for c in quick_document().cells if any(r.status == "ok" for r in c.runs))
    assert len(data) == 8 and sum(d.count('"rss":[') for d in data) == ok  # every ok cell
    assert all("</" not in d for d in data)


def _legend(svg: str) -> list[tuple[str, str]]:
    """(label, colour) of each legend entry of a matplotlib SVG."""
    legend = svg[svg.index('<g id="legend_1">'):]
    found, colour = [], None
    for match in re.finditer(r"(?:fill|stroke): (#[0-9a-f]{6})|<text[^>]*>([^<]+)</text>",
                             legend):
        if match.group(1):
            colour = match.group(1)
        elif colour is not None:
            found.append((match.group(2), colour))
    return found


def test_a_contender_keeps_one_colour_in_every_chart(tmp_path_factory):
    page = _page(tmp_path_factory)
    colour_of: dict[str, set[str]] = {}
    charts = [s for s in re.findall(r"<svg.*?</svg>", page, re.S) if 'id="legend_1"' in s]
    assert len(charts) >= 20
    for svg in charts:
        for label, colour in _legend(svg):
            colour_of.setdefault(label.split(" ")[0], set()).add(colour)
    assert len(colour_of) >= 14
    assert all(len(c) == 1 for c in colour_of.values()), colour_of
    assert len({next(iter(c)) for c in colour_of.values()}) == len(colour_of)


def _median(cell: CellResult, key: str) -> float:
    return cell.stats[key].median


def test_charts_are_sorted_by_the_figure_they_show(tmp_path_factory):
    page = _page(tmp_path_factory)
    start = page.index('data-workload="fanout"')
    svgs = re.findall(r"<svg.*?</svg>", page[start:page.index("</section>", start)], re.S)
    cells = {c.contender: c for c in quick_document().cells if c.workload == "fanout"}
    for svg, key in zip(svgs, ("elapsed_s", "peak_rss_bytes")):
        shown = [label for label, _ in _legend(svg)]
        assert shown == sorted((n for n in cells if key in cells[n].stats),
                               key=lambda n: _median(cells[n], key)), key
    hello = page.index('data-workload="http-hello"')
    rates = [label for label, _ in _legend(re.search(r"<svg.*?</svg>", page[hello:],
                                                     re.S).group(0))]
    by_rate = {c.contender: _median(c, "requests_per_s") for c in quick_document().cells
               if c.workload == "http-hello"}
    assert rates == sorted(by_rate, key=lambda n: -by_rate[n])


def test_the_markdown_opens_on_the_summary_and_names_each_leader():
    text = markdown_format.serialize(quick_document()).decode()
    assert text.index("## Summary") < text.index("Machine: Test CPU") < text.index("### fanout")
    glance = text[text.index("| case | time / throughput"):text.index("### Every contender")]
    for workload, leader in _expected_leaders().items():
        row = next(line for line in glance.splitlines() if line.startswith(f"| {workload}"))
        assert f"**{leader}**" in row
    assert "*[generator-bound]*" in text and "*[n = 1]*" in text


def test_the_post_markdown_puts_each_workloads_summary_before_its_tables():
    text, _ = markdown_report.render([quick_document()])
    section = text[text.index("### fanout"):text.index("### sleep-tasks")]
    assert section.index("| fanout | time |") < section.index("#### fanout: time")
