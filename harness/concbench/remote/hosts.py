"""Which host plays which role in a server run: `--server-host`, `--client-host`,
`--backend-host`, each `[user@]host[:port]` or the name of an entry in a hosts file.

A hosts file (`hosts.toml`, or the file `--hosts-file` names) says per host how to reach it
over SSH and where its processes go:

    [hosts.srv]
    address = "198.18.0.2"      # SSH reaches it here; a server there binds this address
    user = "root"               # SSH user (default: the local user's name)
    port = 22                   # SSH port
    key = "~/.ssh/id_ed25519"   # identity file (default: ssh's own choice)
    known_hosts = "~/.ssh/known_hosts"   # host keys are checked against this file, never added
    cpus = "0"                  # CPUs the role's processes are pinned to there (default: all)
    workdir = "/var/tmp/concbench"       # where the sources are synced and built
    python = "python3"          # the interpreter that runs concbench's agent there
    serve_port = 18080          # a fixed server port (a firewall lets only it through)
    reach = "198.18.0.12:18080" # where others connect to reach the server (a proxy in front)
    sources = ["198.18.0.13", "198.18.0.23"]  # a client's connections bind to these in turn

    [groups]
    load = ["c1", "c2", "c3"]   # `--client-host load`: the load split over these hosts

`--client-host` may be given several times (or name a group): the load is then split over
every client (server.client_load). No role given means the local machine, as before.
"""

from __future__ import annotations

import getpass
import ipaddress
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from concbench.errors import UserError

ROLES = ("server", "client", "backend")
DEFAULT_WORKDIR = "/var/tmp/concbench-remote"
_SPEC = re.compile(r"(?:(?P<user>[A-Za-z0-9._-]+)@)?(?P<host>[A-Za-z0-9._-]+|\[[0-9a-fA-F:.]+\])"
                   r"(?::(?P<port>\d{1,5}))?")
_KEYS = {"address", "user", "port", "key", "known_hosts", "cpus", "workdir", "python",
         "serve_port", "reach", "sources"}


@dataclass(frozen=True)
class Host:
    """One remote host and how to use it."""

    name: str
    """The name given on the command line or in the hosts file."""
    address: str
    user: str
    port: int = 22
    key: str | None = None
    known_hosts: str | None = None
    cpus: str | None = None
    workdir: str = DEFAULT_WORKDIR
    python: str = "python3"
    serve_port: int | None = None
    reach: str | None = None
    sources: tuple[str, ...] = ()
    """IPv4 addresses of this host a generator here binds its connections to, in turn
    (more than one source address's ~28 000 ports per server address and port)."""
    options: tuple[str, ...] = field(default=(), compare=False)

    @property
    def target(self) -> str:
        return f"{self.user}@{self.address.strip('[]')}"

    def reach_for(self, port: int) -> tuple[str, int]:
        """Where another host connects to reach a server this host serves on `port`."""
        if self.reach:
            addr, _, p = self.reach.rpartition(":")
            return addr, int(p)
        return self.address, port

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "address": self.address, "user": self.user,
                "ssh_port": self.port, "cpus": self.cpus, "workdir": self.workdir,
                "serve_port": self.serve_port, "reach": self.reach,
                **({"sources": list(self.sources)} if self.sources else {})}


@dataclass(frozen=True)
class Roles:
    """The host of each role; None is the local machine."""

    server: Host | None = None
    client: Host | None = None
    """The first client; with several, the others are in more_clients."""
    backend: Host | None = None
    more_clients: tuple[Host, ...] = ()
    """The second and later clients, when the load is split over several hosts."""

    @property
    def remote(self) -> bool:
        return any((self.server, self.client, self.backend))

    @property
    def clients(self) -> tuple[Host, ...]:
        return ((self.client,) if self.client else ()) + self.more_clients

    def of(self, role: str) -> Host | None:
        return getattr(self, role)

    def distinct(self) -> list[Host]:
        seen: dict[str, Host] = {}
        for h in (self.server, *self.clients, self.backend):
            if h is not None:
                seen.setdefault(h.name, h)
        return list(seen.values())

    def to_dict(self) -> dict[str, Any]:
        found = {r: (h.to_dict() if h else None) for r in ROLES for h in [self.of(r)]}
        if self.more_clients:
            found["clients"] = [h.to_dict() for h in self.clients]
        return found


