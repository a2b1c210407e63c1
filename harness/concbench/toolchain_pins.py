"""A pinned version of a toolchain's tool: the defaults' (`[toolchain] toolchain_version`) or a
variant's (`toolchain_version` in its entry).

A manifest's `[toolchain.other_version]` says once where any version of its tool comes from
(the Go module proxy, PyPI, pyenv) and how a variant's build differs from the default one (its
own outputs, its own version commands); a variant then takes a version with one key. A pinned
version gets a toolchain of its own, `<toolchain>@<version>`: built once, cached under its own
key, recorded under its own name in the results' `toolchains`. When the defaults run on a
pinned version (node on Node 24 from PyPI, go built by Go 1.27 from the module proxy), they
keep the `[toolchain]`'s own build and outputs, and a variant reaches the machine's own tool
with `toolchain_version = "installed"` (the manifest's toolchain, unpinned). Where the tool is
fetched from is concbench.toolchain_fetch; this module only reads and checks the manifest.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from concbench.errors import UserError

Command = tuple[str, ...]

SOURCES = {
    "go-toolchain": "the go command fetches golang.org/toolchain@v0.0.1-go<version>.<os>-<arch> "
                    "from the module proxy (GOTOOLCHAIN=go<version>)",
    "pypi": "a wheel from PyPI, installed with pip --target into concbench's cache",
    "pyenv": "an interpreter that pyenv installed ($PYENV_ROOT/versions/<version>)",
}
"""Where another version can come from; the value says how (docs/contract.md)."""

INSTALLED = "installed"
"""A variant's `toolchain_version` for the tool the machine has (the `[toolchain]` as declared,
no pin), where the toolchain's defaults run on a pinned version."""

_KEYS = ("source", "tool", "package", "path", "sha256", "build", "outputs", "version")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]*")
"""A version as it appears in names, paths and pip requirements: nothing a shell or a path
would read as more than one word (no /, no spaces)."""


@dataclass(frozen=True)
class OtherVersion:
    """`[toolchain.other_version]`: how any other version of the toolchain's tool is had.

    Commands and outputs may hold `{version}`, replaced by the variant's version when its
    toolchain is derived; a key left out keeps the toolchain's own."""

    source: str
    tool: str
    """The required tool (one of the toolchain's `requires`) that the version replaces."""
    package: str | None = None
    """pypi: the distribution that carries the tool."""
    path: str | None = None
    """pypi: the tool's path inside the installed distribution."""
    sha256: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """pypi: version → the sha256 of its wheels (one per platform); pip installs only a wheel
    with one of them (--require-hashes)."""
    build: tuple[Command, ...] | None = None
    outputs: tuple[str, ...] | None = None
    version: tuple[Command, ...] | None = None


@dataclass(frozen=True)
class Pin:
    """One version of a tool, as a derived toolchain carries it (part of its build key)."""

    source: str
    tool: str
    version: str
    package: str | None = None
    path: str | None = None
    sha256: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """What a user calls it: go1.27.4, node 24.11.1, python3 3.13.0."""
        return f"go{self.version}" if self.source == "go-toolchain" else \
            f"{self.tool} {self.version}"


class _Toolchain(Protocol):
    """What `derive` reads of a manifest.Toolchain (which imports this module)."""

    name: str
    requires: tuple[str, ...]
    build_commands: tuple[Command, ...]
    outputs: tuple[str, ...]
    version_commands: tuple[Command, ...]
    other_version: OtherVersion | None


T = TypeVar("T", bound=_Toolchain)


def _text(raw: Any, where: str) -> str:
    if not isinstance(raw, str) or not raw:
        raise UserError(f"{where} must be a non-empty string")
    return raw


