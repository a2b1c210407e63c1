"""The run store: every run of every cell appended to a database (the history).

SQLite by default (a file); a `postgresql://` (or `postgres://`) URL selects PostgreSQL, so a
team's machines can share one history. `Store(location)` picks the backend from the location;
both have the same interface (begin, add_cell, count_runs, history, close) and tables.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from concbench.errors import UserError
from concbench.resultset.io import cell_to_dict
from concbench.resultset.model import CellResult, ResultsDocument

_SCHEMA = """
CREATE TABLE IF NOT EXISTS run_sets (
  run_id TEXT PRIMARY KEY, created_at TEXT, revision TEXT, machine TEXT, toolchains TEXT,
  plan TEXT);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT, workload TEXT, contender TEXT, params TEXT, run_index INTEGER, status TEXT,
  reason TEXT, wall_s REAL, median_elapsed_s REAL, peak_rss_bytes BIGINT,
  peak_threads INTEGER, cpu_s REAL, record TEXT,
  PRIMARY KEY (run_id, workload, contender, params, run_index));
CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT);
"""
STORE_SCHEMA_VERSION = 1
"""Version of the tables above. A store made before store_meta existed has the same tables,
so it is version 1; a later change of the tables bumps this and adds its migration here."""
_URL_PREFIXES = ("postgresql://", "postgres://")


def is_url(location: str) -> bool:
    return location.startswith(_URL_PREFIXES)


@dataclass(frozen=True)
class HistoryFilter:
    """Which stored runs `history` returns (None: any)."""

    workload: str | None = None
    contender: str | None = None
    status: str | None = None
    since: str | None = None
    """ISO date or time; run sets created at or after it."""
    limit: int = 50


def _run_rows(run_id: str, cell: CellResult) -> list[tuple[Any, ...]]:
    record = cell_to_dict(cell)
    params = json.dumps(cell.params, sort_keys=True)
    rows = []
    for index, (run, raw) in enumerate(zip(cell.runs, record["runs"])):
        measured = [it.elapsed_ns for it in run.measured()]
        median = statistics.median(measured) / 1e9 if measured else None
        rows.append((run_id, cell.workload, cell.contender, params, index, run.status,
                     run.reason, run.wall_s, median, run.peak_rss_bytes, run.peak_threads,
                     run.cpu_s, json.dumps(raw)))
    return rows


def history_query(f: HistoryFilter) -> tuple[str, list[Any]]:
    """One row per run set with runs matching the filter, newest first ('?' placeholders)."""
    where, args = ["1 = 1"], []
    for column, value in (("r.workload", f.workload), ("r.contender", f.contender),
                          ("r.status", f.status)):
        if value is not None:
            where.append(f"{column} = ?")
            args.append(value)
    if f.since is not None:
        where.append("s.created_at >= ?")
        args.append(f.since)
    sql = ("SELECT s.run_id, s.created_at, s.revision, s.plan, COUNT(*), "
           "SUM(CASE WHEN r.status = 'ok' THEN 1 ELSE 0 END), "
           "STRING_AGG(DISTINCT r.workload, ','), STRING_AGG(DISTINCT r.contender, ',') "
           "FROM run_sets s JOIN runs r ON r.run_id = s.run_id "
           f"WHERE {' AND '.join(where)} GROUP BY s.run_id, s.created_at, s.revision, s.plan "
           "ORDER BY s.created_at DESC, s.run_id DESC LIMIT ?")
    return sql, args + [f.limit]


def _use_wal(db: sqlite3.Connection, patience_s: float = 30.0) -> None:
    """Switch a store to WAL (a persistent mode of the file). The switch needs an exclusive lock
    for which SQLite does not call its busy handler, so two runs creating one store at the same
    moment see "database is locked": retry it for as long as the connection's own timeout."""
    deadline = time.monotonic() + patience_s
    pause = 0.01
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)


