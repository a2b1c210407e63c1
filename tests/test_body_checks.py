"""Bodies under load, checked one by one: each logged response's size against what a correct
body can be (server.load_checks.each_body_problem), and the bodies the harness samples itself
during the window (server.body_sampler). The end-to-end cases with the fake servers are in
tests/test_load_verification.py."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest

from concbench.server import load_checks, request_log as rl
from concbench.server.body_sampler import BodySampler
from concbench.server.loadgen import LoadResult
from concbench.workloads import http_aggregate
from concbench.workloads.server import Response, resolve_bounds

REFERENCE_ID = 1001
REFERENCE = Response(200, {"content-type": "application/json"},
                     json.dumps(http_aggregate.expected_user(REFERENCE_ID)).encode(), 0.05)
PER_DIGIT = 2  # "id": <id> and "name": "User-<id>"


def _load(sizes: dict[int, int] | None) -> LoadResult:
    ok = sum((sizes or {1: 100}).values())
    return LoadResult(generator="oha", requests=ok, ok_requests=ok, duration_s=1.0,
                      requests_per_s=ok, latency_ms={}, percentiles=[], errors={}, cpu_s=0.0,
                      wall_s=1.0, cpus=(), command=[], corrected=False,
                      bytes_received=sum(s * n for s, n in (sizes or {}).items()),
                      bytes_counted="body", ok_body_sizes=sizes)


# -- each response's size ----------------------------------------------------------------------


def test_a_correct_body_may_be_as_short_as_a_one_digit_id_and_as_long_as_a_seven_digit_one():
    size = len(REFERENCE.body)  # id 1001: 4 digits, in two places
    low, high = load_checks.body_size_range(REFERENCE, 4, PER_DIGIT)
    assert (low, high) == (size - 2 * 3, size + 2 * 3)
    assert low == len(json.dumps(http_aggregate.expected_user(7)).encode())
    assert high == len(json.dumps(http_aggregate.expected_user(1_000_000)).encode())


def test_every_size_inside_passes_and_one_response_outside_fails():
    low, high = load_checks.body_size_range(REFERENCE, 4, PER_DIGIT)
    record, problem = load_checks.each_body_problem(_load({low: 40, high: 60}), REFERENCE, 4,
                                                    PER_DIGIT)
    assert problem is None and record == {"range": [low, high], "outside": 0}
    record, problem = load_checks.each_body_problem(
        _load({low: 40, high: 59, high + 1: 1}), REFERENCE, 4, PER_DIGIT)
    assert record["outside"] == 1
    assert problem is not None and problem.startswith("1 of 100 ok responses under load")
    assert f"1 of {high + 1} bytes" in problem
    _, problem = load_checks.each_body_problem(_load({0: 3, low - 1: 2, low: 95}), REFERENCE, 4,
                                               PER_DIGIT)
    assert problem is not None and "5 of 100" in problem


def test_a_generator_that_logs_no_sizes_gets_the_mean_check_only():
    assert load_checks.each_body_problem(_load(None), REFERENCE, 4, PER_DIGIT) == (None, None)


def test_the_log_counts_the_ok_responses_of_each_size():
    header = rl.HEADER
    rows = [f"{i * 0.01},0,0,0.001,0.001,{size},{status}"
            for i, (size, status) in enumerate([(200, 200)] * 7 + [(0, 200)] * 2 + [(5, 500)])]
    found = rl.span(rl.RequestLog.parse("\n".join([header, *rows]) + "\n"), 0.0, 1.0)
    assert found.ok_body_sizes == ((0, 2), (200, 7))  # the 500's body is not an ok one
    assert found.body_bytes == 7 * 200 + 5


# -- bodies sampled during the window ----------------------------------------------------------


class _Users(BaseHTTPRequestHandler):
    """/user/<id>; with `swap`, a connection's later answers name another user of the same id
    length (the same size)."""

    protocol_version = "HTTP/1.1"
    swap = False

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        uid = int(self.path.rsplit("/", 1)[1])
        self.seen = getattr(self, "seen", 0) + 1
        if self.swap and self.seen > 1:
            uid = uid - uid % 10 + (uid + 1) % 10
        body = json.dumps(http_aggregate.expected_user(uid)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(params=[False, True], ids=["honest", "swapping"])
def users(request: pytest.FixtureRequest) -> Iterator[tuple[tuple[str, int], bool]]:
    handler = type("Handler", (_Users,), {"swap": request.param})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield ("127.0.0.1", server.server_address[1]), request.param
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("keepalive", [True, False])
def test_samples_on_a_kept_connection_catch_a_server_that_answers_only_its_first_honestly(
        users, keepalive):
    target, swapping = users
    spec = http_aggregate.SPEC
    params = spec.resolve({})
    sampler = BodySampler(target, spec.server, params, resolve_bounds({}, params), keepalive,
                          every_s=0.01)
    sampler.begin()
    threading.Event().wait(0.3)
    sampler.stop()
    got = sampler.end()
    assert got.checked >= 5 and got.unanswered == 0, got
    if swapping and keepalive:  # every sample after the connection's first is wrong
        assert got.wrong == got.checked - 1, got
        assert got.problem() is not None and "id=" in got.problem()
    else:  # honest, or a fresh connection per sample: every first answer is honest
        assert got.wrong == 0 and got.problem() is None, got
