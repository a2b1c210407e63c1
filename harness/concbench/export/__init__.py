"""Export formats: one module per format with `serialize(doc) -> bytes`, one line each here.

Every format is written into each results folder; a format that does not apply to a
document (bench-of-chan without channel cells) returns empty bytes and is not written."""

from __future__ import annotations

from typing import Callable

from concbench.export import (bench_of_chan_csv, csv_format, html_format, json_format,
                              markdown_format)
from concbench.resultset.model import ResultsDocument

Serializer = Callable[[ResultsDocument], bytes]

FORMATS: dict[str, tuple[str, Serializer]] = {
    "json": ("results.json", json_format.serialize),
    "csv": ("results.csv", csv_format.serialize),
    "markdown": ("results.md", markdown_format.serialize),
    "html": ("results.html", html_format.serialize),
    "bench-of-chan-csv": ("bench-of-chan.csv", bench_of_chan_csv.serialize),
}
