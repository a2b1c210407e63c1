// Shared pieces: parameter parsing (docs/contract.md: every parameter given
// explicitly as --name=value, no defaults), the clock and JSON-line output.

import { isIPv4 } from "node:net";
import { hrtime, stdout } from "node:process";

// UsageError is bad input: main prints it and exits 2.
export class UsageError extends Error {}

// now is the monotonic clock in nanoseconds (a bigint).
export const now = hrtime.bigint;

// The iteration line's cpu_ns / cpu_tick_ns (docs/contract.md): the process's
// user + system time from process.cpuUsage() (uv_getrusage: every thread,
// microseconds) since `start`, a previous process.cpuUsage().
export function ownCpu(start) {
  const used = process.cpuUsage(start);
  return { cpu_ns: (used.user + used.system) * 1000, cpu_tick_ns: 1000 };
}

// clockReadNs is the cost of one now() as ring 1's readings take it: the mean
// of 10 000 in a row (hrtime.bigint allocates a BigInt each time).
export function clockReadNs() {
  const reads = 10_000;
  let sink = 0n;
  const start = now();
  for (let i = 0; i < reads; i++) sink += now();
  const total = now() - start;
  return sink > 0n ? Math.round(Number(total) / reads) : 0;
}

// Params holds the raw values of one invocation's --name=value arguments.
class Params {
  #values;
  constructor(values) {
    this.#values = values;
  }

  // string is the raw value.
  string(name) {
    return this.#values.get(name);
  }

  // int parses a plain decimal integer (digits only) ≥ min that is exact as a
  // JavaScript number (≤ 2^53 − 1).
  int(name, min = 0) {
    const s = this.#values.get(name);
    if (!/^[0-9]+$/.test(s)) throw new UsageError(`--${name}=${s}: not a non-negative integer`);
    const v = Number(s);
    if (!Number.isSafeInteger(v)) throw new UsageError(`--${name}=${s}: too large`);
    if (v < min) throw new UsageError(`--${name}=${s}: must be at least ${min}`);
    return v;
  }

  // millis parses a whole number of milliseconds that a Node timer can hold:
  // setTimeout clamps delays above 2^31 − 1 ms (~24.8 days) to 1 ms.
  millis(name) {
    const v = this.int(name);
    if (v > 2 ** 31 - 1) throw new UsageError(`--${name}=${v}: too large a duration for a timer`);
    return v;
  }

  // ipv4 is an IPv4 address literal such as 127.0.0.1 (--bind, --backend-host).
  ipv4(name) {
    const s = this.#values.get(name);
    if (!isIPv4(s)) throw new UsageError(`--${name}=${s}: not an IPv4 address`);
    return s;
  }

  // port parses --port: 0..65535 (0 asks the kernel for a free port; the ready
  // line then says which).
  port(name = "port") {
    const v = this.int(name);
    if (v > 65535) throw new UsageError(`--${name}=${v}: not a TCP port`);
    return v;
  }
}

// collectParams parses args as --name=value, each name in names exactly once.
export function collectParams(workload, names, args) {
  const allowed = new Set(names);
  const values = new Map();
  for (const arg of args) {
    const m = /^--([^=]+)=(.*)$/s.exec(arg);
    if (m === null) throw new UsageError(`malformed argument "${arg}" (want --name=value)`);
    const [, name, value] = m;
    if (!allowed.has(name)) throw new UsageError(`unknown parameter --${name} for workload ${workload}`);
    if (values.has(name)) throw new UsageError(`parameter --${name} given twice`);
    values.set(name, value);
  }
  for (const name of names) {
    if (!values.has(name)) throw new UsageError(`missing parameter --${name} for workload ${workload}`);
  }
  return new Params(values);
}

// toJson is JSON.stringify that also writes bigints as plain JSON numbers
// (id_sq_sum exceeds 2^53 at large R; elapsed_ns comes from hrtime.bigint).
function toJson(v) {
  if (typeof v === "bigint") return v.toString();
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

// emit writes one JSON line to stdout in one write. process.stdout is
// synchronous for pipes and files on Linux, so the line reaches the harness at
// once (the spawn-idle mark relies on this).
export function emit(line) {
  stdout.write(`${toJson(line)}\n`);
}
