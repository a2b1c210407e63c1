"""Several source addresses for one client's generator (hosts file: `sources`): the library of
source_bind.c, preloaded into oha, binds each connection to the next address in turn, so one
client may hold more than the ephemeral port range's ~28 000 connections to one server
address and port. Compiled on first use into the cache of the host that runs it."""

from __future__ import annotations

import socket
from pathlib import Path

from concbench.proc.c_build import compiled

SOURCE = Path(__file__).with_name("source_bind.c")
ENV = "CONCBENCH_SOURCE_ADDRS"


def library() -> Path | None:
    """The compiled library, built when missing or older than its source; None without cc."""
    return compiled(SOURCE, "source_bind.so", ("-shared", "-fPIC"), ("-ldl",))


def problem(addresses: list[str]) -> str | None:
    """Why these source addresses cannot be used on this host, or None."""
    for address in addresses:
        try:
            with socket.socket() as s:
                s.bind((address, 0))
        except OSError as err:
            return f"source address {address} is not usable on this host: {err.strerror}"
    if library() is None:
        return "cannot build the source-address library here: install cc (apt-get install gcc)"
    return None


def environment(addresses: list[str]) -> dict[str, str]:
    """What the generator's environment needs (empty without addresses)."""
    if not addresses:
        return {}
    lib = library()
    assert lib is not None  # problem() said so first
    return {"LD_PRELOAD": str(lib), ENV: ",".join(addresses)}
