"""Three SSH "hosts" on one machine, for testing multi-host runs without other machines.

Each host is a network namespace joined to a bridge in the root namespace by a veth pair,
running its own sshd with throwaway keys. Addresses come from 198.18.0.0/15, the range
RFC 2544 reserves for benchmarking, so they cannot clash with a real network (latency between
them: tests/delay_proxy.py). Everything is torn down
on exit, also on an exception; nothing outside `tmp` is written except /run/sshd.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[1]
ROOT_ADDRESS = "198.18.0.1"
PREFIX = 24
ADDRESSES = {"server": "198.18.0.2", "client": "198.18.0.3", "backend": "198.18.0.4"}
MORE_CLIENTS = ("198.18.0.5", "198.18.0.6", "198.18.0.7")
"""Addresses of client2, client3, …: the hosts of a load split over several clients."""
BENCH_RANGE = ipaddress.ip_network("198.18.0.0/15")
SSHD = "/usr/sbin/sshd"
# binary that shows each package is installed (absolute paths are checked as files)
PACKAGES = {"openssh-server": SSHD, "openssh-client": "ssh", "rsync": "rsync", "iperf3": "iperf3"}


class NetnsError(RuntimeError):
    """A step of building or tearing down the test network failed."""


def _run(argv: list[str], what: str, timeout: float = 60, **kw: Any) -> subprocess.CompletedProcess:
    """Runs argv; if it fails, says which step it was, the command and its stderr."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise NetnsError(f"{what}: `{' '.join(argv)}` could not run: {e}") from e
    if done.returncode != 0:
        out = (done.stderr.strip() or done.stdout.strip() or "(no output)")[-2000:]
        raise NetnsError(f"{what}: `{' '.join(argv)}` exited {done.returncode}: {out}")
    return done


def _have(binary: str) -> bool:
    return Path(binary).is_file() if binary.startswith("/") else shutil.which(binary) is not None


@functools.cache
def skip_reason() -> str | None:
    """Why the namespace tests cannot run here (installing missing packages first), or None."""
    if os.geteuid() != 0:
        return f"network namespaces and sshd need root (running as uid {os.geteuid()})"
    if shutil.which("ip") is None:
        return "`ip` (iproute2) is not installed"
    probe = f"cbt{os.getpid()}p"
    done = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if done.returncode != 0:
        return f"`ip netns add` fails here: {done.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return ensure_packages()


