"""Builds the bare programs into build/: one builder per toolchain, each returning why it
cannot (None when built)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable

from runtimes import BUILD, HERE, PY


def sh(argv: list[str], cwd: Path, env: dict | None = None, timeout: float = 900) -> str | None:
    """Run a build step; None when it worked, else the reason."""
    try:
        done = subprocess.run(argv, cwd=cwd, env={**os.environ, **(env or {})},
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{argv[0]}: {err}"
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        return f"{' '.join(argv[:3])} … exit {done.returncode}: " + " | ".join(tail)
    return None


def _go(_java: Path | None) -> str | None:
    if shutil.which("go") is None:
        return "go not on PATH"
    (BUILD / "go").mkdir(parents=True, exist_ok=True)
    return sh(["go", "build", "-trimpath", "-o", str(BUILD / "go" / "bare-idle-go"), "."],
              HERE / "go")


def _rust(_java: Path | None) -> str | None:
    if shutil.which("cargo") is None:
        return "cargo not on PATH"
    return sh(["cargo", "build", "--release", "--locked"], HERE / "rust",
              env={"CARGO_TARGET_DIR": str(BUILD / "rust")})


def _java(java: Path | None) -> str | None:
    if java is None:
        return "no JDK >= 25 (the java and kotlin contenders' requirement)"
    (BUILD / "java").mkdir(parents=True, exist_ok=True)
    return sh([str(java / "bin" / "javac"), "-d", str(BUILD / "java"), "BareThreads.java"],
              HERE / "java")


def _kotlin(java: Path | None) -> str | None:
    if java is None:
        return "no JDK >= 25 (the java and kotlin contenders' requirement)"
    if shutil.which("mvn") is None:
        return "mvn not on PATH"
    env = {"JAVA_HOME": str(java), "PATH": f"{java / 'bin'}:{os.environ['PATH']}"}
    mvn = ["mvn", "-B", "-q", "-Dkotlin.compiler.daemon=false", "package", "-DskipTests"]
    # offline first (the kotlin contender's build has filled ~/.m2), then online
    return sh([*mvn[:2], "-o", *mvn[2:]], HERE / "kotlin", env) and sh(mvn, HERE / "kotlin", env)


def _python(_java: Path | None) -> str | None:
    return None if PY.exists() else (
        f"{PY} missing: build the python contender first (./concbench build)")


def _node(_java: Path | None) -> str | None:
    return None if shutil.which("node") else "node not on PATH"


def _erlang(_java: Path | None) -> str | None:
    if shutil.which("erlc") is None:
        return "erlc not on PATH"
    (BUILD / "erlang").mkdir(parents=True, exist_ok=True)
    return sh(["erlc", "-Werror", "-o", str(BUILD / "erlang"), "bare_idle.erl"], HERE / "erlang")


BUILDERS: tuple[tuple[Callable[[Path | None], str | None], tuple[str, ...]], ...] = (
    (_go, ("go",)),
    (_rust, ("rust-tokio",)),
    (_java, ("java-virtual", "java-platform")),
    (_kotlin, ("kotlin-coroutines",)),
    (_python, ("python-asyncio", "python-uvloop", "python-asyncio-coro", "python-uvloop-coro")),
    (_node, ("node", "node-async-fn")),
    (_erlang, ("erlang",)),
)
"""Each builder and the runtimes it serves."""


def build(wanted: set[str], java: Path | None) -> dict[str, str]:
    """Build what the wanted runtimes need; returns {runtime: why it cannot run}."""
    missing: dict[str, str] = {}
    for builder, serves in BUILDERS:
        needed = [name for name in serves if name in wanted]
        why = builder(java) if needed else None
        missing.update({name: why for name in needed if why})
    return missing