class Store:
    """SQLite store (the file is created on first use); a database URL gives PostgresStore."""

    _placeholder = "?"

    def __new__(cls, location: str) -> "Store":
        if cls is Store and is_url(location):
            return super().__new__(PostgresStore)
        return super().__new__(cls)

    def __init__(self, location: str):
        Path(location).parent.mkdir(parents=True, exist_ok=True)
        # Two concbench runs may share one store: WAL lets a reader and a writer work at once,
        # and a writer waits up to 30 s for the other's short transaction instead of failing.
        self._db: Any = sqlite3.connect(location, timeout=30)
        _use_wal(self._db)
        self._db.create_aggregate("STRING_AGG", -1, _StringAgg)
        self._db.executescript(_SCHEMA)
        self._check_version(location)

    def _check_version(self, location: str) -> None:
        """Stamp a new store; refuse one written by a newer concbench (its tables may differ)."""
        self._execute("INSERT INTO store_meta VALUES ('schema_version', ?) "
                      "ON CONFLICT (key) DO NOTHING", (str(STORE_SCHEMA_VERSION),))
        if hasattr(self._db, "commit"):
            self._db.commit()
        row = self._execute("SELECT value FROM store_meta WHERE key = 'schema_version'").fetchone()
        found = int(row[0])
        if found > STORE_SCHEMA_VERSION:
            raise UserError(f"the store {_redact(location)} has schema version {found}, newer "
                            f"than this concbench's {STORE_SCHEMA_VERSION}: update concbench or "
                            "choose another store (--store / CONCBENCH_STORE)")

    def _execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self._db.execute(sql.replace("?", self._placeholder), args)

    def begin(self, doc: ResultsDocument) -> None:
        with self._db:
            self._execute(
                "INSERT OR REPLACE INTO run_sets VALUES (?, ?, ?, ?, ?, ?)",
                (doc.run_id, doc.created_at, doc.concbench_revision, json.dumps(doc.machine),
                 json.dumps(doc.toolchains), json.dumps(doc.plan)))

    def add_cell(self, run_id: str, cell: CellResult) -> None:
        with self._db:
            for row in _run_rows(run_id, cell):
                self._execute("INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                              row)

    def count_runs(self, run_id: str) -> int:
        row = self._execute("SELECT COUNT(*) FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return int(row[0])

    def history(self, f: HistoryFilter) -> list[tuple[Any, ...]]:
        """(run_id, created_at, revision, plan JSON, runs, ok runs, workloads, contenders)."""
        sql, args = history_query(f)
        sql = sql.replace("DISTINCT r.workload, ','", "DISTINCT r.workload") \
                 .replace("DISTINCT r.contender, ','", "DISTINCT r.contender")
        return [tuple(r) for r in self._execute(sql, args).fetchall()]

    def close(self) -> None:
        self._db.close()


class _StringAgg:
    """STRING_AGG(DISTINCT x) for SQLite (sorted, comma-separated), as PostgreSQL has it."""

    def __init__(self) -> None:
        self.values: set[str] = set()

    def step(self, value: str, *_: Any) -> None:
        self.values.add(value)

    def finalize(self) -> str:
        return ",".join(sorted(self.values))


_PG_UPSERT_SETS = ("INSERT INTO run_sets VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO "
                   "UPDATE SET created_at = EXCLUDED.created_at, revision = EXCLUDED.revision, "
                   "machine = EXCLUDED.machine, toolchains = EXCLUDED.toolchains, "
                   "plan = EXCLUDED.plan")
_PG_UPSERT_RUNS = ("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT "
                   "(run_id, workload, contender, params, run_index) DO UPDATE SET "
                   "status = EXCLUDED.status, reason = EXCLUDED.reason, wall_s = EXCLUDED.wall_s, "
                   "median_elapsed_s = EXCLUDED.median_elapsed_s, "
                   "peak_rss_bytes = EXCLUDED.peak_rss_bytes, "
                   "peak_threads = EXCLUDED.peak_threads, cpu_s = EXCLUDED.cpu_s, "
                   "record = EXCLUDED.record")


class PostgresStore(Store):
    """The same tables in PostgreSQL (psycopg 3), for a history shared between machines."""

    _placeholder = "%s"

    def __init__(self, location: str):
        import psycopg

        try:
            self._db = psycopg.connect(location, connect_timeout=10, autocommit=True)
        except psycopg.OperationalError as err:
            raise UserError(f"cannot connect to the store {_redact(location)}: "
                            f"{str(err).strip()}; check the URL (--store / CONCBENCH_STORE) "
                            "and that the server is running") from None
        for statement in filter(str.strip, _SCHEMA.split(";")):
            self._db.execute(statement)
        self._check_version(location)

    def begin(self, doc: ResultsDocument) -> None:
        with self._db.transaction():
            self._execute(_PG_UPSERT_SETS, (doc.run_id, doc.created_at, doc.concbench_revision,
                                            json.dumps(doc.machine), json.dumps(doc.toolchains),
                                            json.dumps(doc.plan)))

    def add_cell(self, run_id: str, cell: CellResult) -> None:
        with self._db.transaction():
            for row in _run_rows(run_id, cell):
                self._execute(_PG_UPSERT_RUNS, row)

    def history(self, f: HistoryFilter) -> list[tuple[Any, ...]]:
        sql, args = history_query(f)
        return [tuple(r) for r in self._execute(sql, args).fetchall()]


def _redact(url: str) -> str:
    """The URL without its password."""
    head, at, tail = url.rpartition("@")
    if not at or ":" not in head.split("//", 1)[-1]:
        return url
    scheme, _, user_pass = head.partition("//")
    return f"{scheme}//{user_pass.split(':', 1)[0]}:***@{tail}"
