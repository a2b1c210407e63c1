"""Bare idle asyncio tasks: the reference for spawn-idle's bytes per task.

    python bare_idle.py asyncio|uvloop N HOLD_MS

N tasks that are only asyncio.sleep (create_task(asyncio.sleep(d))), kept in a list (the
loop holds only weak references to tasks); "spawned" once the loop that creates them is done,
then each is awaited in turn. The event loop is asyncio's or uvloop's, picked as the contender
does (asyncio.Runner with a loop_factory).
"""

import asyncio
import sys


async def main(n: int, hold_s: float) -> None:
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
        runner.run(main(n, hold_ms / 1000))
