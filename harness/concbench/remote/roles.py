"""The remote hosts of one plan: opened once (reached, sources synced, tools checked, the
network measured), builds done there on first need, closed at the end of the plan.

A host that cannot be used does not end the plan: every cell that needs it is recorded
`unavailable` with the reason (unreachable, host key, refused key, missing tool).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from concbench.manifest import Contender
from concbench.remote import network
from concbench.remote.hosts import Host, Roles, roles_from
from concbench.remote.remote_host import RemoteHost
from concbench.remote.remote_site import RemoteSite
from concbench.remote.ssh import HostError
from concbench.server import backend
from concbench.server.placement import Placement, cpu_list
from concbench.server.sites import Site, Sites


class RemoteRoles:
    def __init__(self, roles: Roles, remotes: dict[str, RemoteHost], problems: dict[str, str],
                 sites: Sites, say: Callable[[str], None]):
        self.roles, self.remotes, self.problems = roles, remotes, problems
        self.sites, self.say = sites, say
        self._builds: dict[tuple[str, str], dict[str, Any]] = {}
        self.machines: dict[str, Any] = {}

    @classmethod
    def open(cls, given: dict[str, str], server_cells: list, placement: Placement,
             say: Callable[[str], None]) -> "RemoteRoles":
        roles = roles_from(given.get("server_host"), given.get("client_host"),
                           given.get("backend_host"), given.get("hosts_file"),
                           given.get("known_hosts"))
        if roles.backend is None and (roles.client or roles.server):
            roles = replace(roles, backend=roles.client or roles.server)
        remotes: dict[str, RemoteHost] = {}
        problems: dict[str, str] = {}
        for host in roles.distinct():
            say(f"preparing {host.target} (ssh, rsync of the sources to {host.workdir}) ...")
            remote = None
            try:
                remote = RemoteHost(host, say)
                remote.prepare()
                remotes[host.name] = remote
            except HostError as err:
                if remote is not None:  # its SSH control folder and master go with it
                    remote.close()
                problems[host.name] = str(err)
                say(f"[red]{host.name}: {err}[/]")
        sites = Sites(*(cls._site(roles.of(role), remotes, local)
                        for role, local in (("server", placement.server),
                                            ("client", placement.client),
                                            ("backend", placement.backend))),
                      more_clients=tuple(cls._site(h, remotes, placement.client)
                                         for h in roles.more_clients))
        self = cls(roles, remotes, problems, sites, say)
        self._measure(server_cells)
        return self

    @staticmethod
    def _site(host: Host | None, remotes: dict[str, RemoteHost], local: tuple[int, ...]) -> Site:
        if host is None:
            return Site(local)
        cpus = cpu_list(host.cpus, f"[hosts.{host.name}] cpus") if host.cpus else ()
        return RemoteSite(cpus, remotes.get(host.name))

    def _usable(self, role: str) -> bool:
        host = self.roles.of(role)
        return host is None or host.name in self.remotes

    def _measure(self, server_cells: list) -> None:
        """Machines of every host and the network between the roles, before any load."""
        for name, remote in self.remotes.items():
            try:
                self.machines[name] = remote.machine()
            except HostError as err:
                self.machines[name] = {"error": str(err)}
        s, found = self.sites, self.sites.network
        if self._usable("server") and self._usable("client"):
            self.say("measuring the network: round trips client → server, iperf3 ...")
            found["client_server"] = network.round_trip(s.server, s.client)
            found["client_server_throughput"] = network.throughput(s.server, s.client)
        if s.more_clients and self._usable("server"):
            found["clients_server"] = {
                site.name: network.round_trip(s.server, site) for site in s.clients
                if site.remote is not None}
        if any(c.spec.server.uses_backend(c.params) for c in server_cells) \
                and self._usable("server") and self._usable("backend"):
            found["server_backend"] = network.round_trip(s.backend, s.server)

    # -- per cell -----------------------------------------------------------------------------

    def unavailable_reason(self, contender: Contender, params: dict) -> str | None:
        for role in ("server", "client", "backend"):
            host = self.roles.of(role)
            if host is not None and host.name in self.problems:
                if role != "backend" or "downstream" in params and params["downstream"] == "http":
                    return f"{role} host {host.name}: {self.problems[host.name]}"
        for host in self.roles.more_clients:
            if host.name in self.problems:
                return f"client host {host.name}: {self.problems[host.name]}"
        for site in self.sites.clients:
            if site.remote is None:
                continue
            for tool in (params.get("loadgen", "wrk"), "setpriv") + (
                    ("taskset",) if site.cpus else ()):
                problem = site.remote.missing_tool(tool)
                if problem:
                    return problem
        server = self.sites.server.remote
        if server is not None:
            built = self._build(server, contender.toolchain.name)
            if not built.get("ok"):
                return f"on {server.host.name}: {built.get('reason')}"
        remote_backend = self.sites.backend.remote
        if remote_backend is not None and params.get("downstream") == "http":
            built = self._build(remote_backend, backend.TOOLCHAIN.name)
            if not built.get("ok"):
                return f"latency backend on {remote_backend.host.name}: {built.get('reason')}"
        return None

    def _build(self, remote: RemoteHost, toolchain: str) -> dict[str, Any]:
        key = (remote.host.name, toolchain)
        if key not in self._builds:
            self.say(f"building {toolchain} on {remote.host.target} ...")
            try:
                self._builds[key] = remote.build(toolchain)
            except HostError as err:
                self._builds[key] = {"ok": False, "reason": str(err)}
        return self._builds[key]

    # -- records ------------------------------------------------------------------------------

    def tool_versions(self) -> dict[str, str]:
        return {f"agent on {name}": f"python {r.checked.get('python', '?')}"
                for name, r in self.remotes.items()}

    def record(self) -> dict[str, Any]:
        """The results' machine.roles: which host has which role, each host's machine, the
        network measured, and builds made there."""
        return {"roles": self.sites.to_dict(), "hosts": {
            h.name: {**h.to_dict(), "machine": self.machines.get(h.name),
                     "problem": self.problems.get(h.name),
                     "builds": {tc: b.get("versions") for (name, tc), b in self._builds.items()
                                if name == h.name and b.get("ok")}}
            for h in self.roles.distinct()}, "network": self.sites.network}

    def close(self) -> None:
        for remote in self.remotes.values():
            remote.close()
