// skynet (atemerev/skynet): a tree of async tasks, `branch` children each,
// down to `size` leaves; each leaf returns its ordinal and a task count of 1,
// each parent the sum of its children's ordinals and 1 + their task counts
// (docs/contract.md, "skynet").
//
// A task is one async function call, joined by Promise.all. A call runs
// synchronously up to its first await, so the tree is built depth first: a
// leaf returns an already-resolved promise at once, and a parent suspends in
// its await of Promise.all until its children's promises have settled.

import { UsageError, now, ownCpu } from "./common.mjs";

// Node counts no tasks of its own: every call adds itself to `alive` as it
// starts and takes itself off as it returns; leaf 0 records the count when it
// runs (an integer add and subtract per task, on the one thread).
let alive = 0;
let aliveAtFirstLeaf = 0;

// skynet resolves to [sum of the leaves' ordinals, tasks run] of its subtree.
async function skynet(num, size, branch) {
  alive++;
  if (size === 1) {
    if (num === 0) aliveAtFirstLeaf = alive;
    alive--;
    return [num, 1];
  }
  const child = size / branch;
  const children = [];
  for (let i = 0; i < branch; i++) children.push(skynet(num + i * child, child, branch));
  let sum = 0;
  let tasks = 1;
  for (const [s, t] of await Promise.all(children)) {
    sum += s;
    tasks += t;
  }
  alive--;
  return [sum, tasks];
}

// isPower says whether size is branch^d for some d ≥ 0.
function isPower(size, branch) {
  let n = 1;
  while (n < size) n *= branch;
  return n === size;
}

export const skynetWorkload = {
  params: ["size", "branch"],
  setup(p) {
    const size = p.int("size", 1);
    const branch = p.int("branch", 2);
    if (!isPower(size, branch)) throw new UsageError(`--size=${size} is not a power of --branch=${branch}`);
    return async () => {
      alive = 0;
      const cpuStart = process.cpuUsage();
      const start = now();
      const [sum, tasks] = await skynet(0, size, branch); // the root is a task too
      const elapsedNs = now() - start;
      const cpu = ownCpu(cpuStart);
      return { elapsedNs, cpu, result: { sum, tasks, tasks_alive: aliveAtFirstLeaf } };
    };
  },
};
