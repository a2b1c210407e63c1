"""Whether this machine lets the tests make real cgroups, for the tests that need them."""

from __future__ import annotations

import os

import pytest

from concbench.errors import UserError
from concbench.proc import cgroups
from concbench.proc.cgroups import Limits


def why_no_cgroups() -> str | None:
    """Why real cgroups cannot be made here (None: they can)."""
    if os.geteuid() != 0:
        return "not root"
    found = cgroups.machine_layout()
    if found.problem:
        return found.problem
    try:
        cgroups.preflight(Limits(0.5, 64 << 20))
    except UserError as err:
        return str(err)
    return None


needs_cgroups = pytest.mark.skipif(why_no_cgroups() is not None,
                                   reason=f"no cgroups to make here: {why_no_cgroups()}")
