"""Named baselines, as criterion keeps them: a saved results document under
results/baselines/NAME.json that later result sets are compared with."""

from __future__ import annotations

import re

from concbench import paths
from concbench.errors import UserError
from concbench.resultset import io
from concbench.resultset.model import ResultsDocument

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def folder():
    return paths.results_dir() / "baselines"


def _path(name: str):
    if not _NAME.match(name):
        raise UserError(f"baseline name {name!r} must be letters, digits, '.', '_' or '-' "
                        "(at most 64, starting with a letter or digit)")
    return folder() / f"{name}.json"


def available() -> list[str]:
    return sorted(p.stem for p in folder().glob("*.json"))


def save(name: str, doc: ResultsDocument) -> str:
    """Save (or replace) a baseline; returns where it went."""
    path = _path(name)
    io.write_atomically(path, io.to_json(doc))
    return str(path)


def load(name: str) -> ResultsDocument:
    path = _path(name)
    if not path.is_file():
        known = ", ".join(available()) or "(none yet: save one with --save-baseline NAME)"
        raise UserError(f"no baseline named {name!r}; saved baselines: {known}")
    return io.read(path)
