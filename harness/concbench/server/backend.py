"""The latency backend of http-aggregate's `downstream=http` (support/latency-backend).

Built once like a contender (Go, cached by content), started per run on the client CPUs,
checked before use (a 50 ms request takes at least 50 ms and not much more), counted
(GET /stats: the requests served and the sum of their delays) so verification can prove
three downstream calls and the measured window the calls and delays of every response
(server.load_checks), and measured like the server so it is never a hidden bottleneck.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from concbench import paths
from concbench.errors import HostError
from concbench.manifest import Toolchain
from concbench.proc.process import ProcessOutcome
from concbench.server import http_probe
from concbench.server.sites import Site

FOLDER = paths.REPO_ROOT / "support" / "latency-backend"
TOOLCHAIN = Toolchain(
    name="latency-backend", folder=FOLDER, requires=("go",),
    version_commands=(("go", "version"),),
    build_commands=(("go", "build", "-trimpath", "-o", "build/latency-backend", "."),),
    inputs=("*.go", "go.mod"), outputs=("build/latency-backend",))
READY_TIMEOUT_S = 10.0
CHECK_MS = 50
CHECK_SLACK_MS = 200


@dataclass(frozen=True)
class BackendCount:
    """The backend's totals since it started."""

    requests: int
    delay_ms: int
    """Σ of the delays it served, in ms (a /delay/0 call adds nothing)."""

    def since(self, before: "BackendCount") -> "BackendCount":
        return BackendCount(self.requests - before.requests, self.delay_ms - before.delay_ms)


class BackendError(Exception):
    """The backend could not start or failed its check (the message says how)."""


class LatencyBackend:
    """A running backend on its site (this machine or a remote host); a context manager."""

    def __init__(self, exe: Path | None, site: Site, env: dict[str, str]):
        try:
            self.port = site.free_port()
        except HostError as err:
            raise BackendError(f"latency backend: {err}") from None
        self.site = site
        self.target = site.reach(self.port)
        """Where the server (and the harness) reach the backend."""
        args = [f"--port={self.port}", f"--bind={site.bind}"]
        self.proc = site.start([str(exe), *args], FOLDER, env, {"kind": "backend", "args": args},
                               None, on_message=self._message)
        self.ready: dict[str, Any] | None = None
        self.outcome: ProcessOutcome | None = None
        """How the backend's process ended (set when the context exits)."""

    def _message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "ready":
            self.ready = message

    def __enter__(self) -> "LatencyBackend":
        try:
            self.proc.start()
        except (OSError, HostError) as err:
            raise BackendError(f"latency backend cannot start: {err}") from None
        try:
            self._check()
        except BaseException:
            self.close()
            raise
        return self

    def _check(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while self.ready is None:
            if self.proc.wait(0.02) or time.monotonic() > deadline:
                raise BackendError("latency backend did not start: "
                                   + (self.proc.stderr_tail().strip()[-300:] or "no ready line"))
        problem = self.proc.bind_problem(self.port)
        if problem:
            raise BackendError(f"latency backend {problem}")
        try:
            resp = http_probe.get(self.target[1], f"/delay/{CHECK_MS}", timeout_s=5,
                                  host=self.target[0])
        except OSError as err:
            raise BackendError(f"latency backend does not answer: {err}") from None
        ms = resp.elapsed_s * 1000
        if resp.status != 200 or not CHECK_MS <= ms <= CHECK_MS + CHECK_SLACK_MS:
            raise BackendError(f"latency backend check failed: /delay/{CHECK_MS} gave status "
                               f"{resp.status} after {ms:.1f} ms")

    def count(self) -> BackendCount:
        """Requests the backend has answered so far, and the sum of their delays."""
        resp = http_probe.get(self.target[1], "/stats", timeout_s=5, host=self.target[0])
        stats = json.loads(resp.body)
        return BackendCount(int(stats["requests"]), int(stats["delay_ms"]))

    def requests(self) -> int:
        return self.count().requests

    def close(self) -> None:
        if not self.proc.exited.is_set():
            self.proc.stop()

    def __exit__(self, *exc: object) -> None:
        self.close()
        self.outcome = self.proc.outcome()
