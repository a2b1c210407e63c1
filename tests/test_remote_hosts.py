"""Server runs across hosts over SSH, on three hosts made of network namespaces
(tests/netns_hosts.py): roles on their hosts, the network measured, a known delay seen in the
round trip and in the latency, failures recorded with a clear reason, and nothing left running
in any namespace. Root only (the `netns` fixture says why not); wrk is installed by its fixture.
No traffic leaves the machine (198.18.0.0/24 on a bridge of this machine only)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import delay_proxy
import netns_hosts

LOAD = ["--param", "connections=4", "--param", "duration-s=2", "--param", "warmup-s=0",
        "--param", "loadgen=wrk", "--runs", "1"]
"""wrk: the hosts have Debian's (oha, a crate, is built on this machine only); a generator on
another host runs one process per window either way (server.continuous_run)."""
DELAY_MS = 20
PROXY = "198.18.0.12"
SERVE_PORT = 18080
PROXY_PORT = 18081


@pytest.fixture(scope="module")
def net(netns, wrk, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("netns")
    with netns_hosts.three_hosts(tmp) as network:
        yield network


@pytest.fixture(scope="module")
def hosts_file(net, tmp_path_factory) -> Path:
    """Each host with its own workdir (the namespaces share one file system), the server on
    CPU 0 and the client and backend on CPU 1, plus `server-fixed` (a fixed serve_port) and
    `server-proxied` (the same, reached through a delaying proxy)."""
    tmp = tmp_path_factory.mktemp("hosts")
    path = net.write_hosts_toml(tmp / "hosts.toml", {
        "server": {"workdir": str(tmp / "w-server"), "cpus": "0", "python": "/usr/bin/python3"},
        "client": {"workdir": str(tmp / "w-client"), "cpus": "1", "python": "/usr/bin/python3"},
        "backend": {"workdir": str(tmp / "w-backend"), "cpus": "1",
                    "python": "/usr/bin/python3"}})
    server = net.hosts["server"]
    base = [f'address = "{server.address}"', 'user = "root"', f'key = "{net.key}"',
            f'known_hosts = "{net.known_hosts}"', f'workdir = "{tmp / "w-server"}"',
            'cpus = "0"', 'python = "/usr/bin/python3"', f"serve_port = {SERVE_PORT}"]
    extra = ["[hosts.server-fixed]", *base, "",
             "[hosts.server-proxied]", *base, f'reach = "{PROXY}:{PROXY_PORT}"', ""]
    path.write_text(path.read_text() + "\n" + "\n".join(extra))
    return path


def _cell(doc: dict) -> dict:
    assert len(doc["cells"]) == 1
    return doc["cells"][0]


def test_three_hosts_serve_load_and_backend_verified(net, hosts_file, fake_bench):
    before = {h: set(net.pids(h)) for h in net.hosts}
    res = fake_bench("run", "http-aggregate", "--contender", "fake-server", *LOAD,
                     "--param", "downstream=http", "--param", "base-ms=20", "--param",
                     "detail-ms=20", "--param", "extra-ms=20", "--server-host", "server",
                     "--client-host", "client", "--backend-host", "backend",
                     "--hosts-file", str(hosts_file))
    assert res.code == 0, res.stderr[-2000:]
    doc = fake_bench.last()
    cell = _cell(doc)
    assert cell["status"] == "ok", cell["reason"]
    run = cell["runs"][0]
    assert run["server"]["host"] == "server" and run["server"]["target"].startswith("198.18.0.2:")
    assert run["load"]["host"] == "client" and run["load"]["requests"] > 0
    assert run["backend"]["host"] == "backend" and run["backend"]["requests_in_window"] > 0
    assert run["server"]["verification"][0]["downstream_calls"] == 3
    assert run["server"]["window"]["cpu_s"] > 0
    roles = doc["machine"]["roles"]
    assert roles["roles"]["server"]["address"] == "198.18.0.2"
    assert set(roles["hosts"]) == {"server", "client", "backend"}
    assert all(h["machine"]["logical_cores"] for h in roles["hosts"].values())
    rtt = roles["network"]["client_server"]["rtt_ms"]
    assert 0 < rtt < DELAY_MS  # a bridge on this machine: far below any delay we add
    assert roles["network"]["server_backend"]["rtt_ms"] > 0
    assert roles["network"]["client_server_throughput"]["bits_per_second"] > 1e8
    floor = cell["metadata"]["bounds"]["latency_floor_ms"]
    backend_rtt = roles["network"]["server_backend"]["rtt_ms"]
    assert 40 < floor <= 40 + 3 * max(rtt, backend_rtt) + 1  # the waits plus round trips
    report = next((fake_bench.root / "results").glob("*/results.md")).read_text()
    assert "## Hosts" in report and "| server | server | 198.18.0.2 | 0 |" in report
    assert net.left_behind(before) == {}


def test_a_known_delay_shows_in_the_round_trip_and_the_latency(net, hosts_file, fake_bench,
                                                               toxiproxy):
    upstream = f"{net.hosts['server'].address}:{SERVE_PORT}"
    common = ["run", "http-hello", "--contender", "fake-server", *LOAD, "--client-host",
              "client", "--hosts-file", str(hosts_file)]
    assert fake_bench(*common, "--server-host", "server-fixed").code == 0
    direct = fake_bench.last()
    with delay_proxy.delay_proxy(net, "server", f"{PROXY}:{PROXY_PORT}", upstream, DELAY_MS):
        assert fake_bench(*common, "--server-host", "server-proxied").code == 0
    proxied = fake_bench.last()
    for doc in (direct, proxied):
        network = doc["machine"].get("roles", {}).get("network")
        assert _cell(doc)["status"] == "ok", (network, _cell(doc)["reason"])
    rtt = proxied["machine"]["roles"]["network"]["client_server"]["rtt_ms"]
    rtt0 = direct["machine"]["roles"]["network"]["client_server"]["rtt_ms"]
    assert 0.8 * DELAY_MS <= rtt - rtt0 <= 2 * DELAY_MS, (rtt0, rtt)  # room for a busy host
    p50 = _cell(proxied)["runs"][0]["load"]["latency_ms"]["p50"]
    p50_0 = _cell(direct)["runs"][0]["load"]["latency_ms"]["p50"]
    assert 0.8 * DELAY_MS <= p50 - p50_0 <= 2 * DELAY_MS, (p50_0, p50)


def test_a_remote_server_that_crashes_is_recorded_and_nothing_is_left(net, hosts_file,
                                                                        fake_bench):
    before = {h: set(net.pids(h)) for h in net.hosts}
    fake_bench("run", "http-hello", "--contender", "fake-server-crashload", *LOAD,
               "--server-host", "server", "--client-host", "client",
               "--hosts-file", str(hosts_file))
    cell = _cell(fake_bench.last())
    assert cell["status"] == "crash", cell
    assert "simulated crash" in cell["reason"] or "exited during" in cell["reason"]
    assert net.left_behind(before) == {}


def _unavailable(fake_bench, *hosts: str) -> str:
    """The cell's reason; the host's SSH connection folder removed although the connection
    never opened (the harness's temporary directory is the test's own, short enough for the
    control socket's path: remote.ssh.control_folder)."""
    tmp = Path(tempfile.mkdtemp(prefix="cb-", dir="/tmp"))
    fake_bench.env["TMPDIR"] = str(tmp)
    try:
        res = fake_bench("run", "http-hello", "--contender", "fake-server", *LOAD, *hosts)
        assert "Traceback" not in res.stderr, res.stderr[-2000:]
        cell = _cell(fake_bench.last())
        assert cell["status"] == "unavailable", cell
        assert sorted(f.name for f in tmp.iterdir()) == []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return cell["reason"]


def test_an_unreachable_host_is_recorded_unavailable(net, fake_bench):
    reason = _unavailable(fake_bench, "--server-host", "root@198.18.0.99",
                          "--known-hosts", str(net.known_hosts))
    assert "unreachable" in reason and "198.18.0.99" in reason


def test_a_host_key_that_does_not_match_is_refused(net, fake_bench, tmp_path):
    wrong = tmp_path / "known_hosts"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "k")],
                   check=True)
    key = (tmp_path / "k.pub").read_text().split()[:2]
    wrong.write_text(f"{net.hosts['server'].address} {' '.join(key)}\n")
    reason = _unavailable(fake_bench, "--server-host", f"root@{net.hosts['server'].address}",
                          "--known-hosts", str(wrong))
    assert "host key" in reason and "does not match" in reason


