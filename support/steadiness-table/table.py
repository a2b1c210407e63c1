"""Which server figure repeats best: from a results.json of capacity runs in interleaved rounds
(suites/steadiness.toml), for each server the median and the coefficient of variation across
rounds (standard deviation ÷ mean, %) of

- its closed-loop peak (the capacity search's probe, after the warm-up),
- its capacity at the p99 target (a run that found none counts as 0),
- its CPU µs per request at half its peak (the search's first window, the server's CPU read at
  the window's edges; with the JIT's CPU),
- its CPU µs per request at its capacity (the measured window),
- its peak and its capacity as ratios to nginx's in the same round.

    support/steadiness-table/run results/<run-id>/results.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any, Callable

CEILING = "nginx"
Figure = Callable[[dict[str, Any]], "float | None"]


def peak(run: dict[str, Any]) -> float | None:
    return (run["server"].get("capacity") or {}).get("peak_per_s")


def capacity(run: dict[str, Any]) -> float | None:
    return (run["server"].get("capacity") or {}).get("capacity_per_s")


def cpu_at_half_peak(run: dict[str, Any]) -> float | None:
    windows = (run["server"].get("capacity") or {}).get("windows") or []
    first = next((w for w in windows if w["role"] == "search"), None)
    return first.get("server_us_per_request") if first else None


def cpu_at_capacity(run: dict[str, Any]) -> float | None:
    return (run["server"].get("cpu_per_request") or {}).get("server_us")


FIGURES: dict[str, Figure] = {"peak/s": peak, "capacity/s": capacity,
                              "CPU µs/req at ½ peak": cpu_at_half_peak,
                              "CPU µs/req at capacity": cpu_at_capacity}
RATIOS: dict[str, Figure] = {"peak ÷ nginx": peak, "capacity ÷ nginx": capacity}


def by_round(cell: dict[str, Any], figure: Figure) -> dict[int, float]:
    found = {}
    for run in cell["runs"]:
        value = figure(run) if run["status"] == "ok" else None
        if value is not None:
            found[run["round"]] = float(value)
    return found


def cv_percent(values: list[float]) -> float | None:
    if len(values) < 2 or not statistics.fmean(values):
        return None
    return 100 * statistics.stdev(values) / statistics.fmean(values)


def spread(values: list[float], digits: int) -> str:
    if not values:
        return "–"
    cv = cv_percent(values)
    median = f"{statistics.median(values):,.{digits}f}"
    return f"{median} ({cv:.1f} %)" if cv is not None else median


def rows(doc: dict[str, Any]) -> list[list[str]]:
    cells = {c["contender"]: c for c in doc["cells"]}
    ceiling = cells.get(CEILING)
    out = []
    for name, cell in cells.items():
        row = [name, str(sum(r["status"] == "ok" for r in cell["runs"]))]
        for label, figure in FIGURES.items():
            row.append(spread(list(by_round(cell, figure).values()),
                              0 if label.endswith("/s") else 1))
        for figure in RATIOS.values():
            if ceiling is None or name == CEILING:
                row.append("–")
                continue
            mine, theirs = by_round(cell, figure), by_round(ceiling, figure)
            ratios = [mine[r] / theirs[r] for r in mine if theirs.get(r)]
            row.append(spread(ratios, 2))
        out.append(row)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    doc = json.loads(parser.parse_args().results.read_text())
    head = ["server", "runs ok", *FIGURES, *RATIOS]
    print("median (CV across rounds)\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows(doc):
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
