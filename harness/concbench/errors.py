"""Errors the user can act on. The CLI turns them into a message and exit code 2."""

from __future__ import annotations

from typing import Iterable


class UserError(Exception):
    """Bad input: an unknown name, a value out of range, a missing file."""


class HostError(Exception):
    """A remote host cannot be used; the message says why and what to do."""


def unknown(kind: str, name: str, choices: Iterable[str]) -> UserError:
    """An error naming the valid choices, e.g. unknown contender 'gopher'."""
    listed = ", ".join(sorted(choices)) or "(none)"
    return UserError(f"unknown {kind} '{name}'; valid {kind}s: {listed}")
