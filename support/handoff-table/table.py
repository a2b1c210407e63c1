"""The tables of docs/handoff.md from a `suite handoff` results.json.

ring: one row per contender, W, R and H, joining the cell at sample-every = 0 (no clock read
in the passes: ns and CPU per hand-off, context switches per hand-off, CPU ÷ wall on the
usable CPUs) with its twin at sample-every = 1 (ring 1 reads the clock at every pass: p50 and
p99 per hand-off, the clock-read cost measured beside them, and the ns per hand-off with that
read inside, and the CPU per hand-off the harness reads from one output line to the next
around those iterations, which also spans set-up, shutdown and the percentile work: the two
figures the previous table published). skynet: time per tree with its
interval, tasks/s, bytes per task above the RSS before the tree (and peak RSS ÷ tasks, the
previous table's figure), CPU per task, the fewest live
tasks the first leaf saw. Medians over every measured iteration; n counts them.

    support/handoff-table/run results/<run-id>/results.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from concbench.workloads.skynet import tasks_in_tree


def _stat(cell: dict[str, Any] | None, key: str) -> float | None:
    stat = ((cell or {}).get("stats") or {}).get(key)
    return stat["median"] if stat else None


def _results(cell: dict[str, Any] | None, key: str) -> list[float]:
    if cell is None:
        return []
    return [it["result"][key] for run in cell["runs"] for it in run.get("iterations") or []
            if not it.get("warmup") and isinstance((it.get("result") or {}).get(key), (int, float))]


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _num(value: float | None, fmt: str = "{:,.0f}") -> str:
    return "–" if value is None else fmt.format(value)


def _line_cpu_ns(cell: dict[str, Any] | None) -> float | None:
    """The harness's line-to-line CPU reading per hand-off (median over measured iterations)."""
    if cell is None:
        return None
    p = cell["params"]
    found = [it["cpu_s"] for run in cell["runs"] for it in run.get("iterations") or []
             if not it.get("warmup") and it.get("cpu_s") is not None]
    median = _median(found)
    return None if median is None else median * 1e9 / (p["rings"] * p["passes"])


def _per_pass_ns(cell: dict[str, Any] | None) -> float | None:
    elapsed = _stat(cell, "elapsed_s")
    if cell is None or elapsed is None:
        return None
    p = cell["params"]
    return elapsed * 1e9 / (p["rings"] * p["passes"])


def _status(*cells: dict[str, Any] | None) -> str:
    found = {c["status"] for c in cells if c is not None and c["status"] != "ok"}
    return ", ".join(sorted(found))


def ring_rows(cells: list[dict[str, Any]], cpus: int) -> list[str]:
    pairs: dict[tuple[str, int, int, int], dict[int, dict[str, Any]]] = {}
    for c in cells:
        p = c["params"]
        key = (c["contender"], p["size"], p["rings"], p["passes"])
        pairs.setdefault(key, {})[p["sample-every"]] = c
    rows = []
    for (contender, size, rings, passes), by_k in pairs.items():
        bare, timed = by_k.get(0), by_k.get(1)
        ns = _per_pass_ns(bare)
        cpu = _stat(bare, "cpu_ns_per_unit")
        share = cpu / (ns * cpus) if cpu is not None and ns else None
        n = ((bare or {}).get("stats") or {}).get("elapsed_s", {}).get("n")
        rows.append(
            f"| {contender} | {size} | {rings} | {passes:,} | {_num(ns)} | {_num(cpu)} | "
            f"{_num(share, '{:.2f}')} | "
            f"{_num(_stat(bare, 'ctx_switches_per_unit'), '{:.3f}')} | "
            f"{_num(_per_pass_ns(timed))} | {_num(_line_cpu_ns(timed))} | "
            f"{_num(_median(_results(timed, 'handoff_p50_ns')))} | "
            f"{_num(_median(_results(timed, 'handoff_p99_ns')))} | "
            f"{_num(_median(_results(timed, 'clock_read_ns')))} | {_num(n, '{}')} | "
            f"{_status(bare, timed)} |")
    return rows


def skynet_rows(cells: list[dict[str, Any]]) -> list[str]:
    rows = []
    for c in cells:
        elapsed = (c.get("stats") or {}).get("elapsed_s") or {}
        ci = elapsed.get("ci95")
        peak = _stat(c, "peak_rss_bytes")
        alive = _results(c, "tasks_alive")
        rows.append(
            f"| {c['contender']} | {_num(elapsed.get('median'), '{:.3f} s')} | "
            f"{'–' if not ci else f'{ci[0]:.2f}–{ci[1]:.2f}'} | "
            f"{_num((_stat(c, 'throughput_per_s') or 0) / 1000 or None, '{:,.0f} k')} | "
            f"{_num(None if peak is None else peak / 2**20)} | "
            f"{_num(None if peak is None else peak / tasks_in_tree(c['params']))} | "
            f"{_num(_stat(c, 'rss_growth_bytes_per_unit'))} | "
            f"{_num(_stat(c, 'cpu_ns_per_unit'))} | {_num(min(alive) if alive else None)} | "
            f"{_num(elapsed.get('n'), '{}')} | {_status(c)} |")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path)
    a = ap.parse_args()
    doc = json.loads(a.results.read_text())
    cpus = len(doc["machine"].get("affinity") or []) or doc["machine"]["logical_cores"]
    print("| contender | W | R | H | ns/hand-off | CPU ns/hand-off | CPU ÷ (wall × CPUs) | "
          "switches/hand-off | ns/hand-off, clock read each pass | CPU ns/hand-off, line to line, "
          "clock read each pass | p50 ns | p99 ns | clock read ns | n | status |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(ring_rows([c for c in doc["cells"] if c["workload"] == "ring"], cpus)))
    print("\n| contender | time per tree | 95% CI | tasks/s | peak RSS MiB | peak RSS ÷ tasks | "
          "B/task above the RSS before | CPU ns/task | fewest live tasks seen | n | status |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(skynet_rows([c for c in doc["cells"] if c["workload"] == "skynet"])))


if __name__ == "__main__":
    main()
