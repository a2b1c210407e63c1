"""A site (server.sites.Site) on a remote host: the load generator runs through the host's
agent and a server is the agent's `serve`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from concbench.proc.cgroups import Limits
from concbench.remote.agent_session import RemoteRunner
from concbench.remote.load_session import LoadSession, open_session
from concbench.remote.remote_process import RemoteServer
from concbench.server.loadgen.base import CommandRunner
from concbench.server.process import ServerProcess
from concbench.server.sites import Site


@dataclass(frozen=True)
class RemoteSite(Site):
    def runner(self) -> CommandRunner | None:
        return RemoteRunner(self.remote)

    def generator_cpus(self) -> tuple[int, ...]:
        return self.cpus or tuple(self.remote.checked.get("cpus") or ())

    def tool(self, name: str) -> str:
        return str(self.remote.checked.get("tools", {}).get(name) or name)

    def load_session(self, argv: list[str], timeout_s: float) -> LoadSession:
        return open_session(self.remote, argv, timeout_s, self.sources)

    @property
    def sources(self) -> tuple[str, ...]:
        return self.remote.host.sources if self.remote else ()

    def start(self, local_argv: list[str], cwd: Path, env: dict[str, str],
              remote_spec: dict[str, Any], rss_limit: int | None,
              on_message: Callable[[dict[str, Any]], None] | None = None,
              limits: Limits | None = None) -> ServerProcess:
        """The agent's `serve` of `remote_spec` on the host (limits apply on this machine
        only: the plan's preflight refuses them with a remote server)."""
        spec = {**remote_spec, "cpus": list(self.cpus), "rss_limit": rss_limit,
                "bind": self.bind}
        return RemoteServer(self.remote, spec, on_message)
