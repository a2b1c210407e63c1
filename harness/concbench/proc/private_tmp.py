"""A temporary directory of one contender process's own, named to it by TMPDIR and removed once
the process and everything it started are gone, so what a run leaves in its temporary
directory does not pile up in the machine's /tmp (Spring Boot's Tomcat, for one, makes a
base and a docbase directory on every start and never removes them; a JVM ignores TMPDIR, so
the Spring MVC application names Tomcat's folders there itself: contenders/spring BootWeb).
A harness killed with SIGKILL cannot remove it: the native sampler, the contender's guardian,
does, once it has killed the contender's tree (harness/sampler/cbsample.c); one the harness
left in a moment no guardian watched (killed between making it and starting the sampler) is
removed when a harness next starts a plan, once no process of its creator's pid is left."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "concbench-tmp-"
ENV = "TMPDIR"


def make() -> Path:
    """A new empty directory under the harness's own temporary directory, named after the
    harness's pid."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))


def clean_leftovers() -> list[Path]:
    """Remove the directories of harnesses that are gone (no process has their pid: a reused
    pid keeps its folder, which is harmless); the folders removed."""
    removed = []
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*-*"):
        pid = folder.name[len(PREFIX):].partition("-")[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            remove(folder)
            removed.append(folder)
    return removed


def remove(folder: Path | None) -> None:
    """Remove it and whatever the process wrote there (nothing raised: a run's result never
    depends on its temporary directory's removal)."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
