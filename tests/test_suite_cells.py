"""A suite cell's contenders: all that implement the workload, the named ones, or all but the
excluded ones (so that a contender added later joins a cell that names only its exceptions)."""

from __future__ import annotations

from collections import Counter

import pytest

from concbench import manifest, paths, suites
from concbench.errors import UserError


def _contenders():
    return manifest.discover(paths.contenders_dir())


def _plan(tmp_path, text: str):
    (tmp_path / "s.toml").write_text(text)
    return suites.load("s", tmp_path, _contenders(), {})


def test_exclude_keeps_every_other_contender_of_the_workload(tmp_path):
    everyone = {c.name for c in manifest.select(_contenders(), [], "channel")}
    plan = _plan(tmp_path, '[[cells]]\nworkload = "channel"\nexclude = ["go", "erlang"]\n')
    assert {c.contender.name for c in plan.cells} == everyone - {"go", "erlang"}


def test_quick_runs_every_channel_contender_once_per_event_kind():
    """quick splits channel into two cells (the Python runtimes at a size of their own): none
    may fall between them, none may run twice."""
    plan = suites.load("quick", paths.suites_dir(), _contenders(), {})
    everyone = {c.name for c in manifest.select(_contenders(), [], "channel")}
    seen = Counter((c.contender.name, c.params["etype"]) for c in plan.cells
                   if c.spec.name == "channel")
    assert set(seen) == {(n, t) for n in everyone for t in ("int", "str")}
    assert set(seen.values()) == {1}


@pytest.mark.parametrize("entry,message", [
    ('exclude = "go"', "exclude must be a list of contender names"),
    ('exclude = ["gopher"]', "exclude: unknown contender 'gopher'"),
    ('contenders = ["go"]\nexclude = ["go"]', "exclude leaves no contender"),
])
def test_a_bad_exclude_is_a_message(tmp_path, entry, message):
    with pytest.raises(UserError, match=message):
        _plan(tmp_path, f'[[cells]]\nworkload = "channel"\n{entry}\n')


@pytest.mark.parametrize("name", sorted(suites.available(paths.suites_dir())))
def test_every_shipped_suite_loads_into_a_plan(name):
    """A suite's parameters, scans and contenders are checked when it loads: a typo in one
    would otherwise surface only when a user runs it."""
    plan = suites.load(name, paths.suites_dir(), manifest.discover(paths.REPO_ROOT
                                                                   / "contenders"), {})
    assert plan.cells and plan.name == name
