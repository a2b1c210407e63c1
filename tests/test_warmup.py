"""The warm-up rule (server.warmup): fixed, or windows until the rate stops moving (neither
climbing nor falling) and the JIT compiler threads are within their budget, capped, each
window recorded."""

from __future__ import annotations

import os
import subprocess

import pytest

from concbench.server.loadgen import LoadResult
from concbench.server.steadiness import JIT_BUDGET
from concbench.server.warmup import (WarmupPolicy, WarmupWindow, is_steady,
                                     jit_cpu_s, local_probe, warm_up)

pytestmark = pytest.mark.measures  # tests/conftest.py: one measuring test at a time


def _window(rate: float, jit: float | None = None, cpu: float = 1.0) -> WarmupWindow:
    return WarmupWindow(duration_s=5, requests_per_s=rate, p99_ms=1.0, errors_total=0,
                        server_cpu_s=cpu, jit_cpu_s=jit)


def _load(rate: float) -> LoadResult:
    return LoadResult(generator="fake", requests=int(rate), ok_requests=int(rate), duration_s=1,
                      requests_per_s=rate, latency_ms={"p99": 1.0}, percentiles=[], errors={},
                      cpu_s=0.1, wall_s=1, cpus=(), command=[], corrected=False)


def test_a_climbing_rate_is_not_steady_and_a_flat_noisy_one_is():
    climbing = [_window(r) for r in (2_500, 3_400, 5_200, 9_700)]
    assert not is_steady(climbing, 5)
    noisy = [_window(r) for r in (22_100, 19_800, 19_200, 20_200)]
    assert is_steady(noisy, 5)
    assert not is_steady(noisy[:3], 5), "fewer than four windows is never steady"


def test_a_falling_rate_is_not_steady_either():
    falling = [_window(r) for r in (20_000, 19_900, 17_000, 16_800)]
    assert not is_steady(falling, 5)
    assert is_steady([_window(r) for r in (20_000, 19_900, 19_400, 19_600)], 5)


def test_a_busy_jit_keeps_the_warm_up_going_even_on_a_flat_rate():
    flat = [_window(16_000) for _ in range(3)]
    assert not is_steady([*flat, _window(16_000, jit=0.2)], 5)
    assert not is_steady([*flat, _window(16_000, jit=JIT_BUDGET * 1.5)], 5)
    assert is_steady([*flat, _window(16_000, jit=JIT_BUDGET / 2)], 5)


def test_warm_up_stops_when_steady_and_records_every_window():
    rates = iter([1_000, 2_000, 4_000, 8_000, 8_100, 7_900, 8_000, 8_050, 8_000])
    calls: list[float] = []

    def load(seconds: float) -> LoadResult:
        calls.append(seconds)
        return _load(next(rates))

    out = warm_up(WarmupPolicy(cap_s=60, window_s=5, steady_pct=5), local_probe(os.getpid()), load)
    assert out.settled is True and out.warning() is None
    assert [w.requests_per_s for w in out.windows] == [1_000, 2_000, 4_000, 8_000, 8_100, 7_900]
    assert calls == [5] * 6 and out.seconds == 30
    assert out.to_dict()["mode"] == "steady" and len(out.to_dict()["windows"]) == 6


def test_warm_up_that_never_settles_stops_at_the_cap_with_a_warning():
    rates = iter(range(1_000, 100_000, 1_000))
    out = warm_up(WarmupPolicy(cap_s=12, window_s=5, steady_pct=5), local_probe(os.getpid()),
                  lambda s: _load(next(rates)))
    assert out.settled is False
    assert [w.duration_s for w in out.windows] == [5, 5, 2], "the last window fits the cap"
    assert "did not settle within 12 s" in (out.warning() or "")


def test_a_fixed_warm_up_is_one_window_of_warmup_s():
    out = warm_up(WarmupPolicy(cap_s=7, window_s=5, steady_pct=0), local_probe(os.getpid()),
                  lambda s: _load(100))
    assert out.settled is None and [w.duration_s for w in out.windows] == [7]
    assert out.warning() is None and out.to_dict()["mode"] == "fixed"


def test_jit_threads_are_found_in_a_jvm_and_not_in_python(tmp_path, jdk25, processes):
    assert jit_cpu_s(os.getpid()) is None
    src = tmp_path / "Spin.java"
    src.write_text("public class Spin { public static void main(String[] a) throws Exception {"
                   " long s = 0; for (int i = 0; i < 50_000_000; i++) s += i % 7;"
                   " System.out.println(s); Thread.sleep(20_000); } }")
    proc = subprocess.Popen([str(jdk25 / "bin" / "java"), str(src)], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()  # the loop ran, so the JIT has compiled it
        found = jit_cpu_s(proc.pid)
        assert found is not None and found > 0
    finally:
        proc.kill()
        proc.wait()


def test_the_jit_is_judged_over_at_least_three_seconds_of_windows():
    """One late compile is 1.5 % of a 2 s window's CPU but 0.75 % of the 4 s that the last two
    such windows span: the JIT's share is judged over JIT_SPAN_S, not over one short window."""
    def short(jit: float) -> WarmupWindow:
        return WarmupWindow(duration_s=2, requests_per_s=16_000, p99_ms=1.0, errors_total=0,
                            server_cpu_s=2.0, jit_cpu_s=jit)

    late_compile = [short(0.0)] * 3 + [short(JIT_BUDGET * 1.5 * 2.0)]
    assert is_steady(late_compile, 5)
    busy = [short(0.0)] * 2 + [short(JIT_BUDGET * 1.5 * 2.0)] * 2
    assert not is_steady(busy, 5), "both windows of the span over budget"
    three_s = [_window(16_000, jit=0.0, cpu=3.0)] * 3 + [
        WarmupWindow(duration_s=3, requests_per_s=16_000, p99_ms=1.0, errors_total=0,
                     server_cpu_s=3.0, jit_cpu_s=JIT_BUDGET * 1.5 * 3.0)]
    assert not is_steady(three_s, 5), "a 3 s window is judged alone"
