"""Latency between the test hosts of tests/netns_hosts.py: Toxiproxy in a host's namespace,
because this kernel has no `tc netem`. Built once with `go install` into the repo's tool
cache."""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import itertools
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterator

from netns_hosts import (BENCH_RANGE, PREFIX, REPO, NetnsError, TestNetwork, _have, _run, _spawn,
                         _stop, _tail)

# `go list -m -versions` lists only v2.3.0 and v2.5.0, but the proxy serves later tags;
# v2.12.0 is the newest one it serves (v2.13.0 is refused).
TOXIPROXY_VERSION = "v2.12.0"
TOXIPROXY_DIR = REPO / ".concbench-cache" / "tools" / "toxiproxy"


def toxiproxy_missing() -> str | None:
    """Why Toxiproxy cannot be had here, or None (it is built, or go can build it)."""
    if _toxiproxy_built():
        return None
    if _go() is None:
        return (f"Toxiproxy {TOXIPROXY_VERSION} is not built in {TOXIPROXY_DIR} "
                "and `go` is not installed to build it")
    return None


def _go() -> str | None:
    """go on PATH, or where the official tarball puts it."""
    return shutil.which("go") or ("/usr/local/go/bin/go" if _have("/usr/local/go/bin/go") else None)


def _toxiproxy_built() -> bool:
    stamp = TOXIPROXY_DIR / "VERSION"
    return (stamp.is_file() and stamp.read_text().strip() == TOXIPROXY_VERSION
            and all((TOXIPROXY_DIR / b).is_file() for b in ("server", "cli")))


def toxiproxy_bins() -> tuple[Path, Path]:
    """(server, cli), built once with `go install` into the repo's tool cache and reused."""
    TOXIPROXY_DIR.mkdir(parents=True, exist_ok=True)
    with open(TOXIPROXY_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test runs build it once
        if not _toxiproxy_built():
            if (go := _go()) is None:
                raise NetnsError(toxiproxy_missing() or "go is missing")
            env = {**os.environ, "GOBIN": str(TOXIPROXY_DIR)}
            for cmd in ("server", "cli"):
                pkg = f"github.com/Shopify/toxiproxy/v2/cmd/{cmd}@{TOXIPROXY_VERSION}"
                _run([go, "install", pkg], f"building Toxiproxy {cmd}", timeout=900, env=env,
                     cwd=TOXIPROXY_DIR)
            (TOXIPROXY_DIR / "VERSION").write_text(TOXIPROXY_VERSION + "\n")
    return TOXIPROXY_DIR / "server", TOXIPROXY_DIR / "cli"


_api_ports = itertools.count(8474)


@contextlib.contextmanager
def delay_proxy(net: TestNetwork, host_name: str, listen: str, upstream: str,
                latency_ms: int) -> Iterator[str]:
    """Toxiproxy in `host_name`'s namespace forwarding `listen` to `upstream`, delaying every
    chunk sent back to the client (downstream) by latency_ms. The request goes through
    undelayed, so a client sees each request/response round trip take latency_ms longer than
    direct: RTT = direct RTT + latency_ms (not 2 x latency_ms). Connecting is not delayed, as
    the proxy itself accepts. Yields `listen`; its address is added to the host's eth0 if new."""
    server, cli = toxiproxy_bins()
    host = net.hosts[host_name]
    listen_ip = listen.rsplit(":", 1)[0]
    if ipaddress.ip_address(listen_ip) not in BENCH_RANGE:
        raise NetnsError(f"proxy address {listen_ip} is outside {BENCH_RANGE} (for benchmarking)")
    addrs = net.exec(host_name, ["ip", "-o", "-4", "addr", "show", "dev", "eth0"]).stdout
    add = f" {listen_ip}/" not in addrs
    if add:
        _run(["ip", "-n", host.netns, "addr", "add", f"{listen_ip}/{PREFIX}", "dev", "eth0"],
             f"adding the proxy address {listen_ip} to {host_name}")
    port = next(_api_ports)
    log = net.tmp / f"toxiproxy.{host_name}.{port}.log"
    proc = _spawn(host.netns, [str(server), "-host", "127.0.0.1", "-port", str(port)], log)
    try:
        toxi = ["ip", "netns", "exec", host.netns, str(cli), "--host", f"http://127.0.0.1:{port}"]
        _await_toxiproxy(toxi, proc, log)
        _run([*toxi, "create", "--listen", listen, "--upstream", upstream, "delay"],
             f"creating the Toxiproxy proxy {listen} -> {upstream} in {host_name}")
        _run([*toxi, "toxic", "add", "--type", "latency", "--toxicName", "latency", "--downstream",
              "--attribute", f"latency={int(latency_ms)}", "delay"], "adding the latency toxic")
        yield listen
    finally:
        _stop(proc)
        if add:
            subprocess.run(["ip", "-n", host.netns, "addr", "del", f"{listen_ip}/{PREFIX}", "dev",
                            "eth0"], capture_output=True)


def _await_toxiproxy(toxi: list[str], proc: subprocess.Popen, log: Path,
                     timeout: float = 15) -> None:
    """Waits until Toxiproxy's API answers (asked from inside the namespace, where it listens)."""
    deadline, last = time.monotonic() + timeout, ""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise NetnsError(f"Toxiproxy exited {proc.returncode}: {_tail(log)}")
        done = subprocess.run([*toxi, "list"], capture_output=True, text=True)
        if done.returncode == 0:
            return
        last = done.stderr.strip() or done.stdout.strip()
        time.sleep(0.1)
    raise NetnsError(f"Toxiproxy's API did not answer within {timeout}s: {last}; log: {_tail(log)}")
