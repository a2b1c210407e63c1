"""A fake server that follows docs/contract.md's server mode, for the harness's own tests.

The first argument picks a behaviour: good, wrongbody (199-byte hello), noready (serves but
never prints the ready line), crashload (exits after 200 requests), fast (aggregate without
its waits), ignoreterm (survives SIGTERM), slowstart (ready after 30 s), wildcard (listens on
0.0.0.0, against the contract).
"""

import json
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


def wait(ms):
    if MODE == "fast":
        return
    if P.get("downstream") == "http":
        with urllib.request.urlopen(f"http://{P['backend-host']}:{P['backend-port']}/delay/{ms}") as r:
            r.read()
    else:
        time.sleep(int(ms) / 1000)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed ACK

    def log_message(self, *args):
        pass

    def _send(self, ctype, body):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        served[0] += 1
        if MODE == "crashload" and served[0] > 200:
            print("fake server: simulated crash under load", file=sys.stderr, flush=True)
            import os
            os._exit(3)

    def do_GET(self):
        if WORKLOAD == "http-hello" and self.path == "/hello":
            n = 199 if MODE == "wrongbody" else 200
            return self._send("text/plain", b"x" * (n - 1) + b"\n")
        if WORKLOAD == "http-aggregate" and self.path.startswith("/user/"):
            uid = int(self.path[len("/user/"):])
            wait(P["base-ms"])
            t = threading.Thread(target=wait, args=(P["detail-ms"],))
            t.start()
            wait(P["extra-ms"])
            t.join()
            user = {"id": uid, "name": f"User-{uid}", "age": 25, "sex": 1,
                    "phone": "13800138000", "level": "VIP会员"}
            return self._send("application/json", json.dumps(user).encode())
        self.send_error(404)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512


def main():
    server = Server(("0.0.0.0" if MODE == "wildcard" else P["bind"], int(P["port"])), Handler)
    if MODE == "ignoreterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, lambda *_: (server.server_close(), sys.exit(0)))
    if MODE == "slowstart":
        time.sleep(30)
    if MODE != "noready":
        print(json.dumps({"type": "ready", "port": int(P["port"]), "runtime": {"cpus": 1}}),
              flush=True)
    server.serve_forever()


main()
