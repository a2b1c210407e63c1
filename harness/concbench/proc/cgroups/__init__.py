"""Runs under a CPU quota and a memory limit, in a cgroup the harness makes and removes
(docs/containers.md). `preflight` checks the machine before a plan runs, `clean_leftovers`
removes what a killed harness left, `Cgroup` is one run's group."""

from __future__ import annotations

import functools
import os

from concbench.errors import UserError
from concbench.proc.cgroups import leftovers
from concbench.proc.cgroups.group import Cgroup, CgroupError
from concbench.proc.cgroups.layout import Layout, detect
from concbench.proc.cgroups.limits import Limits
from concbench.proc.cgroups.stats import CgroupRecord

__all__ = ["Cgroup", "CgroupError", "CgroupRecord", "Limits", "clean_leftovers", "create",
           "machine_layout", "preflight"]


@functools.lru_cache(maxsize=1)
def machine_layout() -> Layout:
    return detect()


def create(limits: Limits, cookie: str) -> Cgroup:
    """A run's cgroup with these limits; CgroupError if it cannot be made."""
    found = machine_layout()
    if found.problem:
        raise CgroupError(found.problem)
    return Cgroup(found, limits, cookie)


def clean_leftovers(say=lambda _m: None) -> None:
    """Remove the cgroups of killed harnesses (nothing to do without a usable layout)."""
    found = machine_layout()
    if found.problem or not found.hierarchies:
        return
    removed, problems = leftovers.clean(found)
    if removed:
        say(f"removed {len(removed)} cgroup(s) left by a killed concbench: "
            + ", ".join(str(p) for p in removed))
    for problem in problems:
        say(f"a leftover cgroup could not be removed: {problem}")


def preflight(limits: Limits) -> None:
    """Make and remove a cgroup with these limits, so a machine that cannot gets a clear
    error before anything runs (never a silent run without the limits)."""
    found = machine_layout()
    advice = ("--cpus and --memory run each contender in a cgroup of its own: run concbench "
              "as root (or, on cgroup v2, in a cgroup delegated to this user) on a Linux "
              "machine whose cgroup filesystem is mounted read-write")
    if found.problem:
        raise UserError(f"cannot create cgroups here: {found.problem}. {advice}")
    try:
        Cgroup(found, limits, f"preflight{os.getpid()}").remove()
    except CgroupError as err:
        raise UserError(f"cannot create cgroups here: {err}. {advice}") from None
