"""The harness's end of one armed load generator on a client host (remote.agent_load): the
session opened and armed, the host's clock put on the harness's, the generator started on
`go`, and its outcome with every reading on the harness's clock
(server.client_merge.GeneratorRun).

The host's clock: PINGS pings, each answered with the agent's time.perf_counter(); the one
with the shortest round trip gives the offset (the agent's reading taken halfway through it,
as NTP assumes), known to within half that round trip.
"""

from __future__ import annotations

import base64
import json
import queue
import threading
import time
import zlib
from typing import Any

from concbench.remote.agent_session import agent_popen, end_session
from concbench.remote.remote_host import RemoteHost
from concbench.remote.ssh import HostError, classify
from concbench.server.client_load import GeneratorRun
from concbench.server.loadgen.base import LoadError

PINGS = 7
ARM_TIMEOUT_S = 60.0


class LoadSession:
    """One generator on one client host (server.client_load.ClientSession)."""

    def __init__(self, remote: RemoteHost | None, argv: list[str], timeout_s: float,
                 sources: tuple[str, ...] = ()):
        self.remote = remote
        self.host = remote.host.name if remote else "local"
        self.timeout_s = timeout_s
        self._messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self._stderr = b""
        self.offset_s = 0.0
        """The agent's clock minus the harness's."""
        self.uncertainty_s = 0.0
        self._started: dict[str, Any] | None = None
        self._ended = threading.Event()
        self.proc = agent_popen(remote, "load", {"argv": argv, "timeout_s": timeout_s,
                                                 "sources": list(sources)})
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if message.get("type") in ("done", "error"):
                self._ended.set()
            self._messages.put(message)
        self.proc.wait()
        self._ended.set()
        self._messages.put({"type": "lost"})

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(4096), b""):
            self._stderr = (self._stderr + chunk)[-8192:]

    def _lost(self) -> str:
        text = self._stderr.decode(errors="replace")
        if self.remote is not None and self.proc.returncode == 255:
            return f"lost contact with {self.host}: {classify(self.remote.host, text)}"
        return (f"the agent on {self.host} ended (exit {self.proc.returncode}): "
                f"{text.strip()[-300:] or 'no message'}")

    def _expect(self, kind: str, timeout_s: float) -> dict[str, Any]:
        try:
            message = self._messages.get(timeout=timeout_s)
        except queue.Empty:
            raise LoadError(f"{self.host}: no {kind} from its agent within {timeout_s:g} s") \
                from None
        if message.get("type") == "lost":
            self._messages.put(message)  # every later wait sees it too
            raise LoadError(self._lost())
        if message.get("type") == "error":
            raise LoadError(f"on {self.host}: {message['error']}")
        if message.get("type") != kind:
            raise LoadError(f"{self.host}: expected {kind} from its agent, got "
                            f"{message.get('type')!r}")
        return message

    def _send(self, cmd: str) -> float:
        assert self.proc.stdin is not None
        sent = time.perf_counter()
        try:
            self.proc.stdin.write((json.dumps({"cmd": cmd}) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            raise LoadError(self._lost()) from None
        return sent

    def arm(self) -> None:
        """Wait until the agent is armed, then measure its clock's offset."""
        self._expect("armed", ARM_TIMEOUT_S)
        best: tuple[float, float] | None = None
        for _ in range(PINGS):
            sent = self._send("ping")
            agent_t = float(self._expect("pong", 30)["t"])
            back = time.perf_counter()
            if best is None or back - sent < best[0]:
                best = (back - sent, agent_t - (sent + back) / 2)
        assert best is not None
        self.uncertainty_s, self.offset_s = best[0] / 2, best[1]

    def go(self) -> float:
        """Start the generator; when the word was sent (the harness's clock)."""
        return self._send("go")

    def wait_started(self, timeout_s: float = 30.0) -> float:
        """When the generator sent its first request (else when it was spawned), on the
        harness's clock."""
        self._started = self._expect("started", timeout_s)
        first = self._started.get("first_sent")
        return float(first if first is not None else self._started["spawned"]) - self.offset_s

    def ended(self) -> bool:
        """Whether the generator (or the session) has ended."""
        return self._ended.is_set()

    def finish(self) -> GeneratorRun:
        """Wait for the generator's end; its run on the harness's clock. LoadError when
        the session was lost."""
        if self._started is None:
            self.wait_started()
        assert self._started is not None
        done = self._expect("done", self.timeout_s + 60)
        return self._run(self._started, done)

    def _run(self, started: dict[str, Any], done: dict[str, Any]) -> GeneratorRun:
        shift = self.offset_s
        first = started.get("first_sent")
        return GeneratorRun(
            host=self.host, returncode=int(done["returncode"]),
            spawned_s=float(started["spawned"]) - shift,
            first_sent_s=None if first is None else float(first) - shift,
            ended_s=float(done["ended"]) - shift, cpu_s=done.get("cpu_s"),
            cpu_samples=tuple((t - shift, c) for t, c in done.get("cpu_samples") or ()),
            log=zlib.decompress(base64.b64decode(done["log_gz"])),
            stderr=str(done.get("stderr") or ""), clock_uncertainty_s=self.uncertainty_s)

    def close(self) -> None:
        """End the session; the agent kills a generator still running when stdin closes."""
        end_session(self.proc, 15)


def open_session(remote: RemoteHost | None, argv: list[str], timeout_s: float,
                 sources: tuple[str, ...] = ()) -> LoadSession:
    try:
        return LoadSession(remote, argv, timeout_s, sources)
    except (OSError, HostError) as err:
        raise LoadError(f"cannot start the generator's session: {err}") from None
