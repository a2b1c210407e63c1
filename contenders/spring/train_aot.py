"""The training run of spring-mvc-aot's JDK 25 AOT cache, under load (the build runs it).

JEP 515 keeps the method profiles the training JVM collected, so the served JVM's JIT can
compile the request path from its first requests, instead of profiling it again; a training
that only starts the context (spring.context.exit=onRefresh, Spring Boot's documented recipe)
holds start-up's classes and profiles, none of the request path's. This one starts the extracted
application with -XX:AOTCacheOutput on http-aggregate (downstream inproc, 1 ms waits: its beans
and /user/{id} as well as /hello), sends GET /hello and GET /user/{id} over a few keep-alive
connections, checks every answer, then stops it with SIGTERM (the application exits 0 and the
JVM writes the cache as it exits).

Usage: python3 train_aot.py JAVA CACHE JAR [--requests N]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CONNECTIONS = 8
READY_S = 180.0
EXIT_S = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(proc: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + READY_S
    assert proc.stdout is not None
    for line in proc.stdout:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("type") == "ready" and message.get("port") == port:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"train_aot: the application was not ready within {READY_S:g} s")
    raise SystemExit(f"train_aot: the application closed its output before its ready line "
                     f"(exit code {proc.wait(EXIT_S)})")


def load(port: int, requests: int, failures: list[str]) -> None:
    """`requests` requests on one keep-alive connection, /hello and /user/{id} in turn."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        for i in range(requests):
            path = "/hello" if i % 2 == 0 else f"/user/{1 + i % 997}"
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read()
            if resp.status != 200 or (path == "/hello" and len(body) != 200):
                failures.append(f"GET {path}: {resp.status}, {len(body)} bytes")
                return
    except OSError as err:
        failures.append(f"load: {err}")
    finally:
        conn.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("java")
    ap.add_argument("cache")
    ap.add_argument("jar")
    ap.add_argument("--requests", type=int, default=40_000)
    args = ap.parse_args()
    cache = Path(args.cache)
    cache.unlink(missing_ok=True)
    port = free_port()
    argv = [args.java, f"-XX:AOTCacheOutput={cache}", "-Djava.net.preferIPv4Stack=true",
            "-Xlog:disable", "-Xlog:all=error:stderr", "-jar", args.jar, "sequential",
            "http-aggregate", f"--port={port}", "--bind=127.0.0.1", "--base-ms=1",
            "--detail-ms=1", "--extra-ms=1", "--downstream=inproc", "--backend-host=127.0.0.1",
            "--backend-port=0", "--pool-size=1"]
    # a temporary directory of its own, as the harness gives every run (Tomcat's directories)
    scratch = tempfile.TemporaryDirectory(prefix="concbench-train-")
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": scratch.name})
    try:
        wait_ready(proc, port)
        threading.Thread(target=lambda: proc.stdout and proc.stdout.read(), daemon=True).start()
        failures: list[str] = []
        each = max(1, args.requests // CONNECTIONS)
        workers = [threading.Thread(target=load, args=(port, each, failures))
                   for _ in range(CONNECTIONS)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        if failures:
            raise SystemExit(f"train_aot: {failures[0]}")
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(EXIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        scratch.cleanup()
    if code != 0 or not cache.exists() or cache.stat().st_size == 0:
        raise SystemExit(f"train_aot: the training JVM exited {code} without writing {cache}")
    print(f"train_aot: {CONNECTIONS * each} requests, cache {cache.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
