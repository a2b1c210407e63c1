"""A fake contender that follows docs/contract.md, for the harness's own tests.

The first argument picks a behaviour: good, wrong (bad checksum), crash (exit 3 with a
message), hang (never ends; also starts a child that must die with it), latemark (spawn-idle
mark after hold-ms), noisy (prints a non-JSON line on stdout). Each of these cheats in one
way a naive check would let pass: skipwait (skips the workload's waits), dupid (fanout: ids
{1,4} built instead of {2,3}: same sum), sharedstr (channel str: one shared string),
floats (counts as 1.0), flags (warm-up flags swapped), onemark (spawn-idle: one mark for
all iterations), zerotime (elapsed_ns 0), uneven (channel: the right total, but one consumer
got an event of another's), reorder (iteration indexes out of order), wrongat (right
everywhere but in iteration $FAKE_WRONG_AT: a check of one iteration only lets it pass),
skippass (ring: the token moves two places per pass), closedform (skynet: the closed-form
sum, no tree), sharedsleep (fanout: one sleep serves the three sub-fetches), sharedtimer
(sleep-tasks and spawn-idle: every task waits on one timer armed when the iteration starts, so
tasks started later sleep less), foldcpu (sleep-tasks: the CPU loop's closed form, as a
compiler folding Σ i % 2 reports it), seqring (ring: a counting loop, no task alive),
seqtree (skynet: a plain recursion, no task spawned), cpuover (a cpu_ns no process could
spend: more than its wall time on every CPU), cpuwall (the wall time as cpu_ns), nocpu (no cpu_ns at all). burn spends 0.3 s of
CPU in every iteration, burnafter 0.3 s after its clock stops (before its line); treemem
holds 48 MiB for 0.15 s in every iteration and leaves 64 MiB behind after the first.
allocate touches 256 MiB before its first iteration (past a smaller --memory limit, the
kernel's OOM killer ends it: tests/test_cgroups.py).

Faults (tests/test_faults.py), each writing its pids to $FAKE_PIDDIR/<mode> when set:
crashmid (exit 3 after one iteration), malformed (a truncated JSON line), hugeline (a line of
100 MB), binary (1 MB of random bytes), silent (exit 0, nothing printed), closeout (closes
stdout, then hangs), ignoreterm (ignores SIGTERM, hangs), daemon (a good run that leaves a
child and a setsid grandchild behind, both ignoring SIGTERM).
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

PARAMS = {
    "fanout": ["requests", "concurrency", "user-ms", "orders-ms", "prefs-ms",
               "notifications-ms", "pool-size"],
    "sleep-tasks": ["tasks", "sleep-ms", "cpu-iters", "cpu-seed", "pool-size"],
    "spawn-idle": ["tasks", "hold-ms"],
    "channel": ["workers", "events", "queue", "etype", "esize"],
    "ring": ["rings", "size", "passes", "sample-every"],
    "skynet": ["size", "branch"],
}
POOLED = {"sleep-tasks", "fanout"}
SPAWN_S = 0.03
"""How long sharedtimer's spawn-idle takes to start its tasks."""


def fail(message, code=2):
    print(message, file=sys.stderr)
    sys.exit(code)


def parse(argv):
    if not argv or argv[0] not in PARAMS:
        fail(f"unknown workload {argv[:1]}")
    workload, values = argv[0], {}
    for arg in argv[1:]:
        if not arg.startswith("--") or "=" not in arg:
            fail(f"bad argument {arg}")
        key, value = arg[2:].split("=", 1)
        if key not in PARAMS[workload] + ["warmup", "iterations"]:
            fail(f"unknown parameter {key}")
        values[key] = value if key == "etype" else int(value)
    missing = set(PARAMS[workload] + ["warmup", "iterations"]) - set(values)
    if missing:
        fail(f"missing parameters {sorted(missing)}")
    return workload, values


