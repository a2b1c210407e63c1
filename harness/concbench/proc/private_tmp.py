"""A temporary directory of one contender process's own, named to it by TMPDIR and removed once
the process and everything it started are gone, so what a run leaves in its temporary
directory does not pile up in the machine's /tmp (Spring Boot's Tomcat, for one, makes a
base and a docbase directory on every start and never removes them; a JVM ignores TMPDIR, so
the Spring MVC application names Tomcat's folders there itself: contenders/spring BootWeb).
A harness killed with SIGKILL cannot remove it: the native sampler, the contender's guardian,
does, once it has killed the contender's tree (harness/sampler/cbsample.c)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

PREFIX = "concbench-tmp-"
ENV = "TMPDIR"


def make() -> Path:
    """A new empty directory under the harness's own temporary directory."""
    return Path(tempfile.mkdtemp(prefix=PREFIX))


def remove(folder: Path | None) -> None:
    """Remove it and whatever the process wrote there (nothing raised: a run's result never
    depends on its temporary directory's removal)."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
