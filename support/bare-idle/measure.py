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
import glob
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILD = HERE / "build"  # ignored by the repository's .gitignore (build/)
sys.path.insert(0, str(ROOT / "harness"))

from concbench.proc.sampler import TreeSampler, own_hwm  # noqa: E402  the harness's own code

PY = ROOT / "contenders" / "python" / ".venv" / "bin" / "python"
JVM_LOG_FLAGS = ["-Xlog:disable", "-Xlog:all=warning:stderr:uptime,level,tags"]
IDLE_WINDOW_S = 0.5
IDLE_MAX_CPU_S = 0.011  # at most one clock tick (10 ms) of CPU in the window
POLL_S = 0.05
BIG, SMALL = 1_000_000, 100_000
RETRIES = 2
TIMING_PROBLEMS = ("spawned after", "not idle before")
"""A run whose spawning or settling outlasted the hold is run again (at most RETRIES times):
on this 2-vCPU VM other load can slow the spawning loop several-fold (go at 1M: 2.8-10 s)."""


def find_jdk(minimum: int = 25) -> Path | None:
    """The JDK the harness picks for jdk>=25 (concbench.toolchains.find_jdk)."""
    try:
        from concbench.toolchains import find_jdk as harness_find_jdk
        return harness_find_jdk(minimum)
    except Exception:  # the harness's module needs its venv's packages: do the same here
        best = None
        for cand in [os.environ.get("CONCBENCH_JAVA_HOME"), os.environ.get("JAVA_HOME"),
                     *sorted(glob.glob("/usr/lib/jvm/*")), *sorted(glob.glob("/opt/*jdk*"))]:
            if not cand:
                continue
            home = Path(cand).resolve()
            try:
                m = re.search(r'JAVA_VERSION="(\d+)', (home / "release").read_text())
            except OSError:
                continue
            if m and int(m.group(1)) >= minimum and (home / "bin/javac").exists():
                if best is None or int(m.group(1)) > best[0]:
                    best = (int(m.group(1)), home)
        return best[1] if best else None


@dataclass
class Runtime:
    name: str
    ns: tuple[int, int]
    hold_ms: int
    argv: Callable[[int, int], list[str]]
    lazy_start: bool = False
    """Tasks arm their timers only when first run, after the mark (asyncio): the first task
    can end no sooner than hold after the mark rather than hold after the process start."""


def erlang_procs(n: int) -> int:
    """+P as contenders/erlang/run-erlang computes it for spawn-idle."""
    return min(max(n + 1024, 262144), 134217727)


def runtimes(java: Path | None) -> list[Runtime]:
    jv = str(java / "bin" / "java") if java else "java"
    b = BUILD
    return [
        Runtime("go", (SMALL, BIG), 10_000,
                lambda n, h: [str(b / "go" / "bare-idle-go"), str(n), str(h)]),
        Runtime("rust-tokio", (SMALL, BIG), 10_000,
                lambda n, h: [str(b / "rust" / "release" / "bare-idle-tokio"), str(n), str(h)]),
        Runtime("java-virtual", (SMALL, BIG), 10_000,
                lambda n, h: [jv, *JVM_LOG_FLAGS, "-cp", str(b / "java"), "BareThreads", "virtual",
                              str(n), str(h)]),
        # an OS thread per task: pid_max (32768) caps N; starting 30 000 threads took 30-55 s
        # here (slower as the count grows, and under other load), so a longer hold
        Runtime("java-platform", (10_000, 30_000), 90_000,
                lambda n, h: [jv, *JVM_LOG_FLAGS, "-cp", str(b / "java"), "BareThreads", "platform",
                              str(n), str(h)]),
        Runtime("kotlin-coroutines", (SMALL, BIG), 10_000,
                lambda n, h: [jv, "-jar", str(b / "kotlin" / "bare-idle-kotlin.jar"),
                              str(n), str(h)]),
        Runtime("node", (SMALL, BIG), 10_000,
                lambda n, h: ["node", "--max-old-space-size=16384",
                              str(HERE / "node" / "bare_idle.mjs"), str(n), str(h)]),
        Runtime("python-asyncio", (SMALL, BIG), 30_000,
                lambda n, h: [str(PY), str(HERE / "python" / "bare_idle.py"), "asyncio",
                              str(n), str(h)], lazy_start=True),
        Runtime("python-uvloop", (SMALL, BIG), 30_000,
                lambda n, h: [str(PY), str(HERE / "python" / "bare_idle.py"), "uvloop",
                              str(n), str(h)], lazy_start=True),
        # the task as a function that awaits the sleep: the "1M tasks" posts' form and the
        # contenders' (an async function / coroutine per task, not the bare timer)
        Runtime("node-async-fn", (SMALL, BIG), 10_000,
                lambda n, h: ["node", "--max-old-space-size=16384",
                              str(HERE / "node" / "bare_idle.mjs"), str(n), str(h), "async"]),
        Runtime("python-asyncio-coro", (SMALL, BIG), 30_000,
                lambda n, h: [str(PY), str(HERE / "python" / "bare_idle.py"), "asyncio",
                              str(n), str(h), "coro"], lazy_start=True),
        Runtime("python-uvloop-coro", (SMALL, BIG), 30_000,
                lambda n, h: [str(PY), str(HERE / "python" / "bare_idle.py"), "uvloop",
                              str(n), str(h), "coro"], lazy_start=True),
        Runtime("erlang", (SMALL, BIG), 10_000,
                lambda n, h: ["erl", "+P", str(erlang_procs(n)), "-noinput", "-pa",
                              str(b / "erlang"), "-s", "bare_idle", "main", "-extra",
                              str(n), str(h)]),
    ]


