"""Agent commands that need their session open while they work (their stdin is their
lifeline), on a remote host or on this machine, and the generator runner built on them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import Any

from concbench import paths
from concbench.remote.remote_host import RemoteHost
from concbench.remote.ssh import HostError, classify
from concbench.server.loadgen.base import Finished, LoadError


def agent_popen(remote: RemoteHost | None, command: str, arg: Any) -> subprocess.Popen:
    """The agent's command over SSH, or as a child of this process when remote is None."""
    if remote is not None:
        return remote.popen(command, arg)
    env = {**os.environ, "PYTHONPATH": str(paths.REPO_ROOT / "harness")}
    return subprocess.Popen([sys.executable, "-m", "concbench.remote.agent", command,
                             json.dumps(arg)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, start_new_session=True)


def _where(remote: RemoteHost | None) -> str:
    return remote.host.target if remote else "this machine"


def _first_line(proc: subprocess.Popen, remote: RemoteHost | None, timeout_s: float,
                what: str) -> dict[str, Any]:
    assert proc.stdout is not None
    timer = threading.Timer(timeout_s, proc.kill)
    timer.start()
    try:
        line = proc.stdout.readline()
    finally:
        timer.cancel()
    if not line:
        proc.wait()
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if remote is not None and proc.returncode == 255:
            raise HostError(classify(remote.host, err))
        raise HostError(f"agent {what} on {_where(remote)} gave no answer (exit "
                        f"{proc.returncode}): {err.strip()[-300:] or 'no message'}")
    return json.loads(line)


def end_session(proc: subprocess.Popen, grace_s: float = 15) -> None:
    """Close the agent's stdin (its signal to stop what it started) and wait for it."""
    try:
        if proc.stdin:
            proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def call(remote: RemoteHost | None, command: str, arg: Any, timeout_s: float) -> dict[str, Any]:
    """Run an agent command to its one-line answer, its session open meanwhile."""
    proc = agent_popen(remote, command, arg)
    try:
        return _first_line(proc, remote, timeout_s, command)
    finally:
        end_session(proc)


class Background:
    """An agent command that runs until this context ends (an echo service, an iperf3
    server): entered once it has said it is ready (its first line)."""

    def __init__(self, remote: RemoteHost | None, command: str, arg: Any,
                 ready_timeout_s: float = 30, wait_ready: bool = True):
        self._args = (remote, command, arg, ready_timeout_s, wait_ready)
        self.proc: subprocess.Popen | None = None
        self.ready: dict[str, Any] = {}

    def __enter__(self) -> "Background":
        remote, command, arg, timeout_s, wait_ready = self._args
        self.proc = agent_popen(remote, command, arg)
        if wait_ready:
            try:
                self.ready = _first_line(self.proc, remote, timeout_s, command)
            except BaseException:
                end_session(self.proc)
                raise
        return self

    def answer(self, timeout_s: float) -> dict[str, Any]:
        assert self.proc is not None
        return _first_line(self.proc, self._args[0], timeout_s, self._args[1])

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            end_session(self.proc)


class RemoteRunner:
    """Load generators on a remote client host (server.loadgen.base.CommandRunner)."""

    def __init__(self, remote: RemoteHost):
        self.remote = remote
        self.host = remote.host.name

    def path(self, local) -> str:
        return self.remote.path(local)

    def run(self, argv: list[str], timeout_s: float, env: dict[str, str]) -> Finished:
        oha = self.remote.checked.get("tools", {}).get("oha")
        argv = [oha if a == "oha" and oha else a for a in argv]  # the host's own oha
        try:
            reply = call(self.remote, "exec", {"argv": argv, "env": env, "timeout_s": timeout_s},
                         timeout_s + 60)
        except HostError as err:
            raise LoadError(str(err)) from None
        if "error" in reply:
            raise LoadError(f"on {self.host}: {reply['error']}")
        return Finished(reply["returncode"], reply["stdout"], reply["stderr"], reply["cpu_s"],
                        reply["wall_s"], reply["output"])
