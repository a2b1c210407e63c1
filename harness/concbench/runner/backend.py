"""The latency backend of http-aggregate's `downstream=http` (support/latency-backend).

Built once like a contender (Go, cached by content), started per run on the client CPUs,
checked before use (a 50 ms request takes at least 50 ms and not much more), counted
(GET /stats) so verification can prove three downstream calls, and measured like the server
so it is never a hidden bottleneck.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from concbench import paths
from concbench.manifest import Toolchain
from concbench.runner import http_probe, listen_check
from concbench.runner.loadgen.base import pinned
from concbench.runner.process import ProcessOutcome, Supervised

FOLDER = paths.REPO_ROOT / "support" / "latency-backend"
TOOLCHAIN = Toolchain(
    name="latency-backend", folder=FOLDER, requires=("go",),
    version_commands=(("go", "version"),),
    build_commands=(("go", "build", "-trimpath", "-o", "build/latency-backend", "."),),
    inputs=("*.go", "go.mod"), outputs=("build/latency-backend",))
READY_TIMEOUT_S = 10.0
CHECK_MS = 50
CHECK_SLACK_MS = 200


class BackendError(Exception):
    """The backend could not start or failed its check (the message says how)."""


class LatencyBackend:
    """A running backend; use as a context manager."""

    def __init__(self, exe: Path, cpus: tuple[int, ...], env: dict[str, str]):
        self.port = http_probe.free_port()
        argv = pinned([str(exe), f"--port={self.port}"], cpus)
        self.proc = Supervised(argv, FOLDER, env, on_message=self._message)
        self.cpus = cpus
        self.ready: dict[str, Any] | None = None
        self.outcome: ProcessOutcome | None = None
        """How the backend's process ended (set when the context exits)."""

    def _message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "ready":
            self.ready = message

    def __enter__(self) -> "LatencyBackend":
        try:
            self.proc.start()
        except OSError as err:
            raise BackendError(f"latency backend cannot start: {err}") from None
        try:
            self._check()
        except BaseException:
            self.close()
            raise
        return self

    def _check(self) -> None:
        import time

        deadline = time.monotonic() + READY_TIMEOUT_S
        while self.ready is None:
            if self.proc.wait(0.02) or time.monotonic() > deadline:
                raise BackendError("latency backend did not start: "
                                   + (self.proc.stderr_tail().strip()[-300:] or "no ready line"))
        problem = listen_check.bind_problem(self.port)
        if problem:
            raise BackendError(f"latency backend {problem}")
        try:
            resp = http_probe.get(self.port, f"/delay/{CHECK_MS}", timeout_s=5)
        except OSError as err:
            raise BackendError(f"latency backend does not answer: {err}") from None
        ms = resp.elapsed_s * 1000
        if resp.status != 200 or not CHECK_MS <= ms <= CHECK_MS + CHECK_SLACK_MS:
            raise BackendError(f"latency backend check failed: /delay/{CHECK_MS} gave status "
                               f"{resp.status} after {ms:.1f} ms")

    def requests(self) -> int:
        """Requests the backend has answered so far."""
        resp = http_probe.get(self.port, "/stats", timeout_s=5)
        return int(json.loads(resp.body)["requests"])

    def close(self) -> None:
        if not self.proc.exited.is_set():
            self.proc.stop()

    def __exit__(self, *exc: object) -> None:
        self.close()
        self.outcome = self.proc.outcome()


def backend_env() -> dict[str, str]:
    return dict(os.environ)
