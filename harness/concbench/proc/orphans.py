"""Processes a run leaves behind, found by an environment cookie and killed.

Sweeping the contender's process group misses a descendant that called setsid() (a daemon,
or a grandchild of one): it has its own session and group, and once its parent is gone, no
parent link leads back to the run. Every process inherits its parent's environment, though,
so the harness gives each run a cookie variable and, when the run is over, kills whatever
still carries it: the technique of Jenkins' ProcessTreeKiller (BUILD_ID). A process that
replaces its whole environment (env -i) escapes; none of the real contenders does.
"""

from __future__ import annotations

import os
import signal
import time
import uuid

COOKIE_VAR = "CONCBENCH_RUN_COOKIE"
SWEEP_S = 2.0


def new_cookie() -> str:
    return uuid.uuid4().hex


def carrying(cookie: str) -> list[int]:
    """Live processes (not zombies: they have no environment left) carrying the cookie."""
    needle = f"{COOKIE_VAR}={cookie}".encode()
    me, found = os.getpid(), []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as f:
                env = f.read()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if needle in env.split(b"\0"):
            found.append(int(entry.name))
    return found


def kill_left(cookie: str, within_s: float = SWEEP_S) -> list[int]:
    """SIGKILL every process still carrying the cookie, until none is left (or within_s);
    returns the pids that had to be killed."""
    killed: list[int] = []
    deadline = time.monotonic() + within_s
    while pids := carrying(cookie):
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            if pid not in killed:
                killed.append(pid)
        if time.monotonic() > deadline:
            break
        time.sleep(0.02)
    return killed
