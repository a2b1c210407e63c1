"""Contender discovery: reads contenders/<lang>/contenders.toml (docs/contract.md)."""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from concbench.errors import UserError, unknown
from concbench import toolchain_pins, workloads
from concbench.workloads import budget

Command = tuple[str, ...]


@dataclass(frozen=True)
class Toolchain:
    """One language project: built once, shared by its contenders."""

    name: str
    folder: Path
    requires: tuple[str, ...]
    version_commands: tuple[Command, ...]
    build_commands: tuple[Command, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    packages: dict[str, str] = field(default_factory=dict, compare=False)
    """Required tool → the Debian package that provides it (installed when run as root)."""
    other_version: toolchain_pins.OtherVersion | None = field(default=None, compare=False)
    """Where another version of its tool comes from, for variants that name one."""
    pin: toolchain_pins.Pin | None = None
    """Set on a toolchain derived for a pinned version (`<name>@<version>`), the defaults'
    (`[toolchain] toolchain_version`) or a variant's (its `toolchain_version`): that version
    and its source. None: the tool the machine has."""


@dataclass(frozen=True)
class Contender:
    """One runtime + concurrency style, as its manifest declares it."""

    name: str
    style: str
    toolchain: Toolchain
    run: Command
    workloads: tuple[str, ...]
    pooled: frozenset[str]
    notes: dict[str, str] = field(default_factory=dict, compare=False)
    ready: str = "line"
    """Servers: "line" (prints the ready line) or "connect" (the harness polls the port)."""
    bounds: dict[str, Any] = field(default_factory=dict, compare=False)
    """Servers: what caps the design (docs/contract.md, "Manifest keys for servers")."""
    not_applicable: dict[str, str] = field(default_factory=dict, compare=False)
    """Workload → why this style does not implement it (shown by `concbench list`)."""
    env: dict[str, str] = field(default_factory=dict, compare=False)
    """Environment variables the contender runs with (a variant's GOMAXPROCS=1, say), on top
    of the harness's environment; recorded in each cell's metadata."""
    variant_of: str | None = None
    """A variant (same build, other flags or arguments) of this contender: run only when named,
    never picked by "every contender that implements the workload"; its notes extend the base's."""

    budgets: dict[str, dict[str, Any]] = field(default_factory=dict, compare=False)
    """Batch workloads: the style's thread budget beyond `pooled` (workloads/budget.py)."""
    differs_on: tuple[str, ...] = ()
    """A variant: the workloads where it takes a path its base's checks do not cover (other
    code, another runtime flavour or binary); `verify` checks it there only. A variant that
    only sizes or tunes the same code (GOMAXPROCS, heap limits) names the one workload it was
    made for, which proves the runtime starts and answers right with its settings. Default:
    all its workloads."""
    server_stack: str | None = None
    """Servers: "standard" (the ecosystem's own HTTP stack: a full parser and header map, as
    users deploy it) or "minimal" (a hand-written loop that parses only what the workloads
    send); tables and the report name it beside the contender. A variant inherits its base's."""

    def is_pooled(self, workload: str) -> bool:
        return workload in self.pooled

    def thread_budget(self, workload: str, params: dict[str, Any]) -> budget.ThreadBudget:
        return budget.resolve(self.budgets.get(workload), self.is_pooled(workload), params)


def _commands(raw: Any, where: str) -> tuple[Command, ...]:
    if not isinstance(raw, list) or not all(
        isinstance(c, list) and c and all(isinstance(a, str) for a in c) for c in raw
    ):
        raise UserError(f"{where} must be a list of commands (lists of strings)")
    return tuple(tuple(c) for c in raw)


def _packages(raw: Any, where: str) -> dict[str, str]:
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise UserError(f"{where} must be a table of tool = \"debian-package\"")
    return {str(k): v for k, v in raw.items()}


def _strings(raw: Any, where: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(s, str) for s in raw):
        raise UserError(f"{where} must be a list of strings")
    return tuple(raw)


_BOUND_KEYS = {"sequential": bool, "request-threads": (int, str), "async-threads": (int, str),
               "async-pool": dict, "async-waits": list, "async-downstream": list}
_POOL_KEYS = {"core", "max", "queue", "rejected"}
_BOUND_LISTS = {"async-waits": ("base", "detail", "extra"),
                "async-downstream": ("inproc", "http")}


def _pool_shape(raw: Any, where: str) -> None:
    """{core, max, queue: integers, rejected: "caller-runs" | "abort"}: a ThreadPoolExecutor."""
    ok = (isinstance(raw, dict) and set(raw) == _POOL_KEYS
          and all(isinstance(raw[k], int) and not isinstance(raw[k], bool) and raw[k] >= 0
                  for k in ("core", "max", "queue"))
          and raw["core"] <= raw["max"] and raw["rejected"] in ("caller-runs", "abort"))
    if not ok:
        raise UserError(f"{where} must be {{ core = N, max = N, queue = N, rejected = "
                        '"caller-runs" | "abort" } with core <= max')


def _bounds(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise UserError(f"{where} must be a table")
    for key, value in raw.items():
        if key not in _BOUND_KEYS:
            raise UserError(f"{where}: unknown key {key!r}; known: {', '.join(_BOUND_KEYS)}")
        if key == "async-pool":
            _pool_shape(value, f"{where}.{key}")
            continue
        if key in _BOUND_LISTS:
            if not isinstance(value, list) or not set(value) <= set(_BOUND_LISTS[key]):
                raise UserError(f"{where}.{key} must be a list of "
                                f"{', '.join(_BOUND_LISTS[key])}")
            continue
        valid = isinstance(value, _BOUND_KEYS[key]) and (key == "sequential") == (
            isinstance(value, bool)) and (
            not isinstance(value, str) or value == "pool-size")
        if not valid:
            want = "true or false" if key == "sequential" else 'a number or "pool-size"'
            raise UserError(f"{where}.{key} = {value!r} is not valid: {want}")
    return dict(raw)


def load_manifest(path: Path) -> list[Contender]:
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise UserError(f"cannot read manifest {path}: {err}") from None
    tc = doc.get("toolchain", {})
    if "name" not in tc:
        raise UserError(f"{path}: [toolchain] needs a name")
    toolchain = Toolchain(
        name=tc["name"],
        folder=path.parent,
        requires=_strings(tc.get("requires", []), f"{path}: toolchain.requires"),
        version_commands=_commands(tc.get("version", []), f"{path}: toolchain.version"),
        build_commands=_commands(tc.get("build", []), f"{path}: toolchain.build"),
        inputs=_strings(tc.get("inputs", []), f"{path}: toolchain.inputs"),
        outputs=_strings(tc.get("outputs", []), f"{path}: toolchain.outputs"),
        packages=_packages(tc.get("packages", {}), f"{path}: toolchain.packages"),
    )
    if "other_version" in tc:
        toolchain = replace(toolchain, other_version=_other_version(
            tc["other_version"], toolchain.requires, f"{path}: toolchain.other_version"))
    default = _default_toolchain(tc, toolchain, f"{path}: toolchain.toolchain_version")
    contenders: dict[str, Contender] = {}
    for name, entry in doc.get("contenders", {}).items():
        where = f"{path}: contenders.{name}"
        run = _commands([entry.get("run")], f"{where}.run")[0]
        base = _variant_base(entry.get("variant_of"), contenders, where)
        notes = {str(k): str(v) for k, v in entry.get("notes", {}).items()}
        contenders[name] = Contender(
            name=name,
            style=str(entry.get("style", "")),
            toolchain=_toolchain_of(entry, base, toolchain, default,
                                    f"{where}.toolchain_version"),
            run=run,
            workloads=_strings(entry.get("workloads", []), f"{where}.workloads"),
            pooled=frozenset(_strings(entry.get("pooled", []), f"{where}.pooled")),
            notes={**base.notes, **notes} if base else notes,
            ready=_ready(entry.get("ready", "line"), f"{where}.ready"),
            bounds=_bounds(entry.get("bounds", {}), f"{where}.bounds"),
            not_applicable=_reasons(entry.get("not_applicable", {}), f"{where}.not_applicable"),
            variant_of=base.name if base else None,
            env=_env(entry.get("env", {}), f"{where}.env"),
            budgets=check_budget_table(entry.get("budget", {}), f"{where}.budget"),
            server_stack=_server_stack(entry, base, f"{where}.server_stack"),
            differs_on=_differs_on(entry, base, f"{where}.differs_on"),
        )
    return list(contenders.values())


def _other_version(raw: Any, requires: tuple[str, ...],
                   where: str) -> toolchain_pins.OtherVersion:
    lists: dict[str, tuple[Any, ...]] = {}
    if isinstance(raw, dict):
        lists = {k: (_strings if k == "outputs" else _commands)(raw[k], f"{where}.{k}")
                 for k in ("build", "outputs", "version") if k in raw}
    return toolchain_pins.parse(raw, requires, where, lists)


def _default_toolchain(raw: dict[str, Any], toolchain: Toolchain, where: str) -> Toolchain:
    """What the contenders run on unless a variant names another version: the toolchain as
    declared (the machine's tool), or the version `[toolchain] toolchain_version` pins, built
    by the `[toolchain]`'s own commands into its own outputs (`<name>@<version>`)."""
    if "toolchain_version" not in raw:
        return toolchain
    if raw["toolchain_version"] == toolchain_pins.INSTALLED:
        raise UserError(f"{where} = {toolchain_pins.INSTALLED!r}: leave it out for the tool "
                        f"the machine has, or name a version such as \"1.27.4\"")
    return toolchain_pins.derive(toolchain, raw["toolchain_version"], where, own_recipe=True)


def _toolchain_of(entry: dict[str, Any], base: Contender | None, toolchain: Toolchain,
                  default: Toolchain, where: str) -> Toolchain:
    """The toolchain's default (`default`: `toolchain` itself, or its pinned version); a
    variant's `toolchain_version` derives its own from `toolchain` (`<name>@<version>`) or,
    with "installed", takes `toolchain` unpinned; a variant of such a variant keeps its
    base's."""
    if "toolchain_version" not in entry:
        return base.toolchain if base else default
    if base is None:
        raise UserError(f"{where}: only a variant (variant_of) runs on another toolchain "
                        f"version; the defaults' is [toolchain] toolchain_version")
    version = entry["toolchain_version"]
    if version == toolchain_pins.INSTALLED:
        if default.pin is None:
            raise UserError(f"{where} = {version!r}: the toolchain's defaults run on the "
                            f"installed {toolchain.name} already (no [toolchain] "
                            f"toolchain_version): leave it out")
        _check_outputs_apart(toolchain, default, where)
        return toolchain
    if default.pin is not None and version == default.pin.version:
        raise UserError(f"{where} = {version!r} is the version the toolchain's defaults run "
                        f"on ([toolchain] toolchain_version): leave it out")
    return toolchain_pins.derive(toolchain, version, where)


def _check_outputs_apart(installed: Toolchain, default: Toolchain, where: str) -> None:
    """The installed tool's build shares the defaults' recipe and outputs: only a build that
    writes none of them (node's syntax check: its outputs are sources) may serve both, or one
    toolchain's binary would pass for the other's."""
    written = [out for out in installed.outputs
               if not any(fnmatch.fnmatchcase(out, pattern) for pattern in installed.inputs)]
    if written:
        raise UserError(f"{where} = {toolchain_pins.INSTALLED!r}: {installed.name}'s build "
                        f"writes {', '.join(written)}, which the defaults' {default.name} "
                        f"writes too; name the installed release's version instead (its own "
                        f"outputs, from [toolchain.other_version])")


def _variant_base(raw: Any, earlier: dict[str, Contender], where: str) -> Contender | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or raw not in earlier:
        raise UserError(f"{where}.variant_of = {raw!r}: must name a contender declared earlier "
                        f"in the same manifest ({', '.join(earlier) or 'none'})")
    return earlier[raw]


def _env(raw: Any, where: str) -> dict[str, str]:
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise UserError(f"{where} must be a table of NAME = \"value\" (strings)")
    return {str(k): v for k, v in raw.items()}


def _reasons(raw: Any, where: str) -> dict[str, str]:
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise UserError(f"{where} must be a table of workload = \"why not\"")
    return {str(k): v for k, v in raw.items()}


def check_budget_table(raw: Any, where: str) -> dict[str, dict[str, Any]]:
    """Validate `[contenders.X.budget]`: workload → {request-threads, async-threads, async-waits}."""
    if not isinstance(raw, dict):
        raise UserError(f"{where} must be a table of workload = {{ ... }}")
    for workload, table in raw.items():
        here = f"{where}.{workload}"
        if not isinstance(table, dict):
            raise UserError(f"{here} must be a table")
        spec = workloads.get(str(workload))
        waits = [p.name[:-3] for p in spec.params if p.name.endswith("-ms")]
        for key, value in table.items():
            if key not in budget.KEYS:
                raise UserError(f"{here}: unknown key {key!r}; known: {', '.join(budget.KEYS)}")
            if key == "async-waits":
                ok = isinstance(value, list) and all(w in waits for w in value)
            else:
                ok = (isinstance(value, int) and not isinstance(value, bool) and value > 0) or (
                    isinstance(value, str) and bool(budget.SCALED.match(value)))
            if not ok:
                want = f"a list of {', '.join(waits)}" if key == "async-waits" else \
                    'a positive number, "pool-size" or "N*pool-size"'
                raise UserError(f"{here}.{key} = {value!r} is not valid: {want}")
    return {str(k): dict(v) for k, v in raw.items()}


def _differs_on(entry: dict[str, Any], base: Contender | None, where: str) -> tuple[str, ...]:
    own = _strings(entry.get("workloads", []), where.rpartition(".")[0] + ".workloads")
    if "differs_on" not in entry:
        return own
    if base is None:
        raise UserError(f"{where}: only a variant (variant_of) names where it differs")
    named = _strings(entry["differs_on"], where)
    stray = [w for w in named if w not in own]
    if not named or stray:
        raise UserError(f"{where} must name some of the variant's own workloads "
                        f"({', '.join(own)}), not {', '.join(stray) or 'none'}")
    return named


SERVER_STACKS = ("standard", "minimal")


def _server_stack(entry: dict[str, Any], base: Contender | None, where: str) -> str | None:
    if not any(str(w).startswith("http-") for w in entry.get("workloads", [])):
        return None
    raw = entry.get("server_stack", base.server_stack if base else None)
    if raw not in SERVER_STACKS:
        raise UserError(f"{where} must be one of {', '.join(map(repr, SERVER_STACKS))} for a "
                        f"contender that serves http-* workloads, not {raw!r}")
    return str(raw)


def _ready(raw: Any, where: str) -> str:
    if raw not in ("line", "connect"):
        raise UserError(f"{where} must be \"line\" or \"connect\", not {raw!r}")
    return str(raw)


def discover(root: Path) -> dict[str, Contender]:
    """Every contender of every manifest under root, by name."""
    found: dict[str, Contender] = {}
    for path in sorted(root.glob("*/contenders.toml")):
        for contender in load_manifest(path):
            if contender.name in found:
                raise UserError(f"contender {contender.name} is declared twice ({path})")
            found[contender.name] = contender
    return found


def select(all_contenders: dict[str, Contender], names: list[str], workload: str) -> list[Contender]:
    """The named contenders (when none are named: all that implement the workload, variants
    excepted: a variant runs only when asked for by name)."""
    implementing = {n: c for n, c in all_contenders.items() if workload in c.workloads}
    if not names:
        if not implementing:
            raise UserError(f"no contender implements workload {workload}")
        return [c for c in implementing.values() if c.variant_of is None]
    chosen = []
    for name in names:
        if name not in all_contenders:
            raise unknown("contender", name, all_contenders)
        if name not in implementing:
            raise UserError(
                f"contender {name} does not implement {workload}; "
                f"those that do: {', '.join(sorted(implementing))}"
            )
        chosen.append(all_contenders[name])
    return chosen
