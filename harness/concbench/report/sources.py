"""Finding results documents from what the user typed: a results.json, a run folder, or a
run id under the results directory."""

from __future__ import annotations

from pathlib import Path

from concbench import paths
from concbench.errors import UserError
from concbench.resultset import io
from concbench.resultset.model import ResultsDocument


def locate(given: str) -> Path:
    """The results.json meant by a path or run id; a UserError naming what was tried."""
    path = Path(given)
    candidates = [path, path / "results.json", paths.results_dir() / given / "results.json"]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise UserError(f"no results at {given}: give a results.json, a run folder, or a run id "
                    f"under {paths.results_dir()}")


def load(given: str) -> tuple[ResultsDocument, Path]:
    """The document and its run folder (where its samples are)."""
    path = locate(given)
    return io.read(path), path.parent


def load_all(given: tuple[str, ...] | list[str]) -> list[tuple[ResultsDocument, Path]]:
    if not given:
        raise UserError("name at least one results file, run folder or run id")
    return [load(g) for g in given]
