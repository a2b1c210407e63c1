"""Server workloads (http-*) on aiohttp's web server: one process, one event loop thread, one
connection handler per connection; no access log, nothing printed per request."""

from __future__ import annotations

import asyncio
import functools
import json
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from time import perf_counter_ns
from typing import Any

import aiohttp
from aiohttp import web
from yarl import URL

from .common import BadInput, Params, emit, runtime_info
from .sleep_proof import SleepProof

HELLO_PARAMS = ["port", "bind", "pool-size"]
AGGREGATE_PARAMS = ["port", "bind", "base-ms", "detail-ms", "extra-ms", "downstream",
                    "backend-host", "backend-port", "pool-size"]

# listen() backlog: Linux caps it at net.core.somaxconn (what Go's net.Listen passes);
# aiohttp's TCPSite default is 128.
BACKLOG = 65535
# SIGTERM: runner.cleanup() stops listening, closes idle keep-alive connections and gives
# in-flight handlers this long before it cancels them; the contract wants exit within 5 s.
SHUTDOWN_GRACE_S = 2.0
CLEANUP_LIMIT_S = 4.0

# The largest user id the contract serves, 2^53 - 1 (I-JSON's exact integers): a larger id, like
# a non-numeric one, is a path no route serves (404).
MAX_ID = 2**53 - 1

# downstream=http: connections to the backend. An aggregate request holds two at once
# (detail ∥ extra), so 4096 serves 2048 concurrent requests without waiting; past that a call
# waits in the connector for a free connection. aiohttp's default limit is 100.
CLIENT_LIMIT = 4096
CLIENT_KEY = web.AppKey("client", aiohttp.ClientSession)


class ServerSpec:
    """A validated server workload: the application, the address and port to bind, and extra
    ready-line keys."""

    def __init__(self, app: web.Application, bind: str, port: int, info: dict[str, Any]):
        self.app, self.bind, self.port, self.info = app, bind, port, info


def _http_parser() -> str:
    """Which HTTP parser aiohttp's server uses: its C extension (llhttp) or pure Python."""
    from aiohttp import web_protocol

    return "c" if web_protocol.HttpRequestParser.__module__.endswith("_http_parser") else "python"


