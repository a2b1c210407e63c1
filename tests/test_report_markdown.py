"""Seed-style Markdown tables (contender rows, size columns) and their charts: golden file."""

from __future__ import annotations

from concbench.report import markdown_report
from concbench.report.seed_tables import seed_tables
from sample_doc import check_golden, sample_document


def test_markdown_report_matches_golden_file():
    text, files = markdown_report.render([sample_document()], "report-charts")
    check_golden("report.md", text)
    for name in files:
        assert f"({name})" in text


def test_seed_table_layout_and_statuses():
    tables = seed_tables(list(sample_document().cells))
    time = next(t for t in tables if t.metric.key == "elapsed_s")
    assert time.headers == ("contender \\ tasks", "1,000", "10,000")
    rows = {r[0]: r[1:] for r in time.rows}
    assert rows["go"] == ("102.0 ms", "119.0 ms")
    assert rows["java-platform"] == ("1.01 s", "timeout")
    assert rows["rust-tokio"] == ("", "unavailable")


def test_charts_are_written_beside_the_markdown(tmp_path):
    written = markdown_report.write([sample_document()], tmp_path / "post.md", "png")
    charts = [p for p in written if p.suffix == ".png"]
    assert len(charts) == 4 and all(p.parent.name == "post-charts" for p in charts)
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in charts)
    assert "](post-charts/sleep-tasks-elapsed_s.png)" in (tmp_path / "post.md").read_text()


def test_report_command_writes_markdown(fake_bench, tmp_path):
    fake_bench("run", "fanout", "--contender", "fake-good", "--scan", "requests=10,100",
               "--param", "user-ms=1", "--runs", "1")
    run_dir = next((fake_bench.root / "results").glob("*/results.json")).parent
    res = fake_bench("report", str(run_dir), "--markdown", str(tmp_path / "r.md"))
    assert res.code == 0, res.stderr
    text = (tmp_path / "r.md").read_text()
    assert "| contender \\ requests | 10 | 100 |" in text
    assert (tmp_path / "r-charts" / "fanout-elapsed_s.svg").is_file()
