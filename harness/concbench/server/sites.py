"""Where each role of a server run goes: the server, the load generator (client) and the
latency backend, each on this machine (pinned to its share of the CPUs) or on a remote host
(remote.RemoteHost, over SSH). The server runner asks a site for a port, an address to bind,
the address others reach it at, a process started there, and a runner for the generator.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from concbench import tools
from concbench.proc.cgroups import Limits
from concbench.server import http_probe
from concbench.server.loadgen.base import CommandRunner, LoadError, pinned
from concbench.server.placement import Placement
from concbench.server.process import LocalServer, ServerProcess

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Site:
    cpus: tuple[int, ...]
    remote: Any = None
    """A remote.RemoteHost, or None for this machine (a remote site is a remote.RemoteSite,
    which starts processes through the host's agent)."""

    @property
    def name(self) -> str:
        return self.remote.host.name if self.remote else "local"

    @property
    def bind(self) -> str:
        """The address a server here listens on: loopback locally, the host's own address
        (resolved to IPv4, as the contract wants) remotely."""
        if self.remote is None:
            return LOOPBACK
        return socket.gethostbyname(self.remote.host.address.strip("[]"))

    def free_port(self) -> int:
        if self.remote is None:
            return http_probe.free_port()
        return self.remote.host.serve_port or self.remote.free_port(self.bind)

    def reach(self, port: int) -> tuple[str, int]:
        """Where the other roles (and the harness) connect to a server here on `port`."""
        return self.remote.host.reach_for(port) if self.remote else (LOOPBACK, port)

    def runner(self) -> CommandRunner | None:
        """How a load generator runs here: None on this machine (remote.RemoteSite runs it
        through the host's agent)."""
        return None

    def generator_cpus(self) -> tuple[int, ...]:
        """The CPUs a generator here may use: the site's, else every CPU of its host."""
        return self.cpus or tuple(sorted(os.sched_getaffinity(0)))

    @property
    def sources(self) -> tuple[str, ...]:
        """Source addresses a generator here binds its connections to (none: the kernel's
        choice)."""
        return ()

    def tool(self, name: str) -> str:
        """Where a tool is here (a remote site: where the host's agent found it)."""
        return str(tools.path(name) or name)

    def load_session(self, argv: list[str], timeout_s: float) -> Any:
        """A generator started on the word (server.client_load.ClientSession): only on a
        client host, whose agent runs it (remote.RemoteSite)."""
        raise LoadError("a load split over several clients runs on client hosts only "
                        "(--client-host)")

    def start(self, local_argv: list[str], cwd: Path, env: dict[str, str],
              remote_spec: dict[str, Any], rss_limit: int | None,
              on_message: Callable[[dict[str, Any]], None] | None = None,
              limits: Limits | None = None) -> ServerProcess:
        """A process here, not yet started: `local_argv` on this machine, pinned to the
        site's CPUs, in a cgroup with `limits` if given (remote.RemoteSite starts the agent's
        `serve` of `remote_spec` on its host instead)."""
        return LocalServer(pinned(local_argv, self.cpus), cwd, env, self.cpus, self.bind,
                           rss_limit, on_message=on_message, limits=limits)

    def to_dict(self) -> dict[str, Any]:
        return {"host": self.name, "cpus": list(self.cpus),
                **({"address": self.remote.host.address} if self.remote else {})}


@dataclass(frozen=True)
class Sites:
    server: Site
    client: Site
    backend: Site
    network: dict[str, Any] = field(default_factory=dict)
    """Measured before the plan: round trips and throughput between the hosts."""
    more_clients: tuple[Site, ...] = ()
    """The second and later client hosts when the load is split over several
    (server.client_load); `client` is the first."""

    @property
    def clients(self) -> tuple[Site, ...]:
        return (self.client, *self.more_clients)

    @classmethod
    def local(cls, placement: Placement) -> "Sites":
        return cls(Site(placement.server), Site(placement.client), Site(placement.backend))

    @property
    def remote(self) -> bool:
        return any(s.remote is not None for s in (self.server, self.client, self.backend))

    def to_dict(self) -> dict[str, Any]:
        found = {"server": self.server.to_dict(), "client": self.client.to_dict(),
                 "backend": self.backend.to_dict()}
        if self.more_clients:
            found["clients"] = [s.to_dict() for s in self.clients]
        return found