async def serve(spec: ServerSpec, loop_name: str) -> None:
    """Bind bind:port (never a wildcard), print the ready line, serve until SIGTERM/SIGINT,
    then clean up (stop listening, close connections, close the client) and return."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    runner = web.AppRunner(spec.app, access_log=None, shutdown_timeout=SHUTDOWN_GRACE_S)
    await runner.setup()  # runs the app's startup (the client session, if any)
    site = web.TCPSite(runner, spec.bind, spec.port, backlog=BACKLOG)
    await site.start()
    port = runner.addresses[0][1]

    info = runtime_info(loop_name)
    info.update(server="aiohttp.web", aiohttp=aiohttp.__version__, http_parser=_http_parser(),
                processes=1)
    info.update(spec.info)
    emit({"type": "ready", "port": port, "runtime": info})

    await stop.wait()
    try:
        async with asyncio.timeout(CLEANUP_LIMIT_S):
            await runner.cleanup()
    except TimeoutError:
        pass  # in-flight requests may be dropped; the process exits now


# --- http-hello (seed 004) -------------------------------------------------------------------

def setup_hello(p: Params) -> ServerSpec:
    port = p.port()
    bind = p.ipv4("bind")
    p.int("pool-size")  # validated, then ignored: one event loop, no pool
    body = b"x" * 199 + b"\n"  # built once at start-up

    async def hello(request: web.Request) -> web.Response:
        return web.Response(body=body, content_type="text/plain")

    app = web.Application()
    app.router.add_get("/hello", hello)
    return ServerSpec(app, bind, port, {})


# --- http-aggregate (seed 003) ---------------------------------------------------------------

class DownstreamError(Exception):
    """The backend answered with another status than 200."""


Call = Callable[[web.Application], Awaitable[None]]


WAIT_KINDS = ("base", "detail", "extra")


def _sleep_call(seconds: float, proof: SleepProof) -> Call:
    # Proof of the waits (docs/contract.md, http-aggregate): each wait of a kind is counted and
    # the shortest kept, timed with perf_counter_ns (CLOCK_MONOTONIC) from just before the
    # asyncio.sleep (its timer armed) to the continuation running after it, so GET /waits shows
    # one real wait of each kind per request, none shorter than asked. Plain ints in this frame,
    # as the batch workloads' SleepProof: one loop thread runs every task and nothing between
    # the read and the write awaits, so no lock or atomic is needed.
    async def call(app: web.Application) -> None:
        before = perf_counter_ns()
        await asyncio.sleep(seconds)
        slept = perf_counter_ns() - before
        proof.count += 1
        if proof.min_ns is None or slept < proof.min_ns:
            proof.min_ns = slept

    return call


def _waits_handler(proofs: dict[str, SleepProof]) -> Callable[[web.Request],
                                                               Awaitable[web.Response]]:
    """GET /waits: the in-process waits since start, by kind (min_us null before the first)."""
    async def waits(request: web.Request) -> web.Response:
        return web.json_response({
            kind: {"count": pr.count, "min_us": None if pr.min_ns is None else pr.min_ns // 1000}
            for kind, pr in proofs.items()})

    return waits


def _http_call(url: URL) -> Call:
    async def call(app: web.Application) -> None:
        async with app[CLIENT_KEY].get(url) as resp:
            await resp.read()  # the whole body, so the connection goes back to the pool
            if resp.status != 200:
                raise DownstreamError(f"{url}: status {resp.status}")

    return call


async def _client_session(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: one ClientSession for the server's life, closed on cleanup."""
    connector = aiohttp.TCPConnector(limit=CLIENT_LIMIT, limit_per_host=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        app[CLIENT_KEY] = session
        yield


_dumps = functools.partial(json.dumps, ensure_ascii=False)  # "VIP会员" as UTF-8, not \u escapes


def setup_aggregate(p: Params) -> ServerSpec:
    port = p.port()
    bind = p.ipv4("bind")
    base_s, detail_s, extra_s = p.seconds("base-ms"), p.seconds("detail-ms"), p.seconds("extra-ms")
    p.int("pool-size")  # validated, then ignored: one event loop, no pool
    backend_host = p.ipv4("backend-host")
    backend_port = p.int("backend-port")
    downstream = p.str("downstream")

    app = web.Application()
    info: dict[str, Any] = {"downstream": downstream}
    if downstream == "inproc":  # backend-host and backend-port are not used
        proofs = {kind: SleepProof() for kind in WAIT_KINDS}
        base, detail, extra = (_sleep_call(s, proofs[kind])
                               for s, kind in zip((base_s, detail_s, extra_s), WAIT_KINDS))
        app.router.add_get("/waits", _waits_handler(proofs))
        info["client_pool"] = None
    elif downstream == "http":
        if not 1 <= backend_port <= 65535:
            raise BadInput(f"--backend-port={backend_port}: want a TCP port for --downstream=http")
        # the three URLs are parsed once, here
        prefix = f"http://{backend_host}:{backend_port}/delay/"
        base, detail, extra = (_http_call(URL(f"{prefix}{p.int(n)}"))
                               for n in ("base-ms", "detail-ms", "extra-ms"))
        app.cleanup_ctx.append(_client_session)
        info["client_pool"] = {"client": "aiohttp.ClientSession", "limit": CLIENT_LIMIT,
                               "limit_per_host": "unbounded", "keepalive_timeout_s": 15}
    else:
        raise BadInput(f"--downstream={downstream}: want inproc or http")

    async def user(request: web.Request) -> web.Response:
        raw = request.match_info["id"]
        # at most 16 ASCII digits (MAX_ID has 16; int() of a huge string would be refused)
        uid = int(raw) if len(raw) <= 16 and raw.isascii() and raw.isdigit() else 0
        if not 1 <= uid <= MAX_ID:  # not a user id: the contract's 404, as an unknown path
            raise web.HTTPNotFound()
        app_ = request.app
        try:
            await base(app_)
            await asyncio.gather(detail(app_), extra(app_))  # concurrently, each in a Task
        except (aiohttp.ClientError, TimeoutError, DownstreamError) as err:
            raise web.HTTPBadGateway(text=f"downstream: {err!r}") from None
        return web.json_response({"id": uid, "name": f"User-{uid}", "age": 25, "sex": 1,
                                  "phone": "13800138000", "level": "VIP会员"}, dumps=_dumps)

    app.router.add_get("/user/{id}", user)
    return ServerSpec(app, bind, port, info)
