"""One remote host in use: its SSH connection, concbench's sources synced there, and calls to
the agent (remote.agent) that runs there.

The sources go over with rsync (the working tree less what .gitignore lists), so the host
builds each contender with the same manifest and recipe, cached by the same content key in
its own copy. The agent needs python3 >= 3.11 there and nothing else from concbench's
environment.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any, Callable

from concbench import paths
from concbench.remote.hosts import Host
from concbench.remote.ssh import SSH_FAILED, HostError, Ssh, classify

MIN_PYTHON = (3, 11)
SYNC_TIMEOUT_S = 300
BUILD_TIMEOUT_S = 1800
EXTRA_CONTENDERS = ".contenders"
"""Where a contenders folder from outside the repository (CONCBENCH_CONTENDERS) goes."""


class RemoteHost:
    """Use as a context manager (or call close()): the SSH connection ends with it."""

    def __init__(self, host: Host, say: Callable[[str], None] = lambda _m: None):
        self.host = host
        self.say = say
        self.ssh = Ssh(host)
        self.checked: dict[str, Any] = {}
        self.versions: dict[str, dict[str, str]] = {}

    def __enter__(self) -> "RemoteHost":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.ssh.close()

    # -- paths ------------------------------------------------------------------------------

    @property
    def workdir(self) -> str:
        return self.host.workdir.rstrip("/")

    def path(self, local: Path) -> str:
        """The remote copy of a file or folder of the repository (or of the contenders)."""
        local = local.resolve()
        contenders = paths.contenders_dir().resolve()
        if not local.is_relative_to(paths.REPO_ROOT) and local.is_relative_to(contenders):
            return f"{self.workdir}/{EXTRA_CONTENDERS}/{local.relative_to(contenders)}"
        return f"{self.workdir}/{local.relative_to(paths.REPO_ROOT)}"

    def _remote_contenders(self) -> str:
        return self.path(paths.contenders_dir())

    # -- the agent --------------------------------------------------------------------------

    def agent_command(self, command: str, arg: Any = None) -> list[str]:
        argv = ["env", "-C", self.workdir, f"PYTHONPATH={self.workdir}/harness",
                f"CONCBENCH_CONTENDERS={self._remote_contenders()}",
                f"CONCBENCH_CACHE={self.workdir}/.concbench-cache",
                self.host.python, "-m", "concbench.remote.agent", command]
        if arg is not None:
            argv.append(arg if isinstance(arg, str) else json.dumps(arg))
        return argv

    def call(self, command: str, arg: Any = None, timeout_s: float = 120) -> dict[str, Any]:
        """One agent command that answers with one JSON line."""
        done = self.ssh.run(self.agent_command(command, arg), timeout_s=timeout_s)
        lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
        if done.returncode != 0 or not lines:
            raise HostError(f"concbench agent on {self.host.target} failed ({command}, exit "
                            f"{done.returncode}): {done.stderr.strip()[-400:] or 'no output'}")
        return json.loads(lines[-1])

    def popen(self, command: str, arg: Any = None) -> subprocess.Popen:
        return self.ssh.popen(self.agent_command(command, arg))

    # -- preparation ------------------------------------------------------------------------

    def prepare(self) -> dict[str, Any]:
        """Reach the host, check its python, sync the sources; what the agent found there."""
        self._check_python()
        self.sync()
        self.checked = self.call("check")
        return self.checked

    def _check_python(self) -> None:
        py = self.host.python
        probe = [py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"]
        done = self.ssh.run(probe, timeout_s=30)
        version = done.stdout.strip()
        if done.returncode != 0 or not version:
            raise HostError(f"{py} not found on {self.host.target}: install python3 (>= 3.11) "
                            "there, or name another with python = … in the hosts file")
        if tuple(int(x) for x in version.split(".")) < MIN_PYTHON:
            raise HostError(f"{py} on {self.host.target} is {version}; concbench's agent needs "
                            ">= 3.11 (python = … in the hosts file names another)")

    def sync(self) -> None:
        """rsync the repository's sources (and an outside contenders folder) to workdir."""
        self.ssh.run(["mkdir", "-p", self.workdir], timeout_s=30)
        self._rsync(paths.REPO_ROOT, self.workdir)
        contenders = paths.contenders_dir().resolve()
        if not contenders.is_relative_to(paths.REPO_ROOT):
            self._rsync(contenders, f"{self.workdir}/{EXTRA_CONTENDERS}")

    def _rsync(self, source: Path, target: str) -> None:
        # the host's cache (its builds, and tools put there such as oha) is never deleted,
        # also on the first sync, before the host has the .gitignore that protects it
        argv = ["rsync", "-a", "--delete", "--exclude=.git/", "--filter=P /.concbench-cache/",
                "--filter=:- .gitignore",
                "-e", self.ssh.rsync_shell(), f"{source}/", f"{self.host.target}:{target}/"]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=SYNC_TIMEOUT_S)
        except FileNotFoundError:
            raise HostError("rsync not found here: apt-get install -y rsync") from None
        except subprocess.TimeoutExpired:
            raise HostError(f"rsync to {self.host.target} took over {SYNC_TIMEOUT_S} s") from None
        if done.returncode != 0:
            if "command not found" in done.stderr or done.returncode == 127:
                raise HostError(f"rsync not found on {self.host.target}: apt-get install -y "
                                "rsync there")
            problem = classify(self.host, done.stderr) if done.returncode == SSH_FAILED \
                else done.stderr.strip()[-300:]
            raise HostError(f"syncing sources to {self.host.target}:{target} failed: {problem}")

    def build(self, toolchain: str) -> dict[str, Any]:
        """Build (or find cached) a toolchain there: {ok, reason, versions, cached, …}."""
        result = self.call("build", toolchain, timeout_s=BUILD_TIMEOUT_S)
        if result.get("ok"):
            self.versions[toolchain] = result.get("versions", {})
        return result

    def missing_tool(self, name: str) -> str | None:
        """Why a tool the role needs is not on the host (installed first when root)."""
        tools = self.checked.get("tools", {})
        if tools.get(name):
            return None
        if self.host.user == "root" and name != "oha":
            package = {"taskset": "util-linux", "setpriv": "util-linux"}.get(name, name)
            self.say(f"installing {package} on {self.host.target} (apt-get) ...")
            self.ssh.run(["sh", "-c", "DEBIAN_FRONTEND=noninteractive apt-get install -y -q "
                          + shlex.quote(package) + " >/dev/null 2>&1"], timeout_s=600)
            self.checked = self.call("check")
            if self.checked.get("tools", {}).get(name):
                return None
        if name == "oha":  # a crate, not a Debian package
            return (f"oha not found on {self.host.target}: install it there (cargo install oha "
                    "--version 1.16.0 --locked, onto its PATH), or run the generator's host "
                    "with --param loadgen=wrk")
        return f"{name} not found on {self.host.target}: apt-get install -y {name} there"

    def machine(self) -> dict[str, Any]:
        return self.call("machine")

    def free_port(self, bind: str) -> int:
        return int(self.call("free-port", bind)["port"])