def ensure_packages() -> str | None:
    """Installs sshd, ssh, rsync and iperf3 with apt-get if missing; None, or why not."""
    missing = [pkg for pkg, binary in PACKAGES.items() if not _have(binary)]
    if not missing:
        return None
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return f"{', '.join(missing)} missing, and apt-get as root is not available to install them"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if shutil.which("debconf-set-selections"):  # iperf3 asks whether to start a daemon: no
        subprocess.run(["debconf-set-selections"], text=True, capture_output=True, env=env,
                       input="iperf3 iperf3/start_daemon boolean false\n")
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing]
    done = subprocess.run(install, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:  # the package lists may be missing or stale
        update = subprocess.run(["apt-get", "update", "-q"], capture_output=True, text=True,
                                env=env, timeout=600)
        if update.returncode != 0:
            return f"`apt-get update` failed: {update.stderr.strip()[-1000:]}"
        done = subprocess.run(install, capture_output=True, text=True, env=env, timeout=900)
        if done.returncode != 0:
            return f"`{' '.join(install)}` failed: {done.stderr.strip()[-1000:]}"
    still = [pkg for pkg, binary in PACKAGES.items() if not _have(binary)]
    return f"installed, yet still missing: {', '.join(still)}" if still else None


@dataclass(frozen=True)
class TestHost:
    """One namespace "host" as SSH sees it."""
    __test__ = False  # not a pytest test class
    name: str
    netns: str
    address: str
    ssh_port: int = 22


@dataclass(frozen=True)
class TestNetwork:
    """The three hosts, the client key they all accept and the known_hosts that vouches for them."""
    __test__ = False
    hosts: dict[str, TestHost]
    key: Path
    known_hosts: Path
    tmp: Path
    root_address: str = ROOT_ADDRESS

    def exec(self, host_name: str, argv: list[str], **kw: Any) -> subprocess.CompletedProcess:
        """Runs argv inside that host's namespace, capturing text output."""
        kw.setdefault("capture_output", True)
        kw.setdefault("text", True)
        return subprocess.run(["ip", "netns", "exec", self.hosts[host_name].netns, *argv], **kw)

    def pids(self, host_name: str) -> list[int]:
        """Processes living in that host's namespace."""
        return _netns_pids(self.hosts[host_name].netns)

    def new_processes(self, host_name: str, before: set[int]) -> list[str]:
        """Processes in that host's namespace that were not there `before` (sshd was), each
        as "pid: its command line"."""
        found = []
        for pid in set(self.pids(host_name)) - before:
            try:
                found.append(f"{pid}: {Path(f'/proc/{pid}/cmdline').read_bytes()!r}")
            except OSError:
                pass
        return found

    def left_behind(self, before: dict[str, set[int]],
                    seconds: float = 10) -> dict[str, list[str]]:
        """Each host's processes that were not there `before` and are still there after up
        to `seconds` of waiting for them to end (an empty dict: every host is as it was)."""
        deadline = time.monotonic() + seconds
        while True:
            left = {h: self.new_processes(h, before[h]) for h in self.hosts}
            if not any(left.values()) or time.monotonic() > deadline:
                return {h: v for h, v in left.items() if v}
            time.sleep(0.2)

    def ssh_argv(self, host_name: str) -> list[str]:
        """`ssh` logging in as root to that host, never prompting and ignoring ~/.ssh/config."""
        host = self.hosts[host_name]
        return ["ssh", "-F", "none", "-i", str(self.key), "-p", str(host.ssh_port),
                "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
                "-o", f"UserKnownHostsFile={self.known_hosts}",
                "-o", "GlobalKnownHostsFile=/dev/null", "-o", "IdentitiesOnly=yes",
                "-o", "ConnectTimeout=5", "-o", "LogLevel=ERROR",
                f"root@{host.address}"]

    def write_hosts_toml(self, path: Path,
                         extra: dict[str, dict[str, str | int]] | None = None) -> Path:
        """Writes the hosts.toml that concbench's multi-host runs read; `extra` adds keys per
        host (e.g. {"server": {"workdir": ...}}: the hosts share one file system)."""
        lines = []
        for name, host in self.hosts.items():
            lines += [f"[hosts.{name}]", f"address = {json.dumps(host.address)}", 'user = "root"',
                      f"port = {host.ssh_port}", f"key = {json.dumps(str(self.key))}",
                      f"known_hosts = {json.dumps(str(self.known_hosts))}"]
            lines += [f"{k} = {json.dumps(v)}" for k, v in (extra or {}).get(name, {}).items()]
            lines.append("")
        path = Path(path)
        path.write_text("\n".join(lines))
        return path


def _netns_pids(netns: str) -> list[int]:
    done = subprocess.run(["ip", "netns", "pids", netns], capture_output=True, text=True)
    return [int(p) for p in done.stdout.split()] if done.returncode == 0 else []


def _netns_names() -> list[str]:
    done = _run(["ip", "netns", "list"], "listing network namespaces")
    return [line.split()[0] for line in done.stdout.splitlines() if line.strip()]


def _keygen(path: Path, comment: str) -> str:
    """A throwaway ed25519 key without passphrase; returns the public key line."""
    path.unlink(missing_ok=True)
    Path(f"{path}.pub").unlink(missing_ok=True)
    _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
         f"generating the {comment} key")
    return Path(f"{path}.pub").read_text().strip()


def _check_range_free(tag: str) -> None:
    """Two test networks at once would share 198.18.0.0/24 routes and see each other's traffic."""
    net = ipaddress.ip_network(f"{ROOT_ADDRESS}/{PREFIX}", strict=False)
    for line in _run(["ip", "-o", "-4", "addr", "show"], "listing addresses").stdout.splitlines():
        fields = line.split()
        iface, addr = fields[1], ipaddress.ip_interface(fields[3]).ip
        if addr in net and not iface.startswith(tag):
            raise NetnsError(f"{net} is already in use on {iface} ({addr}): another test network "
                             f"(another pytest run?) is up; run one at a time or delete {iface}")


