"""Plain HTTP/1.1 requests from the harness (verification and health checks), stdlib only."""

from __future__ import annotations

import http.client
import socket
import time

from concbench.workloads.server import Response

HOST = "127.0.0.1"


def get(port: int, path: str, timeout_s: float, host: str = HOST) -> Response:
    """One GET on a fresh connection; raises OSError / http.client errors on failure."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection(host, port, timeout=timeout_s)
    try:
        conn.request("GET", path, headers={"Accept": "*/*"})
        resp = conn.getresponse()
        body = resp.read()
        elapsed = time.perf_counter() - started
        headers = {k.lower(): v for k, v in resp.getheaders()}
        return Response(resp.status, headers, body, elapsed)
    finally:
        conn.close()


def accepts(port: int, host: str = HOST) -> bool:
    """True when something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def free_port(host: str = HOST) -> int:
    """A port nothing listens on right now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])
