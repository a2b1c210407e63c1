"""Does concbench's measured load read what a plain `wrk` by hand reads? (issue 8's fidelity)

One server process, started by hand and pinned as concbench pins it, is loaded alternately by
  A: concbench's measured-load path, with the native sampler on the server and the window
     measures (CPU, context switches, fd polling) running, exactly as server.run does during
     the window: `--arm wrk`, the harness's wrk invocation (Lua summary script, its parser);
     `--arm oha-stream`, the continuous load (server.continuous: oha paced by its burst tokens,
     a 1 s lead-in, then the window cut out of oha's log of every response);
  B: plain `taskset -c CLIENT wrk -tT -cC -dD --latency URL`, its text output parsed.
Pairs alternate AB / BA so a drift of the server (GC, JIT, caches) falls on both arms. One
process for all pairs removes the process-to-process spread (71k-109k for the same Go binary
on the 2-vCPU VM) that 5 separate runs could not resolve to 3 %.

The paired answer is the geometric mean of A/B per pair with its Student 95 % interval.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from scipy import stats as scipy_stats

from concbench.proc import native_sampler
from concbench.server.loadgen import LoadSpec
from concbench.server.continuous import ContinuousLoad, window_load
from concbench.server.loadgen.wrk import Wrk
from concbench.server.window import Window

UNITS_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(argv: list[str], cpus: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen(["taskset", "-c", cpus, *argv, f"--port={port}"],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # the contract's {"type":"ready","port":P}
    try:
        ready = json.loads(line).get("type") == "ready"
    except (json.JSONDecodeError, AttributeError):
        ready = False
    if not ready:
        proc.kill()
        raise SystemExit(f"server did not say ready (its stderr is above): {line!r}")
    return proc, port


def plain_wrk(url: str, cpus: str, threads: int, conns: int, seconds: int) -> tuple[float, float]:
    """requests/s and p99 (ms) from wrk's own text output."""
    out = subprocess.run(["taskset", "-c", cpus, "wrk", f"-t{threads}", f"-c{conns}",
                          f"-d{seconds}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    value, unit = re.search(r"99%\s+([\d.]+)(us|ms|s|m)\b", out).groups()
    return rps, float(value) * UNITS_MS[unit]


def concbench_load(spec: LoadSpec, pid: int, server_cpus: tuple[int, ...]) -> tuple[float, float, float]:
    """The measured window as server.run runs it: sampler, window, generator.
    Also the sampler's own CPU seconds over the window: what observing costs."""
    started = time.perf_counter()
    sampler = native_sampler.make_sampler(native_sampler.binary(), pid, started, None)
    window = Window(pid, started, server_cpus)
    sampler.start()
    window.begin()
    result = Wrk().run(spec)
    window.end()
    sampler.stop()
    window.measures(sampler.samples)
    return result.requests_per_s, result.latency_ms["p99"], sampler.cpu_cost_s


def stream_load(spec: LoadSpec, pid: int, server_cpus: tuple[int, ...]) -> tuple[float, float, float]:
    """The continuous load's window (server.continuous), observed as concbench_load is."""
    started = time.perf_counter()
    sampler = native_sampler.make_sampler(native_sampler.binary(), pid, started, None)
    load = ContinuousLoad(spec, lambda: None)
    try:
        load.lead_in(None, 1.0)
        sampler.start()
        window = Window(pid, started, server_cpus)
        window.begin()
        t0 = load.begin_window()
        load.hold(spec.duration_s)
        t1 = load.end_window()
        window.end()
        sampler.stop()
        log = load.stop()
    finally:
        load.close()
    found = window_load(log, load, t0, t1)
    return found.requests_per_s, found.latency_ms["p99"], sampler.cpu_cost_s


def geo_interval(ratios: list[float]) -> tuple[float, float, float]:
    logs = [math.log(r) for r in ratios]
    mean = statistics.fmean(logs)
    half = float(scipy_stats.t.ppf(0.975, len(logs) - 1)) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=12)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--connections", type=int, default=256)
    ap.add_argument("--server-cpus", default="0")
    ap.add_argument("--client-cpus", default="1")
    ap.add_argument("--arm", choices=("wrk", "oha-stream"), default="wrk",
                    help="concbench's load path under test (A)")
    ap.add_argument("server", nargs="+", help="server command (the contract's, without --port)")
    a = ap.parse_args()
    client = tuple(int(c) for c in a.client_cpus.split(","))
    threads = min(len(client), a.connections)
    proc, port = start_server(a.server, a.server_cpus)
    url = f"http://127.0.0.1:{port}/hello"
    spec = LoadSpec(url=f"http://127.0.0.1:{port}", path="/hello", varied_ids=False,
                    connections=a.connections, duration_s=a.seconds, threads=threads,
                    keepalive=True, rate=0, cpus=client, timeout_s=a.seconds + 60)
    server_cpus = tuple(int(c) for c in a.server_cpus.split(","))
    try:
        plain_wrk(url, a.client_cpus, threads, a.connections, a.warmup)  # warm-up, not kept
        rows = []
        for i in range(a.pairs):
            arms = {}
            for arm in ("AB" if i % 2 == 0 else "BA"):
                measured = stream_load if a.arm == "oha-stream" else concbench_load
                arms[arm] = (measured(spec, proc.pid, server_cpus) if arm == "A"
                             else plain_wrk(url, a.client_cpus, threads, a.connections, a.seconds))
            rows.append((arms["A"], arms["B"]))
            print(f"pair {i + 1:2}: concbench {arms['A'][0]:>10,.0f}/s p99 {arms['A'][1]:7.2f} ms"
                  f"   plain wrk {arms['B'][0]:>10,.0f}/s p99 {arms['B'][1]:7.2f} ms", flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    costs = [a_[2] for a_, _ in rows]
    print(f"observer: the native sampler used a median {statistics.median(costs):.3f} CPU-s per "
          f"{a.seconds} s window (max {max(costs):.3f})")
    for name, k in (("requests/s", 0), ("p99", 1)):
        g, lo, hi = geo_interval([a_[k] / b_[k] for a_, b_ in rows])
        print(f"{name}: concbench median {statistics.median(a_[k] for a_, _ in rows):,.2f}, "
              f"plain wrk median {statistics.median(b_[k] for _, b_ in rows):,.2f}; "
              f"concbench / plain = {g:.3f} (95% CI {lo:.3f}-{hi:.3f}, {len(rows)} pairs)")


if __name__ == "__main__":
    sys.exit(main())
