// Server workloads (http-*): node:http, no framework, one process (no cluster,
// no worker threads): the harness pins the server to its CPUs with taskset, and
// Node serves every connection on its one event-loop thread. No access log,
// nothing printed per request.

import http from "node:http";
import os from "node:os";
import process from "node:process";
import v8 from "node:v8";
import { emit } from "./common.mjs";

// The listen backlog asked for; Linux caps it at net.core.somaxconn (the value
// Go and Netty use). Node's own default is 511.
const BACKLOG = 65535;

// pathOf is the request target's path (the query string, if any, dropped).
export function pathOf(req) {
  const q = req.url.indexOf("?");
  return q === -1 ? req.url : req.url.slice(0, q);
}

// reply answers with a complete body and its Content-Length (never chunked).
export function reply(res, status, contentType, body, extra = {}) {
  res.writeHead(status, {
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(body),
    ...extra,
  });
  res.end(body);
}

export function notFound(res) {
  reply(res, 404, "text/plain; charset=utf-8", "404 page not found\n");
}

export function methodNotAllowed(res) {
  reply(res, 405, "text/plain; charset=utf-8", "method not allowed\n", { Allow: "GET, HEAD" });
}

// serve binds bind:port (never a wildcard address), prints the ready line
// and serves until SIGTERM/SIGINT: then it stops accepting, closes every
// connection (in-flight requests may be dropped, as the contract allows) and
// exits 0. `info` adds keys to the ready line's "runtime" object; `onStop`
// releases what the handler holds (the downstream client's sockets).
export async function serve(bind, port, handler, info = {}, onStop = () => {}) {
  const server = http.createServer(handler);
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: bind, port, backlog: BACKLOG }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    onStop();
    process.exit(0);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  emit({
    type: "ready",
    port: server.address().port,
    runtime: {
      cpus: os.availableParallelism(), // follows the affinity mask (libuv: sched_getaffinity)
      event_loop_threads: 1, // JavaScript runs on one thread whatever cpus says
      libuv_threadpool: Number(process.env.UV_THREADPOOL_SIZE || 4), // file I/O, DNS: not used per request
      node: process.version,
      v8_heap_limit_mib: Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20),
      server: "node:http",
      keep_alive_timeout_ms: server.keepAliveTimeout,
      ...info,
    },
  });
}
