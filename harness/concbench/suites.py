"""Suites: named plans in suites/<name>.toml (the seeds' experiments, quick, full)."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from concbench import manifest, workloads
from concbench.errors import UserError, unknown
from concbench.plan import CellPlan, Plan, Settings, cells_for, parse_size, with_limits
from concbench.proc.cgroups.limits import Limits


def available(folder: Path) -> dict[str, Path]:
    return {p.stem: p for p in sorted(folder.glob("*.toml"))}


def describe(path: Path) -> str:
    try:
        return str(tomllib.loads(path.read_text()).get("description", ""))
    except (OSError, tomllib.TOMLDecodeError):
        return "(unreadable)"


SUITE_KEYS = ("description", "runs", "warmup", "iterations", "timeout", "mem_limit", "reference",
              "interleave", "cpus", "memory", "cells")
CELL_KEYS = ("workload", "params", "scan", "contenders", "exclude", "runs", "warmup",
             "iterations", "cpus", "memory")


def _check_keys(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    """A misspelt key would otherwise be ignored in silence (and the suite run without it)."""
    for key in table:
        if key not in allowed:
            raise UserError(f"{where}: unknown key {key!r}; the keys here are "
                            f"{', '.join(allowed)}")


def _entry_cells(entry: dict[str, Any], contenders: dict[str, manifest.Contender],
                 where: str) -> list[CellPlan]:
    _check_keys(entry, CELL_KEYS, where)
    if "workload" not in entry:
        raise UserError(f"{where}: every [[cells]] entry needs a workload")
    counts = _counts(entry, where)
    spec = workloads.get(entry["workload"])
    chosen = manifest.select(contenders, list(entry.get("contenders", [])), spec.name)
    chosen = _without(chosen, entry.get("exclude", []), contenders, where)
    params = {k: str(v) for k, v in entry.get("params", {}).items()}
    scans = {k: ",".join(str(x) for x in v) if isinstance(v, list) else str(v)
             for k, v in entry.get("scan", {}).items()}
    cells = cells_for(spec, chosen, params, scans)
    return [replace(c, **counts, limits=limits) for limits in _entry_limits(entry, where)
            for c in cells]


def _entry_limits(entry: dict[str, Any], where: str) -> list[Limits]:
    """A cell's cpus and memory, each a value or a list of values (one cell per value, as a
    scan): cpus = [1, 0.5] runs the cell under each quota."""
    def values(key: str) -> list[Any]:
        given = entry.get(key)
        if isinstance(given, list) and not given:
            raise UserError(f"{where}: {key} = [] names no value; leave it out for no limit")
        return given if isinstance(given, list) else [given]
    return [Limits.parse(cpus, memory, f"{where}: cpus", f"{where}: memory")
            for cpus in values("cpus") for memory in values("memory")]


def _without(chosen: list[manifest.Contender], exclude: Any,
             contenders: dict[str, manifest.Contender], where: str) -> list[manifest.Contender]:
    """The cell's contenders less those in `exclude` (a list of names), so that a contender
    added later still joins a cell that names only its exceptions."""
    if not isinstance(exclude, list) or not all(isinstance(n, str) for n in exclude):
        raise UserError(f"{where}: exclude must be a list of contender names, not {exclude!r}")
    for name in exclude:
        if name not in contenders:
            raise UserError(f"{where}: exclude: {unknown('contender', name, contenders)}")
    kept = [c for c in chosen if c.name not in exclude]
    if not kept:
        raise UserError(f"{where}: exclude leaves no contender in the cell")
    return kept


def _counts(table: dict[str, Any], where: str) -> dict[str, int | None]:
    """runs, warmup and iterations of a suite or of one of its cells, checked (None: not set)."""
    found: dict[str, int | None] = {}
    for key, least in (("runs", 1), ("warmup", 0), ("iterations", 1)):
        value = table.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or value < least):
            kind = "a positive integer" if least else "an integer >= 0"
            raise UserError(f"{where}: {key} must be {kind}, not {value!r}")
        found[key] = value
    return found


def load(name: str, folder: Path, contenders: dict[str, manifest.Contender],
         overrides: dict[str, Any]) -> Plan:
    """The suite's plan; overrides (runs, timeout, ...) from the command line win."""
    found = available(folder)
    if name not in found:
        raise unknown("suite", name, found)
    path = found[name]
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise UserError(f"suite file {path} is not valid TOML: {err}") from None
    _check_keys(doc, SUITE_KEYS, str(path))
    counts = _counts(doc, str(path))
    cells: list[CellPlan] = []
    for i, entry in enumerate(doc.get("cells", [])):
        cells += _entry_cells(entry, contenders, f"{path} cells[{i}]")
    base = {"runs": counts["runs"] or 3, "warmup": counts["warmup"] or 0,
            "iterations": counts["iterations"] or 1, "timeout_s": doc.get("timeout", 600.0),
            "reference": doc.get("reference"), "interleave": bool(doc.get("interleave", False)),
            "rss_limit": parse_size(str(doc["mem_limit"])) if "mem_limit" in doc else None}
    base["limits"] = Limits.parse(doc.get("cpus"), doc.get("memory"), f"{path}: cpus",
                                  f"{path}: memory")
    base.update({k: v for k, v in overrides.items() if v is not None})
    for key in ("runs", "warmup", "iterations"):  # the command line wins over every cell's
        if overrides.get(key) is not None:
            cells = [replace(c, **{key: None}) for c in cells]
    return Plan(name, tuple(with_limits(cells, base["limits"])), Settings(**base))