def lower_bound(workload, p, pool):
    """Seconds the real workload could not beat (its waits), as the harness computes them."""
    if workload == "sleep-tasks":
        waves = -(-p["tasks"] // pool) if pool else 1
        return waves * p["sleep-ms"] / 1000
    if workload == "fanout":
        flight = p["concurrency"] or p["requests"]
        flight = min(flight, pool) if pool else flight
        per = p["user-ms"] + max(p["orders-ms"], p["prefs-ms"], p["notifications-ms"])
        return -(-p["requests"] // flight) * per / 1000
    if workload == "spawn-idle":
        return max(0.0, p["hold-ms"] / 1000 - 0.001)
    return 0.0


FETCHES = ("user", "orders", "prefs", "notifications")
LATE_NS = 100_000
"""How late the fake's timers wake (0.1 ms)."""


def cpu_loop(seed, k):
    """A task's CPU loop (docs/contract.md, sleep-tasks), run as written."""
    x, s = seed, 0
    for _ in range(k):
        x = (x * 1664525 + 1013904223) & 0xFFFFFFFF
        s = (s + x) & 0xFFFFFFFF
    return s


def result(workload, p, pool):
    if workload == "fanout":
        r = p["requests"]
        return {"profiles": r, "id_sum": r * (r + 1) // 2,
                "id_sq_sum": r * (r + 1) * (2 * r + 1) // 6, "items": 5 * r, "pool_size": pool,
                "fetched": {kind: r for kind in FETCHES},
                "slept_min_ns": {kind: p[f"{kind}-ms"] * 1_000_000 + LATE_NS
                                 for kind in FETCHES}}
    if workload == "sleep-tasks":
        return {"tasks": p["tasks"],
                "cpu_sum": p["tasks"] * cpu_loop(p["cpu-seed"], p["cpu-iters"]),
                "pool_size": pool, "slept_min_ns": p["sleep-ms"] * 1_000_000 + LATE_NS}
    if workload == "spawn-idle":
        return {"tasks": p["tasks"]}
    if workload == "ring":
        return ring(p, step=2 if MODE == "skippass" else 1)
    if workload == "skynet":
        if MODE == "closedform":
            return {"sum": p["size"] * (p["size"] - 1) // 2, "tasks": 1, "tasks_alive": 1}
        before = threading.active_count()
        found = dict(zip(("sum", "tasks"), skynet(0, p["size"], p["branch"])))
        # a plain recursion spawns nothing: its runtime counts no task above those before
        alive = threading.active_count() - before if MODE == "seqtree" else depth(p) + 1
        return {**found, "tasks_alive": alive}
    w, e = p["workers"], p["events"]
    spread = {"min_events": e, "max_events": e}
    if p["etype"] == "int":
        return {"events": w * e, "value_sum": w * e * (e - 1) // 2, **spread}
    same = w * (e - 1) if p["etype"] == "str_ptr" else 0
    return {"events": w * e, "bytes": w * e * p["esize"], "same_as_prev": same, **spread}


def depth(p):
    """Levels of skynet's tree below the root."""
    d, n = 0, 1
    while n < p["size"]:
        n, d = n * p["branch"], d + 1
    return d


def ring(p, step=1):
    """The token really goes round (as a counter in one thread): each holder counts what it
    received; `step` 2 is the cheat that hands the token two places on per pass. The good
    fake claims every task alive at the barrier; seqring reports what its runtime saw: the
    counting loop started no thread."""
    before = threading.active_count()
    got, holders = [0] * p["size"], []
    for _ in range(p["rings"]):
        at, count = 0, p["passes"]
        while count > 0:
            at = (at + step) % p["size"]
            count -= step
            got[at] += 1
        holders.append(at + 1)
    alive = threading.active_count() - before if MODE == "seqring" else p["rings"] * p["size"]
    res = {"rings": p["rings"], "passes": sum(got), "holder_min": min(holders),
           "holder_max": max(holders), "tasks_alive": alive, "clock_read_ns": 50,
           "handoff_samples": p["passes"] // p["sample-every"] if p["sample-every"] else 0}
    if res["handoff_samples"]:
        res |= {"handoff_p50_ns": 100, "handoff_p99_ns": 200}
    return res


def skynet(num, size, branch):
    """(sum of the leaves' ordinals, tasks run) of the subtree, recursively."""
    if size == 1:
        return num, 1
    total, tasks = 0, 1
    for i in range(branch):
        s, t = skynet(num + i * (size // branch), size // branch, branch)
        total, tasks = total + s, tasks + t
    return total, tasks


def cheat(mode, workload, p, res):
    """The result a cheating contender reports (see the module docstring)."""
    if mode == "dupid" and workload == "fanout" and p["requests"] >= 3:
        res["id_sq_sum"] += (1 + 16) - (4 + 9)  # ids 2 and 3 built as 1 and 4
    if mode == "sharedstr" and workload == "channel" and "same_as_prev" in res:
        res["same_as_prev"] = p["workers"] * (p["events"] - 1)
    if mode == "uneven" and workload == "channel" and p["workers"] >= 2:
        res["min_events"] -= 1
        res["max_events"] += 1
    if mode == "sharedsleep" and workload == "fanout":
        # one sleep of the longest sub-fetch, then the three built without sleeping
        for kind in ("prefs", "notifications"):
            res["slept_min_ns"][kind] = 2_000
    if mode == "sharedtimer" and workload == "sleep-tasks":
        # the tasks started over 5 ms wait on one timer armed as the first started
        res["slept_min_ns"] = max(0, p["sleep-ms"] * 1_000_000 - 5_000_000)
    if mode == "foldcpu" and workload == "sleep-tasks":
        res["cpu_sum"] = p["tasks"] * (p["cpu-iters"] // 2)
    if mode == "floats":
        res = {k: float(v) if isinstance(v, int) else v for k, v in res.items()}
    return res


def record_pids(mode, *pids):
    folder = os.environ.get("FAKE_PIDDIR")
    if folder:
        with open(os.path.join(folder, mode), "a") as f:
            f.write(" ".join(str(p) for p in (os.getpid(), *pids)) + "\n")


STUBBORN = ("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "time.sleep(600)")


def leave_behind(mode):
    """A child in our group, and a grandchild that setsid()s out of it; both ignore SIGTERM."""
    child = subprocess.Popen([sys.executable, "-c", STUBBORN])
    grand = subprocess.Popen([sys.executable, "-c", STUBBORN], start_new_session=True)
    record_pids(mode, child.pid, grand.pid)


def fault(mode):
    """The faults that happen before any iteration."""
    if mode in ("closeout", "ignoreterm", "silent", "malformed", "hugeline", "binary"):
        record_pids(mode)
    if mode == "silent":
        sys.exit(0)
    if mode == "closeout":
        sys.stdout.flush()
        os.close(1)
        time.sleep(600)
    if mode == "ignoreterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)
    if mode == "malformed":
        sys.stdout.write('{"type": "iteration", "index": 0, "warmup\n')
    if mode == "hugeline":
        chunk = "x" * (1 << 20)
        for _ in range(100):
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
    if mode == "binary":
        sys.stdout.flush()
        os.write(1, os.urandom(1 << 20))
        os.write(1, b"\n")


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


MODE = sys.argv[1] if len(sys.argv) > 1 else ""
GARBAGE: list = []
"""What treemem's warm-up leaves in memory: not the measured tree's."""


def before_start(mode: str) -> None:
    """The modes that never get to their first iteration: they fail or hang."""
    if mode == "crash":
        fail("fake contender: simulated failure", 3)
    if mode == "xss":  # markup in a reason: the HTML report must show it, not run it
        fail("<img src=x onerror=\"document.body.setAttribute('data-pwned-reason','1')\">", 3)
    if mode == "hang":
        # the child ignores SIGTERM: only the harness's final SIGKILL sweep ends it
        child = subprocess.Popen([sys.executable, "-c", "import signal, time; "
                                  "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"])
        pidfile = os.environ.get("FAKE_PIDFILE")
        if pidfile:
            with open(pidfile, "w") as f:
                f.write(f"{os.getpid()} {child.pid}\n")
        time.sleep(600)


def spin(seconds: float) -> None:
    """Spend this much of the process's CPU."""
    spin_until = time.process_time() + seconds
    while time.process_time() < spin_until:
        pass


def own_cpu(mode: str, cpu_start: int, elapsed_ns: int) -> dict:
    """The iteration line's cpu_ns / cpu_tick_ns (CLOCK_PROCESS_CPUTIME_ID, 1 ns); cpuover
    reports a clock that is not the process's: three times the wall time on every CPU."""
    cpu = time.process_time_ns() - cpu_start
    if mode == "cpuover":
        cpu = 3 * elapsed_ns * len(os.sched_getaffinity(0))
    if mode == "cpuwall":  # a wall clock read for the CPU one: its sleeps count as CPU
        cpu = elapsed_ns
    return {"cpu_ns": cpu, "cpu_tick_ns": 1}


def iteration(mode: str, workload: str, p: dict, pool, index: int) -> None:
    """One iteration: its wait (and marks), its result (right or as the mode spoils it)."""
    cpu_start = time.process_time_ns()
    start = time.perf_counter_ns()
    wait = 0.001 if mode == "skipwait" else lower_bound(workload, p, pool) + 0.005
    if workload == "spawn-idle":
        delay = p["hold-ms"] / 1000 + 0.05 if mode == "latemark" \
            else SPAWN_S if mode == "sharedtimer" else 0.001
        time.sleep(delay)
        if mode != "onemark" or index == 0:
            emit({"type": "mark", "name": "all-spawned", "index": index,
                  "elapsed_ns": time.perf_counter_ns() - start})
        if mode == "sharedtimer":  # one timer armed at the start: the hold counts from there
            wait = p["hold-ms"] / 1000 - delay + 0.001
    time.sleep(0.25 if mode in ("burnafter", "cpuwall") else wait)  # its timer long enough for 10 ms ticks
    if mode == "burn":  # 0.3 s of this process's CPU in every iteration
        spin(0.3)
    if mode == "treemem":  # 48 MiB held for 0.15 s inside the timer, then freed
        tree = bytearray(48 << 20)
        for i in range(0, len(tree), 4096):
            tree[i] = 1
        time.sleep(0.15)
        del tree
    res = cheat(mode, workload, p, result(workload, p, pool))
    elapsed_ns = time.perf_counter_ns() - start
    cpu = own_cpu(mode, cpu_start, elapsed_ns) if mode != "nocpu" else {}
    if mode == "burnafter":  # 0.3 s of CPU after the clock stopped, before the line
        spin(0.3)
    if mode == "treemem" and index == 0:  # 64 MiB the warm-up leaves behind, kept to the end
        GARBAGE.append(bytearray(b"\1" * (64 << 20)))
    if mode == "wrong" or (mode == "wrongat" and index == int(os.environ["FAKE_WRONG_AT"])):
        key = "value_sum" if "value_sum" in res else list(res)[1] if len(res) > 1 else "tasks"
        res[key] += 1
    warmup = index < p["warmup"]
    emit({"type": "iteration", "index": index ^ 1 if mode == "reorder" else index,
          "warmup": not warmup if mode == "flags" else warmup, "result": res,
          "elapsed_ns": 0 if mode == "zerotime" else elapsed_ns, **cpu})


def main():
    mode = sys.argv[1]
    workload, p = parse(sys.argv[2:])
    before_start(mode)
    if mode == "noisy":
        print("hello from stdout")
    fault(mode)
    if mode == "allocate":  # 256 MiB, every page touched, kept to the end
        kept = [bytearray(1024 * 1024) for _ in range(256)]
    ballast = bytearray(20 * 1024 * 1024)  # touched: 20 MiB of real RSS
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    pool = p.get("pool-size") if workload in POOLED else None
    for index in range(p["warmup"] + p["iterations"]):
        iteration(mode, workload, p, pool, index)
        if mode == "crashmid":
            fail("fake contender: crashed after its first iteration", 3)
    if mode == "daemon":
        leave_behind(mode)


main()
