"""Asking a real server on 127.0.0.1 what it answers, for the tests that check the contract's
answers directly (tests/test_*_servers.py, tests/test_error_answers.py)."""

from __future__ import annotations

import http.client
import socket


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port: int, path: str, method: str = "GET") -> tuple[int, str, bytes]:
    """(status, content type, body) of one request on a connection of its own."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path)
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type", ""), resp.read()
    finally:
        conn.close()


def twice_on_one_connection(port: int, path: str) -> list[int]:
    """Two requests on one keep-alive connection: a server that closes it after the first
    answer without saying so fails the second (http.client does not reconnect by itself)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        statuses, sockets = [], []
        for _ in range(2):
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            assert not resp.will_close, (path, resp.getheaders())
            statuses.append(resp.status)
            sockets.append(conn.sock)
        assert sockets[0] is sockets[1]
        return statuses
    finally:
        conn.close()


def pipelined(port: int, batches: list[list[str]], timeout_s: float = 20.0) -> list[int]:
    """The statuses of GETs on one connection, each batch written at once (pipelined), the
    next batch once the previous one's answers are read. A server that stops reading its
    connection raises TimeoutError."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
        reader = sock.makefile("rb")
        statuses = []
        for batch in batches:
            sock.sendall(b"".join(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
                                  for path in batch))
            statuses += [_read_answer(reader) for _ in batch]
        return statuses


def _read_answer(reader) -> int:
    """One response with a Content-Length (every answer of the contract has one)."""
    status = int(reader.readline().split()[1])
    length = 0
    while (line := reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    reader.read(length)
    return status
