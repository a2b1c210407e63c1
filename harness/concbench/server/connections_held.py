"""How many of the generator's connections the server really holds, from the kernel's sockets.

The generator counts a connection as open once the kernel has completed its handshake, which
the kernel does for a listening socket's backlog whether or not the server ever accepts it: a
server that stops accepting at a limit of its own (Tomcat's max-connections) leaves the rest
waiting in its accept queue, their requests never answered, and no error is counted. So the
connections held are the generator's established connections to the server's address (ss,
state established, that destination) less the listening socket's accept queue (ss -l:
Recv-Q). Both are read on this machine, so the count needs the generator and the server here.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Held:
    asked: int
    established: int
    """The generator's connections to the server in state ESTABLISHED."""
    accept_queue: int | None
    """Connections waiting to be accepted (None: the listening socket was not found)."""

    @property
    def held(self) -> int:
        return self.established - (self.accept_queue or 0)

    def problem(self) -> str | None:
        if self.held >= self.asked:
            return None
        queued = (f", {self.accept_queue} waiting unaccepted in its listen queue"
                  if self.accept_queue else "")
        return (f"the server held {self.held} of the {self.asked} connections asked for "
                f"({self.established} established by the generator{queued}): the requests on "
                "the rest were never served; raise the server's connection limit")

    def to_dict(self) -> dict[str, Any]:
        return {"asked": self.asked, "established": self.established,
                "accept_queue": self.accept_queue, "held": self.held}


def _ss(args: list[str]) -> list[str] | None:
    if shutil.which("ss") is None:
        return None
    try:
        done = subprocess.run(["ss", "-tnH", *args], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.splitlines() if done.returncode == 0 else None


def count(target: tuple[str, int], asked: int) -> Held | None:
    """The sockets now; None when ss is missing or fails."""
    host, port = target
    established = _ss(["state", "established", "dst", f"{host}:{port}"])
    listening = _ss(["state", "listening", "src", f"{host}:{port}"])
    if established is None or listening is None:
        return None
    queue = None
    for line in listening:
        fields = line.split()
        if len(fields) >= 2 and fields[0].isdigit():
            queue = int(fields[0]) if queue is None else queue + int(fields[0])
    return Held(asked, len(established), queue)
