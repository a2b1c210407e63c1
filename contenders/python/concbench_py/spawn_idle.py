"""spawn-idle (seed 004): spawn N tasks that each count themselves started, then sleep H ms on a
timer of their own; mark the moment all of them have started, then wait for all.

What one task is: an asyncio Task, the unit the event loop schedules. The lightest Task that
sleeps is one whose coroutine is asyncio.sleep's own (the task of the bare "1M tasks" program:
create_task(asyncio.sleep(d))); a wrapping `async def` that awaits the sleep adds a coroutine and
frame per task. Two forms, chosen by CONCBENCH_SPAWN_IDLE_TASK (the manifest's variants set it):

- sleep (the default, CPython >= 3.12): a plain function counts the task started and creates
  the Task of asyncio.sleep(hold) with eager start (3.12+), which runs the Task's first step
  at once: when the Task is made, the sleep's Future and TimerHandle exist
  and the Task is suspended on them. So each task is counted, then arms its own timer, in that
  order, as the contract asks. On CPython 3.11 (no eager tasks) it falls back to coroutine.
- coroutine: `async def idle()` bumps the counter as its first statement, then awaits
  asyncio.sleep(hold); plain create_task, so the first steps run once the spawner yields.

The result's informational key task_form says which form ran.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, Callable

from .common import BadInput, Params, emit_mark, now_ns

PARAMS = ["tasks", "hold-ms"]
FORMS = ("sleep", "coroutine")
EAGER = sys.version_info >= (3, 12)


def task_form() -> str:
    """The task's form from the environment; sleep falls back to coroutine without eager tasks."""
    name = os.environ.get("CONCBENCH_SPAWN_IDLE_TASK", "sleep")
    if name not in FORMS:
        raise BadInput(f"CONCBENCH_SPAWN_IDLE_TASK={name}: unknown task form (known: {', '.join(FORMS)})")
    return "coroutine" if name == "sleep" and not EAGER else name


def setup(p: Params):
    tasks = p.int("tasks")
    hold = p.seconds("hold-ms")
    form = task_form()
    spawn_all = spawn_sleep_tasks if form == "sleep" else spawn_coroutine_tasks

    async def iteration(index: int) -> tuple[int, dict[str, Any]]:
        all_started = asyncio.Event()  # set by the task that brings the started count to N
        if tasks == 0:
            all_started.set()
        start = now_ns()
        spawned = spawn_all(tasks, hold, all_started.set)
        await all_started.wait()
        emit_mark("all-spawned", index, now_ns() - start)
        completed = 0
        for task in spawned:
            await task
            completed += 1
        elapsed = now_ns() - start
        return elapsed, {"tasks": completed, "task_form": form}

    return iteration


# The Tasks are kept in a list and awaited in turn, not put in a TaskGroup: a TaskGroup adds per
# task a set entry, a bound-method done callback and the Context copy that add_done_callback
# makes (gather: a dict entry and a callback), which is not the cost of a task itself.

def spawn_sleep_tasks(tasks: int, hold: float, on_all_started: Callable[[], None]) -> list[asyncio.Task]:
    """N eager Tasks of asyncio.sleep(hold), each counted started just before its first step.

    asyncio.Task(coro, eager_start=True) is the constructor parameter CPython documents since
    3.12 and what asyncio.eager_task_factory calls; the factory itself cannot be set on uvloop
    0.23 under CPython 3.13 (its create_task passes eager_start=None, which the factory of 3.13
    does not take), and the default loop's create_task takes eager_start only from 3.14."""
    loop = asyncio.get_running_loop()  # passed explicitly: 3.13.0's eager start needs it
    started = 0

    def start_one() -> asyncio.Task:
        nonlocal started
        started += 1  # one loop thread, so a plain int is the shared counter
        if started == tasks:
            on_all_started()
        return asyncio.Task(asyncio.sleep(hold), loop=loop, eager_start=True)  # timer armed

    return [start_one() for _ in range(tasks)]


def spawn_coroutine_tasks(tasks: int, hold: float, on_all_started: Callable[[], None]) -> list[asyncio.Task]:
    """N Tasks of a coroutine that counts itself started, then awaits asyncio.sleep(hold)."""
    started = 0

    async def idle() -> None:
        nonlocal started
        started += 1  # first action; one loop thread, so a plain int is the shared counter
        if started == tasks:
            on_all_started()
        await asyncio.sleep(hold)

    # create_task only schedules a task: the tasks take their first step once the spawner awaits
    # the all-started Event, and the last of them sets it.
    return [asyncio.create_task(idle()) for _ in range(tasks)]
