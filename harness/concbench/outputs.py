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
    """Atomic write (temporary file, fsync, rename); an OSError becomes a clear message.

    A target that exists and is not a regular file (/dev/stdout, a FIFO, /dev/full) is
    written in place: renaming over it would replace the device with a file and report a
    write that never reached it."""
    raw = data.encode() if isinstance(data, str) else data
    try:
        if path.exists() and not path.is_file():
            _write_in_place(path, raw)
        else:
            write_atomically(path, raw)
    except OSError as err:
        raise UserError(f"cannot write {path}: {_reason(err)}") from None


def _write_in_place(path: Path, raw: bytes) -> None:
    """Every byte written, or an OSError (a short write is retried until it fails)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
