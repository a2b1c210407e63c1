"""The kernel's TCP counters over a measured window, from /proc/net/netstat and /proc/net/snmp.

A listen queue that overflowed (ListenOverflows, ListenDrops), retransmitted segments
(RetransSegs) or resets (OutRsts: segments sent with RST; EstabResets: connections reset
from ESTABLISHED or CLOSE-WAIT) mean some requests were refused, retried or cut: the rate
then includes the kernel's retries and the latencies its timeouts. The counters are per
network namespace, so they cover the server, the load generator and the latency backend of a
local run, and anything else on the machine meanwhile (hence a warning, not a verdict). Two
reads of two small files, before and after the window: nothing runs during it.
"""

from __future__ import annotations

from pathlib import Path

COUNTERS = (("/proc/net/netstat", "TcpExt", "ListenOverflows"),
            ("/proc/net/netstat", "TcpExt", "ListenDrops"),
            ("/proc/net/snmp", "Tcp", "RetransSegs"),
            ("/proc/net/snmp", "Tcp", "OutRsts"),
            ("/proc/net/snmp", "Tcp", "EstabResets"))
"""(file, section, counter) of every counter recorded."""

RESETS = ("OutRsts", "EstabResets")
RESETS_PER_CONNECTION = 2
"""Resets a connection open when the window ends may cause (the generator closes it with a
response still unread, or the server answers a request on it after it closed; both ends are
counted locally): this many per connection are expected, more are warned about. A server
calling the latency backend may also drop its two calls in flight when its client goes, so
such a request holds three connections (server.open_files_needed counts them the same way)."""


def _sections(text: str) -> dict[str, dict[str, int]]:
    """`Section: names…` / `Section: values…` line pairs into {section: {name: value}}."""
    found: dict[str, dict[str, int]] = {}
    lines = text.splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        section, _, rest = names.partition(":")
        keys, numbers = rest.split(), values.partition(":")[2].split()
        if len(keys) == len(numbers):
            found[section] = {k: int(v) for k, v in zip(keys, numbers)}
    return found


def read(root: Path = Path("/")) -> dict[str, int] | None:
    """The counters now (None when /proc/net cannot be read)."""
    out: dict[str, int] = {}
    cache: dict[str, dict[str, dict[str, int]]] = {}
    for file, section, name in COUNTERS:
        if file not in cache:
            try:
                cache[file] = _sections((root / file.lstrip("/")).read_text())
            except OSError:
                return None
        value = cache[file].get(section, {}).get(name)
        if value is None:
            return None
        out[name] = value
    return out


def delta(before: dict[str, int] | None, after: dict[str, int] | None) -> dict[str, int] | None:
    if before is None or after is None:
        return None
    return {name: max(0, after[name] - before[name]) for name in before}


def warning(window: dict[str, int] | None, connections: int) -> str | None:
    """A warning naming the counters that moved more than a clean window explains;
    `connections`: the TCP connections open at the window's end (the load's, and for a
    server with a latency backend, its calls in flight)."""
    if window is None:
        return None
    expected = {name: RESETS_PER_CONNECTION * connections for name in RESETS}
    moved = {name: n for name, n in window.items() if n > expected.get(name, 0)}
    if not moved:
        return None
    named = ", ".join(f"{name} {n}" for name, n in moved.items())
    return (f"kernel TCP counters moved during the measured window: {named} "
            "(/proc/net/netstat, /proc/net/snmp): connections were refused, retried or reset, "
            "so the figures include the kernel's retries (a listen backlog too small for the "
            f"connections, or other traffic on this machine; resets up to "
            f"{RESETS_PER_CONNECTION} per connection open when the window ends are expected)")
