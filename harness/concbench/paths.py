"""Where things live; each can be moved with an environment variable (the tests do)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def contenders_dir() -> Path:
    return Path(os.environ.get("CONCBENCH_CONTENDERS", REPO_ROOT / "contenders"))


def results_dir() -> Path:
    return Path(os.environ.get("CONCBENCH_RESULTS", REPO_ROOT / "results"))


def cache_dir() -> Path:
    return Path(os.environ.get("CONCBENCH_CACHE", REPO_ROOT / ".concbench-cache"))


def suites_dir() -> Path:
    return REPO_ROOT / "suites"


def store_location() -> str:
    """SQLite file by default; CONCBENCH_STORE may name another file."""
    return os.environ.get("CONCBENCH_STORE", str(results_dir() / "concbench.sqlite"))
