"""Bare idle asyncio tasks: the reference for spawn-idle's bytes per task.

    python bare_idle.py asyncio|uvloop N HOLD_MS [coro]

N tasks that are only asyncio.sleep (create_task(asyncio.sleep(d))), kept in a list (the
loop holds only weak references to tasks); "spawned" once the loop that creates them is done,
then each is awaited in turn. The event loop is asyncio's or uvloop's, picked as the contender
does (asyncio.Runner with a loop_factory). With `coro`, each task is a coroutine function that
awaits the sleep (`async def task(): await asyncio.sleep(d)`), the form of the "1M tasks" posts
and of the contender's task: one more coroutine frame per task.
"""

import asyncio
import sys


async def idle(hold_s: float) -> None:
    await asyncio.sleep(hold_s)


async def main(n: int, hold_s: float, coro: bool) -> None:
    if coro:
        tasks = [asyncio.create_task(idle(hold_s)) for _ in range(n)]
    else:
        tasks = [asyncio.create_task(asyncio.sleep(hold_s)) for _ in range(n)]
    sys.stdout.write("spawned\n")
    sys.stdout.flush()
    for task in tasks:
        await task


if __name__ == "__main__":
    loop, n, hold_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    else:
        factory = None
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main(n, hold_ms / 1000, sys.argv[4:] == ["coro"]))
