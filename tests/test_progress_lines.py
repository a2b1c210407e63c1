"""The line printed as each cell finishes: a server figure that is not the server's steady
state says so there already, not only in the tables at the end."""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console

from concbench import ui
from concbench.warnings import jit_in_window
from sample_doc import sample_document


def _finished_line(monkeypatch, cell) -> str:
    console = Console(record=True, width=300)
    monkeypatch.setattr(ui, "err", console)
    ui.ProgressView(1, []).cell_finished(cell)
    return console.export_text()


def _hello(contender: str):
    doc = sample_document(servers=True)
    return next(c for c in doc.cells if c.workload == "http-hello" and c.contender == contender)


def test_a_jvm_still_compiling_in_its_window_is_marked_on_its_line(monkeypatch):
    warned = replace(_hello("go"), warnings=(jit_in_window(638, 0, 0, 0.4, "1 s of warm-up"),))
    line = _finished_line(monkeypatch, warned)
    assert "ok http-hello · go · 65,000 requests/s [not steady (638 JIT compilations)]" in line


def test_a_steady_server_has_no_mark(monkeypatch):
    line = _finished_line(monkeypatch, _hello("go"))
    assert "65,000 requests/s" in line and "[" not in line.split("requests/s")[1]
