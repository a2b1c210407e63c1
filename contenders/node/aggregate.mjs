// http-aggregate (seed 003): GET /user/{id} awaits a base call, then the detail
// and extra calls concurrently (Promise.all), and answers the user as JSON.

import http from "node:http";
import { once } from "node:events";
import { text } from "node:stream/consumers";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { UsageError } from "./common.mjs";
import { methodNotAllowed, notFound, pathOf, reply, serve } from "./server.mjs";
import { SleepProof } from "./sleepproof.mjs";

const USER_PATH = /^\/user\/([0-9]+)$/;
const WAIT_KINDS = ["base", "detail", "extra"];

// Proof of the waits (docs/contract.md, downstream=inproc): each call counts
// one wait of its kind (base, detail, extra) and keeps the shortest, timed on
// the monotonic clock (performance.now()) from just before setTimeout arms its
// timer to the awaiting continuation running, so the harness can tell three
// real waits per request from one merged or skipped wait, none shorter than
// asked. A SleepProof per kind, as fanout's: plain numbers (every call runs on
// the one event-loop thread, so no atomics), a count and a compare, after the
// timed span. Totals since start, served at GET /waits.
function countedSleep(ms, proof) {
  return async () => {
    const before = performance.now();
    await sleep(ms);
    proof.recordSince(before);
  };
}

// waitsBody is GET /waits's body: {"base": {"count": n, "min_us": m}, ...},
// min_us in whole µs rounded down (never overstating a wait), null before the
// first wait of the kind.
function waitsBody(proofs) {
  return JSON.stringify(Object.fromEntries(WAIT_KINDS.map((kind, i) => [kind, {
    count: proofs[i].count,
    min_us: proofs[i].count === 0 ? null : Math.floor(proofs[i].minMs * 1000),
  }])));
}

// The downstream client is node:http's own client with a keep-alive http.Agent,
// not the global fetch: Node 20's fetch (its bundled undici) wraps every call in
// WHATWG Request/Response/streams objects and took about 3 times the CPU per
// aggregate request here, and undici's faster request API would be an npm
// dependency. The agent: keepAlive (HTTP/1.1 persistent connections), maxSockets
// Infinity (connections to the backend unbounded, one per call in flight),
// scheduling "lifo" (the default: the most recently used idle socket first).
//
// MAX_FREE_SOCKETS: idle keep-alive connections the agent keeps to the backend.
// http.Agent's default of 256 would close (and later re-dial) a connection each
// time more than 256 calls finish at once, as hundreds of concurrent requests do.
const MAX_FREE_SOCKETS = 4096;

// parseId accepts a decimal integer ≥ 1 that is exact as a number (≤ 2^53 − 1).
function parseId(digits) {
  const id = Number(digits);
  return Number.isSafeInteger(id) && id >= 1 ? id : null;
}

// httpCall makes `() => Promise` that GETs http://host:port<path> through
// the keep-alive agent, reads the whole body (so the socket goes back to the
// agent's free list) and wants status 200. An error event (refused, reset)
// rejects `once`, so the handler answers 502. No timeout of its own.
function httpCall(agent, host, port, path) {
  const options = { host, port, path, agent };
  return async () => {
    const [res] = await once(http.get(options), "response");
    await text(res);
    if (res.statusCode !== 200) throw new Error(`GET ${path}: status ${res.statusCode}`);
  };
}

export const httpAggregate = {
  params: ["port", "bind", "base-ms", "detail-ms", "extra-ms", "downstream", "backend-host", "backend-port", "pool-size"],
  serve(p) {
    const port = p.port();
    const bind = p.ipv4("bind");
    const ms = ["base-ms", "detail-ms", "extra-ms"].map((name) => p.millis(name));
    p.int("pool-size"); // validated, then ignored: one event loop, no pool
    const backendHost = p.ipv4("backend-host");
    const backendPort = p.port("backend-port");
    const downstream = p.string("downstream");

    let calls; // [base, detail, extra], each () => Promise
    let proofs = null; // downstream=inproc: a SleepProof per wait kind; null (GET /waits: 404) with http
    const info = { downstream };
    let onStop = () => {};
    if (downstream === "inproc") { // backend-host and backend-port are not used
      proofs = WAIT_KINDS.map(() => new SleepProof());
      calls = ms.map((d, i) => countedSleep(d, proofs[i]));
    } else if (downstream === "http") {
      if (backendPort === 0) throw new UsageError("--backend-port=0: want a TCP port for --downstream=http");
      const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: MAX_FREE_SOCKETS });
      calls = ms.map((d) => httpCall(agent, backendHost, backendPort, `/delay/${d}`));
      info.client_pool = { client: "node:http http.Agent", keep_alive: true, max_sockets: "unbounded",
        max_free_sockets: MAX_FREE_SOCKETS, scheduling: agent.scheduling };
      onStop = () => agent.destroy();
    } else {
      throw new UsageError(`--downstream=${downstream}: want inproc or http`);
    }
    const [base, detail, extra] = calls;

    const handler = async (req, res) => {
      const path = pathOf(req);
      const m = USER_PATH.exec(path);
      const id = m && parseId(m[1]);
      if (id === null) {
        if (path !== "/waits" || proofs === null) return notFound(res);
        if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed(res);
        return reply(res, 200, "application/json", waitsBody(proofs));
      }
      if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed(res);
      try {
        await base();
        await Promise.all([detail(), extra()]);
      } catch (err) {
        return reply(res, 502, "text/plain; charset=utf-8", `downstream: ${err.message}\n`);
      }
      const body = JSON.stringify({ id, name: `User-${id}`, age: 25, sex: 1, phone: "13800138000", level: "VIP会员" });
      reply(res, 200, "application/json", body);
    };
    return () => serve(bind, port, handler, info, onStop);
  },
};
