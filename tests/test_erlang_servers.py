"""The Erlang servers on both stacks (issue 26): the hand-written gen_tcp loop (`erlang`) and OTP's
inets httpd (`erlang-inets`, chosen by --server=inets) answer the contract's routes alike, bad
ids and unknown paths with the same 404 body, keep the connection open after a 200 (httpd's
request handler closes it on any exit signal, such as a finished linked call's), and stop with
exit 0 on SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from http_answers import free_port as _free_port
from http_answers import get as _get
from http_answers import twice_on_one_connection as _twice_on_one_connection

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






def _answers(server: str, workload: str, paths: list[str]) -> tuple[dict, dict]:
    port = _free_port()
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
    assert code == 0, proc.stderr.read()[-2000:]
    return answers, runtime


@pytest.fixture(scope="module")
def erlang_built(real_bench):
    res = real_bench("build", "--contender", "erlang")
    if " not found" in res.stdout + res.stderr:
        pytest.skip("erl is not installed (apt-get install -y erlang-inets)")
    assert res.code == 0, res.stderr[-2000:]


@pytest.mark.parametrize("workload, good", [("http-hello", "/hello"), ("http-aggregate", "/user/42")])
def test_both_stacks_answer_alike_and_bad_ids_are_404(erlang_built, processes, workload, good):
    by_stack = {s: _answers(s, workload, [good, *BAD_PATHS]) for s in ("gen_tcp", "inets")}
    assert by_stack["gen_tcp"][1]["server"].startswith("gen_tcp")
    assert by_stack["inets"][1]["server"].startswith("inets httpd")
    gen_tcp, inets = by_stack["gen_tcp"][0], by_stack["inets"][0]
    assert gen_tcp == inets
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


def test_an_unknown_stack_is_bad_input(erlang_built):
    done = subprocess.run([str(FOLDER / "run-erlang"), "--server=cowboy", "http-hello", "--port=1",
                           "--bind=127.0.0.1", "--pool-size=0"], cwd=FOLDER, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "want gen_tcp or inets" in done.stderr, done.stderr
    assert not done.stdout
