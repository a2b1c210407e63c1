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
