"""What a server run is asked to do: a contender serving a workload with resolved
parameters, where each role runs, and the command lines and load that follow from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from concbench.manifest import Contender
from concbench.proc.cgroups import Limits
from concbench.proc.launch import contender_head
from concbench.profiling import Profiler
from concbench.server.loadgen import LoadSpec
from concbench.server.placement import Placement
from concbench.server.sites import LOOPBACK, Sites
from concbench.toolchains import ToolEnv
from concbench.workloads import WorkloadSpec
from concbench.workloads.server import Bounds, resolve_bounds

VERIFY_IDS = (1001,)
"""The id verified before the load and after it; the load's path carries it too."""


@dataclass(frozen=True)
class ServerRequest:
    """What to run: a contender serving a workload with resolved parameters, and where."""

    spec: WorkloadSpec
    contender: Contender
    tools: ToolEnv
    params: dict[str, Any]
    timeout_s: float
    rss_limit: int | None
    placement: Placement
    backend_exe: Path | None = None
    profiler: Profiler | None = None
    """A profiled run (--profile): sampled during the measured window only."""
    sites: Sites | None = None
    """Remote hosts for some roles (None: every role on this machine, as `placement` says)."""
    limits: Limits | None = None
    """The server's cgroup: CPU quota and memory limit (None: no cgroup; the load generator
    and the latency backend never run in it)."""

    @property
    def where(self) -> Sites:
        return self.sites or Sites.local(self.placement)

    @property
    def bounds(self) -> Bounds:
        return resolve_bounds(self.contender.bounds, self.params)

    def args(self, port: int, backend: tuple[str, int] | None, bind: str = LOOPBACK) -> list[str]:
        """The server's arguments after the workload; `backend` is the latency backend's
        (host, port), given to every contender that takes one (("127.0.0.1", 0) when the
        downstream is in-process)."""
        server = self.spec.server
        assert server is not None
        args = [f"--port={port}", f"--bind={bind}"] \
            + [f"--{k}={self.params[k]}" for k in server.contender_params]
        if backend is not None:
            args += [f"--backend-host={backend[0]}", f"--backend-port={backend[1]}"]
        return args

    def argv(self, port: int, backend: tuple[str, int] | None, bind: str = LOOPBACK) -> list[str]:
        """The whole local command line (unpinned)."""
        head = contender_head(self.contender, self.tools)
        return [*head, self.spec.name, *self.args(port, backend, bind)]

    def load_spec(self, target: tuple[str, int], duration_s: float,
                  rate: int | None = None) -> LoadSpec:
        """The load of one phase: at `rate` requests/s, or at the `rate` parameter when it is
        a number (a share of the peak, "N%", is closed loop until the probe has set `rate`)."""
        p = self.params
        if rate is None:
            rate = p["rate"] if isinstance(p["rate"], int) else 0
        client = self.where.client
        cpus = client.cpus
        threads = min(p["threads"] or len(cpus) or 1, p["connections"])
        server = self.spec.server
        assert server is not None
        return LoadSpec(url=f"http://{target[0]}:{target[1]}", path=server.path(VERIFY_IDS[0]),
                        varied_ids=server.varied_ids, connections=p["connections"],
                        duration_s=duration_s, threads=threads, keepalive=p["keepalive"] == "true",
                        rate=rate, cpus=cpus, timeout_s=duration_s + 5,
                        runner=client.runner(), think_ms=int(p.get("think-ms", 0)))
