"""Which addresses a server listens on, from /proc/net/tcp and tcp6: the contract says
127.0.0.1 only, and a server under test that listens on every interface is refused."""

from __future__ import annotations

import ipaddress
from pathlib import Path

LISTEN = "0A"
LOOPBACK_ONLY = {"127.0.0.1", "::ffff:127.0.0.1"}


def _address(hex_addr: str) -> str:
    raw = bytes.fromhex(hex_addr)
    if len(raw) == 4:  # IPv4, in host (little-endian) order
        return str(ipaddress.IPv4Address(raw[::-1]))
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))  # four host-order words
    address = ipaddress.IPv6Address(words)
    if address.ipv4_mapped is not None:  # an IPv4 address on a dual-stack socket
        return f"::ffff:{address.ipv4_mapped}"
    return str(address)


def listening(port: int, proc_net: Path = Path("/proc/net")) -> list[str]:
    """Addresses with a socket in LISTEN state on this TCP port (any process)."""
    found = []
    for table in ("tcp", "tcp6"):
        try:
            lines = (proc_net / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state = fields[1], fields[3]
            hex_addr, _, hex_port = local.partition(":")
            if state == LISTEN and int(hex_port, 16) == port:
                found.append(_address(hex_addr))
    return found


def bind_problem(port: int, bind: str = "127.0.0.1") -> str | None:
    """Why the server's listening sockets break the contract (listen on `bind` only, the
    address the harness gave: 127.0.0.1 locally), or None."""
    allowed = LOOPBACK_ONLY if bind == "127.0.0.1" else {bind, f"::ffff:{bind}"}
    wider = [a for a in listening(port) if a not in allowed]
    if wider:
        return (f"listens on {', '.join(sorted(set(wider)))} port {port}: the contract allows "
                f"{bind} only (servers under test must not be reachable from other networks)")
    return None
