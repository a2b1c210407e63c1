"""The runtime's own diagnostics a contender reports beside its result, checked where the
answer is known: a JVM that allocates far more than its young generation holds collects."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.answers_only  # counts of collections: beside the measuring tests


def test_a_jvm_that_allocates_hundreds_of_mib_reports_its_collections(real_bench):
    """8 M string events of 64 bytes (over 512 MiB of garbage per iteration, more than the
    whole heap this JVM commits at the start) cannot pass without collections: each measured
    iteration counts them."""
    res = real_bench("run", "channel", "--contender", "java-platform", "--param", "workers=4",
                     "--param", "events=2000000", "--param", "etype=str", "--param", "esize=64",
                     "--runs", "1", "--warmup", "1", "--iterations", "2", timeout=600)
    assert res.code == 0, res.stderr[-2000:]
    (cell,) = real_bench.last()["cells"]
    assert cell["status"] == "ok", cell["reason"]
    measured = [it["result"] for it in cell["runs"][0]["iterations"] if not it["warmup"]]
    assert len(measured) == 2
    for result in measured:
        assert isinstance(result["jvm_gc_count"], int) and result["jvm_gc_count"] >= 1, result
        assert result["jvm_gc_ms"] >= 0
    assert cell["stats"]["result.jvm_gc_count"]["median"] >= 1
