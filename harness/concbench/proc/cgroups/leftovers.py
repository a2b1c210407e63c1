"""Cgroups of runs whose harness was killed (SIGKILL leaves no chance to remove them), found
and removed when a harness next starts: a concbench-<pid>-<cookie> folder whose harness pid
is no longer a running concbench. What is still inside (the killed run's contender, which
lives in a session of its own) is killed first: it belongs to no live run."""

from __future__ import annotations

import os
from pathlib import Path

from concbench.proc.cgroups.group import PREFIX, CgroupError, empty_and_remove
from concbench.proc.cgroups.layout import Layout

MAX_DEPTH = 8


def _owner_alive(name: str) -> bool:
    pid = name[len(PREFIX):].partition("-")[0]
    if not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return True
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"concbench" in f.read()
    except OSError:
        return False


def find(layout: Layout) -> list[Path]:
    """Leftover run cgroups in the layout's hierarchies, deepest first."""
    found: list[Path] = []
    for h in layout.hierarchies:
        top = len(h.mount.parts)
        for folder, subdirs, _ in os.walk(h.mount):
            here = Path(folder)
            if len(here.parts) - top >= MAX_DEPTH:
                subdirs.clear()
            ours = [d for d in subdirs if d.startswith(PREFIX)]
            found += [here / d for d in ours if not _owner_alive(d)]
            subdirs[:] = [d for d in subdirs if not d.startswith(PREFIX)]
    return sorted(found, key=lambda p: len(p.parts), reverse=True)


def clean(layout: Layout) -> tuple[list[Path], list[str]]:
    """Remove every leftover: (the folders removed, the problems met)."""
    removed, problems = [], []
    for folder in find(layout):
        try:
            empty_and_remove(folder)
            removed.append(folder)
        except CgroupError as err:
            problems.append(str(err))
    return removed, problems
