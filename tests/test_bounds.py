"""Little's-law bounds of http-aggregate, one design kind per test (seed 003's figures)."""

from __future__ import annotations

import pytest

from concbench import workloads
from concbench.workloads.littles_law import ceilings
from concbench.workloads.server import resolve_bounds

SPEC = workloads.get("http-aggregate")


def _bounds(raw: dict, **given):
    params = SPEC.resolve({"connections": 150, **given})
    bounds = resolve_bounds(raw, params)
    floor = SPEC.server.latency_floor_ms(params, bounds)
    return floor, ceilings(floor, params["connections"], params, bounds)


def test_parallel_design_is_bound_by_its_connections():
    floor, found = _bounds({})
    assert floor == 600  # 100 + max(300, 500)
    assert [c.name for c in found] == ["connections"]
    assert found[0].requests_per_s == pytest.approx(150 / 0.6)  # the seed's 250 TPS ceiling


def test_sequential_design_waits_for_the_sum():
    floor, found = _bounds({"sequential": True, "request-threads": 200})
    assert floor == 900  # seed 003's first version: 900 ms per request
    assert found[0].name == "connections" and found[0].requests_per_s == pytest.approx(150 / 0.9)
    assert found[1].name == "request threads"
    assert found[1].requests_per_s == pytest.approx(200 / 0.9)


def test_small_async_pool_is_the_tightest_bound():
    floor, found = _bounds({"request-threads": 200, "async-threads": 12})
    assert floor == 600
    assert found[0].name == "async pool"
    assert found[0].requests_per_s == pytest.approx(12 / 0.8)  # detail + extra hold a thread each


def test_pool_size_bounds_follow_the_cell_and_the_downstream_mode():
    raw = {"async-threads": "pool-size", "async-waits": ["base", "detail", "extra"],
           "async-downstream": ["inproc"]}
    _, inproc = _bounds(raw, **{"pool-size": 90})
    pool = next(c for c in inproc if c.name == "async pool")
    assert pool.requests_per_s == pytest.approx(90 / 0.9)
    _, http = _bounds(raw, **{"pool-size": 90, "downstream": "http"})
    assert [c.name for c in http] == ["connections"]  # non-blocking calls hold no thread


def test_no_wait_no_ceiling():
    floor, found = _bounds({}, **{"base-ms": 0, "detail-ms": 0, "extra-ms": 0})
    assert floor == 0 and found == []


SMALL = {"core": 6, "max": 12, "queue": 500, "rejected": "caller-runs"}
TUNED = {"core": 50, "max": 150, "queue": 50, "rejected": "caller-runs"}
LARGE = {"core": 100, "max": 300, "queue": 50, "rejected": "caller-runs"}


def _pool(shape: dict, connections: int):
    _, found = _bounds({"request-threads": 200, "async-pool": shape}, connections=connections)
    return next(c for c in found if c.name == "async pool"), found[0]


@pytest.mark.parametrize("connections", [50, 150, 500])
def test_a_pool_whose_queue_never_fills_runs_only_its_core(connections):
    pool, tightest = _pool(SMALL, connections)  # ≤ 200 in flight × 2 tasks ≤ 6 + 500
    assert pool.requests_per_s == pytest.approx(6 / 0.8) and tightest is pool  # seed's 7.5
    assert "never grows" in pool.why


def test_a_pool_grows_above_core_only_past_its_queue():
    pool, _ = _pool(TUNED, 50)  # 100 tasks = core 50 + queue 50: stays at core
    assert pool.requests_per_s == pytest.approx(50 / 0.8)
    pool, _ = _pool(LARGE, 150)  # 300 tasks: 50 queued, 250 running
    assert pool.requests_per_s == pytest.approx(250 / 0.8)


def test_caller_runs_adds_the_overflowing_request_threads():
    pool, tightest = _pool(TUNED, 150)  # 300 tasks: 150 threads, 50 queued, 100 run by callers
    assert pool.requests_per_s == pytest.approx(250 / 0.8) and "CallerRunsPolicy" in pool.why
    assert tightest.name == "connections"  # so 200 requests/s measured is not "above a bound"
    aborting, _ = _pool({**TUNED, "rejected": "abort"}, 150)
    assert aborting.requests_per_s == pytest.approx(150 / 0.8)


@pytest.mark.parametrize("shape", [{"core": 6, "max": 12, "queue": 5},
                                   {"core": 12, "max": 6, "queue": 5, "rejected": "abort"},
                                   {"core": 6, "max": 12, "queue": 5, "rejected": "discard"},
                                   {"core": True, "max": 12, "queue": 5, "rejected": "abort"}])
def test_a_bad_pool_shape_in_a_manifest_is_refused(shape):
    from concbench.errors import UserError
    from concbench.manifest import _bounds as manifest_bounds

    with pytest.raises(UserError, match="async-pool must be"):
        manifest_bounds({"async-pool": shape}, "x.bounds")
