"""A fake server that follows docs/contract.md's server mode, for the harness's own tests.

The first argument picks a behaviour: good, wrongbody (199-byte hello), noready (serves but
never prints the ready line), crashload (exits after 200 requests), fast (aggregate without
its waits), ignoreterm (survives SIGTERM), slowstart (ready after 30 s), wildcard (listens on
0.0.0.0, against the contract).

Cheats that pass the verification request and do less under load (tests/test_load_verification.py):
the first request on a connection is answered honestly (the harness verifies on a fresh
connection), later ones on the same connection are not: shortbody (hello: a 2-byte body),
nocontent (hello: 204 No Content), created (hello: 201 Created, the right body),
delay0 (aggregate over http: three calls to /delay/0 and the waits slept in-process),
fastlater (aggregate: no waits at all), swapbody (hello: 199 'y's and a newline; aggregate:
another user of the same id length: bodies of the right size with the wrong content). Others:
coalesce (aggregate over http: one downstream call per delay value serves every request
waiting for it at the time), rotbody (hello: after 300 responses the body turns to 'y's, same
size), cpus (its ready line claims 3 CPUs), backlog (a listen backlog of 1 and a slow accept:
the kernel's listen queue overflows under load), epollctl (two epoll_ctl calls per request,
which the good server never makes: tests/test_syscall_counts.py), burn (hello: burns
BURN_CPU_S of its own thread's CPU per request: tests/test_rate_curve.py), stall (hello: one
request at a time, each holding the server STALL_S: at most 1/STALL_S requests/s),
slowing (hello: each answer waits SLOWING_PER_S times the seconds since the first request,
so the rate falls steadily: tests/test_continuous_load.py), capped (accepts CAPPED
connections, then leaves the rest in its listen queue, unanswered, as a server with a
connection limit of its own does), hiccup (hello: once, when request HICCUP_AT arrives
(environment variable FAKE_HICCUP_AT), every request waits until HICCUP_S after it: one stall
placed at a known moment of a load of known rate: tests/test_rate_point.py), emptysome
(hello: every EMPTY_EVERY-th response under load a 200 with an empty body: the mean bytes per
response moves by less than its slack), coldstart (hello: each of the first COLD_REQUESTS
requests waits COLD_S first, as a JVM runs its first requests interpreted: a peak probed cold
is a fraction of the warm one: tests/test_rate_curve.py), lateready (prints its ready line
READY_DELAY_S after it starts: a known start-up, tests/test_startup_known.py), onesleep
(aggregate, in-process: one wait of base + max(detail, extra) in place of three, which the
latency floor passes and the wait counts do not: tests/test_waits_proof.py; onesleepall: the
same from the first request, verification's included). Every mode counts its in-process waits
as they happened and serves them at GET /waits (docs/contract.md), except nowaits (404: a
server without the proof) and fast, whose counts lie (each wait as asked, none made: the
latency floor still catches it).
"""

import json
import select
import os
import signal
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PARAMS = {"http-hello": ["port", "bind", "pool-size"],
          "http-aggregate": ["port", "bind", "base-ms", "detail-ms", "extra-ms", "downstream",
                             "backend-host", "backend-port", "pool-size"]}
MODE = sys.argv[1]
served = [0]
EPOLL = select.epoll()
BURN_CPU_S = 0.003
STALL_S = 0.01
STALL = threading.Lock()
SLOWING_PER_S = 0.002
FIRST = []
CAPPED = 4
HICCUP_S = 0.2
HICCUP_AT = int(os.environ.get("FAKE_HICCUP_AT", "0"))
HICCUP = {"arrived": 0, "until": 0.0}
HICCUP_LOCK = threading.Lock()
EMPTY_EVERY = 100
COLD_REQUESTS, COLD_S = 600, 0.04
READY_DELAY_S = 0.6
LATER_ON_CONNECTION = ("shortbody", "nocontent", "created", "delay0", "fastlater", "swapbody",
                       "onesleep")
"""Modes that cheat from the second request on a connection on."""


def fail(message, code=2):
    print(message, file=sys.stderr)
    sys.exit(code)


def parse(argv):
    if not argv or argv[0] not in PARAMS:
        fail(f"unknown workload {argv[:1]}")
    values = {}
    for arg in argv[1:]:
        key, _, value = arg[2:].partition("=")
        if not arg.startswith("--") or key not in PARAMS[argv[0]]:
            fail(f"unknown parameter {arg}")
        values[key] = value
    if set(values) != set(PARAMS[argv[0]]):
        fail(f"missing parameters {sorted(set(PARAMS[argv[0]]) - set(values))}")
    return argv[0], values


WORKLOAD, P = parse(sys.argv[2:])


def call_backend(ms):
    with urllib.request.urlopen(f"http://{P['backend-host']}:{P['backend-port']}/delay/{ms}") as r:
        r.read()


class Coalescer:
    """One downstream call per delay value in flight; later callers wait for it and sleep
    the rest of their wait in-process, so no response beats the latency floor (the cheat)."""

    def __init__(self):
        self.lock, self.flights = threading.Lock(), {}

    def wait(self, ms):
        started = time.perf_counter()
        with self.lock:
            done = self.flights.get(ms)
            leader = done is None
            if leader:
                done = self.flights[ms] = threading.Event()
        if leader:
            call_backend(ms)
            with self.lock:
                del self.flights[ms]
            done.set()
            return
        done.wait()
        time.sleep(max(0.0, int(ms) / 1000 - (time.perf_counter() - started)))


COALESCER = Coalescer()
PROVES_WAITS = MODE != "nowaits"
WAITS = {kind: [0, None] for kind in ("base", "detail", "extra")}
"""Per kind: waits made, the shortest in µs."""
WAITS_LOCK = threading.Lock()


