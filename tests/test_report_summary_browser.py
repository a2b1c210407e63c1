"""The report's first screen in headless Chromium: the summary is the first thing on the page,
and within the first screen it names each workload's leader. The screenshot is kept as
test-artifacts/summary.png (git-ignored)."""

from __future__ import annotations

import json
import re

from concbench.report import html
from quick_doc import quick_document
from test_report_browser import ARTIFACTS, _browse
from test_report_summary import _expected_leaders

SCREEN = (1280, 900)
PROBE = """<script>
window.addEventListener("load", function () {
  var first = document.querySelector("h1").nextElementSibling;
  var rows = {};
  document.querySelectorAll("tr[data-workload-leader]").forEach(function (tr) {
    if (tr.dataset.workloadLeader in rows) return;  // a workload's first case
    var box = tr.getBoundingClientRect();
    rows[tr.dataset.workloadLeader] = {bottom: box.bottom + window.scrollY,
                                       leader: tr.querySelector(".leader-name").textContent};
  });
  var tops = Array.from(document.querySelectorAll("section.workload, nav.toc"))
    .map(function (e) { return e.getBoundingClientRect().top + window.scrollY; });
  var probe = document.createElement("pre");
  probe.id = "probe";
  probe.textContent = JSON.stringify({first: first.tagName + "." + first.className,
    summaryTop: document.querySelector("section.answers").getBoundingClientRect().top,
    othersTop: Math.min.apply(null, tops), rows: rows});
  document.body.appendChild(probe);
});
</script>"""


def test_the_first_screen_is_the_summary_naming_each_leader(tmp_path, chromium):
    folder = tmp_path / "run"
    report = tmp_path / "results.html"
    report.write_text(html.render([(quick_document(folder), folder)]))
    probed = tmp_path / "probed.html"
    probed.write_text(report.read_text().replace("</body>", PROBE + "</body>"))
    dom = _browse(chromium, probed.as_uri(), "--dump-dom", "--virtual-time-budget=3000",
                  f"--window-size={SCREEN[0]},{SCREEN[1]}")
    found = json.loads(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)
                       .replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))
    assert found["first"] == "SECTION.answers"
    assert found["summaryTop"] < found["othersTop"]
    for workload, leader in _expected_leaders().items():
        row = found["rows"][workload]
        assert row["leader"] == leader and row["bottom"] <= SCREEN[1], (workload, row)
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "summary.png"
    shot.unlink(missing_ok=True)
    _browse(chromium, report.as_uri(), f"--screenshot={shot}",
            f"--window-size={SCREEN[0]},{SCREEN[1]}", "--hide-scrollbars")
    assert shot.is_file() and shot.read_bytes().startswith(b"\x89PNG")
