"""Bare idle tasks per runtime: memory per task of a program that only spawns N sleeping tasks.

The reference for spawn-idle's bytes per task (see README.md). Builds the bare programs into
build/ (gitignored), runs each runtime at two task counts, RUNS times each, and prints a table
of medians and the slope between the two counts, in bytes per task, for three readings:

  mark     RSS of the process the moment its `spawned` line arrives: read exactly as the
           harness reads a mark (concbench.proc.sampler.TreeSampler.snapshot on a probe
           that is never started: one pread of /proc/<pid>/stat, rss field, root process)
  settled  RSS once the process has gone idle after the mark (its CPU time has not grown for
           IDLE_WINDOW_S): every task has taken its first step and sits in its sleep
  peak     ru_maxrss from os.wait4, the kernel's peak RSS of the process (as the harness's
           ru_maxrss, valid when above this script's own VmHWM)

Medians are over the runs where all three were read; a run whose spawning or settling
outlasted the hold is run again (RETRIES), and the table counts it in "ok / runs".

Usage: run [RUNTIME ...] [--runs K] [--no-build]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from build_programs import build
from one_run import Run, run_once
from runtimes import BUILD, ROOT, Runtime, runtimes
from table import mb, table

from concbench.toolchains import find_jdk  # the JDK the harness picks (runtimes set the path)

RETRIES = 2
TIMING_PROBLEMS = ("spawned after", "not idle before")
"""A run whose spawning or settling outlasted the hold is run again (at most RETRIES times):
other load on a small machine can slow the spawning loop several-fold."""


def _say(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)


def _measured(rt: Runtime, n: int, i: int) -> list[Run]:
    """Run i of this count: tried again while its timing, not the program, failed it."""
    tries: list[Run] = []
    for _ in range(1 + RETRIES):
        r = run_once(rt, n)
        tries.append(r)
        if r.ok or not r.problem or not r.problem.startswith(TIMING_PROBLEMS):
            break
        _say(f"{rt.name} N={n} run {i + 1}: {r.problem} (other load on the machine?): "
             "run again")
    r = tries[-1]
    _say(f"{rt.name} N={n} run {i + 1}: mark {mb(r.mark_rss)} MB at {r.mark_s or 0:.1f} s, "
         f"settled {mb(r.settled_rss)} MB at {r.settled_s or 0:.1f} s, peak "
         f"{mb(r.peak_rss)} MB, wall {r.wall_s or 0:.1f} s"
         + (f"; PROBLEM {r.problem}" if r.problem else "") + "".join(f"; {x}" for x in r.notes))
    return tries


def _arguments(names: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runtime", nargs="*",
                    help=f"runtimes to run (default all): {', '.join(names)}")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--ns", help="override the two task counts, e.g. 1000,10000 (a quick check)")
    args = ap.parse_args()
    unknown = set(args.runtime) - set(names)
    if unknown:
        ap.error(f"unknown runtime(s) {', '.join(sorted(unknown))}; known: {', '.join(names)}")
    if args.ns:
        try:
            a, b = (int(x) for x in args.ns.split(","))
        except ValueError:
            ap.error(f"--ns takes two task counts, e.g. 1000,10000, not {args.ns!r}")
        args.ns = (a, b)
    if args.runs < 1:
        ap.error("--runs takes a count of at least 1")
    return args


def main() -> int:
    java = find_jdk(25)
    all_rts = runtimes(java)
    args = _arguments([r.name for r in all_rts])
    rts = [r for r in all_rts if not args.runtime or r.name in args.runtime]
    for r in rts:
        r.ns = args.ns or r.ns
    missing = {} if args.no_build else build({r.name for r in rts}, java)
    for name, why in missing.items():
        _say(f"{name}: not run: {why}")
    runs: list[Run] = []
    for rt in (r for r in rts if r.name not in missing):
        for n in rt.ns:
            for i in range(args.runs):
                runs += _measured(rt, n, i)
    BUILD.mkdir(exist_ok=True)
    raw = BUILD / f"results-{time.strftime('%Y%m%d-%H%M%S')}.json"
    raw.write_text(json.dumps([r.__dict__ for r in runs], indent=1))
    _say(f"raw runs: {raw.relative_to(ROOT)}")
    print(table(rts, runs, missing))
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
