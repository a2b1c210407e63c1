// sleep-tasks (seed 001): N async tasks; each awaits a timer of sleep-ms, then
// runs a CPU loop. All N run concurrently on the one event loop thread.

import { setTimeout as sleep } from "node:timers/promises";
import { now } from "./common.mjs";

// cpuLoop is the CPU part: a plain counted loop over small integers (V8 keeps
// i and s as 31-bit Smis; the sum is used, so the loop cannot be dropped, and
// V8 has no closed-form rewrite of such loops).
function cpuLoop(iters) {
  let s = 0;
  for (let i = 0; i < iters; i++) s += i % 2;
  return s;
}

export const sleepTasks = {
  params: ["tasks", "sleep-ms", "cpu-iters", "pool-size"],
  setup(p) {
    const tasks = p.int("tasks");
    const sleepMs = p.millis("sleep-ms");
    const cpuIters = p.int("cpu-iters");
    p.int("pool-size"); // validated, then ignored: promises are not pooled
    return async () => {
      let finished = 0; // counted by the tasks themselves, never echoed
      let cpuSum = 0; // ≤ 10^15 at the largest N and K: exact as a double
      const task = async () => {
        await sleep(sleepMs);
        cpuSum += cpuLoop(cpuIters);
        finished++;
      };
      const start = now();
      await Promise.all(Array.from({ length: tasks }, task));
      const elapsedNs = now() - start;
      return { elapsedNs, result: { tasks: finished, cpu_sum: cpuSum, pool_size: null } };
    };
  },
};
