"""Bodies checked under load: requests the harness makes itself during the measured window.

A load generator counts bytes, not contents (oha logs each response's size, wrk a total), so
a server that sends bodies of the right length with the wrong content under load (another
request's user, a stale buffer, a cached body) passes every size check. While the window runs
the harness sends one request every SAMPLE_EVERY_S with an id of its own choosing and checks
the whole answer as verification does (the workload's check: status, headers, body, the id).

The requests go on one connection of their own, kept alive when the load keeps its
connections alive, so they ride the same server path as the load's later requests (a server
that answered only a connection's first request honestly would fail them); without keep-alive
each goes on a fresh connection, as the load's do. At most SAMPLES_MOST in the window: ≤ 2
requests/s beside loads of hundreds to hundreds of thousands, too few to move the window's
figures (each answered sample is recorded, so its share can be read off the results).

A continuous load's sampler starts with its warm-up (`begin`), not with the window
(`window`): the samples are part of the load the server warms up on. A request the load never
sends (this client's own header set, its connection) takes code paths the warm-up did not
run, and a JIT compiles them, or throws compiled code away and compiles it again, inside the
window, where the compiler's CPU counts against the window's steadiness (docs/servers.md,
"The harness's own requests and the JIT"). Where each window is a load of its own (wrk, a
capacity search's rates) the warm-up has a sampler of its own (`server.warmup.sampled`; a
wrong body there is invalid too), and the window's begins with the window.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from typing import Any

from concbench.server import http_probe
from concbench.workloads import Params
from concbench.workloads.server import Bounds, ServerSpec

SAMPLE_EVERY_S = 0.5
SAMPLES_MOST = 40
ANSWER_TIMEOUT_S = 10.0
"""How long one sample may wait: a saturated server queues it behind the load's requests."""
JOIN_S = 2.0
"""How long the window's end waits for a sample still in flight (then it is unanswered)."""
IDS = (1, 999_999)


@dataclass(frozen=True)
class Sampled:
    checked: int
    """Samples answered and checked."""
    wrong: int
    unanswered: int
    """Samples that got no answer (a timeout, a refused or closed connection): not a wrong
    body, and the load's own errors say whether the server was failing."""
    first_wrong: str | None
    before_window: int = 0
    """Samples sent before the window began (a continuous load's warm-up), in the counts
    above."""

    @property
    def sent(self) -> int:
        """Every request the sampler sent, answered or not."""
        return self.checked + self.unanswered

    @property
    def sent_in_window(self) -> int:
        return self.sent - self.before_window

    def problem(self) -> str | None:
        if not self.wrong:
            return None
        return (f"{self.wrong} of {self.checked} responses the harness sampled under load were "
                f"wrong: {self.first_wrong}")

    def to_dict(self) -> dict[str, Any]:
        return {"checked": self.checked, "wrong": self.wrong, "unanswered": self.unanswered,
                "first_wrong": self.first_wrong, "every_s": SAMPLE_EVERY_S,
                "before_window": self.before_window}


class BodySampler:
    """Begun with the load's warm-up or with the measured window, stopped at the window's
    end, read once its counters are."""

    def __init__(self, target: tuple[str, int], spec: ServerSpec, params: Params,
                 bounds: Bounds, keepalive: bool, every_s: float = SAMPLE_EVERY_S):
        self.target, self.spec, self.params, self.bounds = target, spec, params, bounds
        self.keepalive, self.every_s = keepalive, every_s
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._counts = {"checked": 0, "wrong": 0, "unanswered": 0}
        self._first_wrong: str | None = None
        self._started = False
        self._before_window: int | None = None
        """Samples sent when the window began; None until it does."""
        self._thread = threading.Thread(target=self._loop, name="body-sampler", daemon=True)

    def begin(self) -> None:
        """Start sampling (a continuous load: with its warm-up)."""
        if not self._started and not self._stop.is_set():
            self._started = True
            self._thread.start()

    def window(self) -> None:
        """The measured window begins: sampling starts now unless it already has, and
        SAMPLES_MOST counts from here."""
        with self._lock:
            self._before_window = self._counts["checked"] + self._counts["unanswered"]
        self.begin()

    def stop(self) -> None:
        """No sample starts after this (the window's end); one in flight may still finish."""
        self._stop.set()

    def end(self) -> Sampled:
        """After stop: the samples' outcome, waiting at most JOIN_S for one in flight."""
        self._stop.set()
        self._thread.join(JOIN_S)
        with self._lock:
            counts, first = dict(self._counts), self._first_wrong
        if self._thread.is_alive():
            counts["unanswered"] += 1
        return Sampled(counts["checked"], counts["wrong"], counts["unanswered"], first,
                       self._before_window or 0)

    def _in_window(self) -> int | None:
        with self._lock:
            if self._before_window is None:
                return None
            return self._counts["checked"] + self._counts["unanswered"] - self._before_window

    def _loop(self) -> None:
        conn: http_probe.Connection | None = None
        try:
            while not self._stop.wait(self.every_s):
                if (self._in_window() or 0) >= SAMPLES_MOST:
                    return
                conn = self._one(conn)
        finally:
            if conn is not None:
                conn.close()

    def _one(self, conn: http_probe.Connection | None) -> http_probe.Connection | None:
        """One sample: its outcome counted; the connection to use next (None: a fresh one)."""
        user_id = random.randint(*IDS)
        host, port = self.target
        try:
            conn = conn or http_probe.Connection(host, port, ANSWER_TIMEOUT_S)
            resp = conn.get(self.spec.path(user_id), close=not self.keepalive)
        except (OSError, ValueError):
            with self._lock:
                self._counts["unanswered"] += 1
            if conn is not None:
                conn.close()
            return None
        self._record(self.spec.check(self.params, resp, user_id))
        if not self.keepalive or resp.headers.get("connection", "").lower() == "close":
            conn.close()
            return None
        return conn

    def _record(self, problems: list[str]) -> None:
        with self._lock:
            self._counts["checked"] += 1
            if problems:
                self._counts["wrong"] += 1
                self._first_wrong = self._first_wrong or "; ".join(problems)
