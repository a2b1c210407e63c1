"""Bad input: exit code 2, a message naming the valid choices, never a traceback."""

from __future__ import annotations

import pytest

CASES = [
    (["run", "nosuch"], "unknown workload 'nosuch'", "fanout"),
    (["run", "fanout", "--contender", "gopher"], "unknown contender 'gopher'", "fake-good"),
    (["run", "spawn-idle", "--contender", "fake-noisy"], "does not implement spawn-idle",
     "fake-good"),
    (["run", "fanout", "--param", "colour=red"], "no parameter 'colour'", "requests"),
    (["run", "fanout", "--param", "requests=0"], "below the minimum 1", "requests"),
    (["run", "fanout", "--param", "requests=3000000"], "above the maximum 2000000", "requests"),
    (["run", "fanout", "--param", "requests=many"], "must be an integer", "requests"),
    (["run", "channel", "--param", "etype=float"], "is not one of", "str_ptr"),
    (["run", "fanout", "--param", "requests"], "expects KEY=VALUE", "--param"),
    (["run", "fanout", "--scan", "requests=10,abc"], "must be an integer", "requests"),
    (["run", "fanout", "--runs", "0"], "0", "--runs"),
    (["run", "fanout", "--mem-limit", "lots"], "cannot read size", "G"),
    (["run", "fanout", "--reference", "nobody"], "unknown reference contender", "fake-good"),
    (["suite", "nosuch"], "unknown suite 'nosuch'", "quick"),
    (["run", "fanout", "--resume", "no-such-run"], "no results file", "results.json"),
    (["nosuchcommand"], "No such command", "nosuchcommand"),
    (["run", "fanout", "--export-json", "/proc/nope/x.json"], "cannot write /proc/nope/x.json",
     "/proc/nope"),
    (["run", "fanout", "--export-csv", "/tmp"], "is a directory", "/tmp"),
    (["run", "fanout", "--param", "requests=10", "--param", "requests=20"], "given twice",
     "requests"),
    (["run", "fanout", "--resume", "../../etc"], "is not a run id", "results"),
    (["history", "--since", "notadate"], "--since 'notadate' is not a date", "YYYY-MM-DD"),
    (["history", "--since", "2026-13-01"], "--since '2026-13-01' is not a date", "YYYY-MM-DD"),
    (["history", "--since", "20260101"], "--since '20260101' is not a date", "YYYY-MM-DD"),
]


@pytest.mark.parametrize("args,message,names", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_exits_2_with_a_message(cli, args, message, names):
    res = cli(*args)
    assert res.code == 2, (res.stdout, res.stderr)
    text = " ".join((res.stdout + res.stderr).split())
    assert message in text and names in text
    assert "Traceback" not in res.stderr


def test_the_launcher_passes_messages_through(fake_bench):
    """./concbench (the bash launcher) must not swallow the CLI's stderr."""
    import subprocess
    from pathlib import Path

    launcher = Path(__file__).resolve().parent.parent / "concbench"
    res = subprocess.run([str(launcher), "run", "nosuch"], env=fake_bench.env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert "unknown workload 'nosuch'" in res.stderr


def test_an_unwritable_export_fails_before_anything_runs(cli):
    res = cli("run", "sleep-tasks", "--contender", "fake-good", "--runs", "1",
              "--export-markdown", "/proc/nope/r.md")
    assert res.code == 2 and "cannot write /proc/nope/r.md" in res.stderr
    assert cli.results() == [], "a run was measured before the export path was checked"


@pytest.mark.parametrize("text,message", [
    ('runz = 3\n[[cells]]\nworkload = "fanout"\n', "unknown key 'runz'"),
    ('[[cells]]\nworkload = "fanout"\nparms = { requests = 10 }\n', "cells[0]: unknown key 'parms'"),
    ('[[cells]\nworkload = "fanout"\n', "line 1"),
])
def test_a_suite_file_with_a_typo_names_it(tmp_path, text, message):
    from concbench import suites
    from concbench.errors import UserError

    (tmp_path / "typo.toml").write_text(text)
    with pytest.raises(UserError, match=message.replace("[", r"\[")):
        suites.load("typo", tmp_path, {}, {})


def _fill(path) -> None:
    """Write until the device is full (unbuffered: a buffered file would raise at close)."""
    import os

    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    except OSError as err:
        if err.errno == 28:
            return  # not even an inode left: full already
        raise
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as err:
        if err.errno != 28:
            raise
    finally:
        os.close(fd)


def _nothing_fits(path) -> bool:
    import os

    try:
        _fill(path)
        return os.path.getsize(path) == 0 if os.path.exists(path) else True
    except OSError:
        return False


@pytest.fixture
def full_disk(tmp_path):
    """A 1 MiB tmpfs filled to the last byte (root only: mount needs CAP_SYS_ADMIN)."""
    import os
    import subprocess

    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "full"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], check=True)
    try:
        _fill(mount / "filler")
        assert _nothing_fits(mount / "probe")  # the fixture's own check
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


