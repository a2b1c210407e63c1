"""Warnings of a server cell: when the generator, not the server, sets the figure."""

from __future__ import annotations

from concbench.stats.server_cell import server_stats, server_warnings
from sample_doc import _server_run

PLACEMENT = {"server": [0], "client": [1]}


def _warnings(gen_cpu: float, server_cpu: float) -> list[str]:
    runs = [_server_run(70000, 3.0, 6.0, 10, gen_cpu, server_cpu, 10, 2) for _ in range(3)]
    return server_warnings(runs, server_stats(runs), PLACEMENT, 10.0)


def test_a_busy_generator_beside_an_idle_server_is_generator_bound():
    found = [w for w in _warnings(98, 50) if w.startswith("generator-bound")]
    assert len(found) == 1 and "floor of what the server can do" in found[0]


def test_both_sides_saturated_is_flagged_too():
    found = [w for w in _warnings(99, 99) if w.startswith("generator-bound")]
    assert len(found) == 1 and "both sides are saturated" in found[0]


def test_a_generator_with_headroom_raises_no_such_warning():
    assert not [w for w in _warnings(70, 99) if w.startswith("generator-bound")]
