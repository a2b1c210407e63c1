"""The smallest asyncio program that holds N idle tasks (uvloop's loop when asked)."""
import asyncio
import sys


async def idle(hold_s: float) -> None:
    await asyncio.sleep(hold_s)


async def main(n: int, hold_s: float) -> None:
    tasks = [asyncio.create_task(idle(hold_s)) for _ in range(n)]
    for t in tasks:
        await t


n, hold_ms, loop = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if loop == "uvloop":
    import uvloop
    uvloop.run(main(n, hold_ms / 1000))
else:
    asyncio.run(main(n, hold_ms / 1000))
