// spawn-idle (seed 004, the "1M tasks" posts): start N tasks that each count
// themselves as started, then wait on a timer of hold-ms of their own; mark the
// moment all of them have started, then wait for all.
//
// What one task is: Node has no task object; a unit of concurrent work is a
// pending promise the event loop will settle. The lightest such unit that
// sleeps on its own timer is the promise of setTimeout from
// node:timers/promises (a Timeout on libuv's timer list plus its promise), the
// form of the public "1M tasks" Node program. A task here is a plain function
// call that bumps the shared counter and returns that promise: its frame is
// gone when it returns, and only the pending timer promise stays. The manifest's
// node-async-fn variant (CONCBENCH_SPAWN_IDLE_TASK=async-fn) runs the heavier
// form, an async function that awaits the timer (its suspended frame and
// promise stay as well).

import { env } from "node:process";
import { setTimeout as sleep } from "node:timers/promises";
import { UsageError, emit, now } from "./common.mjs";

// TASK_FORMS maps CONCBENCH_SPAWN_IDLE_TASK to the task's shape. Each takes
// the shared state and returns the task function; every task resolves to 1,
// and the results are summed into the completed count.
const TASK_FORMS = {
  timer: (s) => () => {
    if (++s.started === s.tasks) s.allStarted();
    return sleep(s.holdMs, 1);
  },
  "async-fn": (s) => async () => {
    if (++s.started === s.tasks) s.allStarted();
    await sleep(s.holdMs);
    return 1;
  },
};

// taskFormName reads the task's shape from the environment (the manifest's
// variant sets it); unset means timer. The result's informational key
// task_form repeats it.
function taskFormName() {
  const name = env.CONCBENCH_SPAWN_IDLE_TASK ?? "timer";
  if (!Object.hasOwn(TASK_FORMS, name)) {
    const known = Object.keys(TASK_FORMS).join(", ");
    throw new UsageError(`CONCBENCH_SPAWN_IDLE_TASK=${name}: unknown task form (known: ${known})`);
  }
  return name;
}

export const spawnIdle = {
  params: ["tasks", "hold-ms"],
  setup(p) {
    const tasks = p.int("tasks");
    const holdMs = p.millis("hold-ms");
    const formName = taskFormName();
    const form = TASK_FORMS[formName];
    return async (index) => {
      let allStarted; // called by the task that brings `started` to N
      const allStartedP = new Promise((resolve) => (allStarted = resolve));
      const shared = { started: 0, tasks, holdMs, allStarted };
      if (tasks === 0) allStarted();
      const task = form(shared);
      // Either form runs synchronously up to its timer (a plain call returns
      // the armed timer's promise; an async call runs its body up to its first
      // await): the task counts itself as started, then arms its timer. So
      // when the spawning loop ends, every task has started and armed its
      // timer, the last one has resolved allStartedP, and the mark follows at
      // once.
      const start = now();
      const running = [];
      for (let i = 0; i < tasks; i++) running.push(task());
      await allStartedP;
      emit({ type: "mark", name: "all-spawned", index, elapsed_ns: now() - start });
      let completed = 0;
      for (const one of await Promise.all(running)) completed += one;
      const elapsedNs = now() - start;
      return { elapsedNs, result: { tasks: completed, task_form: formName } };
    };
  },
};
