"""Runs one batch contender process to completion (or until the timeout / memory limit).

Timeout: SIGTERM to the whole group, SIGKILL 5 s later, then a final SIGKILL sweep so no
member of the group survives. Resource usage comes from wait4(2), the same rusage that
`/usr/bin/time -v` prints, combined with the sampler's view (see proc.process).
"""

from __future__ import annotations

from pathlib import Path

from concbench.proc.cgroups import Limits
from concbench.proc.process import KILL_GRACE_S, ProcessOutcome, Supervised, not_started

__all__ = ["KILL_GRACE_S", "ProcessOutcome", "execute"]


def execute(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
            rss_limit: int | None = None, limits: Limits | None = None) -> ProcessOutcome:
    """Run argv to completion (in a cgroup with `limits` if given) and report what
    happened."""
    proc = Supervised(argv, cwd, env, rss_limit, limits=limits)
    try:
        proc.start()
    except OSError as err:
        return not_started(argv, err)
    try:
        if not proc.wait(timeout_s):
            proc.time_out()
    finally:
        if not proc.exited.is_set():  # interrupted (Ctrl-C): the contender must not survive us
            proc.stop(grace_s=1.0)
    return proc.outcome()
