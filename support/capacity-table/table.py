"""The capacity tables of docs/servers.md from a results.json of capacity runs (suite
capacity): per workload, every server's closed-loop peak, its confirmed capacity at the p99
target, the search's windows held and missed, the measured window at the capacity, its CPU per
request (perf-free) and the system calls per request of the window after it; then each
server's latency–load curve from its search windows (rate → p99, CPU µs per request), and
where the suite's time went.

    support/capacity-table/run results/<run-id>/results.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

SYSCALLS = (("read+write", ("syscalls_read_all_per_request", "syscalls_write_all_per_request")),
            ("epoll_ctl", ("syscalls_epoll_ctl_per_request",)),
            ("futex", ("syscalls_futex_per_request",)))


def _k(v: float | None) -> str:
    return "–" if v is None else f"{v / 1000:.1f}k"


def _stat(cell: dict[str, Any], key: str) -> float | None:
    found = (cell.get("stats") or {}).get(key)
    return found.get("median") if found else None


def _flags(cell: dict[str, Any]) -> str:
    found = []
    for w in cell.get("warnings", []):
        for start, label in (("warm-up did not settle", "unsettled"),
                             ("not steady", "not steady"), ("the generator used", "generator-bound"),
                             ("no capacity confirmed", "none confirmed")):
            if w.startswith(start) and label not in found:
                found.append(label)
    return ", ".join(found)


def capacity_row(cell: dict[str, Any]) -> list[str]:
    run = cell["runs"][0] if cell["runs"] else {}
    server = run.get("server") or {}
    cap = server.get("capacity") or {}
    if cell["status"] != "ok" or not cap:
        return [cell["contender"], cell["status"], *["–"] * 8, cell.get("reason") or ""]
    windows = cap["windows"]
    searched = [w for w in windows if w["role"] != "confirm"]
    confirms = [w for w in windows if w["role"] == "confirm"]
    measured = cap.get("measured_window") or {}
    at = "held" if measured.get("held") else f"missed: {measured.get('why', '')}"
    share = cap["capacity_per_s"] / cap["peak_per_s"] if cap["peak_per_s"] else 0
    cpu = (server.get("cpu_per_request") or {})
    calls = []
    for _, keys in SYSCALLS:
        values = [_stat(cell, k) for k in keys]
        calls.append("–" if any(v is None for v in values)
                     else f"{sum(v for v in values if v is not None):.2f}")
    ctx = _stat(cell, "ctx_switches_per_request")
    return [cell["contender"], _k(cap["peak_per_s"]), _k(cap["capacity_per_s"]), f"{share:.0%}",
            f"{sum(w['held'] for w in searched)}/{sum(not w['held'] for w in searched)}",
            f"{sum(w['held'] for w in confirms)}/{len(confirms)}", at,
            "–" if cpu.get("server_us") is None else f"{cpu['server_us']:.1f}",
            ", ".join(calls), "–" if ctx is None else f"{ctx:.2f}", _flags(cell)]


def curve(cell: dict[str, Any]) -> str:
    """The search's windows by rate: rate → p99 / CPU µs per request (* a miss)."""
    run = cell["runs"][0] if cell["runs"] else {}
    windows = ((run.get("server") or {}).get("capacity") or {}).get("windows") or []
    parts = []
    for w in sorted(windows, key=lambda w: w["offered_per_s"]):
        p99 = "–" if w["p99_ms"] is None else f"{w['p99_ms']:.1f} ms"
        cpu = w.get("server_us_per_request")
        parts.append(f"{_k(w['offered_per_s'])} {p99}{'' if w['held'] else '*'}"
                     f"{'' if cpu is None else f' / {cpu:.0f} µs'}")
    return "; ".join(parts)


def time_spent(cells: list[dict[str, Any]]) -> dict[str, float]:
    """Minutes of the runs' wall time: start-ups, warm-ups, the rest (probe, search, windows,
    checks, stop)."""
    spent = {"start-ups": 0.0, "warm-ups": 0.0, "the rest": 0.0}
    for cell in cells:
        for run in cell["runs"]:
            start = run.get("startup_s") or 0.0
            warm = ((run.get("server") or {}).get("warmup") or {}).get("seconds") or 0.0
            spent["start-ups"] += start
            spent["warm-ups"] += warm
            spent["the rest"] += max(0.0, (run.get("wall_s") or 0.0) - start - warm)
    return {k: v / 60 for k, v in spent.items()}


HEAD = ["server", "peak/s", "capacity/s", "of peak", "search held/missed", "confirmed",
        "measured window at capacity", "CPU µs/req at capacity",
        "syscalls/req (read+write, epoll_ctl, futex)", "ctx switches/req", "flags"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    doc = json.loads(parser.parse_args().results.read_text())
    cells = [c for c in doc["cells"] if c["params"].get("slo-p99-ms")]
    for workload in dict.fromkeys(c["workload"] for c in cells):
        mine = [c for c in cells if c["workload"] == workload]
        print(f"\n{workload}, p99 ≤ {mine[0]['params']['slo-p99-ms']} ms\n")
        print("| " + " | ".join(HEAD) + " |\n|" + "---|" * len(HEAD))
        for c in mine:
            print("| " + " | ".join(capacity_row(c)) + " |")
        print(f"\n{workload}: search windows, rate → p99 / server CPU µs per request "
              "(* missed)\n")
        for c in mine:
            print(f"- {c['contender']}: {curve(c)}")
    spent = time_spent(cells)
    print("\ntime (min): " + ", ".join(f"{k} {v:.1f}" for k, v in spent.items())
          + f", total {sum(spent.values()):.1f}")


if __name__ == "__main__":
    main()
