"""The Go and Rust servers on both their stacks (issue 26): go (net/http) beside go-fasthttp
(--server=fasthttp), rust-tokio (axum) beside rust-hyper (--server=hyper). Within a language
both stacks answer alike: the contract's route 200 (ids 1 to 2^53 − 1, leading zeros allowed),
every other id and every unknown path 404 (docs/contract.md, "Error answers": never a 400, never
a 200 for /user/0), another method on the route 405; a 200 and a 404 keep the connection open;
SIGTERM ends the process with exit 0. A stack the binary
does not know, or a stack named for a batch workload, is bad input (exit 2)."""

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

CONTENDERS = Path(__file__).resolve().parent.parent / "contenders"
BINARIES = {"go": CONTENDERS / "go" / "build" / "concbench-go",
            "rust": CONTENDERS / "rust" / "target" / "release" / "concbench-tokio"}
STACKS = {"go": ("net/http", "fasthttp"), "rust": ("axum", "hyper")}
BAD_PATHS = ["/user/0", "/user/abc", "/user/+5", "/user/", "/user/-1", "/user/1x", "/user/1.5",
             "/user/9007199254740992", "/user/99999999999999999999", "/user/1/x", "/nope",
             "/hello/x"]
GOOD_IDS = {"/user/007": 7, "/user/9007199254740991": 9007199254740991}
PARAMS = {"http-hello": ["--pool-size=0"],
          "http-aggregate": ["--base-ms=1", "--detail-ms=1", "--extra-ms=1", "--downstream=inproc",
                             "--backend-host=127.0.0.1", "--backend-port=0", "--pool-size=0"]}
BATCH = ["fanout", "--requests=1", "--concurrency=0", "--user-ms=0", "--orders-ms=0",
         "--prefs-ms=0", "--notifications-ms=0", "--pool-size=1", "--warmup=0", "--iterations=1"]


def _answers(lang: str, stack: str, workload: str, good: str) -> tuple[dict, dict]:
    """Every path's (status, content type, body) from one server process, then SIGTERM."""
    port = _free_port()
    proc = subprocess.Popen([str(BINARIES[lang]), f"--server={stack}", workload, f"--port={port}",
                             "--bind=127.0.0.1", *PARAMS[workload]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready["type"] == "ready" and ready["port"] == port, ready
        answers = {p: _get(port, p) for p in [good, *BAD_PATHS, *GOOD_IDS]}
        answers["POST"] = _get(port, good, "POST")
        answers["keep-alive"] = _twice_on_one_connection(port, good)
        answers["keep-alive 404"] = _twice_on_one_connection(port, "/user/0")
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
    assert code == 0, proc.stderr.read()[-2000:]
    return answers, ready["runtime"]


@pytest.fixture(scope="module")
def built(real_bench):
    res = real_bench("build", "--contender", "go", "--contender", "rust-tokio", timeout=1800)
    if " not found" in res.stdout + res.stderr:
        pytest.skip(f"a toolchain is missing here: {res.stdout[-500:]}")
    assert res.code == 0, res.stdout[-2000:] + res.stderr[-2000:]


@pytest.mark.parametrize("lang", ["go", "rust"])
@pytest.mark.parametrize("workload, good", [("http-hello", "/hello"), ("http-aggregate", "/user/42")])
def test_both_stacks_answer_alike_and_bad_ids_are_404(built, processes, lang, workload, good):
    by_stack = {s: _answers(lang, s, workload, good) for s in STACKS[lang]}
    standard, minimal = (by_stack[s][0] for s in STACKS[lang])
    assert by_stack[STACKS[lang][1]][1]["server"] == STACKS[lang][1]
    assert standard == minimal
    assert standard[good][0] == 200
    not_found = {standard[path] for path in BAD_PATHS}
    assert len(not_found) == 1 and next(iter(not_found))[0] == 404, standard
    assert standard["POST"][0] == 405
    assert standard["keep-alive"] == [200, 200]
    assert standard["keep-alive 404"] == [404, 404]
    for path, user_id in GOOD_IDS.items():
        if workload == "http-aggregate":
            assert standard[path][0] == 200 and json.loads(standard[path][2])["id"] == user_id, path
        else:
            assert standard[path][0] == 404, path


@pytest.mark.parametrize("lang, unknown", [("go", "gin"), ("rust", "actix")])
def test_an_unknown_stack_or_a_stack_for_a_batch_workload_is_bad_input(built, lang, unknown):
    for args in ([f"--server={unknown}", "http-hello", "--port=1", "--bind=127.0.0.1",
                  "--pool-size=0"], [f"--server={STACKS[lang][1]}", *BATCH]):
        done = subprocess.run([str(BINARIES[lang]), *args], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 2 and "--server" in done.stderr, (args, done.stderr)
        assert not done.stdout
