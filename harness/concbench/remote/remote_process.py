"""A server (or latency backend) on a remote host, driven through the agent's `serve`: the
same surface as server.process.LocalServer, so the server runner does not care where
its server runs.

The agent starts the process there under the native sampler, relays its JSON lines, and
answers requests (CPU for the warm-up, the measured window, the listen check, stop, the
outcome with its samples). If the SSH session is lost, the agent stops the server by itself
(its stdin closes) and this side reports the contact lost.
"""

from __future__ import annotations

import json
import queue
import signal
import threading
import time
from typing import Any, Callable

from concbench.proc.process import KILL_GRACE_S, ProcessOutcome
from concbench.proc.sampler import Sample
from concbench.remote.agent_session import end_session
from concbench.remote.remote_host import RemoteHost
from concbench.remote.ssh import HostError, classify
from concbench.server.window import WindowMeasures

START_TIMEOUT_S = 300.0
"""The agent checks the build (cached) before it starts the process."""
REQUEST_TIMEOUT_S = 60.0


class RemoteServer:
    def __init__(self, remote: RemoteHost, spec: dict[str, Any],
                 on_message: Callable[[dict[str, Any]], None] | None = None):
        self.remote = remote
        self.where = remote.host.name
        self.spec = spec
        self._on_message = on_message
        self.exited = threading.Event()
        self.pid = 0
        self.started = 0.0
        self.argv: list[str] = []
        self._limit_hit = False
        self._replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self._started = threading.Event()
        self._error: str | None = None
        self._stderr = b""
        self._lock = threading.Lock()
        self._window: dict[str, Any] | None = None
        self._lost = False
        self._proc = None

    # -- start and the reader -----------------------------------------------------------------

    def start(self) -> None:
        self._proc = self.remote.popen("serve", self.spec)
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        if not self._started.wait(START_TIMEOUT_S) or self._error:
            self.close()
            raise HostError(self._error or f"server did not start on {self.where} within "
                            f"{START_TIMEOUT_S:g} s")

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for raw in self._proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            kind = message.get("type")
            if kind == "started":
                self.pid, self.argv = message["pid"], message["argv"]
                self.started = time.perf_counter()
                self._started.set()
            elif kind == "error":
                self._error = f"on {self.where}: {message['error']}"
                self._started.set()
            elif kind == "message" and self._on_message:
                self._on_message(message["message"])
            elif kind == "exited":
                self._limit_hit = bool(message.get("limit_hit"))
                self.exited.set()
            elif kind == "reply":
                self._replies.put(message)
        self._proc.wait()
        if not self._started.is_set():
            self._error = self._ssh_problem()
            self._started.set()
        self._lost = True  # the session ended: nothing more will come
        self.exited.set()
        self._replies.put({"lost": True})

    def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        for chunk in iter(lambda: self._proc.stderr.read1(4096), b""):
            self._stderr = (self._stderr + chunk)[-16384:]

    def _ssh_problem(self) -> str:
        text = self._stderr.decode(errors="replace")
        return classify(self.remote.host, text) if self._proc and self._proc.returncode == 255 \
            else f"agent on {self.where} ended: {text.strip()[-300:] or 'no message'}"

    def _request(self, cmd: str, timeout_s: float = REQUEST_TIMEOUT_S, **kw: Any) -> dict:
        with self._lock:
            if self._lost:
                raise HostError(f"lost contact with {self.where}")
            assert self._proc is not None and self._proc.stdin is not None
            try:
                self._proc.stdin.write((json.dumps({"cmd": cmd, **kw}) + "\n").encode())
                self._proc.stdin.flush()
            except OSError:
                raise HostError(f"lost contact with {self.where}") from None
            try:
                reply = self._replies.get(timeout=timeout_s)
            except queue.Empty:
                raise HostError(f"{self.where}: no answer to {cmd} within {timeout_s:g} s") \
                    from None
            if reply.get("lost"):
                raise HostError(f"lost contact with {self.where}: {self._ssh_problem()}")
            return reply

    # -- the ServerProcess surface ------------------------------------------------------------

    def wait(self, timeout_s: float | None) -> bool:
        return self.exited.wait(timeout_s)

    def stderr_tail(self) -> str:
        try:
            return str(self._request("stderr").get("text", ""))
        except HostError as err:
            return str(err)

    @property
    def limit_hit(self) -> bool:
        return self._limit_hit

    def stop(self, sig: int = signal.SIGTERM, grace_s: float = KILL_GRACE_S) -> bool:
        try:
            return bool(self._request("stop", timeout_s=grace_s + 30, sig=int(sig),
                                      grace_s=grace_s)["clean"])
        except HostError:
            self.close()
            return False

    def cpu_probe(self) -> tuple[float, float | None]:
        reply = self._request("cpu")
        return float(reply["cpu_s"]), reply["jit_s"]

    def begin_window(self) -> None:
        self._request("begin")

    def end_window(self) -> None:
        self._request("end")

    def window_measures(self, outcome: ProcessOutcome) -> WindowMeasures | None:
        return WindowMeasures(**self._window) if self._window else None

    def bind_problem(self, port: int) -> str | None:
        return self._request("bind", port=port).get("problem")

    def outcome(self) -> ProcessOutcome:
        try:
            reply = self._request("outcome", timeout_s=REQUEST_TIMEOUT_S + KILL_GRACE_S)
        except HostError as err:
            self.close()
            return lost_outcome(str(err))
        self._window = reply.get("window")
        self.close()
        d = reply["outcome"]
        d["samples"] = [Sample(*s) for s in d["samples"]]
        d["escaped"] = tuple(d.get("escaped") or ())
        return ProcessOutcome(**d)

    def close(self) -> None:
        """End the session; the agent stops whatever is still running when its stdin closes."""
        if self._proc is not None:
            end_session(self._proc, KILL_GRACE_S + 15)


def lost_outcome(reason: str) -> ProcessOutcome:
    return ProcessOutcome(
        exit_code=None, term_signal=None, wall_s=0.0, timed_out=False, mem_limited=False,
        messages=[], protocol_errors=[], stderr_tail=reason, ru_maxrss_bytes=0, cpu_user_s=0.0,
        cpu_sys_s=0.0, ctx_voluntary=0, ctx_involuntary=0, peak_rss_sampled=0, peak_threads=0,
        final_threads=0, samples=[], marks={}, sampler_cpu_s=0.0, sampler_kind="none")
