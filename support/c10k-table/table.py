"""The c10k tables of docs/servers.md from a results.json: per parameter set, every server's
median requests/s and p99, its same-round ratio to nginx, how many of its windows were steady
by their own verdict (server.steadiness), the JIT's share of its CPU in the window, the
garbage collector's time as a share of the window (HotSpot's counters: the pauses), what the
server held at the window's end, and the flags; then where the suite's time went, summed over
every run: server start-ups, lead-ins, warm-ups, measured windows, and the rest (stopping the
generator, reading its log of every response, the checks after the load, the server's stop).

    support/c10k-table/run results/<run-id>/results.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _rate(v: float | None) -> str:
    return "–" if v is None else f"{v / 1000:.1f}k"


def _span(values: list[float], fmt: str) -> str:
    if not values:
        return "–"
    low, high = min(values), max(values)
    return fmt.format(low) if fmt.format(low) == fmt.format(high) \
        else f"{fmt.format(low)}–{fmt.format(high)}"


def _ratio(cell: dict[str, Any]) -> tuple[str, str]:
    stat = (cell.get("stats") or {}).get("nginx_ratio")
    if not stat:
        return "–", "–"
    ci = stat.get("ci95")
    return f"{stat['median']:.2f}", f"{ci[0]:.2f}–{ci[1]:.2f}" if ci else "–"


def _flags(cell: dict[str, Any]) -> str:
    found = []
    for w in cell.get("warnings", []):
        if w.startswith("generator-bound"):
            found.append("generator-bound")
        elif w.startswith("not steady in the measured window"):
            found.append("not steady")
    return ", ".join(dict.fromkeys(found))


def row(cell: dict[str, Any]) -> str:
    runs = [r for r in cell["runs"] if r["status"] == "ok"]
    rates = [r["load"]["requests_per_s"] for r in runs]
    p99s = [r["load"]["latency_ms"]["p99"] for r in runs]
    verdicts = [(r["server"].get("steadiness") or {}) for r in runs]
    steady = sum(1 for v in verdicts if v.get("steady"))
    jit = [100 * v["jit_share"] for v in verdicts if v.get("jit_share") is not None]
    gc = [share for r in runs if (share := gc_percent(r)) is not None]
    held = [(r["server"].get("connections_held") or {}).get("held") for r in cell["runs"]]
    ratio, ci = _ratio(cell)
    stack = cell.get("metadata", {}).get("server_stack", "")
    status = cell["status"] if cell["status"] != "ok" else ""
    return (f"| {cell['contender']} | {stack} | {_rate(_median(rates))} | "
            f"{_span([p for p in p99s if p is not None], '{:.0f}')} | {ratio} | {ci} | "
            f"{steady}/{len(cell['runs'])} | "
            f"{_span(jit, '{:.1f}')} | {_span(gc, '{:.1f}')} | "
            f"{_span([h for h in held if h is not None], '{:,}')} | "
            f"{', '.join(x for x in (_flags(cell), status) if x)} |")


def gc_percent(run: dict[str, Any]) -> float | None:
    """The collectors' time in the measured window, % of the window (None without counters)."""
    server = run.get("server") or {}
    gc_s = (server.get("window_jit") or {}).get("gc_s")
    window_s = (server.get("window") or {}).get("window_s")
    return None if gc_s is None or not window_s else 100 * gc_s / window_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path)
    a = ap.parse_args()
    doc = json.loads(a.results.read_text())
    for connections in sorted({c["params"]["connections"] for c in doc["cells"]}):
        cells = [c for c in doc["cells"] if c["params"]["connections"] == connections]
        cells.sort(key=lambda c: -(_median([r["load"]["requests_per_s"] for r in c["runs"]
                                            if r["status"] == "ok"]) or 0))
        print(f"\n**{connections:,} connections, keep-alive**\n")
        print("| contender | stack | requests/s | p99 ms | × nginx, same round | 95% CI | "
              "steady windows | JIT % of CPU in window | GC % of window | held | flags |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for cell in cells:
            print(row(cell))
    spent = time_spent([(c["params"], r) for c in doc["cells"] for r in c["runs"]])
    print(f"\nRuns' wall time {sum(spent.values()) / 60:.1f} min: " + ", ".join(
        f"{phase} {seconds / 60:.1f}" for phase, seconds in spent.items()))


def time_spent(runs: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, float]:
    """Seconds summed over (cell params, run) pairs, by phase."""
    spent = {"start-ups": 0.0, "lead-ins": 0.0, "warm-ups": 0.0, "windows": 0.0, "the rest": 0.0}
    for params, run in runs:
        server = run.get("server") or {}
        continuous = server.get("continuous") or {}
        phases = {"start-ups": run.get("startup_s") or 0.0,
                  "lead-ins": continuous.get("lead_in_s") or 0.0,
                  "warm-ups": (server.get("warmup") or {}).get("seconds") or 0.0,
                  "windows": float(params["duration-s"])
                  if continuous.get("window_from_s") is not None else 0.0}
        for phase, seconds in phases.items():
            spent[phase] += seconds
        spent["the rest"] += run["wall_s"] - sum(phases.values())
    return spent


if __name__ == "__main__":
    main()
