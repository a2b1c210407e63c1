"""Each contender process gets a temporary directory of its own (TMPDIR, proc.private_tmp),
removed with whatever it wrote there once the process is gone, whether it exited or was
stopped; so a run leaves nothing in the machine's /tmp (Spring's Tomcat directories: the
real-server half of this is in tests/test_conformance.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

import conftest

from concbench.proc import private_tmp
from concbench.proc.process import Supervised

pytestmark = pytest.mark.middle


def _started(tmp_path: Path, then: str) -> tuple[Supervised, Path]:
    """A shell that names its TMPDIR in a file, writes a folder and a file there, then runs
    `then`."""
    named = tmp_path / "tmpdir"
    script = (f'mkdir "$TMPDIR/tomcat.1" && touch "$TMPDIR/tomcat.1/x" && '
              f'echo "$TMPDIR" > {named}.part && mv {named}.part {named}; {then}')
    proc = Supervised(["sh", "-c", script], tmp_path, {"PATH": os.environ["PATH"]})
    proc.start()
    return proc, named


def _named(named: Path) -> Path:
    deadline = time.monotonic() + 30
    while not named.exists():
        assert time.monotonic() < deadline, "the process never named its TMPDIR"
        time.sleep(0.02)
    return Path(named.read_text().strip())


def test_a_process_that_exits_leaves_no_temporary_directory(tmp_path):
    proc, named = _started(tmp_path, "exit 0")
    assert proc.wait(30)
    outcome = proc.outcome()
    assert outcome.exit_code == 0, outcome.stderr_tail
    folder = _named(named)
    assert folder.parent == Path(tempfile.gettempdir())
    assert folder.name.startswith(private_tmp.PREFIX)
    assert not folder.exists()


def test_a_stopped_process_leaves_no_temporary_directory(tmp_path):
    proc, named = _started(tmp_path, "exec sleep 60")
    folder = _named(named)
    assert (folder / "tomcat.1" / "x").exists(), "its own while it runs"
    proc.stop()
    proc.outcome()
    assert not folder.exists()


def test_two_processes_get_two_directories(tmp_path):
    started = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        started.append(_started(tmp_path / name, "exec sleep 60"))
    try:
        assert _named(started[0][1]) != _named(started[1][1])
    finally:
        for proc, _ in started:
            proc.stop()
            proc.outcome()


HARNESS = """
import os, subprocess, sys, time
sys.path.insert(0, {harness!r})
from concbench.proc.native_sampler import binary
folder = sys.argv[1]
open(os.path.join(folder, "x"), "w").close()
child = subprocess.Popen(["sleep", "0.1"], start_new_session=True)
out = os.open(os.path.join(folder, "..", "samples"), os.O_WRONLY | os.O_CREAT)
sampler = subprocess.Popen([str(binary()), str(child.pid), "10000", "/proc/self/fd/1", "0",
                            folder], stdout=out)
child.wait()
time.sleep(0.3)
print(sampler.pid, flush=True)
time.sleep(600)
"""


def test_a_harness_killed_after_its_contender_ended_leaves_no_temporary_directory(tmp_path):
    """The contender's tree has ended and the harness dies before its clean-up: the sampler,
    told nothing yet, is still there (it ends on SIGTERM or the harness's death once it has a
    directory to look after) and removes the directory."""
    folder = tmp_path / "run-tmp"
    folder.mkdir()
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS.format(harness=str(conftest.REPO / "harness")),
         str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        sampler = int(harness.stdout.readline())
        assert psutil.Process(sampler).status() != psutil.STATUS_ZOMBIE, \
            "the sampler ended with the tree"
        assert (folder / "x").exists()
    finally:
        harness.kill()
        harness.wait()
    deadline = time.monotonic() + 10
    while folder.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not folder.exists()


def test_a_dead_harness_s_directory_is_swept_and_a_live_one_s_kept(tmp_path, monkeypatch):
    """What a harness killed before its guardian started left: removed by the next one once
    no process has its creator's pid; a live creator's (this test's) stays."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    mine = private_tmp.make()
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid no process has now (pid_max is far larger than this test's spawns)
    left = tmp_path / f"{private_tmp.PREFIX}{dead.pid}-abc"
    (left / "tomcat").mkdir(parents=True)
    other = tmp_path / "concbench-ssh-x"
    other.mkdir()
    assert private_tmp.clean_leftovers() == [left]
    assert mine.exists() and other.exists() and not left.exists()