def _make_network(bridge: str, hosts: dict[str, TestHost], veths: dict[str, str]) -> None:
    """Bridge in the root namespace, one veth pair per namespace, addresses, links up."""
    _run(["ip", "link", "add", bridge, "type", "bridge"], "creating the bridge")
    _run(["ip", "addr", "add", f"{ROOT_ADDRESS}/{PREFIX}", "dev", bridge], "addressing the bridge")
    _run(["ip", "link", "set", bridge, "up"], "bringing the bridge up")
    for name, host in hosts.items():
        ns, veth = host.netns, veths[name]
        _run(["ip", "netns", "add", ns], f"creating namespace {ns} ({name})")
        _run(["ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns],
             f"creating the veth pair for {name}")
        _run(["ip", "link", "set", veth, "master", bridge], f"attaching {veth} to {bridge}")
        _run(["ip", "link", "set", veth, "up"], f"bringing {veth} up")
        _run(["ip", "-n", ns, "addr", "add", f"{host.address}/{PREFIX}", "dev", "eth0"],
             f"addressing eth0 in {ns}")
        _run(["ip", "-n", ns, "link", "set", "eth0", "up"], f"bringing eth0 up in {ns}")
        _run(["ip", "-n", ns, "link", "set", "lo", "up"], f"bringing lo up in {ns}")


def _sshd_config(host: TestHost, tmp: Path, host_key: Path) -> Path:
    """A self-contained sshd_config: nothing under /etc/ssh is read but moduli, nothing written."""
    cfg = tmp / f"sshd_config.{host.name}"
    cfg.write_text("\n".join([
        f"# throwaway sshd for the {host.name} test host", f"Port {host.ssh_port}",
        f"ListenAddress {host.address}", "AddressFamily inet", f"HostKey {host_key}",
        f"AuthorizedKeysFile {tmp / 'authorized_keys'}", f"PidFile {tmp / f'sshd.{host.name}.pid'}",
        "PermitRootLogin prohibit-password", "PubkeyAuthentication yes",
        "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no",
        # the key files live under /tmp (world-writable), which StrictModes rejects
        "StrictModes no", "UseDNS no", "PrintMotd no", "PrintLastLog no",
        # multi-host runs open many sessions at once; the defaults (10:30:100) would drop some
        "MaxStartups 100:30:200", "MaxSessions 64", "Subsystem sftp internal-sftp", ""]))
    _run([SSHD, "-t", "-f", str(cfg)], f"checking the sshd config of {host.name} ({cfg})")
    return cfg


def _spawn(netns: str, argv: list[str], log: Path) -> subprocess.Popen:
    """Starts argv in the namespace, its output to `log`; own session, so ^C reaches only us."""
    with open(log, "wb") as out:
        return subprocess.Popen(["ip", "netns", "exec", netns, *argv], stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _tail(log: Path) -> str:
    return log.read_text(errors="replace").strip()[-2000:]


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _await_sshd(host: TestHost, proc: subprocess.Popen, log: Path, timeout: float = 15) -> None:
    """Waits until the host's address answers a TCP connect from the root namespace with an
    SSH banner, which proves the bridge, the veth and sshd all work."""
    deadline, last = time.monotonic() + timeout, "no attempt"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise NetnsError(f"sshd of {host.name} ({host.netns}) exited {proc.returncode}: "
                             f"{_tail(log)}")
        try:
            with socket.create_connection((host.address, host.ssh_port), timeout=1) as s:
                s.settimeout(2)
                banner = s.recv(64)
            if banner.startswith(b"SSH-"):
                return
            last = f"unexpected banner {banner!r}"
        except OSError as e:
            last = str(e)
        time.sleep(0.05)
    raise NetnsError(f"{host.name} ({host.address}:{host.ssh_port} in {host.netns}) did not answer "
                     f"with an SSH banner within {timeout}s: {last}; sshd log: {_tail(log)}")


def _kill_netns(netns: str, procs: list[subprocess.Popen], timeout: float = 5) -> str | None:
    """Kills every process in the namespace (TERM, then KILL) and waits until none is left."""
    deadline, sig, term_until = time.monotonic() + timeout, signal.SIGTERM, time.monotonic() + 1.5
    while pids := _netns_pids(netns):
        if time.monotonic() > deadline:
            return f"processes {pids} in {netns} survived SIGKILL"
        if time.monotonic() > term_until:
            sig = signal.SIGKILL
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        time.sleep(0.05)
        for p in procs:  # reap our own children so they do not linger as zombies
            p.poll()
    return None


def _teardown(hosts: dict[str, TestHost], veths: dict[str, str], bridge: str,
              procs: list[subprocess.Popen]) -> list[str]:
    """Removes processes, namespaces, veths and the bridge; returns what could not be removed."""
    problems, present = [], set(_netns_names())
    for host in hosts.values():
        if host.netns in present and (problem := _kill_netns(host.netns, procs)):
            problems.append(problem)
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            problems.append(f"pid {p.pid} ({' '.join(map(str, p.args))}) had to be killed")
    steps = [(["ip", "link", "del", v], v) for v in veths.values()]
    steps += [(["ip", "netns", "del", h.netns], h.netns) for h in hosts.values()]
    steps += [(["ip", "link", "del", bridge], bridge)]
    for argv, what in steps:
        exists = what in present if argv[1] == "netns" else Path("/sys/class/net", what).exists()
        if exists:
            done = subprocess.run(argv, capture_output=True, text=True)
            if done.returncode != 0:
                problems.append(f"`{' '.join(argv)}` failed: {done.stderr.strip()}")
    return problems


_active: set[str] = set()  # tags of this process's networks that are up


def _code(name: str) -> str:
    """A host's short tag in its namespace's and veth's names (15 characters at most):
    s, c, b, then c2, c3, …"""
    return name[0] + (name[-1] if name[-1].isdigit() else "")


@contextlib.contextmanager
def three_hosts(tmp: Path, more_clients: int = 0) -> Iterator[TestNetwork]:
    """Server, client and backend hosts (198.18.0.2-4) reachable by SSH as root; with
    `more_clients`, client2, client3, … too (198.18.0.5 on)."""
    tmp = Path(tmp).resolve()
    tmp.mkdir(parents=True, exist_ok=True)
    tag = f"cbt{os.getpid()}"
    if more_clients > len(MORE_CLIENTS):
        raise NetnsError(f"at most {len(MORE_CLIENTS)} more clients")
    addresses = {**ADDRESSES, **{f"client{i + 2}": MORE_CLIENTS[i] for i in range(more_clients)}}
    hosts = {name: TestHost(name, f"{tag}{_code(name)}", addr)
             for name, addr in addresses.items()}
    veths = {name: f"{tag}v{_code(name)}" for name in hosts}
    bridge, procs, clean_exit = f"{tag}br", [], False
    if _active:  # the names and addresses are per process: a second one would tear down the first
        raise NetnsError("a test network is already up in this process; use one at a time")
    if leftovers := _teardown(hosts, veths, bridge, []):  # a dead process with our pid left these
        raise NetnsError(f"cannot clear a stale test network: {'; '.join(leftovers)}")
    _active.add(tag)
    try:
        _check_range_free(tag)
        client_public = _keygen(tmp / "id_ed25519", "concbench-test-client")
        (tmp / "authorized_keys").write_text(client_public + "\n")
        _make_network(bridge, hosts, veths)
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege-separation dir
        known, logs = [], {}
        for name, host in hosts.items():
            host_key = tmp / f"ssh_host_ed25519_key.{name}"
            public = _keygen(host_key, f"concbench-test-{name}")
            known.append(f"{host.address} {' '.join(public.split()[:2])}")
            logs[name] = tmp / f"sshd.{name}.log"
            cfg = _sshd_config(host, tmp, host_key)
            procs.append(_spawn(host.netns, [SSHD, "-D", "-e", "-f", str(cfg)], logs[name]))
        for (name, host), proc in zip(hosts.items(), procs):
            _await_sshd(host, proc, logs[name])
        (tmp / "known_hosts").write_text("\n".join(known) + "\n")
        yield TestNetwork(hosts, tmp / "id_ed25519", tmp / "known_hosts", tmp)
        clean_exit = True
    finally:
        problems = _teardown(hosts, veths, bridge, procs)
        _active.discard(tag)
        if problems and clean_exit:
            raise NetnsError("tearing down the test network: " + "; ".join(problems))
        if problems:  # do not hide the exception that got us here; still say what leaked
            print("netns_hosts teardown: " + "; ".join(problems), file=sys.stderr)


__all__ = ["TestHost", "TestNetwork", "NetnsError", "skip_reason", "ensure_packages", "three_hosts",
           "ROOT_ADDRESS", "ADDRESSES", "MORE_CLIENTS"]