SMALL_RUN = ["run", "sleep-tasks", "--contender", "fake-good", "--runs", "1", "--param",
             "tasks=10", "--param", "sleep-ms=1", "--param", "pool-size=2"]


def test_an_export_to_a_full_disk_is_a_message_and_the_results_are_kept(fake_bench, full_disk):
    res = fake_bench(*SMALL_RUN, "--export-html", str(full_disk / "r.html"))
    assert res.code == 2 and "No space left on device" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    assert not (full_disk / "r.html").exists()  # nothing half-written
    assert fake_bench.last()["cells"][0]["status"] == "ok"  # measured and kept elsewhere


def test_a_results_folder_on_a_full_disk_is_a_message(fake_bench, full_disk):
    fake_bench.env["CONCBENCH_RESULTS"] = str(full_disk / "results")
    fake_bench.env["CONCBENCH_STORE"] = str(fake_bench.root / "store.sqlite")
    res = fake_bench(*SMALL_RUN)
    assert res.code == 2 and "No space left on device" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr


def test_help_is_quick_to_start_it_imports_no_scipy_or_matplotlib():
    """`concbench --help` (and any command that fails on its input) should answer at once:
    scipy and matplotlib, 1.4 s of imports, are loaded only by what uses them."""
    import os
    import subprocess
    import sys

    script = ("import runpy, sys\n"
              "sys.argv = ['concbench', '--help']\n"
              "try:\n"
              "    runpy.run_module('concbench', run_name='__main__')\n"
              "except SystemExit as exit_:\n"
              "    assert exit_.code in (0, None), exit_.code\n"
              "print(sorted(m for m in ('scipy', 'matplotlib') if m in sys.modules))\n")
    from conftest import REPO

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO / "harness")}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Usage:" in done.stdout and done.stdout.splitlines()[-1] == "[]", done.stdout


def test_a_run_s_statistics_and_report_load_neither_scipy_stats_nor_pyplot():
    """Every run summarizes its cells and draws a report, and every test that runs
    concbench pays for it: the t quantile comes from scipy.special (a third of scipy.stats'
    import) and figures are made without pyplot (0.4 s of import a report drawn to bytes
    never needs). The figures are the same: test_stats_differential checks them against
    scipy.stats. (A scan's fit uses scipy.stats' regression: a cell without one needs none.)"""
    import os
    import subprocess
    import sys

    script = ("import sys\n"
              "sys.path.insert(0, 'tests')\n"
              "import dataclasses\n"
              "from sample_doc import troubled_document\n"
              "from concbench.report import html\n"
              "doc = troubled_document()\n"
              "doc = dataclasses.replace(doc, cells=doc.cells[:1])  # no scan: no fit\n"
              "page = html.render([(doc, None)])\n"
              "assert page.count('<svg') >= 2, 'no chart drawn'\n"
              "print(sorted(m for m in ('scipy.stats', 'matplotlib.pyplot') if m in sys.modules))\n")
    from conftest import REPO

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=REPO, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO / "harness")})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "[]", done.stdout
