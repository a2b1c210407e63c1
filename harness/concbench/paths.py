"""Where things live; each can be moved with an environment variable (the tests do)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from concbench.errors import UserError

RUN_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
"""A run id names one folder under results/: no separators, no leading dot (so no '..')."""

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


def run_folder(run_id: str) -> Path:
    """The folder of a run id given by the user, which cannot point outside results/."""
    if not RUN_ID.fullmatch(run_id):
        raise UserError(f"{run_id!r} is not a run id: run ids are folder names under "
                        f"{results_dir()} (letters, digits, '-', '_', '.')")
    return results_dir() / run_id
