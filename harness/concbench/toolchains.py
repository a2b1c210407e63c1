"""Finding the tools a manifest requires (go, cargo, mvn, a JDK of at least some version).

A missing tool is not an error: its contenders become "unavailable: <why>" and the rest runs.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

_EXTRA_PLACES = {
    "go": ["/usr/local/go/bin/go"],
    "nginx": ["/usr/sbin/nginx"],
    "cargo": [str(Path.home() / ".cargo/bin/cargo")],
}
_HINTS = {
    "go": "install Go >= 1.22 (https://go.dev/doc/install) and put it on PATH",
    "cargo": "install Rust with rustup (curl https://sh.rustup.rs | sh) or apt-get install -y cargo",
    "mvn": "install Maven: apt-get install -y maven",
    "jdk": "install a JDK >= {n} (e.g. Temurin {n}) under /usr/lib/jvm or set JAVA_HOME to it",
}


@dataclass(frozen=True)
class ToolEnv:
    """The resolved tools of one toolchain: placeholders for commands and the environment."""

    placeholders: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    def expand(self, command: tuple[str, ...]) -> list[str]:
        return [arg.format_map(self.placeholders) for arg in command]


def _which(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for place in _EXTRA_PLACES.get(name, []):
        if os.access(place, os.X_OK):
            return place
    return None


def jdk_version(home: Path) -> int | None:
    """The feature version of the JDK at home, read from its `release` file."""
    try:
        text = (home / "release").read_text()
    except OSError:
        return None
    match = re.search(r'JAVA_VERSION="(\d+)', text)
    if not match or not (home / "bin/java").exists() or not (home / "bin/javac").exists():
        return None
    return int(match.group(1))


def find_jdk(minimum: int) -> Path | None:
    """The newest JDK >= minimum among JAVA_HOME, /usr/lib/jvm/* and the java on PATH."""
    candidates = [os.environ.get("CONCBENCH_JAVA_HOME"), os.environ.get("JAVA_HOME")]
    candidates += sorted(glob.glob("/usr/lib/jvm/*")) + sorted(glob.glob("/opt/*jdk*"))
    java = shutil.which("java")
    if java:
        candidates.append(str(Path(os.path.realpath(java)).parents[1]))
    best: tuple[int, Path] | None = None
    for cand in filter(None, candidates):
        home = Path(cand).resolve()
        version = jdk_version(home)
        if version is not None and version >= minimum and (best is None or version > best[0]):
            best = (version, home)
    return best[1] if best else None


def resolve(requires: tuple[str, ...], packages: dict[str, str] | None = None,
            say: Callable[[str], None] = lambda _m: None) -> ToolEnv | str:
    """Tools for a toolchain, or the reason (with what to do) why they are not all here.

    A missing tool that `packages` maps to a Debian package is installed first when we run
    as root (apt-get), so a fresh machine needs no manual step."""
    packages = packages or {}
    placeholders = {"python": sys.executable}
    path_dirs: list[str] = []
    env: dict[str, str] = {}
    for req in requires:
        match = re.fullmatch(r"jdk>=(\d+)", req)
        if match:
            n = int(match.group(1))
            home = find_jdk(n)
            if home is None:
                return f"no JDK >= {n} found: " + _HINTS["jdk"].format(n=n)
            placeholders["java"] = str(home / "bin/java")
            env["JAVA_HOME"] = str(home)
            path_dirs.insert(0, str(home / "bin"))
            continue
        tool = _which(req)
        if tool is None and req in packages:
            from concbench import tools

            tools.install_package(req, packages[req], say)
            tool = _which(req)
        if tool is None:
            hint = f"apt-get install -y {packages[req]}" if req in packages else None
            return f"{req} not found: " + (hint or _HINTS.get(req, f"install {req}"))
        placeholders[req] = tool
        path_dirs.append(str(Path(tool).parent))
    if path_dirs:
        env["PATH"] = os.pathsep.join(path_dirs + [os.environ.get("PATH", "")])
    return ToolEnv(placeholders=placeholders, env=env)