def load_file(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = tomllib.loads(path.read_text())
    except OSError as err:
        raise UserError(f"cannot read hosts file {path}: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise UserError(f"hosts file {path} is not valid TOML: {err}") from None
    hosts = data.get("hosts")
    if not isinstance(hosts, dict) or not all(isinstance(v, dict) for v in hosts.values()):
        raise UserError(f"hosts file {path}: expected [hosts.<name>] tables")
    extra_tables = set(data) - {"hosts", "groups"}
    if extra_tables:
        raise UserError(f"hosts file {path}: unknown tables {sorted(extra_tables)}; known: "
                        "hosts, groups")
    for name, entry in hosts.items():
        extra = set(entry) - _KEYS
        if extra:
            raise UserError(f"hosts file {path}: [hosts.{name}] has unknown keys "
                            f"{sorted(extra)}; known: {sorted(_KEYS)}")
        if "address" not in entry:
            raise UserError(f"hosts file {path}: [hosts.{name}] needs an address")
    return hosts


def _from_entry(name: str, e: dict[str, Any], where: str) -> Host:
    def path(key: str) -> str | None:
        return os.path.expanduser(str(e[key])) if e.get(key) else None
    try:
        port = int(e.get("port", 22))
        serve_port = int(e["serve_port"]) if e.get("serve_port") is not None else None
    except (TypeError, ValueError):
        raise UserError(f"{where}: [hosts.{name}] port and serve_port are numbers") from None
    if e.get("cpus") is not None:  # checked here, before anything runs (exit 2)
        from concbench.server.placement import cpu_list
        cpu_list(e["cpus"], f"{where}: [hosts.{name}] cpus")
    reach = e.get("reach")
    if reach is not None and not re.fullmatch(r"[^:\s]+:\d{1,5}", str(reach)):
        raise UserError(f"{where}: [hosts.{name}] reach = {reach!r}: give address:port")
    if reach is not None and serve_port is None:
        raise UserError(f"{where}: [hosts.{name}] reach needs serve_port (the port behind it)")
    return Host(name=name, address=str(e["address"]), user=str(e.get("user") or _me()),
                port=port, key=path("key"), known_hosts=path("known_hosts"),
                cpus=e.get("cpus"), workdir=str(e.get("workdir") or DEFAULT_WORKDIR),
                python=str(e.get("python") or "python3"), serve_port=serve_port,
                reach=str(reach) if reach else None, sources=_sources(name, e, where))


def _sources(name: str, e: dict[str, Any], where: str) -> tuple[str, ...]:
    given = e.get("sources", [])
    try:
        if not isinstance(given, list):
            raise ValueError
        return tuple(str(ipaddress.IPv4Address(a)) for a in given)
    except ValueError:
        raise UserError(f"{where}: [hosts.{name}] sources = {given!r}: give a list of the "
                        'host\'s IPv4 addresses, e.g. ["198.18.0.13", "198.18.0.23"]') from None


def _me() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "root"


def resolve(spec: str, option: str, hosts_file: Path | None,
            known_hosts: str | None) -> Host:
    """A host from a name in the hosts file, or from `[user@]host[:port]`."""
    if hosts_file is not None:
        entries = load_file(hosts_file)
        if spec in entries:
            host = _from_entry(spec, entries[spec], str(hosts_file))
            if host.known_hosts is None and known_hosts:
                host = Host(**{**host.__dict__, "known_hosts": known_hosts})
            return host
    m = _SPEC.fullmatch(spec)
    if not m:
        raise UserError(f"{option}={spec!r}: give [user@]host[:port] or a name from the hosts "
                        "file (--hosts-file)")
    port = int(m["port"] or 22)
    if not 0 < port < 65536:
        raise UserError(f"{option}={spec!r}: {port} is not a TCP port")
    return Host(name=spec, address=m["host"], user=m["user"] or _me(), port=port,
                known_hosts=os.path.expanduser(known_hosts) if known_hosts else None)


def load_groups(path: Path) -> dict[str, list[str]]:
    """The hosts file's [groups]: a name → the hosts it stands for (as --client-host)."""
    try:
        groups = tomllib.loads(path.read_text()).get("groups", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}  # load_file says what is wrong with the file
    if not isinstance(groups, dict) or not all(
            isinstance(v, list) and v and all(isinstance(n, str) for n in v)
            for v in groups.values()):
        raise UserError(f"hosts file {path}: [groups] maps a name to a list of host names, "
                        'e.g. load = ["c1", "c2"]')
    return groups


def client_specs(client: str | Sequence[str] | None, path: Path | None) -> list[str]:
    """The client hosts given (once or several times, or a group of the hosts file), each
    once."""
    given = [client] if isinstance(client, str) else list(client or ())
    groups = load_groups(path) if path is not None else {}
    found: list[str] = []
    for spec in given:
        for name in groups.get(spec, [spec]):
            if name in found:
                raise UserError(f"--client-host {name} is given twice: each client host "
                                "runs one share of the load")
            found.append(name)
    return found


def roles_from(server: str | None, client: str | Sequence[str] | None, backend: str | None,
               hosts_file: str | None, known_hosts: str | None) -> Roles:
    """The roles given; `client` is one host, or several (given several times, or a group):
    the load is then split over them."""
    path = Path(hosts_file) if hosts_file else (Path("hosts.toml") if Path("hosts.toml").is_file()
                                                 else None)
    if hosts_file and not Path(hosts_file).is_file():
        raise UserError(f"--hosts-file {hosts_file}: no such file")
    clients = client_specs(client, path)
    if clients and not server:
        raise UserError("--client-host needs --server-host too: a server on this machine "
                        "listens on 127.0.0.1 only, which another host cannot reach")
    hosts = [resolve(spec, "--client-host", path, known_hosts) for spec in clients]

    def one(spec: str | None, role: str) -> Host | None:
        return resolve(spec, f"--{role}-host", path, known_hosts) if spec else None
    return Roles(server=one(server, "server"), client=hosts[0] if hosts else None,
                 backend=one(backend, "backend"), more_clients=tuple(hosts[1:]))
