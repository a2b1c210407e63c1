"""JSON export: the results.json document itself (DESIGN.md §5)."""

from concbench.results import io
from concbench.results.model import ResultsDocument


def serialize(doc: ResultsDocument) -> bytes:
    return io.to_json(doc)
