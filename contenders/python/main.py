"""concbench's Python contender: CPython asyncio, on asyncio's own event loop or on uvloop.

    .venv/bin/python main.py <loop> <workload> --<param>=<value> … --warmup=<W> --iterations=<N>
    .venv/bin/python main.py <loop> http-<name> --port=<P> --<param>=<value> …

<loop> is asyncio or uvloop (the manifest's run command passes it); the rest is the contract's
invocation (docs/contract.md). A batch workload runs W warm-up and N measured iterations on one
event loop and prints one JSON line per iteration; a server workload serves until SIGTERM.
Bad input: message on stderr, exit 2; any other failure: exit 1.
"""

from __future__ import annotations

import asyncio
import sys

from concbench_py import channel, fanout, ring, servers, skynet, sleep_tasks, spawn_idle
from concbench_py.common import LOOPS, PROG, BadInput, Params, emit, loop_factory

BATCH = {
    "fanout": (fanout.PARAMS, fanout.setup),
    "sleep-tasks": (sleep_tasks.PARAMS, sleep_tasks.setup),
    "spawn-idle": (spawn_idle.PARAMS, spawn_idle.setup),
    "channel": (channel.PARAMS, channel.setup),
    "ring": (ring.PARAMS, ring.setup),
    "skynet": (skynet.PARAMS, skynet.setup),
}
SERVERS = {
    "http-hello": (servers.HELLO_PARAMS, servers.setup_hello),
    "http-aggregate": (servers.AGGREGATE_PARAMS, servers.setup_aggregate),
}
USAGE = f"usage: {PROG} <asyncio|uvloop> <workload> --<param>=<value> … [--warmup=<W> --iterations=<N>]"


async def run_batch(iteration, warmup: int, iterations: int) -> None:
    for index in range(warmup + iterations):
        elapsed_ns, result, *line = await iteration(index)  # ring, skynet: + {cpu_ns, …}
        emit({"type": "iteration", "index": index, "warmup": index < warmup,
              "elapsed_ns": elapsed_ns, "result": result, **(line[0] if line else {})})


def parse(args: list[str]):
    """The loop name and the coroutine function to run, or BadInput."""
    if len(args) < 2 or args[0] not in LOOPS:
        raise BadInput(USAGE)
    loop, workload, rest = args[0], args[1], args[2:]
    if workload in SERVERS:
        names, setup = SERVERS[workload]
        spec = setup(Params(workload, names, rest))
        return loop, lambda: servers.serve(spec, loop)
    if workload not in BATCH:
        raise BadInput(f"unknown workload {workload!r}")
    names, setup = BATCH[workload]
    p = Params(workload, names + ["warmup", "iterations"], rest)
    warmup, iterations = p.int("warmup"), p.int("iterations")
    iteration = setup(p)
    return loop, lambda: run_batch(iteration, warmup, iterations)


def main() -> int:
    try:
        loop, job = parse(sys.argv[1:])
    except BadInput as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 2
    try:
        # One event loop for the whole process (set-up outside the timed region), as
        # asyncio.run(main()) would make; loop_factory picks asyncio's default loop or uvloop's.
        with asyncio.Runner(loop_factory=loop_factory(loop)) as runner:
            runner.run(job())
    except Exception as err:  # noqa: BLE001 - any failure after parsing: exit 1
        print(f"{PROG}: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
