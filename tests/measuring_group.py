"""The xdist scheduling of the tests: the measuring ones (tests/conftest.py `measures`) as one
unit of work, so one worker runs them one after another while the other takes the rest.

xdist's own `--dist loadgroup` reads a group from the marks by rewriting each item's nodeid,
which pytest 9's structured node ids no longer carry back, so every test stayed a group of its
own. Here each worker writes the node ids it judged measuring to a folder the controller made
(the environment passes it down), and the controller's scheduler, a LoadScopeScheduling whose
scope of a test is "measuring" or the test's own id, reads them once every worker has
collected. LoadScope hands out the largest unit first."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable

from xdist.scheduler import LoadScopeScheduling

FOLDER_ENV = "CONCBENCH_MEASURING_IDS"
GROUP = "measuring"


def make_folder() -> None:
    """In the controller, before the workers start: where they write their lists."""
    os.environ[FOLDER_ENV] = tempfile.mkdtemp(prefix="concbench-measuring-")


def remove_folder() -> None:
    """In the controller, when the session is over."""
    folder = os.environ.pop(FOLDER_ENV, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


def worker_folder() -> Path | None:
    """In a worker: the session's folder (None outside xdist)."""
    folder = os.environ.get(FOLDER_ENV)
    return Path(folder) if folder and os.environ.get("PYTEST_XDIST_WORKER") else None


def record(nodeids: Iterable[str]) -> None:
    """In a worker, after collection: the ids of its measuring tests (nothing outside xdist)."""
    folder = worker_folder()
    if folder is None:
        return
    worker = os.environ["PYTEST_XDIST_WORKER"]
    partial = folder / f".{worker}"
    partial.write_text("\n".join(nodeids))
    partial.rename(folder / worker)


class MeasuringGroupScheduling(LoadScopeScheduling):
    """Each test its own unit of work, except the measuring tests: one unit together."""

    _measuring: frozenset[str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self._measuring is None:  # first called once every worker has collected
            folder = Path(os.environ[FOLDER_ENV])
            self._measuring = frozenset(
                line for f in folder.iterdir() if not f.name.startswith(".")
                for line in f.read_text().splitlines() if line)
        return GROUP if nodeid in self._measuring else nodeid
