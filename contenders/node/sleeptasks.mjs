// sleep-tasks (seed 001): N async tasks; each awaits a timer of sleep-ms,
// timing it, then runs K steps of a 32-bit chain seeded with cpu-seed. All N
// run concurrently on the one event loop thread.

import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { now, UsageError } from "./common.mjs";
import { SleepProof } from "./sleepproof.mjs";

// cpuChain runs x = x·1664525 + 1013904223, s = s + x (mod 2^32) K times from
// x = seed and returns s as an unsigned 32-bit number. Math.imul multiplies
// mod 2^32 and `| 0` wraps each sum, so x and s stay int32 (Smis or untagged
// int32 in optimised code); `>>> 0` reads s as unsigned. Each step needs the
// previous x: no closed form, nothing to vectorise.
function cpuChain(seed, iters) {
  let x = seed | 0;
  let s = 0;
  for (let i = 0; i < iters; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) | 0;
    s = (s + x) | 0;
  }
  return s >>> 0;
}

export const sleepTasks = {
  params: ["tasks", "sleep-ms", "cpu-iters", "cpu-seed", "pool-size"],
  setup(p) {
    const tasks = p.int("tasks");
    const sleepMs = p.millis("sleep-ms");
    const cpuIters = p.int("cpu-iters");
    const cpuSeed = p.int("cpu-seed");
    if (cpuSeed > 0xffffffff) throw new UsageError(`--cpu-seed=${cpuSeed}: must be below 2^32`);
    p.int("pool-size"); // validated, then ignored: promises are not pooled
    return async () => {
      let finished = 0; // counted by the tasks themselves, never echoed
      let cpuSum = 0; // Σ s < N·2^32 ≤ 2^53 at the largest N: exact as a double
      const slept = new SleepProof();
      const task = async () => {
        const before = performance.now();
        await sleep(sleepMs);
        slept.recordSince(before);
        cpuSum += cpuChain(cpuSeed, cpuIters);
        finished++;
      };
      const start = now();
      await Promise.all(Array.from({ length: tasks }, task));
      const elapsedNs = now() - start;
      return {
        elapsedNs,
        result: { tasks: finished, cpu_sum: cpuSum, slept_min_ns: slept.minNs(), pool_size: null },
      };
    };
  },
};
