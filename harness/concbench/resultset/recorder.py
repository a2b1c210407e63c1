"""Keeps the results of a plan on disk as it goes: results.json after every cell, the store,
the samples, and the exports at the end. Nothing measured is lost if the process dies."""

from __future__ import annotations

import datetime
from dataclasses import replace
from pathlib import Path
from typing import Any

from concbench.errors import UserError
from concbench.resultset import io
from concbench.resultset.model import CellResult, ResultsDocument
from concbench.resultset.store import Store


def new_run_id(name: str) -> str:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{name}"


def claim_run_folder(results: Path, name: str) -> tuple[str, Path]:
    """A new run's id and folder, created here so that two runs started in the same second
    (same id) never share a folder: the second gets a -2 suffix, and so on."""
    base = new_run_id(name)
    for n in range(1, 1000):
        run_id = base if n == 1 else f"{base}-{n}"
        try:
            results.mkdir(parents=True, exist_ok=True)
            (results / run_id).mkdir()
        except FileExistsError:
            continue
        except OSError as err:
            raise UserError(f"cannot create a results folder in {results}: "
                            f"{err.strerror or err}") from None
        return run_id, results / run_id
    raise RuntimeError(f"no free results folder for {base} under {results}")


class Recorder:
    """Owns results/<run-id>/: every write to it goes through here."""

    def __init__(self, folder: Path, doc: ResultsDocument, store: Store | None):
        self.folder = folder
        self.doc = doc
        self._store = store
        self._fragments = io.CellFragments()
        folder.mkdir(parents=True, exist_ok=True)
        if store:
            store.begin(doc)
            for cell in doc.cells:  # a resumed run: cells a kill kept from the store (upserts)
                store.add_cell(doc.run_id, cell)
        self._flush()

    @classmethod
    def resume(cls, folder: Path, store: Store | None) -> "Recorder":
        return cls(folder, io.read(folder / "results.json"), store)

    @property
    def results_path(self) -> Path:
        return self.folder / "results.json"

    def samples_path(self, cell_index: int, run_index: int) -> Path:
        return self.folder / "samples" / f"cell{cell_index:03d}-run{run_index}.csv"

    def done_keys(self) -> set[tuple[str, str, str]]:
        """Cells already measured (a --resume skips them); unavailable ones are retried."""
        return {c.key for c in self.doc.cells if c.status != "unavailable"}

    def add(self, cell: CellResult) -> None:
        kept = tuple(c for c in self.doc.cells if c.key != cell.key)
        self.doc = replace(self.doc, cells=kept + (cell,))
        self._flush()
        if self._store:
            self._store.add_cell(self.doc.run_id, cell)

    def set_machine(self, extra: dict[str, Any]) -> None:
        """Keys added to the machine block (machine.roles of a multi-host plan)."""
        self.doc = replace(self.doc, machine={**self.doc.machine, **extra})
        self._flush()

    def set_toolchains(self, toolchains: dict[str, Any]) -> None:
        self.doc = replace(self.doc, toolchains={**self.doc.toolchains, **toolchains})
        self._flush()

    def _flush(self) -> None:
        """A failed write (a full disk) stops the plan with a message; the file is replaced
        atomically, so the last complete results.json stays as it was."""
        try:
            io.write_atomically(self.results_path, io.to_json(self.doc, self._fragments))
        except OSError as err:
            raise UserError(f"cannot write {self.results_path}: {err.strerror or err} "
                            "(the last complete version of it is kept)") from None
