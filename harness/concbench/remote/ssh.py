"""OpenSSH to one host: one multiplexed connection (ControlMaster), no prompts (BatchMode),
host keys checked against a known_hosts file and never added, and ssh's own failures turned
into messages that say what to do.

Every remote command goes through `argv()`; rsync uses the same options through `-e`.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from concbench import tools
from concbench.errors import HostError
from concbench.remote.hosts import Host

SSH_FAILED = 255
"""ssh's own exit status when it could not run the command (the remote's is passed through)."""
CONNECT_TIMEOUT_S = 8


def classify(host: Host, stderr: str) -> str:
    """ssh's failure on stderr, as a sentence naming the host and the fix."""
    text = stderr.strip()
    where = f"{host.target} (port {host.port})"
    known = host.known_hosts or "~/.ssh/known_hosts"
    if "REMOTE HOST IDENTIFICATION HAS CHANGED" in text or "Host key verification failed" in text \
            or "host key is known" in text or "No matching host key" in text:
        return (f"host key of {where} does not match {known} (or is not in it): check the "
                f"host's key, then add it (ssh-keyscan -p {host.port} {host.address} >> {known}); "
                "concbench never accepts a host key by itself")
    if "Permission denied" in text or "Too many authentication failures" in text:
        key = host.key or "ssh's default keys"
        return (f"SSH key refused by {where} ({key}): add the public key to that user's "
                "authorized_keys or name another key (key = … in the hosts file)")
    for sign in ("Connection refused", "No route to host", "timed out", "Could not resolve",
                 "Network is unreachable", "Connection closed", "Connection reset"):
        if sign in text:
            return f"host {where} unreachable: {_last(text)}"
    return f"ssh to {where} failed: {_last(text) or 'no message'}"


def _last(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


SOCKET_PATH_MAX = 107
"""The longest path of a Unix socket (sun_path's 108 bytes, less the terminating NUL)."""
CONTROL_NAME_LEN = 41
"""'/' and ssh's %C, the 40 hex digits of the connection's hash: a control socket's name."""


def control_folder() -> Path:
    """A new folder for the shared connection's control socket: in the temporary directory,
    or in /tmp where the socket's path would be too long for a Unix socket (a deep TMPDIR:
    ssh then refuses every connection with "ControlPath too long")."""
    folder = Path(tempfile.mkdtemp(prefix="concbench-ssh-"))
    if len(str(folder)) + CONTROL_NAME_LEN <= SOCKET_PATH_MAX:
        return folder
    folder.rmdir()
    return Path(tempfile.mkdtemp(prefix="concbench-ssh-", dir="/tmp"))


class Ssh:
    """Commands on one host. `close()` ends the shared connection."""

    def __init__(self, host: Host):
        for tool in ("ssh", "rsync"):  # installed first when root (tools.ensure)
            problem = tools.ensure(tool, lambda _m: None)
            if problem:
                raise HostError(problem)
        self.host = host
        self._control = control_folder()

    def options(self) -> list[str]:
        h = self.host
        opts = ["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
                "-o", f"ConnectTimeout={CONNECT_TIMEOUT_S}", "-o", "ServerAliveInterval=5",
                "-o", "ServerAliveCountMax=3", "-o", "ControlMaster=auto",
                "-o", f"ControlPath={self._control}/%C", "-o", "ControlPersist=60",
                "-o", "LogLevel=ERROR", "-p", str(h.port)]
        if h.known_hosts:
            opts += ["-o", f"UserKnownHostsFile={h.known_hosts}", "-o", "GlobalKnownHostsFile=/dev/null"]
        if h.key:
            opts += ["-i", h.key, "-o", "IdentitiesOnly=yes"]
        return opts

    def argv(self, command: list[str]) -> list[str]:
        """ssh running `command` (quoted for the remote shell) on the host."""
        return ["ssh", *self.options(), "-T", self.host.target, "--", shlex.join(command)]

    def run(self, command: list[str], timeout_s: float = 60, input_text: str | None = None,
            ) -> subprocess.CompletedProcess:
        """Run to completion; HostError when ssh itself failed (not when the command did)."""
        try:
            done = subprocess.run(self.argv(command), capture_output=True, text=True,
                                  timeout=timeout_s, input=input_text,
                                  stdin=None if input_text is not None else subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise HostError(f"{self.host.target}: `{shlex.join(command)[:120]}` did not finish "
                            f"within {timeout_s:g} s") from None
        if done.returncode == SSH_FAILED and not done.stdout:
            raise HostError(classify(self.host, done.stderr))
        return done

    def popen(self, command: list[str]) -> subprocess.Popen:
        """A long-running command with pipes; its stdin closing is its signal to stop."""
        return subprocess.Popen(self.argv(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)

    def rsync_shell(self) -> str:
        return shlex.join(["ssh", *self.options()])

    def close(self) -> None:
        subprocess.run(["ssh", *self.options(), "-O", "exit", self.host.target],
                       capture_output=True, timeout=10)
        shutil.rmtree(self._control, ignore_errors=True)
