"""A C source of the harness compiled into the cache, once, with the machine's cc: the native
sampler (proc.native_sampler) and the source-address library (server.loadgen.source_bind)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from concbench import paths


def compiled(source: Path, name: str, flags: tuple[str, ...] = (),
             libs: tuple[str, ...] = ()) -> Path | None:
    """The cache's `name` built from `source` with `flags` (and `libs` after it), rebuilt when
    missing or older than its source (written under a temporary name, then moved, so a process
    never runs half a file); None without a C compiler or when the build fails."""
    target = paths.cache_dir() / name
    if target.exists() and target.stat().st_mtime >= source.stat().st_mtime:
        return target
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    stem, dot, ext = name.partition(".")
    tmp = target.with_name(f".{stem}.{os.getpid()}{dot}{ext}")
    done = subprocess.run([cc, "-O2", *flags, "-o", str(tmp), str(source), *libs],
                          capture_output=True)
    if done.returncode != 0:
        return None
    os.replace(tmp, target)
    return target
