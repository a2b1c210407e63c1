"""Files the user asked for (exports, reports, comparisons): checked before any work, written
whole or not at all, and a failure is a message, not a traceback."""

from __future__ import annotations

import os
from pathlib import Path

from concbench.errors import UserError
from concbench.resultset.io import write_atomically


def _reason(err: OSError) -> str:
    return err.strerror or str(err)


def check_writable(path: Path) -> None:
    """Fail before a long run, not after it: the folder must exist or be creatable, and
    accept a new file."""
    if path.is_dir():
        raise UserError(f"cannot write {path}: it is a folder; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UserError(f"cannot write {path}: cannot create {path.parent}: {_reason(err)}") \
            from None
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise UserError(f"cannot write {path}: {path.parent} is not writable")


def write(path: Path, data: bytes | str) -> None:
    """Atomic write (temporary file, fsync, rename); an OSError becomes a clear message."""
    raw = data.encode() if isinstance(data, str) else data
    try:
        write_atomically(path, raw)
    except OSError as err:
        raise UserError(f"cannot write {path}: {_reason(err)}") from None
