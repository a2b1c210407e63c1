// ring (seed 004's hand-off claim; the Benchmarks Game's thread-ring): R rings
// of W tasks pass a token H times (docs/contract.md, "ring").
//
// A task is one async function call; it waits by awaiting a fresh promise
// whose resolver it has published as its inbox, and the previous task hands
// the token on by calling that resolver with the count. A hand-off is
// therefore one microtask hop on the one JavaScript thread: resolve() queues
// the awaiting function's continuation as a PromiseReactionJob, which V8 runs
// once the current job returns; no thread switch and no event-loop turn (the
// whole run drains in one microtask checkpoint).
//
// Task 1 of every ring holds the token first: it awaits the release promise,
// which the timer resolves with H (one promise shared by every ring); that
// release is not counted as a received pass. The final holder (the task that
// receives 0) stops its ring's clock; after the clock stops each ring is shut
// down by a stop value passed round (negative, counting up to -1, so every
// task gets it once).

import { clockReadNs, now, ownCpu } from "./common.mjs";

// nearestRank is the percentile of sorted values by the nearest-rank method.
function nearestRank(sorted, percent) {
  const rank = Math.max(1, Math.ceil((percent / 100) * sorted.length));
  return sorted[rank - 1];
}

// handoffStats turns ring 1's readings into per-hand-off samples. stamps[m]
// is the reading taken at count m·k; counts go down, so stamps[m] is later
// than stamps[m + 1] by k hand-offs. The gaps are sorted before dividing by k
// (division keeps the order); values are rounded to whole nanoseconds.
function handoffStats(stamps, every) {
  if (stamps.length < 2) return { handoff_samples: 0 };
  const gaps = new Float64Array(stamps.length - 1);
  for (let m = 0; m < gaps.length; m++) gaps[m] = Number(stamps[m] - stamps[m + 1]);
  gaps.sort();
  return {
    handoff_p50_ns: Math.round(nearestRank(gaps, 50) / every),
    handoff_p99_ns: Math.round(nearestRank(gaps, 99) / every),
    handoff_samples: gaps.length,
  };
}

// Rings is what one iteration's tasks share: the release, the readings of
// ring 1, the final holders, and the promise the timer awaits.
class Rings {
  constructor(rings, size, passes, every) {
    this.size = size;
    this.every = every;
    this.release = new Promise((resolve) => (this.releaseRing = resolve)); // H, to task 1
    this.allDone = new Promise((resolve) => (this.lastDone = resolve));
    this.holders = new Array(rings).fill(0);
    // ring 1 only; none at every = 0 (no clock read in the passes)
    this.stamps = new BigInt64Array(every > 0 ? Math.floor(passes / every) + 1 : 0);
    this.notDone = rings;
    // Node counts no tasks of its own: each member adds itself as it starts and
    // takes itself off as it returns, so this is the members alive now.
    this.alive = 0;
  }

  finished(ring, holder) {
    this.holders[ring] = holder;
    if (--this.notDone === 0) this.lastDone();
  }

  // member is ring member i (0-based; id i + 1); resolves to the tokens it received.
  async member(ring, i, inboxes) {
    const { stamps, every } = this;
    const next = (i + 1) % this.size;
    const timed = ring === 0 && every > 0;
    let received = 0;
    this.alive++;
    if (i === 0) {
      const c = await this.release;
      if (timed && c % every === 0) stamps[c / every] = now();
      inboxes[next](c - 1);
    }
    for (;;) {
      const c = await new Promise((resolve) => (inboxes[i] = resolve));
      if (c < 0) {
        // stop: pass it on until it has gone round once
        if (c < -1) inboxes[next](c + 1);
        this.alive--;
        return received;
      }
      received++;
      if (timed && c % every === 0) stamps[c / every] = now();
      if (c === 0) {
        this.finished(ring, i + 1); // the final holder stays until the stop comes round
      } else {
        inboxes[next](c - 1);
      }
    }
  }
}

// runRings spawns the rings, times the passes, shuts the rings down and
// returns { elapsedNs, received (per task), holders (per ring), stamps }.
async function runRings(rings, size, passes, every) {
  const shared = new Rings(rings, size, passes, every);
  // An async call runs synchronously up to its first await, so when this loop
  // ends every task is waiting and has published its inbox (task 1 publishes
  // its own after its first pass).
  const ringInboxes = Array.from({ length: rings }, () => new Array(size));
  const members = [];
  for (let r = 0; r < rings; r++) {
    for (let i = 0; i < size; i++) members.push(shared.member(r, i, ringInboxes[r]));
  }
  const alive = shared.alive; // every member, at its first await
  const cpuStart = process.cpuUsage();
  const start = now();
  shared.releaseRing(passes);
  await shared.allDone;
  const elapsedNs = now() - start;
  const cpu = ownCpu(cpuStart);
  for (let r = 0; r < rings; r++) ringInboxes[r][shared.holders[r] - 1](-size);
  const received = await Promise.all(members);
  return { elapsedNs, cpu, alive, received, holders: shared.holders, stamps: shared.stamps };
}

export const ring = {
  params: ["rings", "size", "passes", "sample-every"],
  setup(p) {
    const rings = p.int("rings", 1);
    const size = p.int("size", 2);
    const passes = p.int("passes", 1);
    const every = p.int("sample-every", 0);
    return async () => {
      const { elapsedNs, cpu, alive, received, holders, stamps } = await runRings(rings, size, passes, every);
      const result = {
        rings,
        passes: received.reduce((a, b) => a + b, 0),
        holder_min: holders.reduce((a, b) => Math.min(a, b)),
        holder_max: holders.reduce((a, b) => Math.max(a, b)),
        tasks_alive: alive,
        clock_read_ns: clockReadNs(),
        ...handoffStats(stamps, every),
      };
      return { elapsedNs, result, cpu };
    };
  },
};
