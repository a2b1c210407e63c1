"""Property-based bad input: whatever string a user types as a parameter, a scan, a size or a
CPU list, the answer is a value or a UserError (exit 2 with a message), never another
exception (a traceback). Derandomized, so a failure reproduces."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings, strategies as st

from concbench import manifest, workloads
from concbench.errors import UserError
from concbench.plan import cells_for, parse_assignments, parse_size
from concbench.runner import placement

FAKES = manifest.discover(Path(__file__).resolve().parent)
TEXT = st.one_of(st.text(max_size=24),
                 st.from_regex(r"-?[0-9]{0,12}(\.[0-9]{0,4})?[eE]?[0-9kKmMgGtT,]{0,4}",
                               fullmatch=True))
PARAMS = [(name, p.name) for name, spec in workloads.WORKLOADS.items() for p in spec.params]
SETTINGS = settings(max_examples=400, derandomize=True, deadline=None)


def _contender(workload: str) -> list[manifest.Contender]:
    return [next(c for c in FAKES.values() if workload in c.workloads)]


def _refused_cleanly(call, *args) -> None:
    try:
        call(*args)
    except UserError as err:
        assert str(err), "a UserError without a message"


@SETTINGS
@given(st.sampled_from(PARAMS), TEXT)
def test_any_param_value_is_taken_or_refused_with_a_message(param, value):
    workload, name = param
    spec = workloads.get(workload)
    _refused_cleanly(cells_for, spec, _contender(workload), {name: value}, {})


@SETTINGS
@given(st.sampled_from(PARAMS), st.lists(TEXT, max_size=4).map(",".join))
def test_any_scan_is_taken_or_refused_with_a_message(param, values):
    workload, name = param
    spec = workloads.get(workload)
    _refused_cleanly(cells_for, spec, _contender(workload), {}, {name: values})


@SETTINGS
@given(st.lists(st.text(max_size=16), max_size=4))
def test_any_assignment_list_is_taken_or_refused(pairs):
    _refused_cleanly(parse_assignments, pairs, "--param")


@SETTINGS
@given(TEXT)
def test_any_size_is_taken_or_refused(text):
    _refused_cleanly(parse_size, text)


@SETTINGS
@given(st.one_of(st.none(), st.from_regex(r"[0-9,\-a ]{0,8}", fullmatch=True)),
       st.one_of(st.none(), st.from_regex(r"[0-9,\-a ]{0,8}", fullmatch=True)))
def test_any_cpu_list_is_taken_or_refused(server, client):
    _refused_cleanly(placement.choose, server, client)
