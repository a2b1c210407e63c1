"""Medians of iteration time, CPU and peak RSS per side of a before/after run, the ratios and
the Mann-Whitney p of each; with warm-up iterations, also the first (cold) iteration's time."""

import json
import statistics
import sys
from pathlib import Path

from scipy.stats import mannwhitneyu

folder, name = Path(sys.argv[1]), sys.argv[2]
sides: dict[str, dict[str, list[float]]] = {}
for path in sorted(folder.glob("*/results.json")):
    for cell in json.loads(path.read_text())["cells"]:
        if cell["status"] != "ok":
            sys.exit(f"{cell['contender']}: {cell['status']} ({cell['reason']})")
        side = sides.setdefault(cell["contender"], {"wall_s": [], "cold_s": [], "cpu_s": [],
                                                      "rss_mib": []})
        for run in cell["runs"]:
            its = [it["elapsed_ns"] / 1e9 for it in run["iterations"] if not it["warmup"]]
            side["wall_s"].append(statistics.median(its))
            if run["iterations"][0]["warmup"]:
                side["cold_s"].append(run["iterations"][0]["elapsed_ns"] / 1e9)
            side["cpu_s"].append(run["cpu_user_s"] + run["cpu_sys_s"])
            side["rss_mib"].append(run["peak_rss_bytes"] / 2**20)
before, after = sides[f"{name}-before"], sides[name]
print(f"{'':>16} {'before':>10} {'after':>10} {'after/before':>12} {'p (MWU)':>8}  "
      f"(medians of {len(after['wall_s'])} interleaved runs; wall_s: iteration time)")
for key in ("wall_s", "cold_s", "cpu_s", "rss_mib"):
    if not before[key] or not after[key]:
        continue
    b, a = statistics.median(before[key]), statistics.median(after[key])
    p = mannwhitneyu(after[key], before[key], alternative="two-sided").pvalue
    print(f"{key:>16} {b:10.4g} {a:10.4g} {a / b:12.3f} {p:8.3f}")
