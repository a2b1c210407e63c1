"""Export formats: one module per format with `serialize(doc) -> bytes`, one line each here."""

from __future__ import annotations

from typing import Callable

from concbench.export import csv_format, json_format, markdown_format
from concbench.results.model import ResultsDocument

Serializer = Callable[[ResultsDocument], bytes]

FORMATS: dict[str, tuple[str, Serializer]] = {
    "json": ("results.json", json_format.serialize),
    "csv": ("results.csv", csv_format.serialize),
    "markdown": ("results.md", markdown_format.serialize),
}
