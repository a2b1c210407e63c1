"""Server runs end to end with fake servers (tests/fake/server.py) and real wrk: the lifecycle,
each failure recorded with its status before or during load, and no process left behind."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.usefixtures("wrk")

LOAD = ["--param", "connections=8", "--param", "duration-s=1", "--param", "warmup-s=0",
        "--runs", "1"]


def _cell(doc: dict) -> dict:
    assert len(doc["cells"]) == 1, [c["contender"] for c in doc["cells"]]
    return doc["cells"][0]


def _leftovers(root: Path) -> list[str]:
    """Processes still running from this test's folder (fake servers, their children)."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "status"]):
        cmd = " ".join(proc.info["cmdline"] or [])
        if str(root) in cmd and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(f"{proc.info['pid']}: {cmd}")
    return found


def test_a_good_server_is_loaded_measured_and_stopped(fake_bench):
    res = fake_bench("run", "http-hello", "--contender", "fake-server", *LOAD)
    assert res.code == 0, res.stderr
    cell = _cell(fake_bench.last())
    assert cell["status"] == "ok", cell["reason"]
    run = cell["runs"][0]
    load = run["load"]
    for key in ("requests_per_s", "latency_ms", "errors", "percentiles", "cpu_percent",
                "requests", "duration_s", "command"):
        assert key in load, key
    assert set(load["latency_ms"]) >= {"p50", "p90", "p99", "p999", "max"}
    assert load["requests"] > 0 and load["requests_per_s"] > 0
    assert load["latency_ms"]["p50"] <= load["latency_ms"]["p99"] <= load["latency_ms"]["max"]
    assert load["percentiles"][-1][0] == 100.0 and load["percentiles"][-1][1] > 0
    server = run["server"]
    assert server["verification"][0]["status"] == 200
    assert server["stop"] == {**server["stop"], "signal": "SIGTERM", "killed": False,
                              "exit_code": 0}
    assert server["window"]["cpu_s"] >= 0 and server["window"]["peak_fds"] >= 8
    assert server["runtime"] == {"cpus": 1} and run["startup_s"] > 0
    assert cell["stats"]["requests_per_s"]["n"] == 1
    assert "requests/s" in res.stdout and "fake-server" in res.stdout
    assert _leftovers(fake_bench.root) == []


def test_a_wrong_body_is_invalid_before_any_load(fake_bench):
    fake_bench("run", "http-hello", "--contender", "fake-server-wrongbody", *LOAD)
    cell = _cell(fake_bench.last())
    assert cell["status"] == "invalid"
    assert "body of 199 bytes" in cell["reason"] and cell["runs"][0]["load"] is None
    assert _leftovers(fake_bench.root) == []


def test_a_server_listening_on_every_interface_is_invalid_before_any_load(fake_bench):
    fake_bench("run", "http-hello", "--contender", "fake-server-wildcard", *LOAD)
    cell = _cell(fake_bench.last())
    assert cell["status"] == "invalid" and "listens on 0.0.0.0" in cell["reason"]
    assert cell["runs"][0]["load"] is None
    assert _leftovers(fake_bench.root) == []


def test_listen_addresses_are_read_from_proc_net(tmp_path):
    from concbench.server.listen_check import bind_problem, listening

    header = "  sl  local_address rem_address   st tx_queue rx_queue\n"
    (tmp_path / "tcp").write_text(header +
        "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000\n"      # 127.0.0.1:8080 LISTEN
        "   1: 00000000:1F91 00000000:0000 0A 00000000:00000000\n"      # 0.0.0.0:8081 LISTEN
        "   2: 0100007F:1F92 0100007F:D431 01 00000000:00000000\n")     # established, not LISTEN
    (tmp_path / "tcp6").write_text(header +
        "   0: 0000000000000000FFFF00000100007F:1F93 00000000000000000000000000000000:0000 0A x\n"
        "   1: 00000000000000000000000000000000:1F94 00000000000000000000000000000000:0000 0A x\n")
    assert listening(8080, tmp_path) == ["127.0.0.1"]
    assert listening(8081, tmp_path) == ["0.0.0.0"]
    assert listening(8082, tmp_path) == []
    assert listening(8083, tmp_path) == ["::ffff:127.0.0.1"]
    assert listening(8084, tmp_path) == ["::"]
    assert bind_problem(1) is None  # nothing listens on port 1 here


@pytest.mark.answers_only  # no load: three seconds of waiting for a ready line
def test_a_server_that_never_gets_ready_is_stopped(fake_bench):
    fake_bench("run", "http-hello", "--contender", "fake-server-noready", *LOAD,
               "--timeout", "3")
    cell = _cell(fake_bench.last())
    assert cell["status"] == "timeout" and "not ready within 3 s" in cell["reason"]
    assert _leftovers(fake_bench.root) == []


def test_a_crash_under_load_is_a_crash_with_its_stderr(fake_bench):
    fake_bench("run", "http-hello", "--contender", "fake-server-crashload",
               "--param", "connections=8", "--param", "duration-s=3", "--param", "warmup-s=0",
               "--runs", "1")
    cell = _cell(fake_bench.last())
    assert cell["status"] == "crash"
    assert "simulated crash under load" in cell["reason"], cell["reason"]
    assert _leftovers(fake_bench.root) == []