def parse(raw: Any, requires: tuple[str, ...], where: str,
          lists: dict[str, tuple[Any, ...]]) -> OtherVersion:
    """Check `[toolchain.other_version]`; `lists` holds its build, outputs and version as the
    manifest parsed them (those it has)."""
    if not isinstance(raw, dict):
        raise UserError(f"{where} must be a table")
    for key in raw:
        if key not in _KEYS:
            raise UserError(f"{where}: unknown key {key!r}; known: {', '.join(_KEYS)}")
    source = raw.get("source")
    if source not in SOURCES:
        raise UserError(f"{where}.source must be one of {', '.join(map(repr, SOURCES))}, "
                        f"not {source!r}")
    tool = _text(raw.get("tool"), f"{where}.tool")
    if tool not in requires:
        raise UserError(f"{where}.tool = {tool!r} must be one of the toolchain's requires "
                        f"({', '.join(requires) or 'none'})")
    pypi = {k: raw.get(k) for k in ("package", "path")}
    if source == "pypi":
        pypi = {k: _text(v, f"{where}.{k}") for k, v in pypi.items()}
    elif any(v is not None for v in pypi.values()) or "sha256" in raw:
        raise UserError(f"{where}: package, path and sha256 are for source = \"pypi\" only")
    hashes = raw.get("sha256", {})
    if not isinstance(hashes, dict) or not all(
            isinstance(hs, list) and hs and all(isinstance(h, str) and _SHA256.fullmatch(h)
                                                for h in hs) for hs in hashes.values()):
        raise UserError(f"{where}.sha256 must be a table of \"version\" = [\"<64 hex digits>\", "
                        f"...] (a wheel's sha256 per platform)")
    return OtherVersion(
        source=source, tool=tool, package=pypi["package"], path=pypi["path"],
        sha256=tuple(sorted((str(k), tuple(v)) for k, v in hashes.items())),
        build=lists.get("build"), outputs=lists.get("outputs"), version=lists.get("version"))


def _with(version: str, items: tuple[Any, ...]) -> tuple[Any, ...]:
    """Every `{version}` in strings or commands replaced (other placeholders stay)."""
    return tuple(tuple(a.replace("{version}", version) for a in item)
                 if isinstance(item, tuple) else item.replace("{version}", version)
                 for item in items)


def derive(tc: T, version: Any, where: str, own_recipe: bool = False) -> T:
    """The toolchain `<name>@<version>`: a variant's `toolchain_version`, built by
    `[toolchain.other_version]`'s build, outputs and version where it gives them; with
    `own_recipe`, the defaults' (`[toolchain] toolchain_version`), built by the `[toolchain]`'s
    own, so their outputs and run commands are what the manifest names."""
    recipe = tc.other_version
    if recipe is None:
        raise UserError(f"{where}: toolchain {tc.name!r} has no [toolchain.other_version] "
                        f"saying where another version comes from")
    if not isinstance(version, str) or not _VERSION.fullmatch(version) or version == INSTALLED:
        raise UserError(f"{where} = {version!r} must be a version such as \"1.27.4\" "
                        f"(letters, digits, '.', '+', '_', '-')")
    if recipe.source == "pypi" and recipe.sha256 and version not in dict(recipe.sha256):
        raise UserError(f"{where} = {version!r}: [toolchain.other_version] pins wheel hashes "
                        f"({', '.join(dict(recipe.sha256))}) but none for this version: add "
                        f"its sha256")
    pin = Pin(recipe.source, recipe.tool, version, recipe.package, recipe.path,
              dict(recipe.sha256).get(version, ()))
    # A version fetched by the go command still needs a go to fetch it; the others replace
    # the tool, so the default one need not be installed.
    requires = tc.requires if recipe.source == "go-toolchain" else tuple(
        r for r in tc.requires if r != recipe.tool)
    build, outputs, versions = (tc.build_commands, tc.outputs, tc.version_commands) \
        if own_recipe else (
            recipe.build if recipe.build is not None else tc.build_commands,
            recipe.outputs if recipe.outputs is not None else tc.outputs,
            recipe.version if recipe.version is not None else tc.version_commands)
    return dataclasses.replace(
        tc, name=f"{tc.name}@{version}", requires=requires, other_version=None, pin=pin,
        build_commands=_with(version, build), outputs=_with(version, outputs),
        version_commands=_with(version, versions))


def family(toolchain_name: str) -> str:
    """The manifest's toolchain of a derived one: go@1.27.4 → go."""
    return toolchain_name.partition("@")[0]
