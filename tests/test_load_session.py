"""The agent's armed generator (remote.agent_load) through its session
(remote.load_session), run on this machine: armed, the clock's offset known, started on the
word, its first request seen, its CPU read while it runs, its log of every response back,
and a generator killed midway reported as such."""

from __future__ import annotations

import http.server
import os
import signal
import threading
import time

import pytest

from concbench import tools
from concbench.remote.load_session import LoadSession
from concbench.server.loadgen.base import LoadError


class _Hello(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        body = b"x" * 200
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hello():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hello"
    server.shutdown()
    server.server_close()


def _argv(url: str, seconds: int) -> list[str]:
    return [str(tools.path("oha")), "-z", f"{seconds}s", "-c", "2", "--no-tui",
            "--output-format", "csv", "--worker-threads", "1", "-q", "50",
            "--latency-correction", url]


def test_an_armed_generator_starts_on_the_word_and_logs_every_response(wrk, hello,
                                                                        processes):
    session = LoadSession(None, _argv(hello, 2), 30)
    try:
        session.arm()
        assert abs(session.offset_s) <= session.uncertainty_s  # one clock here
        went = session.go()
        first = session.wait_started()
        assert first >= went
        run = session.finish()
    finally:
        session.close()
    assert run.failure() is None, run.stderr
    rows = run.log.decode().splitlines()
    assert rows[0].startswith("request-start,") and len(rows) > 50
    assert run.cpu_samples and run.cpu_s is not None and run.cpu_s > 0
    assert run.spawned_s <= run.first_sent_s <= run.ended_s
    log, shift = run.request_log()
    assert log.first_write_s == pytest.approx(run.first_sent_s)


def test_a_generator_killed_midway_is_reported_with_its_signal(wrk, hello, processes):
    session = LoadSession(None, _argv(hello, 20), 60)
    try:
        session.arm()
        session.go()
        session.wait_started()
        pid = session._started["pid"]
        time.sleep(0.3)
        os.kill(pid, signal.SIGKILL)
        run = session.finish()
    finally:
        session.close()
    assert run.failure() == "oha ended by signal 9"


def test_a_missing_generator_is_refused_before_it_is_armed(processes):
    session = LoadSession(None, ["no-such-generator-46", "-z", "1s"], 30)
    try:
        with pytest.raises(LoadError, match="no-such-generator-46 not found"):
            session.arm()
    finally:
        session.close()
