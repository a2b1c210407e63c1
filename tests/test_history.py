"""The store's history: SQLite by default, PostgreSQL by URL against a throwaway server
started here with initdb / pg_ctl (skipped where those binaries are missing)."""

from __future__ import annotations

import dataclasses
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from concbench.resultset.store import HistoryFilter, PostgresStore, Store
from sample_doc import sample_document

SMALL = ["--param", "tasks=10", "--param", "sleep-ms=1", "--param", "pool-size=2", "--runs", "2"]


def _pg_bin() -> Path | None:
    for found in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if all(Path(found, b).exists() for b in ("postgres", "initdb", "pg_ctl")):
            return Path(found)
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path and shutil.which("initdb") else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres_user(cmd: list[str]) -> list[str]:
    """postgres refuses to run as root: run it as the postgres user where we are root."""
    if os.geteuid() != 0:
        return cmd
    if shutil.which("runuser") is None:
        pytest.skip("running as root without runuser: cannot start postgres")
    try:
        import pwd
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("running as root and there is no postgres user to start the server as")
    return ["runuser", "-u", "postgres", "--", *cmd]


@pytest.fixture(scope="module")
def postgres_url():
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    root = Path(tempfile.mkdtemp(prefix="concbench-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    port = _free_port()
    run = lambda *a: subprocess.run(_as_postgres_user(list(a)), check=True,  # noqa: E731
                                    capture_output=True, text=True, timeout=120)
    run(str(bin_dir / "initdb"), "-D", str(data), "-U", "concbench", "--auth=trust",
        "--no-sync", "-E", "UTF8")
    run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w", "-o",
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
    try:
        yield f"postgresql://concbench@127.0.0.1:{port}/postgres"
    finally:
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)


def _fill(store: Store) -> None:
    doc = sample_document()
    store.begin(doc)
    for cell in doc.cells:
        store.add_cell(doc.run_id, cell)
        store.add_cell(doc.run_id, cell)  # a resumed cell replaces its rows


def test_sqlite_store_history_filters(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    _fill(store)
    assert store.count_runs("20260101-000000-sample") == 8
    (row,) = store.history(HistoryFilter())
    assert row[0] == "20260101-000000-sample" and row[4:6] == (8, 7)
    assert store.history(HistoryFilter(contender="java-platform"))[0][4:6] == (3, 2)
    assert store.history(HistoryFilter(contender="nobody")) == []
    assert store.history(HistoryFilter(since="2027-01-01")) == []
    store.close()


def test_postgres_store_keeps_the_interface_and_history(postgres_url):
    store = Store(postgres_url)
    assert isinstance(store, PostgresStore)
    _fill(store)
    assert store.count_runs("20260101-000000-sample") == 8
    (row,) = store.history(HistoryFilter(workload="sleep-tasks"))
    assert row[4:8] == (8, 7, "sleep-tasks", "go,java-platform")
    assert store.history(HistoryFilter(status="timeout"))[0][4] == 1
    store.close()


def test_runs_and_history_command_through_a_postgres_url(fake_bench, postgres_url):
    res = fake_bench("--store", postgres_url, "run", "sleep-tasks", "--contender",
                     "fake-good", "--contender", "fake-crash", *SMALL)
    assert res.code == 0, res.stderr
    run_id = fake_bench.last()["run_id"]
    fake_bench.env["CONCBENCH_STORE"] = postgres_url
    res = fake_bench("history", "--contender", "fake-crash")
    assert res.code == 0, res.stderr
    assert run_id in res.stdout and "fake-crash" in res.stdout


def test_history_command_on_sqlite(fake_bench):
    fake_bench("run", "sleep-tasks", "--contender", "fake-good", *SMALL)
    res = fake_bench("history", "--workload", "sleep-tasks")
    assert res.code == 0 and fake_bench.last()["run_id"] in res.stdout
    res = fake_bench("history", "--workload", "channel")
    assert res.code == 0 and "no stored runs match" in res.stdout


@pytest.mark.parametrize("since,listed", [
    ("2026-01-01", True), ("2026-01-02", False),
    ("2026-01-01T10:00", True), ("2026-01-01T10:00:01", False),  # UTC without an offset
    ("2026-01-01T11:30+02:00", True), ("2026-01-01T10:30Z", False),  # 09:30 and 10:30 UTC
    ("2026-01-01 09:59:59", True)])
def test_since_takes_a_date_or_a_time_and_compares_it_in_utc(cli, since, listed):
    """A result set created 2026-01-01 10:00 UTC, listed or not by each accepted form."""
    doc = dataclasses.replace(sample_document(), created_at="2026-01-01T10:00:00+00:00")
    store = Store(cli.env["CONCBENCH_STORE"])
    store.begin(doc)
    store.add_cell(doc.run_id, doc.cells[0])
    store.close()
    res = cli("history", "--since", since)
    assert res.code == 0, res.stderr
    assert (doc.run_id in res.stdout) == listed, res.stdout


def test_unreachable_postgres_is_a_user_error(cli):
    res = cli("--store", f"postgresql://nobody:secret@127.0.0.1:{_free_port()}/x",
                     "history")
    assert res.code == 2 and "cannot connect to the store" in res.stderr
    assert "secret" not in res.stderr and "Traceback" not in res.stderr


def test_a_store_is_stamped_and_one_from_a_newer_concbench_is_refused(cli, tmp_path):
    import sqlite3

    path = tmp_path / "s.sqlite"
    Store(str(path)).close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM store_meta").fetchall() == [("1",)]
        db.execute("UPDATE store_meta SET value = '99' WHERE key = 'schema_version'")
    res = cli("--store", str(path), "history")
    assert res.code == 2 and "schema version 99, newer than this concbench's 1" in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("elapsed_ms, median_ms", [([1.0, 3.0], 2.0), ([9.0, 1.0, 2.0], 2.0),
                                                    ([4.0, 1.0, 2.0, 8.0], 3.0)])
def test_the_store_keeps_each_runs_median(tmp_path, elapsed_ms, median_ms):
    """The stored median_elapsed_s is the median of the run's measured iterations: the middle
    one, or the mean of the two middle ones (never the maximum of two)."""
    import sqlite3
    from dataclasses import replace

    from sample_doc import _run

    doc = sample_document()
    cell = replace(doc.cells[0], runs=(_run(elapsed_ms, 12, 5),))
    store = Store(str(tmp_path / "s.sqlite"))
    store.begin(doc)
    store.add_cell(doc.run_id, cell)
    store.close()
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        (stored,) = db.execute("SELECT median_elapsed_s FROM runs").fetchone()
    assert stored == pytest.approx(median_ms / 1000)


def _open_and_close_store(path: str) -> None:
    Store(path).close()


@pytest.mark.middle
def test_runs_creating_one_store_at_the_same_moment_all_open_it(tmp_path):
    """Four processes open a store that does not exist yet, 20 times over: none may fail with
    "database is locked" (switching a new store to WAL takes a lock SQLite does not wait for)."""
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(4) as pool:
        for round_ in range(20):
            path = str(tmp_path / f"store-{round_}.sqlite")
            pool.map(_open_and_close_store, [path] * 4)