def test_a_server_faster_than_its_latency_floor_is_invalid(fake_bench):
    fake_bench("run", "http-aggregate", "--contender", "fake-server-fast", *LOAD,
               "--param", "base-ms=20", "--param", "detail-ms=10", "--param", "extra-ms=30")
    cell = _cell(fake_bench.last())
    assert cell["status"] == "invalid" and "below the latency floor of 50 ms" in cell["reason"]


def test_aggregate_verifies_json_bounds_and_downstream_calls(fake_bench):
    for mode in ("inproc", "http"):
        res = fake_bench("run", "http-aggregate", "--contender", "fake-server", *LOAD,
                         "--param", "base-ms=10", "--param", "detail-ms=10",
                         "--param", "extra-ms=20", "--param", f"downstream={mode}")
        assert res.code == 0, res.stderr
        cell = _cell(fake_bench.last())
        assert cell["status"] == "ok", cell["reason"]
        run = cell["runs"][0]
        checks = run["server"]["verification"]
        assert len(checks) == 2 and all(c["elapsed_ms"] >= 30 for c in checks)
        bounds = cell["metadata"]["bounds"]
        assert bounds["latency_floor_ms"] == 30 and bounds["tightest"] == "connections"
        assert bounds["ceilings"][0]["requests_per_s"] == pytest.approx(8 / 0.030)
        assert cell["ideal_s"] == pytest.approx(0.030) and 0 < cell["efficiency"] <= 1.05
        if mode == "http":
            assert all(c["downstream_calls"] == 3 for c in checks)
            assert run["backend"]["requests_in_window"] > 0
        else:
            assert run["backend"] is None
    assert _leftovers(fake_bench.root) == []


@pytest.mark.answers_only  # a second of light load, then five of waiting for an exit
def test_a_server_ignoring_sigterm_is_killed_with_a_warning(fake_bench):
    fake_bench("run", "http-hello", "--contender", "fake-server-ignoreterm", *LOAD)
    cell = _cell(fake_bench.last())
    assert cell["status"] == "ok"
    assert cell["runs"][0]["server"]["stop"]["killed"] is True
    assert any("did not exit within 5 s of SIGTERM" in w for w in cell["warnings"])
    assert _leftovers(fake_bench.root) == []


def test_too_many_connections_for_the_fd_limit_is_bad_input(fake_bench):
    """Under an open-file limit of 4096 (set for this run: the machine's own may be higher
    than the parameter's maximum), 4096 connections cannot be opened: exit 2 before a run."""
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 4096))

    done = subprocess.run([sys.executable, "-m", "concbench", "run", "http-hello",
                           "--contender", "fake-server", "--param", "connections=4096"],
                          env=fake_bench.env, capture_output=True, text=True, timeout=120,
                          preexec_fn=limit)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "this machine allows 4096" in done.stderr
    assert fake_bench.results() == []


def test_a_steady_warm_up_is_recorded_window_by_window(fake_bench):
    res = fake_bench("run", "http-hello", "--contender", "fake-server", "--param",
                     "connections=8", "--param", "duration-s=1", "--param", "warmup-s=8",
                     "--param", "warmup-window-s=1", "--param", "warmup-steady-pct=100",
                     "--runs", "1")
    assert res.code == 0, res.stderr
    cell = _cell(fake_bench.last())
    assert cell["status"] == "ok", cell["reason"]
    warmup = cell["runs"][0]["server"]["warmup"]
    assert warmup["mode"] == "steady" and warmup["settled"] is True
    windows = len(warmup["windows"])  # four at least, more if a busy host shook the rate
    assert 4 <= windows < 8 and warmup["seconds"] == windows, warmup
    assert all(w["requests_per_s"] > 0 and w["jit_cpu_s"] is None for w in warmup["windows"])
    assert cell["stats"]["warmup_s"]["median"] == windows and "warm-up" in res.stdout


@pytest.mark.parametrize("loadgen", ["wrk", "oha"])
def test_a_warm_up_that_cannot_settle_in_its_cap_is_recorded(fake_bench, loadgen):
    """A generator per window: the unsettled warm-up is the run's verdict (a warning, not
    ranked). One continuous load: the measured window's own verdict is (server.steadiness),
    and the warm-up that hit its cap is recorded, not warned about."""
    res = fake_bench("run", "http-hello", "--contender", "fake-server", "--param",
                     "connections=8", "--param", "duration-s=1", "--param", "warmup-s=2",
                     "--param", "warmup-window-s=1", "--param", f"loadgen={loadgen}",
                     "--runs", "1")
    assert res.code == 0, res.stderr
    cell = _cell(fake_bench.last())
    assert cell["status"] == "ok"
    server = cell["runs"][0]["server"]
    assert server["warmup"]["settled"] is False
    warned = any("did not settle within 2 s" in w for w in cell["warnings"])
    assert warned == (loadgen == "wrk"), cell["warnings"]
    assert (server["steadiness"] is None) == (loadgen == "wrk")
