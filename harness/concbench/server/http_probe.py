"""Plain HTTP/1.1 requests from the harness (verification and health checks), stdlib only.

A request is written and its response read on a raw socket, so the harness knows exactly
how many bytes the response took on the wire (status line, headers and body): the size a
load generator's byte count is compared with (server.load_checks).
"""

from __future__ import annotations

import socket
import time

from concbench.workloads.server import Response

HOST = "127.0.0.1"
MAX_HEAD_BYTES = 64 * 1024


def get(port: int, path: str, timeout_s: float, host: str = HOST,
        close: bool = False) -> Response:
    """One GET on a fresh connection (`Connection: close` asked when `close`, as the load
    without keep-alive asks); raises OSError or ValueError (a malformed response)."""
    with Connection(host, port, timeout_s) as conn:
        return conn.get(path, close)


class Connection:
    """One client connection on which GETs go one after another (keep-alive)."""

    def __init__(self, host: str, port: int, timeout_s: float):
        self.host, self.port = host, port
        self._sock = socket.create_connection((host, port), timeout=timeout_s)
        self._reader = _Reader(self._sock)

    def get(self, path: str, close: bool = False) -> Response:
        """Raises OSError or ValueError (a malformed response, or the server closed)."""
        started = time.perf_counter()
        request = (f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAccept: */*\r\n"
                   + ("Connection: close\r\n" if close else "") + "\r\n").encode()
        self._sock.sendall(request)
        before = self._reader.consumed
        head = self._reader.until(b"\r\n\r\n", MAX_HEAD_BYTES)
        status, headers = _parse_head(head)
        body = _read_body(self._reader, headers, status)
        elapsed = time.perf_counter() - started
        return Response(status, headers, body, elapsed,
                        wire_bytes=self._reader.consumed - before)

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Reader:
    """Buffered reads from a socket, counting every byte of the response consumed."""

    def __init__(self, sock: socket.socket):
        self._sock, self._buf, self.consumed = sock, b"", 0

    def _fill(self) -> bool:
        chunk = self._sock.recv(65536)
        self._buf += chunk
        return bool(chunk)

    def until(self, marker: bytes, limit: int) -> bytes:
        while marker not in self._buf:
            if len(self._buf) > limit:
                raise ValueError(f"no end of headers within {limit} bytes")
            if not self._fill():
                raise ValueError("connection closed before the end of the headers")
        end = self._buf.index(marker) + len(marker)
        return self._take(end)

    def exactly(self, n: int) -> bytes:
        while len(self._buf) < n:
            if not self._fill():
                raise ValueError(f"connection closed {n - len(self._buf)} bytes short of "
                                 "the body's Content-Length")
        return self._take(n)

    def rest(self) -> bytes:
        while self._fill():
            pass
        return self._take(len(self._buf))

    def _take(self, n: int) -> bytes:
        out, self._buf = self._buf[:n], self._buf[n:]
        self.consumed += len(out)
        return out


def _parse_head(head: bytes) -> tuple[int, dict[str, str]]:
    lines = head.decode("iso-8859-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ValueError(f"malformed status line {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers


def _read_body(reader: _Reader, headers: dict[str, str], status: int) -> bytes:
    if status in (204, 304) or 100 <= status < 200:
        return b""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = b""
        while True:
            size = int(reader.until(b"\r\n", 1024).split(b";")[0].strip(), 16)
            if size == 0:
                reader.until(b"\r\n", MAX_HEAD_BYTES)  # no trailers expected: the final CRLF
                return body
            body += reader.exactly(size)
            reader.exactly(2)
    if "content-length" in headers:
        return reader.exactly(int(headers["content-length"]))
    return reader.rest()


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
