// The smallest Node program that holds N idle tasks: N async calls, each awaiting a timer.
import { setTimeout as sleep } from "node:timers/promises";
const [n, holdMs] = process.argv.slice(2).map(Number);
const idle = async () => { await sleep(holdMs); };
const running = [];
for (let i = 0; i < n; i++) running.push(idle());
await Promise.all(running);
