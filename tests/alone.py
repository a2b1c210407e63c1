"""Tests that need the machine to themselves: marked `alone`, they run while no other test does.

With two xdist workers, a test that watches a machine-wide effect (the cgroup a killed
concbench left, which whichever concbench starts next removes) would see the other worker's
runs do it first. So every test holds a shared lock on a file in the session's folder
(tests/measuring_group.py makes it) for its whole course, its fixtures' set-up and teardown
included, and an `alone` test holds it exclusively. Either takes a turnstile lock first and
keeps it while it waits, so an `alone` test that waits is not passed by the other worker's next
tests. Outside xdist (one process) nothing is locked."""

from __future__ import annotations

import contextlib
import fcntl
from typing import Iterator

import measuring_group


@contextlib.contextmanager
def machine(alone: bool) -> Iterator[None]:
    """Held for one test: shared, or exclusive for an `alone` test."""
    folder = measuring_group.worker_folder()
    if folder is None:
        yield
        return
    with open(folder / "turnstile.lock", "a") as gate, open(folder / "machine.lock", "a") as held:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(held, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
