"""The run store: every run of every cell appended to an SQLite database (the history)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from concbench.results.io import cell_to_dict
from concbench.results.model import CellResult, ResultsDocument

_SCHEMA = """
CREATE TABLE IF NOT EXISTS run_sets (
  run_id TEXT PRIMARY KEY, created_at TEXT, revision TEXT, machine TEXT, toolchains TEXT,
  plan TEXT);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT, workload TEXT, contender TEXT, params TEXT, run_index INTEGER, status TEXT,
  reason TEXT, wall_s REAL, median_elapsed_s REAL, peak_rss_bytes INTEGER,
  peak_threads INTEGER, cpu_s REAL, record TEXT,
  PRIMARY KEY (run_id, workload, contender, params, run_index));
"""


class Store:
    """SQLite store; the file is created on first use."""

    def __init__(self, location: str):
        Path(location).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(location)
        self._db.executescript(_SCHEMA)

    def begin(self, doc: ResultsDocument) -> None:
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO run_sets VALUES (?, ?, ?, ?, ?, ?)",
                (doc.run_id, doc.created_at, doc.concbench_revision, json.dumps(doc.machine),
                 json.dumps(doc.toolchains), json.dumps(doc.plan)))

    def add_cell(self, run_id: str, cell: CellResult) -> None:
        record = cell_to_dict(cell)
        params = json.dumps(cell.params, sort_keys=True)
        with self._db:
            for index, (run, raw) in enumerate(zip(cell.runs, record["runs"])):
                measured = sorted(it.elapsed_ns for it in run.measured())
                median = measured[len(measured) // 2] / 1e9 if measured else None
                self._db.execute(
                    "INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (run_id, cell.workload, cell.contender, params, index, run.status,
                     run.reason, run.wall_s, median, run.peak_rss_bytes, run.peak_threads,
                     run.cpu_s, json.dumps(raw)))

    def count_runs(self, run_id: str) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return int(row[0])

    def close(self) -> None:
        self._db.close()
