"""How many of the generator's connections the server really holds, from the kernel's sockets.

The generator counts a connection as open once its SYN-ACK came, whether or not the server
ever accepts it: a server that stops accepting at a limit of its own (Tomcat's
max-connections) leaves the rest in its accept queue, or, once that is full, half-open (the
kernel drops their final ACK), their requests never answered, and no error is counted. So the
connections held are the server's established sockets on its address (ss, state established,
that source) less the listening socket's accept queue (Recv-Q). A server on another host is
counted from the generator's side (its established connections to the server's address),
which cannot see the server's queue: a weaker count, said in the record (`side`).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Held:
    asked: int
    established: int
    """Sockets in state ESTABLISHED: the server's on its address, or (server elsewhere) the
    generator's to it."""
    accept_queue: int | None
    """Connections waiting to be accepted (None: the listening socket was not found)."""
    side: str = "server"
    """Whose sockets were counted: "server" or "generator"."""

    @property
    def held(self) -> int:
        return self.established - (self.accept_queue or 0)

    def problem(self) -> str | None:
        if self.held >= self.asked:
            return None
        queued = (f", {self.accept_queue} waiting unaccepted in its listen queue"
                  if self.accept_queue else "")
        return (f"the server held {self.held} of the {self.asked} connections asked for "
                f"({self.established} established on the {self.side}'s side{queued}): the "
                "requests on the rest were never served (a connection limit of its own, or an "
                "accept loop slower than the load lets it be)")

    def to_dict(self) -> dict[str, Any]:
        return {"asked": self.asked, "established": self.established,
                "accept_queue": self.accept_queue, "held": self.held, "side": self.side}


PACE_S = 10.0
"""The span over which the lead-in's pace of accepting is taken."""
PACE_MARGIN = 3.0
"""How much faster than that pace the server is allowed to become before the cap."""


@dataclass
class HeldTrend:
    """The held count over a lead-in, and whether the server can still hold every connection
    by the lead-in's end.

    A server that serves the connections it has accepted while the rest wait in its listen
    queue accepts them at a pace of its own (a few dozen a second for an accept loop that
    competes with serving on one CPU), in jumps when SYN retransmits bring a batch back. When
    even PACE_MARGIN times its pace over the last PACE_S would leave connections unheld at the
    cap, waiting out the cap only delays the same verdict."""

    cap_s: float
    """The lead-in's end, in seconds into the load (the readings' clock)."""
    readings: list[tuple[float, int]] = field(default_factory=list)

    def add(self, at_s: float, held: int) -> None:
        self.readings.append((at_s, held))

    def pace_per_s(self) -> float | None:
        """Connections gained per second over the last PACE_S; None before PACE_S of readings."""
        now, held = self.readings[-1]
        before = [(t, h) for t, h in self.readings if t <= now - PACE_S]
        if not before:
            return None
        then, was = before[-1]
        return max(0.0, (held - was) / (now - then))

    def out_of_reach(self, asked: int) -> bool:
        """Some connections are still unheld, and PACE_MARGIN × the pace would not hold them
        by cap_s."""
        if not self.readings or self.readings[-1][1] >= asked:
            return False
        pace = self.pace_per_s()
        if pace is None:
            return False
        now, held = self.readings[-1]
        return held + PACE_MARGIN * pace * max(0.0, self.cap_s - now) < asked

    def pace_text(self, asked: int) -> str:
        now, held = self.readings[-1]
        pace = self.pace_per_s() or 0.0
        return (f"{held} held after {now:.0f} s of load, gaining {pace:.0f} a second over the "
                f"last {PACE_S:g} s: even at {PACE_MARGIN:g} times that pace the other "
                f"{asked - held} would not be held by the lead-in's end at {self.cap_s:g} s")

    def to_list(self) -> list[list[float]]:
        """[seconds into the load, held] per reading, for the run's record."""
        return [[round(t, 2), h] for t, h in self.readings]


def _ss(args: list[str]) -> list[str] | None:
    if shutil.which("ss") is None:
        return None
    try:
        done = subprocess.run(["ss", "-tnH", *args], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.splitlines() if done.returncode == 0 else None


def count(target: tuple[str, int], asked: int, server_here: bool = True) -> Held | None:
    """The sockets now; None when ss is missing or fails."""
    host, port = target
    side = "src" if server_here else "dst"
    established = _ss(["state", "established", side, f"{host}:{port}"])
    listening = _ss(["state", "listening", "src", f"{host}:{port}"]) if server_here else []
    if established is None or listening is None:
        return None
    queue = None
    for line in listening:
        fields = line.split()
        if len(fields) >= 2 and fields[0].isdigit():
            queue = int(fields[0]) if queue is None else queue + int(fields[0])
    return Held(asked, len(established), queue, "server" if server_here else "generator")
