// Bare idle Node tasks: the reference for spawn-idle's bytes per task.
//
//   node --max-old-space-size=16384 bare_idle.mjs N HOLD_MS
//
// N promises of setTimeout (node:timers/promises, as the contender's sleep); "spawned" once
// the loop is done (process.stdout is synchronous on a pipe); then Promise.all.
import { setTimeout as sleep } from "node:timers/promises";

const [n, holdMs] = process.argv.slice(2).map(Number);
const running = [];
for (let i = 0; i < n; i++) running.push(sleep(holdMs));
process.stdout.write("spawned\n");
await Promise.all(running);
