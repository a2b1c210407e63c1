// concbench-node: the Node.js contender of concbench. A batch workload runs W
// warm-up and N measured iterations in this process and prints one JSON line
// per iteration on stdout; a server workload (http-*) serves HTTP until SIGTERM.
// As docs/contract.md specifies:
//
//   node main.mjs <workload> --<param>=<value> … --warmup=<W> --iterations=<N>
//   node main.mjs http-<name> --port=<P> --<param>=<value> …
//
// Exit codes: 2 for bad input (unknown workload or parameter, missing or
// malformed value), 1 for any later failure (an uncaught error or rejection).

import { argv, exit, stderr } from "node:process";
import { UsageError, collectParams, emit } from "./common.mjs";
import { fanout } from "./fanout.mjs";
import { sleepTasks } from "./sleeptasks.mjs";
import { spawnIdle } from "./spawnidle.mjs";
import { ring } from "./ring.mjs";
import { skynetWorkload } from "./skynet.mjs";
import { httpHello } from "./hello.mjs";
import { httpAggregate } from "./aggregate.mjs";

// Each workload names every parameter it takes (all required) and either
// `setup` (batch: validates the values, returns the async iteration function)
// or `serve` (server: validates the values, returns the server to start).
const workloads = new Map([
  ["fanout", fanout],
  ["sleep-tasks", sleepTasks],
  ["spawn-idle", spawnIdle],
  ["ring", ring],
  ["skynet", skynetWorkload],
  ["http-hello", httpHello],
  ["http-aggregate", httpAggregate],
]);

const USAGE =
  "usage: node main.mjs <workload> --<param>=<value> … [--warmup=<W> --iterations=<N>]";

// parse checks the workload name and its parameters and returns the job to
// run: the iterations, or the server. Throws UsageError on bad input.
function parse(args) {
  if (args.length === 0) throw new UsageError(USAGE);
  const [name, ...rest] = args;
  const w = workloads.get(name);
  if (w === undefined) {
    throw new UsageError(`unknown workload "${name}" (known: ${[...workloads.keys()].join(", ")})`);
  }
  if (w.serve) {
    const p = collectParams(name, w.params, rest);
    return w.serve(p);
  }
  const p = collectParams(name, [...w.params, "warmup", "iterations"], rest);
  const warmup = p.int("warmup");
  const iterations = p.int("iterations");
  const run = w.setup(p);
  return () => runBatch(run, warmup, iterations);
}

// runBatch runs warmup+iterations iterations one after the other and prints one
// line each. `run(index)` resolves to { elapsedNs (bigint), result }.
async function runBatch(run, warmup, iterations) {
  for (let i = 0; i < warmup + iterations; i++) {
    const { elapsedNs, result, cpu } = await run(i); // cpu: ring and skynet's { cpu_ns, cpu_tick_ns }
    emit({ type: "iteration", index: i, warmup: i < warmup, elapsed_ns: elapsedNs, result, ...cpu });
  }
}

let job;
try {
  job = parse(argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  stderr.write(`concbench-node: ${err.message}\n`);
  exit(2);
}
try {
  await job();
} catch (err) {
  stderr.write(`concbench-node: ${err?.stack ?? err}\n`);
  exit(1);
}
