"""Shared fixtures: an isolated concbench (fake contenders, temporary results/cache/store)
driven through its real command line in a subprocess, so exit codes and output are real."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FAKE = Path(__file__).resolve().parent / "fake"
sys.path.insert(0, str(REPO / "harness"))


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


class Concbench:
    """Runs `python -m concbench` with an environment of its own."""

    def __init__(self, root: Path, contenders: Path):
        self.root = root
        self.env = {**os.environ, "PYTHONPATH": str(REPO / "harness"),
                    "CONCBENCH_CONTENDERS": str(contenders),
                    "CONCBENCH_RESULTS": str(root / "results"),
                    "CONCBENCH_CACHE": str(root / "cache"),
                    "CONCBENCH_STORE": str(root / "results" / "store.sqlite")}

    def __call__(self, *args: str, timeout: float = 300) -> Result:
        done = subprocess.run([sys.executable, "-m", "concbench", *args], env=self.env,
                              capture_output=True, text=True, timeout=timeout)
        return Result(done.returncode, done.stdout, done.stderr)

    def results(self) -> list[dict]:
        """Every results.json written, oldest first."""
        found = sorted((self.root / "results").glob("*/results.json"))
        return [json.loads(p.read_text()) for p in found]

    def last(self) -> dict:
        return self.results()[-1]


@pytest.fixture
def fake_bench(tmp_path: Path) -> Concbench:
    contenders = tmp_path / "contenders" / "fake"
    shutil.copytree(FAKE, contenders)
    return Concbench(tmp_path, contenders.parent)


@pytest.fixture(scope="session")
def real_bench(tmp_path_factory) -> Concbench:
    """The real contenders, built once per test session (cache under the repo, as users get)."""
    root = tmp_path_factory.mktemp("real")
    bench = Concbench(root, REPO / "contenders")
    bench.env["CONCBENCH_CACHE"] = str(REPO / ".concbench-cache")
    return bench


# Property-based tests explore the same examples on every run, so CI is reproducible.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("concbench", derandomize=True, database=None)
_hypothesis_settings.load_profile("concbench")
