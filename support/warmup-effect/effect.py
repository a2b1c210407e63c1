"""What a fixed warm-up would have measured, from a run with warm-up until steady.

Every server run records its warm-up windows (server.warmup.windows). For each run whose
warm-up lasted at least AT + 10 s, the rate of its windows covering [AT, AT + 10) s is what a
fixed warm-up of AT seconds followed by a 10 s window would have read; the measured rate
after the steady warm-up divided by it is the effect of the change, in the same run.
  .venv/bin/python support/warmup-effect/effect.py results/<run-id>/results.json [--at 30]
Prints, per contender (JIT runtimes only: servers with JIT compiler threads), the median of
those ratios, their range and how many runs had a warm-up that long."""

import argparse
import json
import statistics
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("results", type=Path)
ap.add_argument("--at", type=float, default=30.0, help="the fixed warm-up to compare with (s)")
a = ap.parse_args()
ratios: dict[str, list[float]] = {}
for cell in json.loads(a.results.read_text())["cells"]:
    for run in cell["runs"]:
        warmup = (run.get("server") or {}).get("warmup") or {}
        measured = (run.get("load") or {}).get("requests_per_s")
        windows, start, stretch = warmup.get("windows") or [], 0.0, []
        if not measured or not any(w["jit_cpu_s"] is not None for w in windows):
            continue
        for w in windows:
            if a.at <= start < a.at + 10:
                stretch.append(w["requests_per_s"])
            start += w["duration_s"]
        if start >= a.at + 10 and stretch and statistics.fmean(stretch) > 0:
            ratios.setdefault(cell["contender"], []).append(measured / statistics.fmean(stretch))
print(f"measured after the steady warm-up ÷ the rate at {a.at:g}-{a.at + 10:g} s of the same run")
for name, found in ratios.items():
    print(f"{name:22} ×{statistics.median(found):.2f}  (range {min(found):.2f}-{max(found):.2f}, "
          f"{len(found)} runs)")
