"""Property-based bad input: whatever string a user types as a parameter, a scan, a size or a
CPU list, the answer is a value the option promises (in range, of its kind) or a UserError
naming what was wrong (exit 2 with a message), never another exception (a traceback).
Derandomized, so a failure reproduces."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from concbench import manifest, workloads
from concbench.errors import UserError
from concbench.plan import cells_for, parse_assignments, parse_size
from concbench.server import placement

FAKES = manifest.discover(Path(__file__).resolve().parent)
TEXT = st.one_of(st.text(max_size=24),
                 st.from_regex(r"-?[0-9]{0,12}(\.[0-9]{0,4})?[eE]?[0-9kKmMgGtT,]{0,4}",
                               fullmatch=True))
PARAMS = [(name, p.name) for name, spec in workloads.WORKLOADS.items() for p in spec.params]
SETTINGS = settings(max_examples=400, derandomize=True, deadline=None)


def _contender(workload: str) -> list[manifest.Contender]:
    return [next(c for c in FAKES.values() if workload in c.workloads)]


def _refused_cleanly(call, *args):
    """The call's value, or None when it refused with a message."""
    try:
        return call(*args)
    except UserError as err:
        assert str(err), "a UserError without a message"
        return None


def _in_range(spec, name: str, value) -> bool:
    param = spec.param(name)
    if param.choices is not None:
        return value in param.choices
    return isinstance(value, int) and not isinstance(value, bool) and \
        (param.minimum is None or value >= param.minimum) and \
        (param.maximum is None or value <= param.maximum)


@SETTINGS
@given(st.sampled_from(PARAMS), TEXT)
def test_any_param_value_is_taken_or_refused_with_a_message(param, value):
    workload, name = param
    spec = workloads.get(workload)
    cells = _refused_cleanly(cells_for, spec, _contender(workload), {name: value}, {})
    if cells is not None:
        (cell,) = cells
        got = cell.params[name]  # the value typed: a choice as is, a number as its integer
        assert _in_range(spec, name, got), (value, got)
        assert got == (value if spec.param(name).choices else int(value.replace("_", "")))


@SETTINGS
@given(st.sampled_from(PARAMS), st.lists(TEXT, max_size=4).map(",".join))
def test_any_scan_is_taken_or_refused_with_a_message(param, values):
    workload, name = param
    spec = workloads.get(workload)
    cells = _refused_cleanly(cells_for, spec, _contender(workload), {}, {name: values})
    if cells is not None:  # one cell per value given, in order, each in range
        given = [v for v in values.split(",") if v.strip()]
        assert [c.params[name] for c in cells] == [spec.param(name).parse(v) for v in given]
        assert all(_in_range(spec, name, c.params[name]) for c in cells)


@SETTINGS
@given(st.lists(st.text(max_size=16), max_size=4))
def test_any_assignment_list_is_taken_or_refused(pairs):
    found = _refused_cleanly(parse_assignments, pairs, "--param")
    if found is not None:  # every pair, split at its first '=', stripped
        assert len(found) == len(pairs)
        assert found == {p.partition("=")[0].strip(): p.partition("=")[2].strip() for p in pairs}


@SETTINGS
@given(TEXT)
def test_any_size_is_taken_or_refused(text):
    size = _refused_cleanly(parse_size, text)
    if size is not None:  # a whole number of bytes: the number times its unit's power of 1024
        assert isinstance(size, int) and size >= 0
        unit = text.strip()[-1:].lower()
        scale = 1024 ** "kmgt".index(unit) * 1024 if unit in "kmgt" and unit else 1
        number = text.strip()[:-1] if unit in "kmgt" and unit else text.strip()
        assert size == int(float(number) * scale), (text, size)


@SETTINGS
@given(st.one_of(st.none(), st.from_regex(r"[0-9,\-a ]{0,8}", fullmatch=True)),
       st.one_of(st.none(), st.from_regex(r"[0-9,\-a ]{0,8}", fullmatch=True)))
def test_any_cpu_list_is_taken_or_refused(server, client):
    chosen = _refused_cleanly(placement.choose, server, client)
    if chosen is not None:  # server and load generator never share a CPU
        assert not set(chosen.server) & set(chosen.client), chosen
        assert chosen.backend == chosen.client
