"""Checks of the proofs a batch result carries besides its expected values: sleeps the tasks
timed themselves, and work counted by the code that did it (docs/contract.md)."""

from __future__ import annotations

from typing import Any

SLEEP_TOLERANCE_NS = 1_000_000
"""A timed sleep may come out this much short: Node's timers run on a millisecond loop clock
read before the call, so a setTimeout(10) can measure 9.x ms with performance.now()."""


def short_sleep(key: str, got: Any, asked_ms: int, lead: str, why: str) -> str | None:
    """`got` is the shortest sleep some tasks measured around their own sleep call, in ns;
    shorter than asked means a task woke on a timer it did not arm itself, or never slept."""
    if type(got) is not int:
        return f"{key}={got!r}, expected the shortest measured sleep in ns (an integer)"
    if got >= asked_ms * 1_000_000 - SLEEP_TOLERANCE_NS:
        return None
    return f"{lead} {got / 1e6:.3f} ms, asked {asked_ms} ms: {why}"


def missing(result: dict[str, Any], key: str, what: str) -> str | None:
    return None if key in result else f"{key} missing ({what}: docs/contract.md)"


def at_least(result: dict[str, Any], key: str, least: int, what: str) -> str | None:
    """`key` is an integer of at least `least` (a count the runtime or the tasks kept)."""
    got = result.get(key)
    if type(got) is int and got >= least:
        return None
    return f"{key}={got!r}, expected an integer ≥ {least:,} ({what}: docs/contract.md)"


def exactly(result: dict[str, Any], key: str, want: int, what: str) -> str | None:
    got = result.get(key)
    if type(got) is int and got == want:
        return None
    return f"{key}={got!r}, expected {want:,} ({what}: docs/contract.md)"
