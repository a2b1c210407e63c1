"""One server loaded by one client host, then by three at once (the load split over them):
the figures docs/servers.md ("Load from several client hosts") quotes. Root only; nothing
leaves the machine.

    .venv/bin/python support/netns-hosts/clients.py CONTENDER CONNECTIONS [RUNS]

It makes the namespace hosts of the tests (tests/netns_hosts.py with two more clients:
198.18.0.2-6, sshd in each), lets the server's namespace queue a connection burst
(somaxconn 65535, that namespace only), writes their hosts.toml (server on CPU 0, every client
on CPU 1; each client's oha from this repository's cache), runs `concbench run http-hello`
with one client and with three, and prints requests/s, p50/p99, the generators' CPU and the
start skew of each run (results/<run-id> keeps them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "harness")]

import netns_hosts  # noqa: E402

CLIENTS = ("client", "client2", "client3")


def hosts_toml(net: netns_hosts.TestNetwork, tmp: Path) -> Path:
    extra = {n: {"workdir": str(tmp / f"w-{n}"), "python": "/usr/bin/python3",
                 "cpus": "0" if n == "server" else "1"} for n in net.hosts}
    for name in CLIENTS:
        cache = tmp / f"w-{name}" / ".concbench-cache"
        cache.mkdir(parents=True, exist_ok=True)
        (cache / "tools").symlink_to(ROOT / ".concbench-cache" / "tools")
    net.exec("server", ["sysctl", "-qw", "net.core.somaxconn=65535",
                        "net.ipv4.tcp_max_syn_backlog=65535"], check=True)
    return net.write_hosts_toml(tmp / "hosts.toml", extra)


def run(args: list[str], results: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "harness")}
    done = subprocess.run([sys.executable, "-m", "concbench", "run", "http-hello", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode not in (0, 1):
        sys.exit(f"concbench failed:\n{done.stderr[-3000:]}")
    latest = sorted(results.glob("*/results.json"))[-1]
    return json.loads(latest.read_text())


def show(label: str, doc: dict) -> None:
    for cell in doc["cells"]:
        print(f"{label}: {cell['status']} {cell.get('reason') or ''}")
        for r in cell["runs"]:
            load = r.get("load") or {}
            lat = load.get("latency_ms") or {}
            clients = load.get("clients") or {}
            gens = ", ".join(f"{g['host']} {g['cpu_percent']:.0f}%"
                             for g in clients.get("generators", []))
            print(f"  {r['status']}: {load.get('requests_per_s', 0):,.0f} req/s, p50 "
                  f"{lat.get('p50')} ms, p99 {lat.get('p99')} ms, gen CPU "
                  f"{gens or load.get('cpu_percent')}, skew {clients.get('start_skew_ms')} ms, "
                  f"opened in window {load.get('connections_opened_in_window')}")


def main() -> None:
    contender, connections = sys.argv[1], sys.argv[2]
    runs = sys.argv[3] if len(sys.argv) > 3 else "3"
    with tempfile.TemporaryDirectory(prefix="concbench-clients-") as tmp_name:
        tmp = Path(tmp_name)
        with netns_hosts.three_hosts(tmp / "net", more_clients=2) as net:
            hosts = hosts_toml(net, tmp)
            base = ["--contender", contender, "--param", f"connections={connections}",
                    "--param", "duration-s=10", "--param", "warmup-s=10", "--param",
                    "loadgen=oha", "--runs", runs, "--server-host", "server",
                    "--hosts-file", str(hosts)]
            for label, clients in (("one client", CLIENTS[:1]), ("three clients", CLIENTS)):
                args = base + [a for c in clients for a in ("--client-host", c)]
                show(label, run(args, ROOT / "results"))


if __name__ == "__main__":
    main()
