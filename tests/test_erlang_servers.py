"""The Erlang servers on every stack (issues 26 and 45): the hand-written gen_tcp loop (`erlang`),
OTP's inets httpd (`erlang-inets`, chosen by --server=inets) and Yaws in embedded mode
(`erlang-yaws`, --server=yaws) answer the contract's routes alike, bad ids and unknown paths with
the same 404 body, keep the connection open after a 200 (httpd's request handler closes it on any
exit signal, such as a finished linked call's), and stop with exit 0 on SIGTERM. Yaws reports the
settings it runs with, read back from the running server, and writes no log file."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from http_answers import free_port as _free_port
from http_answers import get as _get
from http_answers import twice_on_one_connection as _twice_on_one_connection

pytestmark = pytest.mark.answers_only  # single requests, no load: beside the measuring tests

FOLDER = Path(__file__).resolve().parent.parent / "contenders" / "erlang"
BAD_PATHS = ["/user/0", "/user/-1", "/user/+5", "/user/1.5", "/user/abc", "/user/9007199254740992",
             "/user/", "/user/1x", "/user/99999999999999999999", "/nope", "/hello/x"]
"""docs/contract.md's "Error answers": not a route, or an id outside 1 to 2^53 - 1: 404."""


def _start(server: str, workload: str, port: int) -> tuple[subprocess.Popen, dict]:
    params = {"http-hello": ["--pool-size=0"],
              "http-aggregate": ["--base-ms=1", "--detail-ms=1", "--extra-ms=1", "--downstream=inproc",
                                 "--backend-host=127.0.0.1", "--backend-port=0", "--pool-size=0"]}
    proc = subprocess.Popen([str(FOLDER / "run-erlang"), f"--server={server}", workload, f"--port={port}",
                             "--bind=127.0.0.1", *params[workload]],
                            cwd=FOLDER, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = json.loads(proc.stdout.readline())
    assert ready["type"] == "ready" and ready["port"] == port, ready
    return proc, ready["runtime"]


STACKS = ("gen_tcp", "inets", "yaws")
SERVER_NAMES = {"gen_tcp": "gen_tcp", "inets": "inets httpd", "yaws": "yaws embedded"}
"""--server= of each stack, and how its ready line's runtime.server begins."""


def _logs(folder: Path) -> list[str]:
    """Log files a server left in its folder (Yaws' default logdir and docroot are "." and www:
    <server>.access, <server>.auth and report.log; httpd's error_log/transfer_log)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.suffix in (".access", ".auth", ".log") or p.name.endswith("_log"))


def _answers(server: str, workload: str, paths: list[str]) -> tuple[dict, dict]:
    port = _free_port()
    before = _logs(FOLDER)
    proc, runtime = _start(server, workload, port)
    try:
        answers = {p: _get(port, p) for p in paths}
        answers["POST /hello"] = _get(port, "/hello", "POST")
        answers["keep-alive"] = _twice_on_one_connection(port, paths[0])
        answers["keep-alive after 404"] = _twice_on_one_connection(port, "/nope")
        if workload == "http-aggregate":
            for path in ("/user/007", "/user/9007199254740991"):
                answers[path] = _get(port, path)
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
    stderr = proc.stderr.read()
    assert code == 0, stderr[-2000:]
    # nothing per request (Yaws' one start-up report aside): the SIGTERM notice ends stderr
    assert stderr.strip().endswith("concbench-erlang: SIGTERM received, halting"), stderr[-2000:]
    assert not any(p in stderr for p in ("GET", "/hello", "/user/", "/nope")), stderr[-2000:]
    assert _logs(FOLDER) == before  # no access, auth or error log (Yaws writes them by default)
    return answers, runtime


@pytest.fixture(scope="module")
def erlang_built(real_bench):
    res = real_bench("build", "--contender", "erlang")
    if " not found" in res.stdout + res.stderr:
        pytest.skip("erl is not installed (apt-get install -y erlang-inets)")
    assert res.code == 0, res.stderr[-2000:]


@pytest.mark.parametrize("workload, good", [("http-hello", "/hello"), ("http-aggregate", "/user/42")])
def test_every_stack_answers_alike_and_bad_ids_are_404(erlang_built, processes, workload, good):
    by_stack = {s: _answers(s, workload, [good, *BAD_PATHS]) for s in STACKS}
    for stack, (_, runtime) in by_stack.items():
        assert runtime["server"].startswith(SERVER_NAMES[stack]), (stack, runtime)
    gen_tcp = by_stack["gen_tcp"][0]
    for stack in STACKS[1:]:
        assert by_stack[stack][0] == gen_tcp, stack
    assert gen_tcp[good][0] == 200
    for path in BAD_PATHS:
        assert gen_tcp[path] == (404, "text/plain", b"not found\n"), path
    assert gen_tcp["POST /hello"] == (405, "text/plain", b"method not allowed\n")
    assert gen_tcp["keep-alive"] == [200, 200]
    assert gen_tcp["keep-alive after 404"] == [404, 404]
    if workload == "http-aggregate":
        for path, id_ in (("/user/007", 7), ("/user/9007199254740991", 2**53 - 1)):
            status, _, body = gen_tcp[path]
            assert status == 200 and json.loads(body)["id"] == id_, (path, body)
            assert json.loads(body)["name"] == f"User-{id_}"


def test_yaws_reports_the_settings_it_runs_with(erlang_built, processes):
    """The ready line's yaws_config is read back from the running Yaws (yaws_api:getconf), so a
    setting that did not take shows there: every log off, the listen options, the limits."""
    _, runtime = _answers("yaws", "http-hello", ["/hello"])
    assert runtime["yaws"] == "2.1.1", runtime
    assert runtime["yaws_config"] == {
        "appmods": "/ -> concbench_yaws", "acceptor_pool_size": 8, "max_connections": "nolimit",
        "keepalive_timeout_ms": 60000, "keepalive_maxuses": "nolimit", "backlog": 4096,
        "nodelay": True, "access_log": False, "auth_log": False, "deflate": False,
        "copy_error_log": False, "process_options": "[]"}, runtime


def test_an_unknown_stack_is_bad_input(erlang_built):
    done = subprocess.run([str(FOLDER / "run-erlang"), "--server=cowboy", "http-hello", "--port=1",
                           "--bind=127.0.0.1", "--pool-size=0"], cwd=FOLDER, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "want gen_tcp, inets or yaws" in done.stderr, done.stderr
    assert not done.stdout
