"""concbench's agent on a remote host: run there as
`python3 -m concbench.remote.agent COMMAND [ARG]` (PYTHONPATH=<workdir>/harness), over SSH.

Standard library only, so a host needs python3 >= 3.11 and nothing from PyPI. It speaks JSON
lines on stdout. Its standard input is its lifeline: when the SSH session ends (the harness
was interrupted, failed or timed out) stdin closes, and the agent stops what it started
(SIGTERM, SIGKILL after the grace, the process group swept) before it exits; a killed agent's
children die by PR_SET_PDEATHSIG (the native sampler's guard, setpriv for commands).

Commands: check, machine, build TOOLCHAIN, serve SPEC, exec SPEC, load SPEC (remote.agent_load),
echo SPEC, rtt SPEC, free-port ADDRESS (SPEC is a JSON object).
"""

from __future__ import annotations

import json
import os
import platform
import select
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from dataclasses import asdict
from typing import Any

from concbench import machine, manifest, paths, tools
from concbench.remote import agent_load
from concbench.build import Builder
from concbench.proc.launch import contender_env, contender_head
from concbench.proc.process import ProcessOutcome
from concbench.server import backend
from concbench.server.loadgen.base import LoadError, pinned, run_measured
from concbench.server.process import LocalServer

_out_lock = threading.Lock()
TOOLS = ("taskset", "setpriv", "wrk", "iperf3", "cc", "rsync")


def emit(message: dict[str, Any]) -> None:
    with _out_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def die_with_stdin(folder: str | None = None) -> None:
    """Exit (children die by pdeathsig) once the harness's end of the session closes, the
    command's temporary `folder` removed first (os._exit skips every clean-up). A session
    closed before the command started (the harness interrupted while the host's shell was
    starting it) ends it here, before it starts anything: a child forked while this exits can
    miss its parent-death signal and outlive the run."""
    def leave() -> None:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        os._exit(1)

    def watch() -> None:
        sys.stdin.read()
        leave()

    stdin = sys.stdin.fileno()
    if select.select([stdin], [], [], 0)[0] and os.read(stdin, 1) == b"":
        leave()
    threading.Thread(target=watch, daemon=True).start()


def check(_arg: str | None) -> None:
    """The host's python, CPUs and tools; oha (a crate) from the workdir's cache or PATH."""
    oha = tools.path("oha") or shutil.which("oha")
    emit({"python": platform.python_version(), "hostname": platform.node(),
          "cpus": sorted(os.sched_getaffinity(0)),
          "tools": {**{t: shutil.which(t) for t in TOOLS}, "oha": str(oha) if oha else None}})


def describe_machine(_arg: str | None) -> None:
    emit(machine.describe())


def build(name: str | None) -> None:
    """Build one toolchain (a contender's, or the latency backend's) with the same recipe
    and the same content-keyed cache as on the harness's machine."""
    if name == backend.TOOLCHAIN.name:
        tc = backend.TOOLCHAIN
    else:
        found = {c.toolchain.name: c.toolchain for c in manifest.discover(
            paths.contenders_dir()).values()}
        if name not in found:
            emit({"ok": False, "reason": f"no toolchain {name!r} in {paths.contenders_dir()}"})
            return
        tc = found[name]
    lines: list[str] = []
    outcome = Builder(paths.cache_dir(), say=lines.append).ensure(tc)
    emit({"ok": outcome.ok, "reason": outcome.reason, "versions": outcome.versions,
          "cached": outcome.cached, "seconds": outcome.seconds, "log": lines})


def _server_argv(spec: dict[str, Any]) -> tuple[list[str], Any, dict[str, str]]:
    """argv, working folder and environment of what `serve` starts."""
    cpus = tuple(spec.get("cpus") or ())
    if spec["kind"] == "backend":
        outcome = Builder(paths.cache_dir()).ensure(backend.TOOLCHAIN)
        if not outcome.ok:
            raise OSError(f"latency backend unavailable there: {outcome.reason}")
        exe = backend.FOLDER / backend.TOOLCHAIN.outputs[0]
        return pinned([str(exe), *spec["args"]], cpus), backend.FOLDER, dict(os.environ)
    contender = manifest.discover(paths.contenders_dir())[spec["contender"]]
    outcome = Builder(paths.cache_dir()).ensure(contender.toolchain)
    if not outcome.ok or outcome.tools is None:
        raise OSError(f"{contender.name} unavailable there: {outcome.reason}")
    head = contender_head(contender, outcome.tools)
    argv = pinned([*head, spec["workload"], *spec["args"]], cpus)
    return argv, contender.toolchain.folder, contender_env(contender, outcome.tools)


def outcome_dict(out: ProcessOutcome) -> dict[str, Any]:
    d = asdict(out)
    d["samples"] = [[s.t_s, s.rss_bytes, s.threads, s.cpu_s] for s in out.samples]
    return d


