"""One server, local (pinned, as every local run) and across three namespace hosts over SSH:
the figures docs/servers.md ("Across hosts") quotes. Root only; nothing leaves the machine.

    .venv/bin/python support/netns-hosts/compare.py CONTENDER [--param K=V ...]

It makes the three hosts of the tests (tests/netns_hosts.py: 198.18.0.2-4, sshd in each),
writes their hosts.toml (server on CPU 0, client and backend on CPU 1, like the local
placement), runs `concbench run http-hello` both ways, and prints requests/s, p50/p99 and the
round trip measured.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "harness")]

import netns_hosts  # noqa: E402


def run(args: list[str]) -> dict:
    done = subprocess.run([str(ROOT / "concbench"), "run", "http-hello", *args],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"concbench failed:\n{done.stderr[-3000:]}")
    path = next(line.split()[1] for line in (done.stdout + done.stderr).splitlines()
                if line.startswith("results: "))
    return json.loads(Path(path).read_text())


def summary(doc: dict) -> str:
    cell = doc["cells"][0]
    s = cell["stats"]
    net = doc["machine"].get("roles", {}).get("network", {}).get("client_server", {})
    return (f"{cell['status']:8} {s['requests_per_s']['median']:>10,.0f} req/s  "
            f"p50 {s['latency_p50_ms']['median']:.2f} ms  p99 {s['latency_p99_ms']['median']:.2f} ms"
            f"  n={s['requests_per_s']['n']}" + (f"  rtt {net['rtt_ms']} ms" if net else ""))


def main() -> None:
    contender, extra = sys.argv[1], sys.argv[2:]
    reason = netns_hosts.skip_reason()
    if reason:
        sys.exit(reason)
    tmp = Path(tempfile.mkdtemp(prefix="concbench-netns-"))
    args = ["--contender", contender, *extra]
    local = run(args)
    with netns_hosts.three_hosts(tmp) as net:
        hosts = net.write_hosts_toml(tmp / "hosts.toml", {
            name: {"workdir": f"/var/tmp/concbench-netns-{name}", "cpus": cpus,
                   "python": "/usr/bin/python3"}
            for name, cpus in (("server", "0"), ("client", "1"), ("backend", "1"))})
        remote = run([*args, "--server-host", "server", "--client-host", "client",
                      "--hosts-file", str(hosts)])
    print(f"local (pinned)    {summary(local)}")
    print(f"across namespaces {summary(remote)}")


if __name__ == "__main__":
    main()