# ------------------------------------------------------------------------------------ build

def sh(argv: list[str], cwd: Path, env: dict | None = None, timeout: float = 900) -> str | None:
    """Run a build step; None when it worked, else the reason."""
    try:
        done = subprocess.run(argv, cwd=cwd, env={**os.environ, **(env or {})},
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{argv[0]}: {err}"
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        return f"{' '.join(argv[:3])} … exit {done.returncode}: " + " | ".join(tail)
    return None


def build(wanted: set[str], java: Path | None) -> dict[str, str]:
    """Build what the wanted runtimes need; returns {runtime: why it cannot run}."""
    missing: dict[str, str] = {}

    def need(*names: str) -> bool:
        return any(n in wanted for n in names)

    def fail(names: tuple[str, ...], why: str) -> None:
        for n in names:
            missing[n] = why

    if need("go"):
        (BUILD / "go").mkdir(parents=True, exist_ok=True)
        why = shutil.which("go") is None and "go not on PATH" or sh(
            ["go", "build", "-trimpath", "-o", str(BUILD / "go" / "bare-idle-go"), "."],
            HERE / "go")
        if why:
            fail(("go",), why)
    if need("rust-tokio"):
        why = shutil.which("cargo") is None and "cargo not on PATH" or sh(
            ["cargo", "build", "--release", "--locked"], HERE / "rust",
            env={"CARGO_TARGET_DIR": str(BUILD / "rust")})
        if why:
            fail(("rust-tokio",), why)
    jvms = ("java-virtual", "java-platform", "kotlin-coroutines")
    if need(*jvms) and java is None:
        fail(jvms, "no JDK >= 25 (the java and kotlin contenders' requirement)")
    if java is not None and need("java-virtual", "java-platform"):
        (BUILD / "java").mkdir(parents=True, exist_ok=True)
        why = sh([str(java / "bin" / "javac"), "-d", str(BUILD / "java"),
                  "BareThreads.java"], HERE / "java")
        if why:
            fail(("java-virtual", "java-platform"), why)
    if java is not None and need("kotlin-coroutines"):
        env = {"JAVA_HOME": str(java), "PATH": f"{java / 'bin'}:{os.environ['PATH']}"}
        mvn = ["mvn", "-B", "-q", "-Dkotlin.compiler.daemon=false", "package", "-DskipTests"]
        if shutil.which("mvn") is None:
            why = "mvn not on PATH"
        else:  # offline first (the kotlin contender's build has filled ~/.m2), then online
            why = sh([*mvn[:2], "-o", *mvn[2:]], HERE / "kotlin", env) and sh(
                mvn, HERE / "kotlin", env)
        if why:
            fail(("kotlin-coroutines",), why)
    if need("python-asyncio", "python-uvloop") and not PY.exists():
        fail(("python-asyncio", "python-uvloop"),
             f"{PY} missing: build the python contender first (./concbench build)")
    if need("node") and shutil.which("node") is None:
        fail(("node",), "node not on PATH")
    if need("erlang"):
        (BUILD / "erlang").mkdir(parents=True, exist_ok=True)
        why = shutil.which("erlc") is None and "erlc not on PATH" or sh(
            ["erlc", "-Werror", "-o", str(BUILD / "erlang"), "bare_idle.erl"], HERE / "erlang")
        if why:
            fail(("erlang",), why)
    return missing


# ------------------------------------------------------------------------------------ runs

@dataclass
class Run:
    runtime: str
    n: int
    ok: bool = False
    problem: str | None = None
    mark_s: float | None = None
    mark_rss: int | None = None
    settled_s: float | None = None
    settled_rss: int | None = None
    peak_rss: int | None = None
    wall_s: float | None = None
    notes: list[str] = field(default_factory=list)


def stat_of(pid: int) -> tuple[int, float] | None:
    """(rss bytes, cpu seconds) of one process from /proc/<pid>/stat."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    fields = raw[raw.rindex(b")") + 2:].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[21]) * os.sysconf("SC_PAGE_SIZE"), (int(fields[11]) + int(fields[12])) / ticks


def run_once(rt: Runtime, n: int) -> Run:
    out = Run(rt.name, n)
    argv = rt.argv(n, rt.hold_ms)
    hold_s = rt.hold_ms / 1000
    err = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(argv, cwd=HERE, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=err, start_new_session=True)
    except OSError as e:
        out.problem = f"cannot start: {e}"
        return out
    pid = proc.pid
    probe = TreeSampler(pid, t0)  # never started: reads on demand, as the harness's mark probe
    status: dict = {}

    def reap() -> None:
        _, st, ru = os.wait4(pid, 0)
        status["st"], status["ru"], status["t"] = st, ru, time.perf_counter()

    waiter = threading.Thread(target=reap, daemon=True)
    waiter.start()
    timeout_s = hold_s + 240
    killer = threading.Timer(timeout_s, lambda: _killpg(pid))
    killer.start()
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() == b"spawned":
            snap = probe.snapshot()  # the moment the line arrives, as the harness's mark
            out.mark_s = time.perf_counter() - t0
            out.mark_rss = snap.rss_bytes if snap else None
            deadline = (out.mark_s if rt.lazy_start else 0.0) + hold_s - 0.5
            history: list[tuple[float, float, int]] = []
            while waiter.is_alive():
                now = time.perf_counter() - t0
                if now > deadline:
                    out.problem = "not idle before the first task could end"
                    break
                s = stat_of(pid)
                if s is None:
                    break
                history.append((now, s[1], s[0]))
                old = [h for h in history if now - h[0] >= IDLE_WINDOW_S]
                if old and s[1] - old[-1][1] <= IDLE_MAX_CPU_S:
                    out.settled_s, out.settled_rss = now, s[0]
                    break
                time.sleep(POLL_S)
        else:
            out.problem = f"first stdout line {line[:80]!r}, not 'spawned'"
        probe.stop()
        proc.stdout.read()  # drain until the process closes stdout
        waiter.join()
    finally:
        killer.cancel()
        _killpg(pid)  # sweep the group: nothing outlives a run
        proc.returncode = 0  # reaped by wait4 above
        if proc.stdout:
            proc.stdout.close()
    out.wall_s = status["t"] - t0
    st, ru = status["st"], status["ru"]
    if not (os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0):
        err.seek(0)
        tail = err.read().decode(errors="replace").strip().splitlines()[-3:]
        out.problem = out.problem or f"exit status {st}: {' | '.join(tail)}"
    err.close()
    peak = ru.ru_maxrss * 1024
    if peak <= own_hwm():  # inherited from this process across fork+exec: tells nothing
        out.notes.append("ru_maxrss not above the runner's own VmHWM")
    else:
        out.peak_rss = peak
    if out.mark_s is not None and not rt.lazy_start and out.mark_s > hold_s:
        out.problem = out.problem or f"spawned after {out.mark_s:.1f} s > hold"
    out.ok = out.problem is None and out.mark_rss is not None and out.settled_rss is not None
    return out


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# ------------------------------------------------------------------------------------ table

def med(values: list[int | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def mb(v: float | None) -> str:
    return "—" if v is None else f"{v / 1e6:,.1f}"


def slope(a: float | None, b: float | None, na: int, nb: int) -> str:
    return "—" if a is None or b is None else f"{(b - a) / (nb - na):,.0f}"


def table(rts: list[Runtime], runs: list[Run], missing: dict[str, str]) -> str:
    rows = ["| runtime | N | RSS at mark (MB) | settled RSS (MB) | peak RSS (MB) | "
            "B/task at mark | B/task settled | B/task peak | mark at (s) | ok / runs |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for rt in rts:
        if rt.name in missing:
            rows.append(f"| {rt.name} | — | not run: {missing[rt.name]} | | | | | | | |")
            continue
        meds = {}
        for n in rt.ns:
            ok = [r for r in runs if r.runtime == rt.name and r.n == n and r.ok]
            total = [r for r in runs if r.runtime == rt.name and r.n == n]  # retries too
            meds[n] = (med([r.mark_rss for r in ok]), med([r.settled_rss for r in ok]),
                       med([r.peak_rss for r in ok]), med([r.mark_s for r in ok]),
                       f"{len(ok)}/{len(total)}")
        a, b = rt.ns
        for n in rt.ns:
            m, s, p, t, cnt = meds[n]
            if n == b:
                slopes = [slope(meds[a][i], meds[b][i], a, b) for i in range(3)]
            else:
                slopes = ["", "", ""]
            rows.append(f"| {rt.name} | {n:,} | {mb(m)} | {mb(s)} | {mb(p)} | "
                        f"{' | '.join(slopes)} | {'—' if t is None else f'{t:.1f}'} | {cnt} |")
    return "\n".join(rows)


def main() -> int:
    java = find_jdk(25)
    all_rts = runtimes(java)
    names = [r.name for r in all_rts]
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
    rts = [r for r in all_rts if not args.runtime or r.name in args.runtime]
    if args.ns:
        a, b = (int(x) for x in args.ns.split(","))
        for r in rts:
            r.ns = (a, b)
    missing = {} if args.no_build else build({r.name for r in rts}, java)
    for name, why in missing.items():
        print(f"# {name}: not run: {why}", file=sys.stderr, flush=True)
    runs: list[Run] = []
    for rt in rts:
        if rt.name in missing:
            continue
        for n in rt.ns:
            for i in range(args.runs):
                for attempt in range(1 + RETRIES):
                    r = run_once(rt, n)
                    runs.append(r)
                    if r.ok or not r.problem or not r.problem.startswith(TIMING_PROBLEMS):
                        break
                    print(f"# {rt.name} N={n} run {i + 1}: {r.problem} (other load on the "
                          "machine?): run again", file=sys.stderr, flush=True)
                print(f"# {rt.name} N={n} run {i + 1}: mark {mb(r.mark_rss)} MB at "
                      f"{r.mark_s or 0:.1f} s, settled {mb(r.settled_rss)} MB at "
                      f"{r.settled_s or 0:.1f} s, peak {mb(r.peak_rss)} MB, wall "
                      f"{r.wall_s or 0:.1f} s"
                      + (f"; PROBLEM {r.problem}" if r.problem else "")
                      + "".join(f"; {x}" for x in r.notes), file=sys.stderr, flush=True)
    BUILD.mkdir(exist_ok=True)
    raw = BUILD / f"results-{time.strftime('%Y%m%d-%H%M%S')}.json"
    raw.write_text(json.dumps([r.__dict__ for r in runs], indent=1))
    print(f"# raw runs: {raw.relative_to(ROOT)}", file=sys.stderr)
    print(table(rts, runs, missing))
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
