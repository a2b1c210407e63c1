"""A load split over three client hosts against one server host, on network-namespace hosts
(tests/netns_hosts.py): the connections split, the clients started together (the skew
measured), the window's p99 recomputed here from the clients' raw logs, every generator's
CPU recorded, and a client killed mid-window failing its run with that reason while the plan
goes on. Root only; oha comes from the repository's cache (the `wrk` fixture builds it)."""

from __future__ import annotations

import gzip
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import netns_hosts

CLIENTS = ("client", "client2", "client3")
SOURCES = ("198.18.0.16", "198.18.0.26")
"""Two more addresses of client3: its connections bind to them in turn."""
BASE = ["--contender", "fake-server", "--param", "duration-s=3", "--param", "warmup-s=0",
        "--param", "loadgen=oha", "--runs", "1", "--server-host", "server"]
COMMON = [*BASE, *[a for c in CLIENTS for a in ("--client-host", c)]]
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def net(netns, wrk, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("netns")
    with netns_hosts.three_hosts(tmp, more_clients=2) as network:
        yield network


@pytest.fixture(scope="module")
def hosts_file(net, tmp_path_factory) -> Path:
    """Each host its own workdir (the namespaces share one file system): the server on CPU 0,
    the clients on CPU 1, each client's oha the repository's (its cache's tools folder)."""
    tmp = tmp_path_factory.mktemp("hosts")
    extra = {name: {"workdir": str(tmp / f"w-{name}"), "python": "/usr/bin/python3",
                    "cpus": "0" if name == "server" else "1"} for name in net.hosts}
    for address in SOURCES:
        net.exec("client3", ["ip", "addr", "add", f"{address}/24", "dev", "eth0"], check=True)
    path = net.write_hosts_toml(tmp / "hosts.toml", extra)
    sourced = path.read_text().split("[hosts.client3]")[1].split("\n\n")[0]
    path.write_text(path.read_text() + "\n[hosts.client3-sourced]" + sourced
                    + f"\nsources = {list(SOURCES)!r}\n".replace("'", '"'))
    for name in CLIENTS:
        cache = tmp / f"w-{name}" / ".concbench-cache"
        cache.mkdir(parents=True)
        (cache / "tools").symlink_to(REPO / ".concbench-cache" / "tools")
    return path


def _cell(doc: dict, index: int = 0) -> dict:
    return doc["cells"][index]


def _pooled_p99(folder: Path, clients: dict) -> float:
    """The p99 of every client's responses that ended in the window, from the raw CSV logs:
    each row's end (start + first byte) put on the common clock by its log's shift."""
    latencies = []
    t0, t1 = clients["window_from_s"], clients["window_to_s"]
    for gen in clients["generators"]:
        text = gzip.decompress((folder / clients["log_files"][gen["host"]]).read_bytes())
        for line in text.decode().splitlines()[1:]:
            start, _dns, _dial, delay, duration, _bytes, _status = map(float, line.split(","))
            end = start + (delay if delay > 0 else duration) + gen["log_shift_s"]
            if t0 <= end < t1:
                latencies.append(duration * 1000)
    latencies.sort()
    return latencies[math.ceil(0.99 * len(latencies)) - 1]


def test_three_clients_split_the_load_and_their_requests_are_pooled(net, hosts_file,
                                                                    fake_bench):
    before = {h: set(net.pids(h)) for h in net.hosts}
    res = fake_bench("run", "http-hello", *COMMON, "--param", "connections=7",
                     "--hosts-file", str(hosts_file), timeout=900)
    assert res.code == 0, res.stderr[-3000:]
    doc = fake_bench.last()
    cell = _cell(doc)
    assert cell["status"] == "ok", cell["reason"]
    run = cell["runs"][0]
    assert run["server"]["verification"] and run["server"]["host"] == "server"
    load = run["load"]
    clients = load["clients"]
    gens = clients["generators"]
    assert [g["host"] for g in gens] == list(CLIENTS)
    assert [g["connections"] for g in gens] == [3, 2, 2]
    assert all(g["responses"] > 0 and g["window_cpu_s"] > 0 for g in gens), gens
    assert all(g["cpu_percent"] is not None and g["saturated"] in (True, False) for g in gens)
    assert 0 <= clients["start_skew_ms"] < 250, clients
    assert load["requests"] == sum(g["responses"] for g in gens)
    folder = next((fake_bench.root / "results").glob("*/results.json")).parent
    assert load["latency_ms"]["p99"] == pytest.approx(_pooled_p99(folder, clients), abs=1e-9)
    roles = doc["machine"]["roles"]
    assert [c["host"] for c in roles["roles"]["clients"]] == list(CLIENTS)
    assert set(roles["network"]["clients_server"]) == set(CLIENTS)
    print(f"start skew {clients['start_skew_ms']} ms (clock known to "
          f"{clients['clock_uncertainty_ms']} ms), ends {clients['end_spread_ms']} ms apart")
    assert net.left_behind(before) == {}


def _oha_in(net, host: str) -> list[int]:
    found = []
    for pid in net.pids(host):
        try:
            argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if argv0.endswith(b"oha"):
            found.append(pid)
    return found


def test_a_client_killed_mid_window_fails_its_run_and_the_plan_goes_on(net, hosts_file,
                                                                        fake_bench):
    proc = subprocess.Popen(
        [sys.executable, "-m", "concbench", "run", "http-hello", *COMMON,
         "--scan", "connections=6,9", "--hosts-file", str(hosts_file)],
        env=fake_bench.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600
    while not all(_oha_in(net, c) for c in CLIENTS):  # the first cell's load has started
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.05)
    time.sleep(1.5)  # past the lead-in (1 s): inside the 3 s window
    for pid in _oha_in(net, "client2"):
        os.kill(pid, signal.SIGKILL)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode in (0, 1), err[-3000:]
    doc = fake_bench.last()
    killed, after = _cell(doc, 0), _cell(doc, 1)
    assert killed["status"] == "crash", killed
    assert "client host client2" in killed["reason"] and "SIGKILL" in killed["reason"]
    kept = killed["runs"][0]["load"]["clients"]
    assert [g["host"] for g in kept["generators"]] == ["client", "client3"]
    assert all(g["responses"] > 0 for g in kept["generators"])
    assert after["status"] == "ok", after["reason"]
    assert after["runs"][0]["load"]["clients"]["count"] == 3


def _peers(net, port: str) -> set[str]:
    """The addresses of the connections the server namespace has established on `port`."""
    done = net.exec("server", ["ss", "-Htn", "state", "established", f"( sport = :{port} )"])
    return {line.split()[-1].rsplit(":", 1)[0] for line in done.stdout.splitlines() if line}


def test_a_client_with_several_source_addresses_binds_its_connections_to_each(
        net, hosts_file, fake_bench):
    hosts = ["--client-host", "client", "--client-host", "client3-sourced"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "concbench", "run", "http-hello", *BASE, *hosts,
         "--param", "connections=8", "--hosts-file", str(hosts_file)],
        env=fake_bench.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen: set[str] = set()
    deadline = time.monotonic() + 600
    while proc.poll() is None and time.monotonic() < deadline:
        if _oha_in(net, "client3"):
            for line in net.exec("server", ["ss", "-Htln"]).stdout.splitlines():
                address, _, port = line.split()[3].rpartition(":")
                if address == netns_hosts.ADDRESSES["server"] and port != "22":
                    seen |= _peers(net, port)
        time.sleep(0.1)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    cell = _cell(fake_bench.last())
    assert cell["status"] == "ok", cell["reason"]
    gens = cell["runs"][0]["load"]["clients"]["generators"]
    assert gens[1]["sources"] == list(SOURCES)
    assert set(SOURCES) <= seen, seen  # both of client3's addresses, not its own
    assert netns_hosts.MORE_CLIENTS[1] not in seen


