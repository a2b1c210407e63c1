"""The workload registry: one spec module per workload; adding one is a module plus a line here."""

from __future__ import annotations

from concbench.errors import unknown
from concbench.workloads import (channel, fanout, http_aggregate, http_hello, ring, skynet,
                                  sleep_tasks, spawn_idle)
from concbench.workloads.base import Param, Params, WorkloadSpec

WORKLOADS: dict[str, WorkloadSpec] = {
    spec.name: spec
    for spec in (fanout.SPEC, sleep_tasks.SPEC, spawn_idle.SPEC, channel.SPEC, ring.SPEC,
                 skynet.SPEC, http_hello.SPEC, http_aggregate.SPEC)
}


def get(name: str) -> WorkloadSpec:
    try:
        return WORKLOADS[name]
    except KeyError:
        raise unknown("workload", name, WORKLOADS) from None


__all__ = ["WORKLOADS", "Param", "Params", "WorkloadSpec", "get"]
