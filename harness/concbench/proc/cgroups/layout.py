"""Where the cgroup filesystems are and where this process sits in them.

cgroup v2 (one hierarchy, `cgroup2` in mountinfo) is used when its root lists the cpu and
memory controllers in cgroup.controllers; otherwise the v1 hierarchies that carry them
(`cgroup` mounts whose options name cpu and memory), as on a host whose controllers are
still bound to v1 with an empty v2 hierarchy beside them. A mount's root (mountinfo's fourth
field) is not always "/" (inside a container), so this process's path from /proc/self/cgroup
is taken relative to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CONTROLLERS = ("cpu", "memory")


@dataclass(frozen=True)
class Hierarchy:
    version: int
    """1 or 2."""
    mount: Path
    """Where the hierarchy is mounted."""
    own: Path
    """This process's own cgroup in it (a folder under `mount`)."""
    controllers: frozenset[str]
    """Of CONTROLLERS, those this hierarchy carries."""


@dataclass(frozen=True)
class Layout:
    hierarchies: tuple[Hierarchy, ...]
    """One per folder a cgroup is made in: the v2 hierarchy, or each v1 one carrying a
    controller of CONTROLLERS (cpu and memory, or cpu,cpuacct co-mounted)."""
    problem: str | None = None
    """Why no cgroup can be made here (None: the hierarchies above are usable)."""

    def carrying(self, controller: str) -> Hierarchy | None:
        return next((h for h in self.hierarchies if controller in h.controllers), None)

    @property
    def version(self) -> int:
        return self.hierarchies[0].version if self.hierarchies else 0


@dataclass(frozen=True)
class _Mount:
    root: str
    point: Path
    fstype: str
    options: frozenset[str]


def _mounts(mountinfo: str) -> list[_Mount]:
    found = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 3:
            continue
        if tail[0] in ("cgroup", "cgroup2"):
            point = fields[4].replace("\\040", " ")
            found.append(_Mount(fields[3], Path(point), tail[0],
                                frozenset(tail[2].split(","))))
    return found


def _own_paths(proc_cgroup: str) -> dict[str, str]:
    """/proc/self/cgroup as {controller or "" (v2): path}."""
    found = {}
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for name in parts[1].split(",") if parts[1] else [""]:
            found[name] = parts[2]
    return found


def _under(mount: _Mount, path: str) -> Path:
    """The folder of cgroup `path` in this mount (the path is relative to the hierarchy's
    root, which is mounted at mount.point only from mount.root on)."""
    root = mount.root.rstrip("/")
    if root and (path == root or path.startswith(root + "/")):
        path = path[len(root):]
    return mount.point / path.lstrip("/")


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def detect(mountinfo: str | None = None, proc_cgroup: str | None = None) -> Layout:
    """This machine's layout (the arguments replace /proc/self's files, for tests)."""
    mounts = _mounts(_read(Path("/proc/self/mountinfo")) if mountinfo is None else mountinfo)
    own = _own_paths(_read(Path("/proc/self/cgroup")) if proc_cgroup is None else proc_cgroup)
    unified = next((m for m in mounts if m.fstype == "cgroup2"), None)
    if unified is not None:
        available = set(_read(unified.point / "cgroup.controllers").split())
        if set(CONTROLLERS) <= available:
            folder = _under(unified, own.get("", "/"))
            return Layout((Hierarchy(2, unified.point, folder, frozenset(CONTROLLERS)),))
    found: dict[Path, Hierarchy] = {}
    for name in CONTROLLERS:
        mount = next((m for m in mounts if m.fstype == "cgroup" and name in m.options), None)
        if mount is None:
            continue
        carried = frozenset(c for c in CONTROLLERS if c in mount.options)
        found[mount.point] = Hierarchy(1, mount.point, _under(mount, own.get(name, "/")),
                                       carried)
    missing = [c for c in CONTROLLERS
               if not any(c in h.controllers for h in found.values())]
    if missing:
        where = (f"the cgroup v2 hierarchy at {unified.point} has no {', '.join(missing)} "
                 "controller enabled" if unified else "no cgroup filesystem is mounted")
        return Layout(tuple(found.values()),
                      f"{where}, and no cgroup v1 hierarchy carries {', '.join(missing)}")
    return Layout(tuple(found.values()))
