"""JSON export: the results.json document itself (DESIGN.md §5)."""

from concbench.resultset import io
from concbench.resultset.model import ResultsDocument


def serialize(doc: ResultsDocument) -> bytes:
    return io.to_json(doc)
