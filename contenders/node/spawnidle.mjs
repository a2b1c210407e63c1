// spawn-idle (seed 004, the "1M tasks" posts): start N async tasks that each
// await a timer of hold-ms; mark the moment all of them have started, then wait
// for all.

import { setTimeout as sleep } from "node:timers/promises";
import { emit, now } from "./common.mjs";

export const spawnIdle = {
  params: ["tasks", "hold-ms"],
  setup(p) {
    const tasks = p.int("tasks");
    const holdMs = p.millis("hold-ms");
    return async (index) => {
      let started = 0;
      let completed = 0;
      let allStarted; // resolved by the task that brings `started` to N
      const allStartedP = new Promise((resolve) => (allStarted = resolve));
      if (tasks === 0) allStarted();
      // Calling an async function runs its body synchronously up to its first
      // await: the task counts itself as started, `sleep` arms its timer, then it
      // suspends. So when the spawning loop ends, every task has started and
      // armed its timer, the last one has resolved allStartedP, and the mark
      // follows at once.
      const task = async () => {
        if (++started === tasks) allStarted();
        await sleep(holdMs);
        completed++;
      };
      const start = now();
      const running = [];
      for (let i = 0; i < tasks; i++) running.push(task());
      await allStartedP;
      emit({ type: "mark", name: "all-spawned", index, elapsed_ns: now() - start });
      await Promise.all(running);
      const elapsedNs = now() - start;
      return { elapsedNs, result: { tasks: completed } };
    };
  },
};
