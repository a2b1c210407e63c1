"""External tools concbench drives (load generators, nginx, profilers): found, or installed.

Each tool comes from one real source: a Debian package (installed with apt-get when
concbench runs as root) or a crate at a pinned version (`cargo install --locked` into the
project's cache). Without root or cargo, the reason says exactly what to install. Nothing
is installed by hand, so a fresh machine gets the same tools from the same command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from concbench import paths

APT_TIMEOUT_S = 900
CARGO_TIMEOUT_S = 1800


@dataclass(frozen=True)
class Tool:
    name: str
    """The executable's name."""
    apt: str | None = None
    """Debian package that provides it."""
    crate: tuple[str, str] | None = None
    """(crate, exact version) for `cargo install --locked`."""


TOOLS: dict[str, Tool] = {t.name: t for t in (
    Tool("wrk", apt="wrk"),
    Tool("nginx", apt="nginx-light"),
    Tool("taskset", apt="util-linux"),
    Tool("oha", crate=("oha", "1.16.0")),
    Tool("perf", apt="linux-perf"),
    Tool("ssh", apt="openssh-client"),
    Tool("rsync", apt="rsync"),
    # one crate, two executables: both land in the same cargo root
    Tool("inferno-collapse-perf", crate=("inferno", "0.12.8")),
    Tool("inferno-flamegraph", crate=("inferno", "0.12.8")),
)}


def _cargo_root(tool: Tool) -> Path:
    assert tool.crate is not None
    return paths.cache_dir() / "tools" / f"{tool.crate[0]}-{tool.crate[1]}"


def path(name: str) -> Path | None:
    """Where the tool is: the project's cache for crates, else PATH (and /usr/sbin)."""
    tool = TOOLS.get(name, Tool(name))
    if tool.crate is not None:
        exe = _cargo_root(tool) / "bin" / name
        return exe if os.access(exe, os.X_OK) else None
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
    return Path(found) if found else None


def _how(tool: Tool) -> str:
    if tool.apt:
        return f"apt-get install -y {tool.apt} (concbench does it itself when run as root)"
    if tool.crate:
        crate, version = tool.crate
        return (f"cargo install {crate} --version {version} --locked --root {_cargo_root(tool)} "
                "(concbench does it itself when cargo is on PATH or in ~/.cargo/bin)")
    return f"install {tool.name}"


def missing(name: str) -> str | None:
    """None when the tool is here; else why not and what to install."""
    if path(name) is not None:
        return None
    return f"{name} not found: {_how(TOOLS.get(name, Tool(name)))}"


def _apt_install(package: str, log: Path) -> bool:
    """apt-get install `package`: one Debian package, or several separated by spaces (a
    manifest's `packages` value such as "erlang-inets erlang-yaws"), in one command."""
    names = package.split()
    with log.open("a") as sink:
        for argv in (["apt-get", "install", "-y", "-q", *names],
                     ["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *names]):
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            try:
                code = subprocess.run(argv, stdout=sink, stderr=subprocess.STDOUT, env=env,
                                      stdin=subprocess.DEVNULL, timeout=APT_TIMEOUT_S).returncode
            except (OSError, subprocess.TimeoutExpired) as err:
                sink.write(f"{err}\n")
                return False
            if code == 0 and argv[1] == "install":
                return True
    return False


def _cargo() -> str | None:
    found = shutil.which("cargo")
    if found:
        return found
    home = Path.home() / ".cargo/bin/cargo"
    return str(home) if os.access(home, os.X_OK) else None


def _cargo_install(tool: Tool, log: Path) -> bool:
    cargo = _cargo()
    if cargo is None or tool.crate is None:
        return False
    crate, version = tool.crate
    argv = [cargo, "install", crate, "--version", version, "--locked", "--root",
            str(_cargo_root(tool))]
    with log.open("a") as sink:
        try:
            return subprocess.run(argv, stdout=sink, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=CARGO_TIMEOUT_S).returncode == 0
        except (OSError, subprocess.TimeoutExpired) as err:
            sink.write(f"{err}\n")
            return False


def ensure(name: str, say: Callable[[str], None] = lambda _m: None) -> str | None:
    """Install the tool when it is missing and we can; None when it is here afterwards."""
    if path(name) is None:
        tool = TOOLS.get(name, Tool(name))
        log = paths.cache_dir() / "tools" / f"install-{name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        if tool.apt and os.geteuid() == 0 and shutil.which("apt-get"):
            install_package(name, tool.apt, say)
        elif tool.crate and _cargo():
            say(f"installing {name} {tool.crate[1]} with cargo (a few minutes; log {log}) ...")
            _cargo_install(tool, log)
    return missing(name)


def install_package(name: str, package: str, say: Callable[[str], None]) -> bool:
    """apt-get install the Debian package that provides `name`, when we are root."""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return False
    log = paths.cache_dir() / "tools" / f"install-{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    say(f"installing {name} (apt-get install -y {package}; log {log}) ...")
    return _apt_install(package, log)


def version(name: str) -> str:
    """The tool's own version line, for the results' toolchains block."""
    exe = path(name)
    if exe is None:
        return "missing"
    flag = {"nginx": "-v", "wrk": "-v", "taskset": "--version"}.get(name, "--version")
    try:
        done = subprocess.run([str(exe), flag], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unknown ({err})"
    text = (done.stdout + done.stderr).strip().splitlines()
    return text[0] if text else "unknown"
