"""CPU per request (server.cpu_per_request, docs/contract.md "CPU per request"): made-up window
readings with every term non-zero, so a changed divisor or a swapped member changes the figure.

The divisor is every response the generator received in the window, whatever its status
(`load.requests`), not the ok ones (`load.ok_requests`): the server spent its CPU on the
non-200 answers too. The server's member is the cgroup's usage when it ran in one, else its
process tree's CPU; the generator's is its own rusage.
"""

from __future__ import annotations

import pytest

from concbench.resultset.model import RunResult
from concbench.server.cpu_per_request import cpu_per_request
from concbench.server.loadgen import LoadResult
from concbench.server.window import WindowMeasures
from concbench.stats.server_cell import server_stats

RESPONSES = 1250
"""Responses in the window, any status: 1000 ok and 250 answered with another status."""
OK = 1000
TREE_CPU_S = 0.5
CGROUP_CPU_S = 0.8
GENERATOR_CPU_S = 0.2


def _window(cpu_s: float = TREE_CPU_S) -> WindowMeasures:
    return WindowMeasures(window_s=2.0, cpu_s=cpu_s, cpu_percent=25.0, ctx_voluntary=3,
                          ctx_involuntary=4, peak_fds=5, peak_rss_bytes=None,
                          mean_rss_bytes=None, peak_threads=None, mean_threads=None)


def _load(requests: int = RESPONSES, ok: int = OK) -> LoadResult:
    return LoadResult(generator="oha", requests=requests, ok_requests=ok, duration_s=2.0,
                      requests_per_s=ok / 2.0, latency_ms={}, percentiles=[],
                      errors={"status": requests - ok}, cpu_s=GENERATOR_CPU_S, wall_s=2.0,
                      cpus=(), command=[], corrected=True)


def test_the_divisor_is_every_response_not_only_the_ok_ones():
    found = cpu_per_request(_window(), None, _load())
    assert found is not None
    assert found.responses == RESPONSES
    assert found.server_us == pytest.approx(400.0)  # 0.5 s / 1250; over the 1000 ok: 500
    assert found.generator_us == pytest.approx(160.0)  # 0.2 s / 1250; over the ok: 200
    assert (found.server_cpu_s, found.generator_cpu_s) == (TREE_CPU_S, GENERATOR_CPU_S)


def test_the_server_member_is_the_cgroups_usage_when_there_is_one_else_the_tree():
    group = cpu_per_request(_window(), CGROUP_CPU_S, _load())
    assert group is not None
    assert (group.server_source, group.server_cpu_s) == ("cgroup", CGROUP_CPU_S)
    assert group.server_us == pytest.approx(640.0)  # 0.8 s / 1250
    assert group.generator_us == pytest.approx(160.0)  # the generator's own, either way
    tree = cpu_per_request(_window(), None, _load())
    assert tree is not None and tree.server_source == "proc-tree"
    alone = cpu_per_request(None, CGROUP_CPU_S, _load())
    assert alone is not None and (alone.server_source, alone.server_us) == ("cgroup", 640.0)


def test_no_window_nor_cgroup_leaves_the_server_empty_but_keeps_the_generator():
    found = cpu_per_request(None, None, _load())
    assert found is not None
    assert (found.server_source, found.server_cpu_s, found.server_us) == (None, None, None)
    assert found.generator_us == pytest.approx(160.0)


def test_no_responses_is_no_figure_rather_than_a_division_by_zero():
    found = cpu_per_request(_window(), None, _load(requests=0, ok=0))
    assert found is not None and (found.server_us, found.generator_us) == (None, None)
    assert cpu_per_request(_window(), None, None) is None


def _run(window_cpu_s: float) -> RunResult:
    record = cpu_per_request(_window(window_cpu_s), None, _load())
    assert record is not None
    return RunResult(status="ok", reason=None, wall_s=3.0, startup_s=0.5, peak_rss_bytes=1,
                     peak_threads=1, final_threads=1, cpu_user_s=0.1, cpu_sys_s=0.1,
                     ctx_voluntary=1, ctx_involuntary=1, iterations=(),
                     server={"cpu_per_request": record.to_dict()})


def test_the_cells_figures_are_the_medians_of_the_runs_server_and_generator_us():
    """The cell's server_cpu_us_per_request reads the runs' server_us, and
    generator_cpu_us_per_request their generator_us (not each other's, not the totals)."""
    stats = server_stats([_run(0.25), _run(0.5), _run(1.0)])
    assert stats["server_cpu_us_per_request"].median == pytest.approx(400.0)
    assert stats["server_cpu_us_per_request"].min == pytest.approx(200.0)
    assert stats["generator_cpu_us_per_request"].median == pytest.approx(160.0)


def test_the_server_figure_without_the_jit_takes_out_exactly_its_compiler_threads_cpu():
    jit_s = 0.25
    found = cpu_per_request(_window(), None, _load(), jit_s)
    assert found is not None and found.jit_cpu_s == jit_s
    assert found.server_us == pytest.approx(TREE_CPU_S * 1e6 / RESPONSES)
    assert found.server_us_without_jit == pytest.approx((TREE_CPU_S - jit_s) * 1e6 / RESPONSES)
    plain = cpu_per_request(_window(), None, _load())
    assert plain is not None and plain.server_us_without_jit == plain.server_us, "no JIT"
