"""Each contender process gets a temporary directory of its own (TMPDIR, proc.private_tmp),
removed with whatever it wrote there once the process is gone, whether it exited or was
stopped; so a run leaves nothing in the machine's /tmp (Spring's Tomcat directories: the
real-server half of this is in tests/test_conformance.py)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

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
