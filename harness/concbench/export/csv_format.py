"""CSV export: one row per cell, medians and spread in SI units (seconds, bytes)."""

from __future__ import annotations

import csv
import io
import json

from concbench.resultset.model import CellResult, ResultsDocument

SERVER_COLUMNS = ("requests_per_s", "latency_p50_ms", "latency_p99_ms", "latency_p999_ms",
                  "latency_max_ms", "errors_total", "server_cpu_percent",
                  "server_peak_rss_bytes", "server_peak_threads", "generator_cpu_percent",
                  "startup_s")
"""Medians of the server workloads' figures (empty for batch workloads)."""

COLUMNS = ("workload", "contender", "params", "status", "reason", "n", "median_s", "mean_s",
           "stddev_s", "min_s", "max_s", "ci95_low_s", "ci95_high_s", "cv", "ideal_s",
           "efficiency", "throughput_per_s", "throughput_unit", "peak_rss_bytes",
           "peak_threads", "cpu_s", *SERVER_COLUMNS, "cold_median_s")



def _num(v: float | None, digits: int = 6) -> str:
    return "" if v is None else f"{v:.{digits}g}"


def _row(cell: CellResult) -> list[str]:
    t = cell.stats.get("elapsed_s")

    def median(metric: str, digits: int = 6) -> str:
        s = cell.stats.get(metric)
        return _num(s.median, digits) if s else ""

    return [cell.workload, cell.contender, json.dumps(cell.params, sort_keys=True), cell.status,
            cell.reason or "", str(t.n) if t else "0",
            *(_num(getattr(t, f)) if t else "" for f in ("median", "mean", "stddev", "min", "max")),
            _num(t.ci95[0]) if t and t.ci95 else "", _num(t.ci95[1]) if t and t.ci95 else "",
            _num(t.cv, 3) if t else "", _num(cell.ideal_s), _num(cell.efficiency, 4),
            median("throughput_per_s"), str(cell.metadata.get("throughput_unit", "")),
            median("peak_rss_bytes", 15), median("peak_threads", 15), median("cpu_s"),
            *(median(key) for key in SERVER_COLUMNS), median("cold_s")]


def serialize(doc: ResultsDocument) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for cell in doc.cells:
        writer.writerow(_row(cell))
    return out.getvalue().encode()
