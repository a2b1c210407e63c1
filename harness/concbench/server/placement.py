"""Where a server run's processes go: server and load generator on disjoint CPUs.

By default the usable CPUs are split in two halves, the server on the lower half and the
generator (and the latency backend, which is light) on the upper, so on 2 cores the server
has CPU 0 as seed 004 did and the generator CPU 1. One CPU cannot be split: then nothing is
pinned and the results say so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from concbench.errors import UserError


@dataclass(frozen=True)
class Placement:
    server: tuple[int, ...]
    client: tuple[int, ...]
    backend: tuple[int, ...]

    @property
    def pinned(self) -> bool:
        return bool(self.server)

    def to_dict(self) -> dict[str, list[int]]:
        return {"server": list(self.server), "client": list(self.client),
                "backend": list(self.backend)}


UNPINNED = Placement((), (), ())
"""Nothing pinned: server, generator and backend go where the kernel puts them."""


def cpu_list(text: str, option: str) -> tuple[int, ...]:
    """'0', '0-3', '0,2,4-5' → CPU numbers (any machine's: not checked against this one)."""
    cpus: set[int] = set()
    try:
        for part in str(text).split(","):
            lo, _, hi = part.strip().partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise UserError(f"{option}={text!r}: give CPU numbers like 0 or 1-3 or 0,2") from None
    return tuple(sorted(cpus))


def parse_cpus(text: str, option: str) -> tuple[int, ...]:
    """'0', '0-3', '0,2,4-5' → CPU numbers, each one usable by this process."""
    cpus = set(cpu_list(text, option))
    usable = os.sched_getaffinity(0)
    if not cpus or not cpus <= usable:
        raise UserError(f"{option}={text!r}: usable CPUs here are "
                        f"{','.join(map(str, sorted(usable)))}")
    return tuple(sorted(cpus))


def choose(server: str | None, client: str | None) -> Placement:
    """The placement for --server-cpus / --client-cpus (None: the default split)."""
    usable = sorted(os.sched_getaffinity(0))
    if server is None and client is None:
        if len(usable) < 2:
            return Placement((), (), ())
        half = len(usable) // 2
        lower, upper = tuple(usable[:half]), tuple(usable[half:])
        return Placement(lower, upper, upper)
    s = parse_cpus(server, "--server-cpus") if server else None
    c = parse_cpus(client, "--client-cpus") if client else None
    if s is None:
        s = tuple(x for x in usable if x not in (c or ())) or tuple(usable)
    if c is None:
        c = tuple(x for x in usable if x not in s) or tuple(usable)
    if set(s) & set(c):
        raise UserError(f"--server-cpus and --client-cpus overlap ({sorted(set(s) & set(c))}): "
                        "server and load generator must not share CPUs")
    return Placement(s, c, c)


def under_quota(placement: Placement, cpus: float | None, server_cpus: str | None) -> Placement:
    """A server under a CPU quota runs on every CPU, the quota being its share, as in a
    container on a larger machine (unless --server-cpus pins it); the load generator keeps
    its own CPUs and stays outside the quota, so on a small machine the server's threads
    may run on the generator's CPUs too."""
    if cpus is None or server_cpus is not None or not placement.server:
        return placement
    return Placement((), placement.client, placement.backend)


def from_dict(d: dict | None) -> Placement | None:
    if not d:
        return None
    return Placement(tuple(d["server"]), tuple(d["client"]), tuple(d["backend"]))
