"""results.json: the document of DESIGN.md §5, written atomically after every cell."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from concbench.errors import UserError
from concbench.resultset.model import CellResult, Iteration, ResultsDocument, RunResult, Summary

SCHEMA_VERSION = 1


def _summary_to_dict(s: Summary) -> dict[str, Any]:
    d = dataclasses.asdict(s)
    d["ci95"] = list(s.ci95) if s.ci95 else None
    d["outliers"] = list(s.outliers)
    if s.processes is None:  # each value one process: nothing to say
        del d["processes"]
    return d


def cell_to_dict(cell: CellResult) -> dict[str, Any]:
    d = dataclasses.asdict(cell)
    d["runs"] = [dataclasses.asdict(r) for r in cell.runs]
    d["stats"] = {k: _summary_to_dict(v) for k, v in cell.stats.items()}
    d["warnings"] = list(cell.warnings)
    return d


def to_dict(doc: ResultsDocument) -> dict[str, Any]:
    return {
        "schema_version": doc.schema_version,
        "run_id": doc.run_id,
        "concbench_revision": doc.concbench_revision,
        "created_at": doc.created_at,
        "machine": doc.machine,
        "toolchains": doc.toolchains,
        "plan": doc.plan,
        "cells": [cell_to_dict(c) for c in doc.cells],
    }


def to_json(doc: ResultsDocument, fragments: "CellFragments | None" = None) -> bytes:
    """The document as results.json text: exactly json.dumps(to_dict(doc), indent=1), built
    from each cell's own text, which `fragments` keeps between writes of a growing plan."""
    head = json.dumps({**to_dict(dataclasses.replace(doc, cells=())), "cells": []}, indent=1,
                      ensure_ascii=False)
    cells = [(fragments or CellFragments()).text(c) for c in doc.cells]
    if fragments is not None:
        fragments.keep(doc.cells)
    if cells:
        assert head.endswith('"cells": []\n}')
        head = head[:-len("[]\n}")] + "[\n" + ",\n".join(cells) + "\n ]\n}"
    return (head + "\n").encode()


class CellFragments:
    """Each cell's JSON text, indented as in the document, kept while the cell is unchanged:
    results.json is rewritten after every run, and re-serialising every cell each time cost
    about 20 s of the quick suite's 5 minutes. Keyed by the cell object (results are frozen)."""

    def __init__(self) -> None:
        self._texts: dict[int, tuple[CellResult, str]] = {}

    def text(self, cell: CellResult) -> str:
        kept = self._texts.get(id(cell))
        if kept is not None and kept[0] is cell:
            return kept[1]
        # JSON strings hold no raw newline, so indenting every line is safe
        text = "  " + json.dumps(cell_to_dict(cell), indent=1,
                                 ensure_ascii=False).replace("\n", "\n  ")
        self._texts[id(cell)] = (cell, text)
        return text

    def keep(self, cells: tuple[CellResult, ...]) -> None:
        """Forget the texts of cells no longer in the document."""
        alive = {id(c) for c in cells}
        self._texts = {k: v for k, v in self._texts.items() if k in alive}


def _summary(d: dict[str, Any]) -> Summary:
    return Summary(**{**d, "ci95": tuple(d["ci95"]) if d.get("ci95") else None,
                      "outliers": tuple(d.get("outliers", ()))})


def _run(d: dict[str, Any]) -> RunResult:
    iterations = tuple(Iteration(**it) for it in d["iterations"])
    known = {f.name for f in dataclasses.fields(RunResult)}
    return RunResult(**{**{k: v for k, v in d.items() if k in known}, "iterations": iterations,
                        "warnings": tuple(d.get("warnings", ())),
                        "profiles": tuple(d.get("profiles", ()))})


def cell_from_dict(d: dict[str, Any]) -> CellResult:
    return CellResult(
        workload=d["workload"], contender=d["contender"], params=d["params"],
        status=d["status"], reason=d.get("reason"), ideal_s=d.get("ideal_s"),
        efficiency=d.get("efficiency"), runs=tuple(_run(r) for r in d.get("runs", [])),
        stats={k: _summary(v) for k, v in d.get("stats", {}).items()},
        metadata=d.get("metadata", {}), warnings=tuple(d.get("warnings", ())),
    )


def from_dict(d: dict[str, Any]) -> ResultsDocument:
    if d.get("schema_version") != SCHEMA_VERSION:
        raise UserError(f"results schema_version {d.get('schema_version')!r} is not "
                        f"{SCHEMA_VERSION}; this concbench cannot read it")
    return ResultsDocument(
        run_id=d["run_id"], concbench_revision=d.get("concbench_revision", "unknown"),
        created_at=d.get("created_at", ""), machine=d.get("machine", {}),
        toolchains=d.get("toolchains", {}), plan=d.get("plan", {}),
        cells=tuple(cell_from_dict(c) for c in d.get("cells", [])),
        schema_version=d["schema_version"],
    )


def read(path: Path) -> ResultsDocument:
    try:
        return from_dict(json.loads(path.read_text()))
    except FileNotFoundError:
        raise UserError(f"no results file at {path}") from None
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise UserError(f"{path} is not a concbench results file: {err}") from None


def write_atomically(path: Path, data: bytes) -> None:
    """Write to a temporary file, fsync it, rename it over the target and fsync the folder,
    so neither a crash of concbench nor one of the machine leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
