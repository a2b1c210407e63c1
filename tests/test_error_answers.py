"""docs/contract.md's "Error answers" on the JVM, Node, Python and Yaws servers (issues 26 and
45): a bad /user/ id or an unknown path is 404, never 400 and never 200; ids from 1 to 2^53 - 1
(leading zeros allowed) are served; every error answer carries Content-Length (no chunked
encoding) and leaves the keep-alive connection open. Each server runs from its manifest's command
line on 127.0.0.1 and is stopped with SIGTERM."""

from __future__ import annotations

import http.client
import json
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Callable, TypeVar

import pytest
from http_answers import free_port as _free_port, pipelined

from concbench import manifest

pytestmark = pytest.mark.answers_only  # single requests, no load: beside the measuring tests
T = TypeVar("T")
CONTENDERS_DIR = Path(__file__).resolve().parent.parent / "contenders"
SERVERS = ["kotlin-coroutines", "kotlin-coroutines-cio", "java-platform", "java-virtual",
           "spring-mvc", "spring-webflux", "spring-mvc-boot3", "spring-webflux-boot3",
           "java-helidon", "node", "python-asyncio", "python-uvloop", "erlang-yaws"]
BAD_PATHS = ["/user/0", "/user/-1", "/user/+5", "/user/1.5", "/user/abc", "/user/1x", "/user/",
             "/user/9007199254740992", "/user/99999999999999999999", "/user/1/x", "/nope"]
GOOD_IDS = {"/user/42": 42, "/user/007": 7, "/user/9007199254740991": 9007199254740991}
AGGREGATE = ["--base-ms=1", "--detail-ms=1", "--extra-ms=1", "--downstream=inproc",
             "--backend-host=127.0.0.1", "--backend-port=0", "--pool-size=4"]




def _command(name: str, java: Path) -> tuple[Path, list[str]]:
    contender = manifest.discover(CONTENDERS_DIR)[name]
    tools = {"{java}": str(java), "{node}": shutil.which("node") or "node"}
    argv = [tools.get(a, a) for a in contender.run]
    if (contender.toolchain.folder / argv[0]).is_file():  # a script of the folder (run-erlang)
        argv[0] = str(contender.toolchain.folder / argv[0])
    return contender.toolchain.folder, argv


def _get(conn: http.client.HTTPConnection, path: str) -> tuple[int, dict[str, str], bytes]:
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    assert not resp.will_close, (path, resp.getheaders())  # the connection stays open
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


def _serve(name: str, java: Path, ask: Callable[[int], T]) -> T:
    """ask(port) of one freshly started server (http-aggregate), then SIGTERM."""
    folder, head = _command(name, java)
    port = _free_port()
    proc = subprocess.Popen([*head, "http-aggregate", f"--port={port}", "--bind=127.0.0.1",
                             *AGGREGATE], cwd=folder, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready["type"] == "ready" and ready["port"] == port, ready
        return ask(port)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _answers(name: str, java: Path) -> dict[str, tuple[int, dict[str, str], bytes]]:
    """Every path's answer from one server, all on one keep-alive connection."""
    def ask(port: int) -> dict[str, tuple[int, dict[str, str], bytes]]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        try:
            return {path: _get(conn, path) for path in [*GOOD_IDS, *BAD_PATHS]}
        finally:
            conn.close()
    return _serve(name, java, ask)


@pytest.fixture(scope="module")
def built(real_bench):
    names = [arg for name in SERVERS for arg in ("--contender", name)]
    res = real_bench("build", *names, timeout=1800)
    if " not found" in res.stdout + res.stderr:
        pytest.skip(f"a toolchain is missing here: {res.stdout[-500:]}")
    assert res.code == 0, res.stdout[-2000:] + res.stderr[-2000:]


@pytest.mark.parametrize("name", SERVERS)
def test_bad_ids_and_unknown_paths_are_404_with_a_length(built, processes, jdk25, name):
    answers = _answers(name, jdk25 / "bin" / "java")
    for path, user_id in GOOD_IDS.items():
        status, _, body = answers[path]
        assert status == 200 and json.loads(body)["id"] == user_id, (path, status, body[:200])
    for path in BAD_PATHS:
        status, headers, body = answers[path]
        assert status == 404, (path, status, body[:200])
        assert "content-length" in headers and "transfer-encoding" not in headers, (path, headers)
        assert int(headers["content-length"]) == len(body), (path, headers)


@pytest.mark.parametrize("name", ["spring-webflux", "spring-webflux-boot3"])
def test_a_request_after_pipelined_ones_is_read_by_spring_webflux(built, processes, jdk25, name):
    """reactor-netty#4361: after a request queued behind another (/user/42 and /user/0 in one
    write) was answered at once, the connection was never read again, so /user/-1 hung on every
    try. Fixed in Reactor Netty 1.3.8 (spring-webflux, Boot 4.1: no workaround); worked around
    on Boot 3.5's 1.2.18 (spring-webflux-boot3: KeepAliveReadWorkaround)."""
    statuses = _serve(name, jdk25 / "bin" / "java", lambda port: pipelined(
        port, [["/user/42", "/user/0"], ["/user/-1"]]))
    assert statuses == [200, 404, 404]
