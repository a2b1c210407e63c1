"""Medians per side of a before/after run, the ratios and the Mann-Whitney p of each. Batch
cells: iteration time (and, with warm-up iterations, the first, cold one), CPU and peak RSS.
Server cells: requests/s and p99 of the measured window, and the server's peak RSS."""

import json
import statistics
import sys
from pathlib import Path

from scipy.stats import mannwhitneyu


def batch_figures(run: dict) -> dict[str, float]:
    its = [it["elapsed_ns"] / 1e9 for it in run["iterations"] if not it["warmup"]]
    found = {"wall_s": statistics.median(its), "cpu_s": run["cpu_user_s"] + run["cpu_sys_s"],
             "rss_mib": run["peak_rss_bytes"] / 2**20}
    if run["iterations"][0]["warmup"]:
        found["cold_s"] = run["iterations"][0]["elapsed_ns"] / 1e9
    return found


def server_figures(run: dict) -> dict[str, float]:
    load = run["load"]
    return {"requests_per_s": load["requests_per_s"], "p99_ms": load["latency_ms"]["p99"],
            "rss_mib": run["peak_rss_bytes"] / 2**20}


folder, name = Path(sys.argv[1]), sys.argv[2]
sides: dict[str, dict[str, list[float]]] = {}
for path in sorted(folder.glob("*/results.json")):
    for cell in json.loads(path.read_text())["cells"]:
        if cell["status"] != "ok":
            sys.exit(f"{cell['contender']}: {cell['status']} ({cell['reason']})")
        side = sides.setdefault(cell["contender"], {})
        for run in cell["runs"]:
            figures = server_figures(run) if run.get("load") else batch_figures(run)
            for key, value in figures.items():
                side.setdefault(key, []).append(value)
before, after = sides[f"{name}-before"], sides[name]
runs = len(next(iter(after.values())))
print(f"{'':>16} {'before':>10} {'after':>10} {'after/before':>12} {'p (MWU)':>8}  "
      f"(medians of {runs} interleaved runs; wall_s: iteration time)")
for key in after:
    if not before.get(key):
        continue
    b, a = statistics.median(before[key]), statistics.median(after[key])
    p = mannwhitneyu(after[key], before[key], alternative="two-sided").pvalue
    print(f"{key:>16} {b:10.4g} {a:10.4g} {a / b:12.3f} {p:8.3f}")
