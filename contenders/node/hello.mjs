// http-hello (seed 004): GET /hello answers 200 with a fixed 200-byte body.

import { methodNotAllowed, notFound, pathOf, serve } from "./server.mjs";

export const httpHello = {
  params: ["port", "bind", "pool-size"],
  serve(p) {
    const port = p.port();
    const bind = p.ipv4("bind");
    p.int("pool-size"); // validated, then ignored: one event loop, no pool
    const body = Buffer.from(`${"x".repeat(199)}\n`); // built once at start-up
    const headers = { "Content-Type": "text/plain; charset=utf-8", "Content-Length": body.length };
    const handler = (req, res) => {
      if (pathOf(req) !== "/hello") return notFound(res);
      if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed(res);
      res.writeHead(200, headers);
      res.end(body);
    };
    return () => serve(bind, port, handler);
  },
};
