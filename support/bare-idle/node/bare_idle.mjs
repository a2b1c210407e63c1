// Bare idle Node tasks: the reference for spawn-idle's bytes per task.
//
//   node --max-old-space-size=16384 bare_idle.mjs N HOLD_MS
//
// N promises of setTimeout (node:timers/promises, as the contender's sleep); "spawned" once
// the loop is done (process.stdout is synchronous on a pipe); then Promise.all.
import { setTimeout as sleep } from "node:timers/promises";

// With a third argument `async`, each task is an async function awaiting the timer
// (`const task = async () => { await sleep(d) }`), the form of the "1M tasks" posts and of
// the contender's task: one more promise and a suspended async frame per task.
const [n, holdMs] = process.argv.slice(2, 4).map(Number);
const asyncFn = process.argv[4] === "async";
const task = async () => { await sleep(holdMs); };
const running = [];
for (let i = 0; i < n; i++) running.push(asyncFn ? task() : sleep(holdMs));
process.stdout.write("spawned\n");
await Promise.all(running);
