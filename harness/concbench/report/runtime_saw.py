"""What a runtime saw of the machine (its CPU count, collector, heap cap), from what the runs
recorded: a server's ready line (`server.runtime`) and the informational keys of a batch
result (docs/contract.md, "Output"). Under --cpus / --memory this is how a runtime sized
itself to the cgroup (docs/containers.md).

Every server's ready line puts its runtime's own CPU count under `cpus`; what that count is
depends on the runtime, so it is named by the cell's toolchain. A figure the runtime does not
report (GOMAXPROCS and the BEAM's schedulers in the batch results) is not guessed.
"""

from __future__ import annotations

from typing import Any

from concbench.resultset.model import CellResult, RunResult
from concbench.toolchain_pins import family

CPUS_NAME = {"go": "GOMAXPROCS", "java": "availableProcessors",
             "kotlin": "availableProcessors", "spring": "availableProcessors",
             "helidon": "availableProcessors",
             "rust": "Tokio workers", "erlang": "schedulers", "node": "availableParallelism",
             "python": "usable CPUs"}
"""The ready line's `cpus`, by toolchain (go@1.27.4's is go's): what each server reports there."""

READY_KEYS = {"gc": "GC", "max_heap_mib": "max heap MiB", "v8_heap_limit_mib": "V8 heap cap MiB"}
"""Other keys of a ready line's runtime object that say how the runtime sized itself."""

RESULT_KEYS = {"tokio_workers": "Tokio workers", "jvm_gc": "GC"}
"""Keys of a batch iteration's result that say the same (the last measured iteration's)."""


def _cpus_name(cell: CellResult) -> str:
    return CPUS_NAME.get(family(str(cell.metadata.get("toolchain"))), "cpus")


def _ready(run: RunResult, cpus_name: str) -> dict[str, Any]:
    runtime = (run.server or {}).get("runtime") or {}
    found = {cpus_name: runtime["cpus"]} if runtime.get("cpus") is not None else {}
    found.update({name: runtime[k] for k, name in READY_KEYS.items()
                  if runtime.get(k) is not None})
    return found


def _result(run: RunResult) -> dict[str, Any]:
    measured = [it for it in run.iterations if not it.warmup] or list(run.iterations)
    if not measured:
        return {}
    last = measured[-1].result
    return {name: last[k] for k, name in RESULT_KEYS.items() if last.get(k) is not None}


def seen(cell: CellResult) -> dict[str, str]:
    """{what: value} over the cell's runs, failed ones too (a runtime killed at its memory
    limit had sized itself before); values that differ between runs are joined by "/"."""
    cpus_name = _cpus_name(cell)
    values: dict[str, list[str]] = {}
    for run in cell.runs:
        for name, value in {**_ready(run, cpus_name), **_result(run)}.items():
            shown = values.setdefault(name, [])
            if str(value) not in shown:
                shown.append(str(value))
    return {name: "/".join(v) for name, v in values.items()}


def _shown(name: str, value: str) -> str:
    return f"{name[:-4]} {value} MiB" if name.endswith(" MiB") else f"{name} {value}"


def text(cell: CellResult) -> str:
    """One line: "availableProcessors 1; GC Copy, MarkSweepCompact; max heap 121 MiB" ("—"
    when the runs recorded nothing of it)."""
    found = seen(cell)
    return "; ".join(_shown(k, v) for k, v in found.items()) if found else "—"


def cpus(cell: CellResult) -> str:
    """The runtime's own CPU count alone (the ready line's cpus, or Tokio's workers)."""
    found = seen(cell)
    name = _cpus_name(cell)
    return found.get(name) or found.get("Tokio workers") or ""
