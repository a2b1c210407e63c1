// SleepProof: how many tasks slept, and the shortest sleep one of them timed
// around its own timer (docs/contract.md, fanout and sleep-tasks). Plain
// numbers: every task runs on the one event-loop thread, so no atomics.

import { performance } from "node:perf_hooks";

export class SleepProof {
  count = 0;
  minMs = Infinity; // performance.now() units: ms as a double, sub-µs resolution

  // recordSince counts one sleep that began at `before` (performance.now()
  // read right before the sleep call) and has just returned.
  recordSince(before) {
    const slept = performance.now() - before;
    this.count++;
    if (slept < this.minMs) this.minMs = slept;
  }

  // minNs is the shortest sleep in whole ns, rounded down so it never
  // overstates a sleep; 0 when nothing slept.
  minNs() {
    return this.count === 0 ? 0 : Math.floor(this.minMs * 1e6);
  }
}