def counted_wait(kind, ms, cheat=False):
    """wait(), timed on the monotonic clock and counted by kind (in-process waits only)."""
    started = time.monotonic()
    wait(ms, cheat)
    if P.get("downstream") == "http":
        return
    took_us = int(ms) * 1000 if MODE == "fast" else int((time.monotonic() - started) * 1e6)
    with WAITS_LOCK:
        seen = WAITS[kind]
        seen[0] += 1
        seen[1] = took_us if seen[1] is None else min(seen[1], took_us)


def wait(ms, cheat=False):
    if MODE == "fast" or (cheat and MODE == "fastlater"):
        return
    if P.get("downstream") == "http":
        if cheat and MODE == "delay0":
            call_backend(0)
            time.sleep(int(ms) / 1000)
        elif MODE == "coalesce":
            COALESCER.wait(ms)
        else:
            call_backend(ms)
    else:
        time.sleep(int(ms) / 1000)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed ACK

    def log_message(self, *args):
        pass

    def _send(self, ctype, body, status=200):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        served[0] += 1
        if MODE == "crashload" and served[0] > 200:
            print("fake server: simulated crash under load", file=sys.stderr, flush=True)
            os._exit(3)

    def _hello(self, cheat):
        if MODE == "burn":
            until = time.thread_time() + BURN_CPU_S
            while time.thread_time() < until:
                pass
        if MODE == "stall":
            with STALL:
                time.sleep(STALL_S)
        if MODE == "hiccup":
            with HICCUP_LOCK:
                HICCUP["arrived"] += 1
                if HICCUP["arrived"] == HICCUP_AT:
                    HICCUP["until"] = time.monotonic() + HICCUP_S
            time.sleep(max(0.0, HICCUP["until"] - time.monotonic()))
        if MODE == "coldstart" and served[0] < COLD_REQUESTS:
            time.sleep(COLD_S)
        if MODE == "slowing":
            FIRST[:] = FIRST or [time.monotonic()]
            time.sleep(SLOWING_PER_S * (time.monotonic() - FIRST[0]))
        n = 199 if MODE == "wrongbody" else 200
        fill = b"y" if (MODE == "rotbody" and served[0] > 300) or (cheat and MODE == "swapbody") \
            else b"x"
        body = fill * (n - 1) + b"\n"
        if MODE == "emptysome" and served[0] > 50 and served[0] % EMPTY_EVERY == 0:
            body = b""
        if cheat and MODE == "shortbody":
            return self._send("text/plain", b"x\n")
        if cheat and MODE == "nocontent":
            self.send_response(204)
            self.end_headers()
            served[0] += 1
            return None
        return self._send("text/plain", body, 201 if cheat and MODE == "created" else 200)

    def do_GET(self):
        if MODE == "epollctl":  # EPOLL_CTL_ADD then EPOLL_CTL_DEL: 2 calls per request
            EPOLL.register(self.connection.fileno(), select.EPOLLIN)
            EPOLL.unregister(self.connection.fileno())
        self.on_connection = getattr(self, "on_connection", 0) + 1
        cheat = MODE in LATER_ON_CONNECTION and self.on_connection > 1
        if WORKLOAD == "http-hello" and self.path == "/hello":
            return self._hello(cheat)
        if WORKLOAD == "http-aggregate" and self.path.startswith("/user/"):
            uid = int(self.path[len("/user/"):])
            if (cheat and MODE == "onesleep") or MODE == "onesleepall":
                counted_wait("base", int(P["base-ms"]) + max(int(P["detail-ms"]),
                                                             int(P["extra-ms"])))
            else:
                counted_wait("base", P["base-ms"], cheat)
                t = threading.Thread(target=counted_wait, args=("detail", P["detail-ms"], cheat))
                t.start()
                counted_wait("extra", P["extra-ms"], cheat)
                t.join()
            if cheat and MODE == "swapbody":  # the last digit changed: the same length
                uid = uid - uid % 10 + (uid + 1) % 10
            user = {"id": uid, "name": f"User-{uid}", "age": 25, "sex": 1,
                    "phone": "13800138000", "level": "VIP会员"}
            return self._send("application/json", json.dumps(user).encode())
        if WORKLOAD == "http-aggregate" and self.path == "/waits" and PROVES_WAITS:
            with WAITS_LOCK:
                doc = {k: {"count": n, "min_us": m} for k, (n, m) in WAITS.items()}
            return self._send("application/json", json.dumps(doc).encode())
        self.send_error(404)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1 if MODE == "backlog" else 512
    accepted = 0

    def get_request(self):
        if MODE == "backlog":
            time.sleep(0.05)  # accept slowly: connections pile up in a queue of one
        if MODE == "capped" and self.accepted >= CAPPED + 1:  # the harness's probe, then CAPPED
            while True:
                time.sleep(3600)
        self.accepted += 1
        return super().get_request()


def main():
    server = Server(("0.0.0.0" if MODE == "wildcard" else P["bind"], int(P["port"])), Handler)
    if MODE == "ignoreterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, lambda *_: (server.server_close(), sys.exit(0)))
    if MODE == "slowstart":
        time.sleep(30)
    if MODE == "lateready":
        time.sleep(READY_DELAY_S)
    if MODE != "noready":
        usable = len(os.sched_getaffinity(0))
        cpus = usable + 2 if MODE == "cpus" else usable
        print(json.dumps({"type": "ready", "port": int(P["port"]), "runtime": {"cpus": cpus}}),
              flush=True)
    server.serve_forever()


main()
