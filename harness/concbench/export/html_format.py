"""HTML export: the self-contained report (concbench.report.html) of one results document.
The samples' time series are read from the document's results folder."""

from __future__ import annotations

from concbench import paths
from concbench.report import html
from concbench.resultset.model import ResultsDocument


def serialize(doc: ResultsDocument) -> bytes:
    folder = paths.results_dir() / doc.run_id
    return html.render([(doc, folder if folder.is_dir() else None)]).encode()
