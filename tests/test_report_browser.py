"""The HTML report opened in headless Chromium: every workload's table and charts render, the
time series are drawn once opened, failed cells show their status. The screenshot is kept in
test-artifacts/ (git-ignored)."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _browse(chromium: str, url: str, *args: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", *args, url],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def opened(report: Path) -> Path:
    """A copy of the report with every <details> opened, as a reader's click would."""
    copy = report.with_name(f"{report.stem}-opened.html")
    script = "<script>document.querySelectorAll('details').forEach(d => d.open = true);</script>"
    copy.write_text(report.read_text().replace("</body>", script + "</body>"))
    return copy


def test_report_renders_in_chromium(fake_bench, tmp_path, chromium):
    report = tmp_path / "report.html"
    for workload, extra in (("fanout", ["--scan", "requests=10,100,1000", "--param",
                                        "user-ms=1"]),
                            ("channel", ["--param", "workers=2", "--param", "events=100"])):
        res = fake_bench("run", workload, "--contender", "fake-good", "--contender",
                         "fake-crash", "--runs", "2", *extra)
        assert res.code == 0, res.stderr
    runs = sorted(str(p.parent) for p in (fake_bench.root / "results").glob("*/results.json"))
    res = fake_bench("report", *runs, "--html", str(report))
    assert res.code == 0, res.stderr
    dom = _browse(chromium, opened(report).as_uri(), "--dump-dom", "--virtual-time-budget=2000")
    for workload in ("fanout", "channel"):
        start = dom.index(f'data-workload="{workload}"')
        section = dom[start:dom.index("</section>", start)]
        assert '<table class="summary">' in section
        assert section.count('<figure class="chart">') >= 3, workload
        assert section.count('<svg width="300"') == 3  # the time series, drawn once opened
        assert "<polyline" in section and "RSS</text>" in section
        assert 'data-status="crash"' in section and "crash: " in section
    assert "Machine" in dom and "Warnings" in dom
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report.png"
    shot.unlink(missing_ok=True)
    _browse(chromium, report.as_uri(), f"--screenshot={shot}", "--window-size=1280,3000",
            "--hide-scrollbars")
    assert shot.is_file() and shot.read_bytes().startswith(b"\x89PNG")


def test_markup_in_notes_and_reasons_is_shown_not_run(fake_bench, tmp_path, chromium):
    report = tmp_path / "report.html"
    res = fake_bench("run", "fanout", "--contender", "fake-good", "--contender", "fake-xss",
                     "--runs", "1", "--param", "requests=10", "--param", "user-ms=1",
                     "--export-html", str(report))
    assert res.code == 0, res.stderr
    dom = _browse(chromium, report.as_uri(), "--dump-dom", "--virtual-time-budget=2000")
    assert "data-pwned-reason=\"1\"" not in dom and "data-pwned-notes=\"1\"" not in dom
    assert "&lt;img src=x onerror=" in dom  # shown as text
