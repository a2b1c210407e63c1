"""Two contenders of one interleaved run side by side, per workload and parameter set: the medians of each
side, the ratio of the medians, the median (and range) of the same-round ratios, and the
Mann-Whitney p. Batch cells: iteration time (and, with warm-up iterations, the first, cold
one), CPU, peak RSS, and at each mark its RSS and time. Server cells: requests/s, p99 and
server CPU per request of the measured window, and the server's peak RSS. Each figure's
ratio also as the tool states one (concbench.stats.inference.ratio_test, as `compare` and the
upgrades report): the ratio of the geometric means with its Welch 95 % interval on the
logarithms, one value per process a side, since the runs of an interleaved plan are processes.

    summary.py RESULTS AFTER [BEFORE]

RESULTS is a results.json or a folder of results folders; BEFORE defaults to AFTER-before
(what `run` builds). Used by `run`, and for the named pairs of `./concbench suite defaults`."""

import json
import statistics
import sys
from pathlib import Path

from scipy.stats import mannwhitneyu

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "harness"))
from concbench.stats.inference import ratio_test  # noqa: E402

Figures = dict[str, list[tuple[int | None, float]]]
CellKey = tuple[str, str]
"""(workload, its parameters as text): the cells whose runs are compared with each other."""


def batch_figures(run: dict) -> dict[str, float]:
    its = [it["elapsed_ns"] / 1e9 for it in run["iterations"] if not it["warmup"]]
    found = {"wall_s": statistics.median(its), "cpu_s": run["cpu_user_s"] + run["cpu_sys_s"],
             "rss_mib": run["peak_rss_bytes"] / 2**20}
    if run["iterations"][0]["warmup"]:
        found["cold_s"] = run["iterations"][0]["elapsed_ns"] / 1e9
    for mark, at in (run.get("marks") or {}).items():
        found[f"{mark}_rss_mib"] = at["rss_bytes"] / 2**20
        found[f"{mark}_s"] = at["elapsed_ns"] / 1e9
    return found


def server_figures(run: dict) -> dict[str, float]:
    load = run["load"]
    found = {"requests_per_s": load["requests_per_s"], "p99_ms": load["latency_ms"]["p99"],
             "rss_mib": run["peak_rss_bytes"] / 2**20}
    per_request = (run["server"] or {}).get("cpu_per_request") or {}
    if per_request.get("server_us") is not None:
        found["server_us_per_req"] = per_request["server_us"]
    return found


def read_cells(path: Path) -> list[dict]:
    files = [path] if path.is_file() else sorted(path.glob("*/results.json"))
    return [cell for f in files for cell in json.loads(f.read_text())["cells"]]


def _key(cell: dict) -> CellKey:
    params = ", ".join(f"{k}={v}" for k, v in sorted(cell["params"].items()))
    return cell["workload"], params


def figures_by_cell(cells: list[dict], contender: str) -> dict[CellKey, Figures]:
    """(workload, parameters) -> figure -> [(round, value)] of every run of the contender:
    runs of one workload at other parameters are never pooled, nor paired by round."""
    found: dict[CellKey, Figures] = {}
    for cell in cells:
        if cell["contender"] != contender:
            continue
        if cell["status"] != "ok":
            sys.exit(f"{contender}: {cell['status']} ({cell['reason']})")
        side = found.setdefault(_key(cell), {})
        for run in cell["runs"]:
            figures = server_figures(run) if run.get("load") else batch_figures(run)
            for key, value in figures.items():
                side.setdefault(key, []).append((run.get("round"), value))
    return found


def same_round_ratios(after: list[tuple[int | None, float]],
                      before: list[tuple[int | None, float]]) -> list[float]:
    """after ÷ before within each round both sides ran in (the host's phase cancels)."""
    by_round = {r: v for r, v in before if r is not None}
    return sorted(v / by_round[r] for r, v in after if r in by_round and by_round[r])


def print_cell(key: CellKey, after: Figures, before: Figures) -> None:
    runs = len(next(iter(after.values())))
    print(f"{key[0]} (medians of {runs} interleaved runs; wall_s: iteration time)\n  {key[1]}")
    print(f"{'':>20} {'before':>10} {'after':>10} {'after/before':>12} "
          f"{'same round (range)':>24} {'p (MWU)':>8} {'geo ratio (95 % CI)':>24}")
    for key, pairs in after.items():
        if not before.get(key):
            continue
        a, b = [v for _, v in pairs], [v for _, v in before[key]]
        ratio = statistics.median(a) / statistics.median(b)
        rounds = same_round_ratios(pairs, before[key])
        in_round = (f"{statistics.median(rounds):.3f} ({rounds[0]:.2f}-{rounds[-1]:.2f})"
                    if rounds else "-")
        p = mannwhitneyu(a, b, alternative="two-sided").pvalue
        print(f"{key:>20} {statistics.median(b):10.4g} {statistics.median(a):10.4g} "
              f"{ratio:12.3f} {in_round:>24} {p:8.3f} {interval(b, a):>24}")


def interval(before: list[float], after: list[float]) -> str:
    """after ÷ before as the ratio of geometric means and its Welch 95 % interval."""
    test = ratio_test(before, after)
    if test.ci95 is None:
        return f"{test.ratio:.3f} (no interval)"
    return f"{test.ratio:.3f} ({test.ci95[0]:.3f}-{test.ci95[1]:.3f})"


def main(argv: list[str]) -> None:
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    path, name = Path(argv[0]), argv[1]
    other = argv[2] if len(argv) == 3 else f"{name}-before"
    cells = read_cells(path)
    after, before = figures_by_cell(cells, name), figures_by_cell(cells, other)
    shared = [k for k in after if k in before]
    if not shared:
        sys.exit(f"no workload and parameter set has both {name} and {other} in {path}")
    for key in shared:
        print_cell(key, after[key], before[key])


if __name__ == "__main__":
    main(sys.argv[1:])
