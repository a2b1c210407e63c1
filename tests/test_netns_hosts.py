"""Tests of the three-namespace SSH fixture (tests/netns_hosts.py) that multi-host runs are
tested on: SSH logins, namespace-to-namespace TCP, the latency proxy, and a clean teardown."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import tomllib
from pathlib import Path
from typing import Iterator

import pytest

from delay_proxy import delay_proxy
from netns_hosts import ADDRESSES, TestNetwork, three_hosts

# A listener for the server namespace: answers each line with "pong <line>";
# a thread per connection.
LISTENER = r"""
import socket, sys, threading
srv = socket.create_server((sys.argv[1], int(sys.argv[2])), backlog=64)
def serve(conn):
    with conn, conn.makefile("rb") as lines:
        for line in lines:
            conn.sendall(b"pong " + line)
print("ready", flush=True)
while True:
    conn, _ = srv.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"""

# Run in the client namespace: median request/response time (ms) per target,
# over one connection each.
ROUND_TRIPS = r"""
import json, socket, statistics, sys, time
out = {}
for target in sys.argv[1:]:
    host, port = target.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        lines, times = s.makefile("rb"), []
        for i in range(11):
            start = time.perf_counter()
            s.sendall(b"ping %d\n" % i)
            assert lines.readline() == b"pong ping %d\n" % i
            times.append((time.perf_counter() - start) * 1000)
    out[target] = statistics.median(times[1:])  # the first one also pays for connection set-up
print(json.dumps(out))
"""


class Shared:
    """The module's one network, opened on first use; test_teardown closes it to check that."""

    def __init__(self, tmp: Path):
        self.tmp, self.stack, self.net = tmp, contextlib.ExitStack(), None

    def get(self) -> TestNetwork:
        if self.net is None:
            self.net = self.stack.enter_context(three_hosts(self.tmp))
        return self.net

    def close(self) -> None:
        self.net = None
        self.stack.close()


@pytest.fixture(scope="module")
def shared(netns, tmp_path_factory) -> Iterator[Shared]:
    holder = Shared(tmp_path_factory.mktemp("netns"))
    yield holder
    holder.close()


@pytest.fixture
def net(shared: Shared) -> TestNetwork:
    return shared.get()


@contextlib.contextmanager
def listener(net: TestNetwork, host: str, address: str, port: int) -> Iterator[None]:
    ns = net.hosts[host].netns
    proc = subprocess.Popen(["ip", "netns", "exec", ns, "python3", "-c", LISTENER, address,
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = proc.stdout.readline().strip()
        assert ready == "ready", f"listener did not start: {proc.stderr.read()}"
        yield
    finally:
        proc.kill()
        proc.wait()


def test_ssh_to_every_host_from_the_root_namespace(net: TestNetwork):
    for name, address in ADDRESSES.items():
        done = subprocess.run(net.ssh_argv(name) + ["cat /proc/self/net/dev >/dev/null; echo ok; "
                                                    "ip -o -4 addr show dev eth0"],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"ssh to {name}: {done.stderr}"
        assert done.stdout.splitlines()[0] == "ok"
        assert f" {address}/24 " in done.stdout, f"{name}'s shell is elsewhere: {done.stdout}"


def test_ssh_from_the_client_namespace_to_the_server(net: TestNetwork):
    done = net.exec("client", net.ssh_argv("server") + ["echo ok"], timeout=30)
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr


def test_hosts_toml_lists_every_host(net: TestNetwork, tmp_path: Path):
    extra = {"server": {"workdir": str(tmp_path / "srv"), "serve_port": 18080}}
    written = net.write_hosts_toml(tmp_path / "hosts.toml", extra)
    hosts = tomllib.loads(written.read_text())["hosts"]
    assert hosts["server"] == {"address": "198.18.0.2", "user": "root", "port": 22,
                               "key": str(net.key), "known_hosts": str(net.known_hosts),
                               "workdir": str(tmp_path / "srv"), "serve_port": 18080}
    assert "workdir" not in hosts["client"]
    assert {name: h["address"] for name, h in hosts.items()} == ADDRESSES


def test_client_namespace_reaches_a_listener_in_the_server_namespace(net: TestNetwork):
    with listener(net, "server", "198.18.0.2", 18081):
        done = net.exec("client", ["python3", "-c", ROUND_TRIPS, "198.18.0.2:18081"], timeout=30)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["198.18.0.2:18081"] < 20


def test_delay_proxy_adds_its_latency_to_each_round_trip(net: TestNetwork, toxiproxy):
    direct, proxied = "198.18.0.2:18080", "198.18.0.12:18080"
    with listener(net, "server", "198.18.0.2", 18080), \
            delay_proxy(net, "server", proxied, direct, latency_ms=20):
        done = net.exec("client", ["python3", "-c", ROUND_TRIPS, direct, proxied], timeout=30)
    assert done.returncode == 0, done.stderr
    ms = json.loads(done.stdout)
    extra = ms[proxied] - ms[direct]
    assert 0.8 * 20 <= extra < 3 * 20, f"the proxy added {extra:.1f} ms, not 20: {ms}"
    addrs = net.exec("server", ["ip", "-o", "-4", "addr", "show", "dev", "eth0"]).stdout
    assert "198.18.0.12/" not in addrs, "the proxy's address outlived the proxy"


def leftovers(sshd_pids: list[int]) -> tuple[list[str], list[int], list[str]]:
    """Namespaces, processes and interfaces of this process's test networks still there."""
    ours = re.compile(rf"cbt{os.getpid()}[a-z]")
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                           check=True).stdout
    links = [p.name for p in Path("/sys/class/net").iterdir() if ours.match(p.name)]
    return ([n for n in names.split() if ours.match(n)],
            [p for p in sshd_pids if Path(f"/proc/{p}").exists()], links)


def test_teardown_leaves_nothing_behind(shared: Shared, tmp_path: Path):
    net = shared.get()
    pids = [pid for name in net.hosts for pid in net.pids(name)]
    assert len(pids) >= 3, f"expected an sshd per namespace, found {pids}"
    shared.close()
    assert leftovers(pids) == ([], [], [])
    with pytest.raises(RuntimeError, match="boom"):  # also when the body raises
        with three_hosts(tmp_path) as again:
            pids = [pid for name in again.hosts for pid in again.pids(name)]
            raise RuntimeError("boom")
    assert leftovers(pids) == ([], [], [])
