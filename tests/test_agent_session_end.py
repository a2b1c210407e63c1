"""The remote agent's commands live as long as their session (remote/agent.py
die_with_stdin): a command whose session was already closed when it started (the harness
interrupted while the host's shell was starting it) ends before it starts anything, since a
child forked while the agent exits can miss its parent-death signal and run on; the command's
temporary folder goes with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import conftest

pytestmark = pytest.mark.middle


def _exec(tmp_path: Path, stdin) -> subprocess.CompletedProcess:
    mark = tmp_path / "started"
    spec = {"argv": ["sh", "-c", f"touch {mark}; exec sleep 3"], "env": {}, "timeout_s": 60}
    return subprocess.run([sys.executable, "-m", "concbench.remote.agent", "exec",
                           json.dumps(spec)], stdin=stdin, capture_output=True, text=True,
                          timeout=30, env={**os.environ, "TMPDIR": str(tmp_path),
                                           "PYTHONPATH": str(conftest.REPO / "harness")})


def test_a_command_whose_session_is_already_closed_starts_nothing(tmp_path):
    """Five tries (a child that slips through does so in some of them, not all), each
    looked at once a child forked at the agent's exit would have run."""
    for _ in range(5):
        done = _exec(tmp_path, subprocess.DEVNULL)
        assert done.returncode == 1, done.stderr
        time.sleep(0.5)
        assert not (tmp_path / "started").exists(), "the command ran with its session closed"
        assert [f.name for f in tmp_path.iterdir()] == [], "the exec folder was left"


def test_a_command_with_its_session_open_runs_to_its_end(tmp_path):
    spec_path = tmp_path / "sub"
    spec_path.mkdir()
    read, write = os.pipe()  # the session: open for the whole command
    try:
        mark = spec_path / "started"
        spec = {"argv": ["sh", "-c", f"touch {mark}"], "env": {}, "timeout_s": 60}
        done = subprocess.run([sys.executable, "-m", "concbench.remote.agent", "exec",
                               json.dumps(spec)], stdin=read, capture_output=True, text=True,
                              timeout=30, env={**os.environ, "TMPDIR": tempfile.gettempdir(),
                                               "PYTHONPATH": str(conftest.REPO / "harness")})
    finally:
        os.close(read)
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["returncode"] == 0
    assert mark.exists()
