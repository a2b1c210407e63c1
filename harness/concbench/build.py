"""Builds each toolchain once and caches the result by the content of its inputs.

The cache key covers the input files, the build commands, the resolved tool paths, the
environment variables that change what a build produces (BUILD_ENV) and, for a pinned
toolchain version (the defaults' or a variant's), that version and its source, so editing a source, switching JDK or setting
RUSTFLAGS rebuilds; anything else is reused across runs. A pinned toolchain's stamp also
records its outputs' size and mtime, so outputs another toolchain wrote since (the unpinned
`go` of a checkout from before the defaults' pin writes build/concbench-go too) are rebuilt.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from concbench import toolchain_fetch, toolchains
from concbench.manifest import Toolchain

BUILD_TIMEOUT_S = 1800
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LOG_TAIL_LINES = 15
BUILD_ENV = ("GOFLAGS", "GOAMD64", "GOARCH", "GOEXPERIMENT", "GOTOOLCHAIN", "CGO_*",
             "RUSTFLAGS", "CARGO_*", "RUSTC", "RUSTC_*", "JAVA_TOOL_OPTIONS",
             "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "MAVEN_OPTS", "MAVEN_ARGS", "CC", "CFLAGS",
             "LDFLAGS")
"""Variables of the user's environment that change a build's output (or the tool that makes
it): part of the cache key, so a binary built with other flags is never reused silently.
(PIP_* is left out: the Python contenders pin every package, so pip options do not change
what is installed.)"""


@dataclass(frozen=True)
class BuildOutcome:
    """What happened to one toolchain: built, reused from the cache, or unavailable."""

    toolchain: str
    ok: bool
    reason: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    cached: bool = False
    seconds: float = 0.0
    tools: toolchains.ToolEnv | None = None


def _input_files(tc: Toolchain) -> list[Path]:
    """The files the manifest's input patterns name; a pattern ending in `**` is every file
    below (Path.glob's `dir/**` yields directories only before Python 3.13, so a change to a
    file there would not have changed the key)."""
    files: set[Path] = set()
    for pattern in tc.inputs:
        if pattern.endswith("**"):
            pattern += "/*"
        files.update(p for p in tc.folder.glob(pattern) if p.is_file())
    return sorted(files)


def build_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    environ = dict(os.environ) if environ is None else environ
    return {k: v for k, v in sorted(environ.items())
            if any(fnmatch.fnmatchcase(k, pattern) for pattern in BUILD_ENV)}


def cache_key(tc: Toolchain, tools: toolchains.ToolEnv,
              environ: dict[str, str] | None = None) -> str:
    digest = hashlib.sha256()
    digest.update(json.dumps([tc.build_commands, tools.placeholders], sort_keys=True).encode())
    flags = build_env(environ)
    if flags:  # absent from the key when unset, so existing caches stay valid
        digest.update(json.dumps(flags, sort_keys=True).encode())
    if tc.pin is not None:  # a pinned version (toolchain_pins): which, from where
        digest.update(json.dumps(dataclasses.asdict(tc.pin), sort_keys=True).encode())
    for path in _input_files(tc):
        digest.update(str(path.relative_to(tc.folder)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def outputs_seen(tc: Toolchain) -> dict[str, list[int]] | None:
    """A pinned toolchain's outputs as its build left them (size and mtime of each), kept in
    its stamp: the defaults' pinned version (go@1.27.4) writes the outputs the manifest's own
    toolchain names (build/concbench-go), which a checkout from before the pin builds as `go`
    with the installed release, so outputs changed since the stamp are no longer its build.
    None for an unpinned toolchain (its stamp keeps no such record)."""
    if tc.pin is None:
        return None
    seen = {}
    for out in tc.outputs:
        stat = (tc.folder / out).stat()
        seen[out] = [stat.st_size, stat.st_mtime_ns]
    return seen


def _run_env(tools: toolchains.ToolEnv) -> dict[str, str]:
    return {**os.environ, **tools.env}


def _versions(tc: Toolchain, tools: toolchains.ToolEnv) -> dict[str, str]:
    versions = {}
    for command in tc.version_commands:
        argv = tools.expand(command)
        try:
            out = subprocess.run(argv, cwd=tc.folder, env=_run_env(tools), capture_output=True,
                                 text=True, timeout=120)
            text = _ANSI.sub("", out.stdout + out.stderr).strip()
        except (OSError, subprocess.TimeoutExpired) as err:
            text = f"unknown ({err})"
        versions[" ".join(command)] = text
    return versions


def _tail(path: Path) -> str:
    lines = path.read_text(errors="replace").splitlines()
    return "\n".join(lines[-_LOG_TAIL_LINES:])


class Builder:
    """Builds toolchains on demand, at most once per process."""

    def __init__(self, cache: Path, say: Callable[[str], None] = lambda _m: None):
        self._cache = cache
        self._say = say
        self._done: dict[str, BuildOutcome] = {}

    def ensure(self, tc: Toolchain, force: bool = False) -> BuildOutcome:
        if tc.name not in self._done or force:
            self._done[tc.name] = self._build(tc, force)
        return self._done[tc.name]

    def _build(self, tc: Toolchain, force: bool) -> BuildOutcome:
        tools = toolchains.resolve(tc.requires, tc.packages, self._say)
        if not isinstance(tools, str) and tc.pin is not None:
            tools = toolchain_fetch.provide(tc.pin, tools, self._cache, self._say)
        if isinstance(tools, str):
            return BuildOutcome(tc.name, ok=False, reason=tools)
        self._cache.mkdir(parents=True, exist_ok=True)
        stamp = self._cache / f"{tc.name}.json"
        key = cache_key(tc, tools)
        outputs_exist = all((tc.folder / out).exists() for out in tc.outputs)
        if not force and outputs_exist and stamp.exists():
            recorded = json.loads(stamp.read_text())
            seen = recorded.get("outputs")  # absent: unpinned, or a stamp from before
            if recorded.get("key") == key and (seen is None or seen == outputs_seen(tc)):
                return BuildOutcome(tc.name, True, versions=recorded["versions"], cached=True,
                                    tools=tools)
        log = self._cache / f"{tc.name}-build.log"
        self._say(f"building {tc.name} (log: {log}) ...")
        started = time.monotonic()
        with log.open("w") as sink:
            for command in tc.build_commands:
                argv = tools.expand(command)
                sink.write(f"$ {' '.join(argv)}\n")
                sink.flush()
                try:
                    code = subprocess.run(argv, cwd=tc.folder, env=_run_env(tools), stdout=sink,
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                          timeout=BUILD_TIMEOUT_S).returncode
                except (OSError, subprocess.TimeoutExpired) as err:
                    sink.write(f"{err}\n")
                    code = -1
                if code != 0:
                    sink.flush()
                    reason = f"build failed ({' '.join(command)}), see {log}:\n{_tail(log)}"
                    return BuildOutcome(tc.name, ok=False, reason=reason, tools=tools)
        missing = [out for out in tc.outputs if not (tc.folder / out).exists()]
        if missing:
            return BuildOutcome(tc.name, ok=False, tools=tools,
                                reason=f"build did not produce {', '.join(missing)}; see {log}")
        versions = _versions(tc, tools)
        if build_env():
            versions["build environment"] = " ".join(f"{k}={v}" for k, v in build_env().items())
        seen = outputs_seen(tc)
        stamp.write_text(json.dumps({"key": key, "versions": versions,
                                     **({"outputs": seen} if seen is not None else {})},
                                    indent=1))
        return BuildOutcome(tc.name, True, versions=versions,
                            seconds=time.monotonic() - started, tools=tools)