def serve(arg: str | None) -> None:
    """Start a server and answer the harness's requests about it until told to stop."""
    spec = json.loads(arg or "{}")
    try:
        argv, cwd, env = _server_argv(spec)
        proc = LocalServer(argv, cwd, env, tuple(spec.get("cpus") or ()), spec["bind"],
                           spec.get("rss_limit"),
                           on_message=lambda m: emit({"type": "message", "message": m}))
        proc.start()
    except (OSError, KeyError) as err:
        emit({"type": "error", "error": f"cannot start: {err}"})
        return
    emit({"type": "started", "pid": proc.pid, "argv": argv})

    def exited() -> None:
        proc.exited.wait()
        emit({"type": "exited", "limit_hit": proc.limit_hit})
    threading.Thread(target=exited, daemon=True).start()
    for line in sys.stdin:
        request = json.loads(line)
        reply = _answer(proc, request)
        emit({"type": "reply", "id": request.get("id"), **reply})
        if request["cmd"] == "outcome":
            return
    if not proc.exited.is_set():  # the harness went away: nothing it started stays
        proc.stop()
    proc.outcome()


def _answer(proc: LocalServer, request: dict[str, Any]) -> dict[str, Any]:
    cmd = request["cmd"]
    if cmd == "cpu":
        cpu, jit = proc.cpu_probe()
        return {"cpu_s": cpu, "jit_s": jit}
    if cmd == "begin":
        proc.begin_window()
        return {}
    if cmd == "end":
        proc.end_window()
        return {}
    if cmd == "bind":
        return {"problem": proc.bind_problem(int(request["port"]))}
    if cmd == "stderr":
        return {"text": proc.stderr_tail()}
    if cmd == "stop":
        return {"clean": proc.stop(int(request.get("sig", signal.SIGTERM)),
                                   float(request.get("grace_s", 5.0)))}
    if cmd == "outcome":
        out = proc.outcome()
        window = proc.window_measures(out)
        return {"outcome": outcome_dict(out), "window": window.to_dict() if window else None}
    return {"error": f"unknown request {cmd!r}"}


def execute(arg: str | None) -> None:
    """Run a command to completion (a load generator), measured by wait4; `{out}` in its
    argv or env names a fresh file whose contents come back as `output`."""
    spec = json.loads(arg or "{}")
    with tempfile.TemporaryDirectory(prefix="concbench-exec-") as tmp:
        die_with_stdin(tmp)
        out = os.path.join(tmp, "out")
        argv = [a.replace("{out}", out) for a in spec["argv"]]
        env = {**os.environ, **{k: v.replace("{out}", out) for k, v in spec["env"].items()}}
        try:
            done = run_measured(argv, float(spec["timeout_s"]), env)
        except LoadError as err:
            emit({"error": str(err)})
            return
        text = open(out).read() if os.path.exists(out) else None
    emit({"returncode": done.returncode, "stdout": done.stdout[-65536:],
          "stderr": done.stderr[-65536:], "cpu_s": done.cpu_s, "wall_s": done.wall_s,
          "output": text})


def echo(arg: str | None) -> None:
    """A TCP echo service for round-trip measurement, until stdin closes."""
    spec = json.loads(arg or "{}")
    die_with_stdin()
    server = socket.create_server((spec["bind"], int(spec["port"])), reuse_port=False)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    emit({"type": "ready", "port": server.getsockname()[1]})

    def serve_one(conn: socket.socket) -> None:
        with conn:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while data := conn.recv(64):
                conn.sendall(data)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve_one, args=(conn,), daemon=True).start()


def rtt(arg: str | None) -> None:
    """Round trips of one byte to an echo service: connect time and `count` echoes."""
    spec = json.loads(arg or "{}")
    t0 = time.perf_counter()
    try:
        conn = socket.create_connection((spec["host"], int(spec["port"])), timeout=10)
    except OSError as err:
        emit({"error": f"cannot connect to {spec['host']}:{spec['port']}: {err}"})
        return
    connect_ms = (time.perf_counter() - t0) * 1000
    samples = []
    with conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(int(spec.get("count", 20))):
            t = time.perf_counter()
            conn.sendall(b"x")
            if not conn.recv(1):
                break
            samples.append((time.perf_counter() - t) * 1000)
    emit({"connect_ms": connect_ms, "rtt_ms": samples})


def free_port(address: str | None) -> None:
    with socket.socket() as s:
        s.bind((address or "127.0.0.1", 0))
        emit({"port": s.getsockname()[1]})


def load(arg: str | None) -> None:
    agent_load.load(arg, emit)


COMMANDS = {"check": check, "machine": describe_machine, "build": build, "serve": serve,
            "exec": execute, "load": load, "echo": echo, "rtt": rtt, "free-port": free_port}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(f"concbench agent: commands are {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    COMMANDS[argv[0]](argv[1] if len(argv) > 1 else None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
