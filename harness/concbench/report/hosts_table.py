"""The hosts of a multi-host plan (results' machine.roles): which host had which role, what
machine it is, and the network measured between them, as rows for the Markdown and HTML
reports."""

from __future__ import annotations

from typing import Any

from concbench.resultset.model import ResultsDocument

HEADERS = ("role", "host", "address", "CPUs", "machine", "network")


def _machine(m: dict[str, Any] | None) -> str:
    if not m or "error" in m:
        return (m or {}).get("error", "?")
    return (f"{m.get('cpu_model', '?')}, {m.get('logical_cores', '?')} cores, "
            f"{(m.get('memory_bytes') or 0) / 2**30:.0f} GiB, kernel {m.get('kernel', '?')}")


def _network(role: str, net: dict[str, Any]) -> str:
    key = {"server": "client_server", "backend": "server_backend"}.get(role)
    found = net.get(key or "", {})
    if not found:
        return ""
    if "error" in found:
        return f"{found['from']} → {found['to']}: {found['error']}"
    text = f"round trip from {found['from']}: {found['rtt_ms']} ms (median of {found['n']})"
    link = net.get("client_server_throughput", {}) if role == "server" else {}
    if link.get("bits_per_second"):
        text += f"; iperf3 {link['bits_per_second'] / 1e9:.2f} Gbit/s"
    return text


def _client_network(name: str, net: dict[str, Any]) -> str:
    """One of several clients: its own round trip to the server."""
    found = net.get("clients_server", {}).get(name, {})
    if not found:
        return ""
    if "error" in found:
        return f"{found['from']} → {found['to']}: {found['error']}"
    return f"round trip to {found['to']}: {found['rtt_ms']} ms (median of {found['n']})"


def _sites(roles: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(role, site) per row: every client of a load split over several."""
    found = []
    for role, site in roles.items():
        if role == "clients":
            continue
        if role == "client" and roles.get("clients"):
            found += [("client", c) for c in roles["clients"]]
        else:
            found.append((role, site))
    return found


def rows(doc: ResultsDocument) -> list[tuple[str, ...]]:
    roles = doc.machine.get("roles")
    if not roles:
        return []
    hosts, net = roles.get("hosts", {}), roles.get("network", {})
    several = bool(roles.get("roles", {}).get("clients"))
    found = []
    for role, site in _sites(roles.get("roles", {})):
        host = hosts.get(site.get("host"), {})
        machine = host.get("machine") if host else None
        network = _client_network(site.get("host", ""), net) if several and role == "client" \
            else _network(role, net)
        found.append((role, site.get("host", "local"), site.get("address", "127.0.0.1"),
                      ",".join(map(str, site.get("cpus") or [])) or "all",
                      _machine(machine) if host else "this machine",
                      host.get("problem") or network))
    return found


def markdown(doc: ResultsDocument, level: str = "###") -> list[str]:
    found = rows(doc)
    if not found:
        return []
    return [f"{level} Hosts", "", "| " + " | ".join(HEADERS) + " |",
            "|" + "|".join("---" for _ in HEADERS) + "|",
            *("| " + " | ".join(r) + " |" for r in found), ""]
