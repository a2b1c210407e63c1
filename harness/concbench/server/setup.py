"""What a plan with server cells needs before anything runs: the load generators and
taskset (installed when missing and possible), the latency backend (built once), the CPU
placement, and an open-file limit raised to its hard maximum so that servers and
generators can hold the connections asked for."""

from __future__ import annotations

import resource
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from concbench import tools
from concbench.build import Builder
from concbench.manifest import Contender
from concbench.plan import Plan, Settings
from concbench.server import backend
from concbench.server.placement import UNPINNED, Placement, choose
from concbench.server.sites import Sites


class Remotes(Protocol):
    """The roles a plan puts on remote hosts (remote.roles.RemoteRoles)."""

    sites: Sites

    def unavailable_reason(self, contender: Contender, params: dict) -> str | None: ...

    def tool_versions(self) -> dict[str, str]: ...

    def close(self) -> None: ...


OpenRemotes = Callable[[Any, list, Placement, Callable[[str], None]], Remotes]
"""remote.roles.RemoteRoles.open: (hosts, server cells, placement, say) → Remotes."""


@dataclass(frozen=True)
class ServerContext:
    placement: Placement
    backend_exe: Path | None
    missing: dict[str, str] = field(default_factory=dict)
    """Tool name → why it is missing (cells needing it are unavailable)."""
    versions: dict[str, str] = field(default_factory=dict)
    """Tool name → its version line, recorded in the results' toolchains."""
    sites: Sites | None = None
    """Roles on remote hosts (None: all on this machine)."""
    remotes: Remotes | None = None

    def unavailable_reason(self, params: dict, contender: Contender | None = None
                           ) -> str | None:
        for name in (params.get("loadgen", "wrk"), "taskset"):
            if name in self.missing:
                return self.missing[name]
        if self.remotes is not None and contender is not None:
            return self.remotes.unavailable_reason(contender, params)
        return None

    def close(self) -> None:
        if self.remotes is not None:
            self.remotes.close()


def raise_open_file_limit() -> int:
    """Soft RLIMIT_NOFILE to the hard limit (children inherit it); the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def placement_of(settings: Settings) -> Placement:
    """Where the plan's servers and generators run (`pin_servers` False: nowhere in
    particular)."""
    return choose(settings.server_cpus, settings.client_cpus) if settings.pin_servers \
        else UNPINNED


def prepare(plan: Plan, builder: Builder, say: Callable[[str], None],
            open_remotes: OpenRemotes) -> ServerContext | None:
    """None when the plan has no server cells; `open_remotes` is called only when the plan
    names hosts."""
    server_cells = [c for c in plan.cells if c.spec.server is not None]
    if not server_cells:
        return None
    raise_open_file_limit()
    placement = placement_of(plan.settings)
    remotes = open_remotes(plan.settings.hosts, server_cells, placement, say) \
        if plan.settings.hosts else None
    needed = {"taskset"}
    if remotes is None or remotes.sites.client.remote is None:  # the generator runs here
        needed |= {c.params["loadgen"] for c in server_cells}
        needed |= {"perf" for c in server_cells if c.params.get("syscalls") == "true"}
    missing, versions = {}, {}
    for name in sorted(needed):
        reason = tools.ensure(name, say)
        if reason:
            missing[name] = reason
        else:
            versions[name] = tools.version(name)
    if remotes is not None:  # the latency backend is on a remote host then, built there
        return ServerContext(placement, None, missing, {**versions, **remotes.tool_versions()},
                             remotes.sites, remotes)
    exe = None
    if any(c.spec.server.uses_backend(c.params) for c in server_cells):
        outcome = builder.ensure(backend.TOOLCHAIN)
        if outcome.ok:
            exe = backend.FOLDER / backend.TOOLCHAIN.outputs[0]
        else:
            say(f"latency backend unavailable: {outcome.reason}")
    return ServerContext(placement, exe, missing, versions)