def test_an_ssh_key_that_is_refused_is_recorded(net, fake_bench, tmp_path):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "k")],
                   check=True)
    hosts = tmp_path / "hosts.toml"
    hosts.write_text(f'[hosts.s]\naddress = "{net.hosts["server"].address}"\nuser = "root"\n'
                     f'key = "{tmp_path / "k"}"\nknown_hosts = "{net.known_hosts}"\n')
    reason = _unavailable(fake_bench, "--server-host", "s", "--hosts-file", str(hosts))
    assert "key refused" in reason


def test_an_interrupted_run_leaves_nothing_on_the_hosts(net, hosts_file, fake_bench):
    """Nor the client's agent's temporary folder (the hosts share this machine's /tmp)."""
    before = {h: set(net.pids(h)) for h in net.hosts}
    folders = set(Path(tempfile.gettempdir()).glob("concbench-exec-*"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "concbench", "run", "http-hello", "--contender", "fake-server",
         "--param", "connections=4", "--param", "duration-s=60", "--param", "warmup-s=0",
         "--param", "loadgen=wrk", "--runs", "1", "--server-host", "server",
         "--client-host", "client",
         "--hosts-file", str(hosts_file)], env=fake_bench.env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not any("wrk" in line for line in net.new_processes("client", before["client"])):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    assert net.left_behind(before, seconds=20) == {}
    assert set(Path(tempfile.gettempdir()).glob("concbench-exec-*")) - folders == set()
